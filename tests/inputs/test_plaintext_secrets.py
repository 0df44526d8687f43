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
