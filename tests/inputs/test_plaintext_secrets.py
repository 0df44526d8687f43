"""Credential classes a stack file may not hold in plain text (issue 34).

Token shapes from gitleaks' rules (config/gitleaks.toml: gitlab-pat, gcp-api-key,
huggingface-access-token); the values below are made-up strings of those shapes.
"""

from __future__ import annotations

from typing import Any

import pytest

from gpu_fabric.plan.plaintext_secrets import plaintext_problems

CLUSTER = "gpu-fabric:cluster"
HELM = "addons.gpu_operator.values"


@pytest.mark.parametrize(("config", "path"), [
    ({"team:dbPassword": "hunter2"}, "team:dbPassword"),
    ({"gpu-fabric:adminPassword": "hunter2"}, "gpu-fabric:adminPassword"),
    ({"team:awsSecretAccessKey": "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"},
     "team:awsSecretAccessKey"),
    ({CLUSTER: {"addons": {"gpu_operator": {"values": {"env": [
        {"name": "NGC_API_KEY", "value": "a" * 84}]}}}}},
     f"{CLUSTER}.{HELM}.env[0].value"),
    ({CLUSTER: {"addons": {"gpu_operator": {"values": {"env": [
        {"name": "AWS_SECRET_ACCESS_KEY",
         "value": "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"}]}}}}},
     f"{CLUSTER}.{HELM}.env[0].value"),
    ({"team:note": "glpat-" + "a1B2c3D4e5F6g7H8i9J0"}, "team:note"),
    ({"team:note": "AIza" + "SyA1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q"}, "team:note"),
    ({"team:note": "hf_" + "abcdefghijklmnopqrstuvwxyzABCDEFGH"}, "team:note"),
    ({"team:note": "nvapi-" + "a" * 40}, "team:note"),
    ({"team:hook": "https://hooks.slack.com/services/T000/B000/XXXXXXXXXXXXXXXX"}, "team:hook"),
    ({"team:conn": "DefaultEndpointsProtocol=https;AccountName=a;AccountKey=abcdEFGH1234==;"},
     "team:conn"),
    ({"team:url": "postgres://admin:s3cret@db.example.com:5432/x"}, "team:url"),
    ({CLUSTER: {"addons": {"gpu_operator": {"values": {"proxy": "http://u:p@proxy:3128"}}}}},
     f"{CLUSTER}.{HELM}.proxy"),
])
def test_credential_classes_are_refused(config: dict[str, Any], path: str) -> None:
    found = plaintext_problems(config)
    assert [p.path for p in found] == [path], found
    assert "pulumi config set --secret" in found[0].message


@pytest.mark.parametrize("config", [
    {"team:dbPassword": {"secure": "v1:abc"}},
    {"team:passwordPolicy": "strict"},
    {"team:url": "https://example.com/path@v1"},
    {"team:hook": "https://hooks.slack.com/"},
    {CLUSTER: {"addons": {"gpu_operator": {"values": {"env": [
        {"name": "NCCL_DEBUG", "value": "INFO"}, {"name": "NGC_API_KEY", "value": ""}]}}}}},
    {"team:mirror": "https://registry.example.com/v2/"},
])
def test_plain_values_that_are_not_credentials_pass(config: dict[str, Any]) -> None:
    assert plaintext_problems(config) == []


# AWS secret access keys by their shape (issue 34): awslabs/git-secrets ``git-secrets`` at
# 79a73d8ade413f4e15f24f935bc903d53d3fbaf2, register_aws(): access key ids
# (AKIA|ASIA...)[A-Z0-9]{16}; secret keys 40 characters of [A-Za-z0-9/+=] assigned to an
# (AWS_)(SECRET_)(ACCESS_)KEY name. AWS's documented example pair
# (https://docs.aws.amazon.com/IAM/latest/UserGuide/id_credentials_access-keys.html):
AWS_ID = "AKIAIOSFODNN7EXAMPLE"
AWS_SECRET = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"


@pytest.mark.parametrize(("config", "paths"), [
    # beside its access key id, under names the credential-name rule does not know
    ({"team:awsId": AWS_ID, "team:awsKey": AWS_SECRET}, ["team:awsId", "team:awsKey"]),
    ({CLUSTER: {"addons": {"gpu_operator": {"values": {"env": [
        {"name": "S3_ID", "value": AWS_ID}, {"name": "S3_CREDENTIAL", "value": AWS_SECRET}]}}}}},
     [f"{CLUSTER}.{HELM}.env[0].value", f"{CLUSTER}.{HELM}.env[1].value"]),
    ({CLUSTER: {"addons": {"gpu_operator": {"values": {"s3": {
        "id": AWS_ID, "key": AWS_SECRET}}}}}},
     [f"{CLUSTER}.{HELM}.s3.id", f"{CLUSTER}.{HELM}.s3.key"]),
    # a credentials file or an assignment pasted into a value (git-secrets' pattern)
    ({"team:creds": f"[default]\naws_secret_access_key = {AWS_SECRET}\n"}, ["team:creds"]),
    ({"team:creds": f'{{"SecretAccessKey": "{AWS_SECRET}"}}'}, ["team:creds"]),
])
def test_aws_secret_keys_by_shape(config: dict[str, Any], paths: list[str]) -> None:
    found = plaintext_problems(config)
    assert [p.path for p in found] == paths, found
    assert all("pulumi config set --secret" in p.message for p in found)
    assert "AWS secret access key" in found[-1].message


@pytest.mark.parametrize("config", [
    # the shape alone, with no access key id beside it: too common to refuse
    {"team:checksum": AWS_SECRET},
    # a 40-character hex digest beside an access key id is no secret key
    {"team:sha": "0123456789abcdef0123456789abcdef01234567", "team:ref": "release-1"},
    {"team:sha": "0123456789abcdef0123456789abcdef01234567"},
])
def test_aws_secret_shapes_that_are_not_keys_pass(config: dict[str, Any]) -> None:
    assert plaintext_problems(config) == []


def test_committed_stacks_hold_no_aws_secret_shape() -> None:
    from pathlib import Path

    import yaml

    root = Path(__file__).resolve().parents[2]
    for path in sorted((root / "stacks").glob("Pulumi.*.yaml")):
        config = yaml.safe_load(path.read_text())["config"]
        assert plaintext_problems(config) == [], path
