"""Tags as each cloud accepts them, strict booleans, ASCII digits, duplicate YAML keys,
internet-wide API access judged by its total (issue 34).

Sources of the tag rules (each cloud's provider.py says the same):
GCP https://cloud.google.com/resource-manager/docs/labels-overview#requirements;
AWS https://docs.aws.amazon.com/tag-editor/latest/userguide/tagging.html;
Azure https://learn.microsoft.com/azure/azure-resource-manager/management/tag-resources#limitations;
OCI https://docs.oracle.com/iaas/Content/Tagging/Concepts/taggingoverview.htm.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from gpu_fabric.cli import main
from gpu_fabric.errors import SpecError
from gpu_fabric.spec import load_spec
from tests.specs import API_ACCESS, spec_dict, with_pool


def _problems(data: dict[str, Any]) -> list[str]:
    with pytest.raises(SpecError) as err:
        load_spec(data)
    return [str(p) for p in err.value.problems]


@pytest.mark.parametrize(("cloud", "tags", "expected"), [
    ("gcp", {"Team": "ml"}, "tags.Team: GCP key has characters the cloud refuses"),
    ("gcp", {"team": "ML"}, "tags.team: GCP value has characters the cloud refuses"),
    ("gcp", {"1team": "ml"}, "tags.1team: GCP key has characters"),
    ("gcp", {"team": "a b"}, "tags.team: GCP value has characters"),
    ("gcp", {"k" * 64: "v"}, "key is 64 characters; 1 to 63 allowed"),
    ("gcp", {f"k{i}": "v" for i in range(65)},
     "tags: GCP 65 tags plus the 0 this project adds exceed the cloud's 64 per resource"),
    ("aws", {"aws:cost": "a"}, "tags.aws:cost: AWS the prefix aws: is reserved by the cloud"),
    ("aws", {"AWS:cost": "a"}, "the prefix aws: is reserved"),
    ("aws", {"team": "aws:x"}, "the prefix aws: is reserved"),
    ("aws", {"k" * 129: "a"}, "key is 129 characters; 1 to 128 allowed"),
    ("aws", {"team": "v" * 257}, "value is 257 characters; at most 256"),
    ("aws", {"team": "a;b"}, "tags.team: AWS value has characters the cloud refuses"),
    ("aws", {f"k{i}": "v" for i in range(48)},
     "tags: AWS 48 tags plus the 3 this project adds exceed the cloud's 50 per resource"),
    ("azure", {"a/b": "x"}, "tags.a/b: Azure key has characters the cloud refuses"),
    ("azure", {"a<b": "x"}, "Azure key has characters"),
    ("azure", {"a%b": "x"}, "Azure key has characters"),
    ("azure", {"k" * 513: "x"}, "key is 513 characters; 1 to 512 allowed"),
    ("azure", {"team": "v" * 257}, "value is 257 characters; at most 256"),
    ("azure", {f"k{i}": "v" for i in range(49)}, "49 tags plus the 2 this project adds"),
    ("oci", {"k" * 101: "x"}, "key is 101 characters; 1 to 100 allowed"),
    ("oci", {"team": "v" * 257}, "value is 257 characters; at most 256"),
    ("oci", {f"k{i}": "v" for i in range(64)}, "64 tags plus the 1 this project adds"),
])
def test_tags_the_cloud_would_refuse(cloud: str, tags: dict[str, str], expected: str) -> None:
    found = _problems(spec_dict(cloud, tags=tags))
    assert any(expected in p for p in found), found


@pytest.mark.parametrize(("cloud", "tags"), [
    ("gcp", {"team": "ml", "cost-center": "a_1", "équipe": "données"}),
    ("aws", {"Team": "ML x", "cost/center": "a@b+c=d:e"}),
    ("azure", {"Team": "ML; x (prod)"}),
    ("oci", {"Team": "ML x"}),
    ("digitalocean", {"Team": "ML; x"}),  # rewritten to DO's tag alphabet (do_tags)
    ("gcp", {f"k{i}": "v" for i in range(64)}),
    ("aws", {f"k{i}": "v" for i in range(47)}),
])
def test_tags_the_cloud_accepts(cloud: str, tags: dict[str, str]) -> None:
    assert load_spec(spec_dict(cloud, tags=tags)).tags == tags


@pytest.mark.parametrize("value", ["false", "no", "off", "true", 0, 1, 1.0, "0"])
def test_booleans_are_yaml_booleans(value: Any) -> None:
    """pydantic's lax mode read "no"/"off"/0/1.0 as booleans; YAML true/false only."""
    for data, field in [
        (with_pool("gcp", gpu_taint=value), "node_pools[0].gpu_taint"),
        (spec_dict("gcp", acceptance={"enabled": value}), "acceptance.enabled"),
        (spec_dict("gcp", addons={"gpu_operator": {"enabled": value}}),
         "addons.gpu_operator.enabled"),
        (spec_dict("gcp", api_access={**API_ACCESS, "private_endpoint": value}),
         "api_access.private_endpoint"),
        (spec_dict("gcp", gcp={"project": "test-project", "private_nodes": value}),
         "gcp.private_nodes"),
        (spec_dict("gcp", kubernetes={"version": "1.34", "auto_upgrade": value}),
         "kubernetes.auto_upgrade"),
    ]:
        found = _problems(data)
        assert any(p.startswith(f"{field}: must be true or false") for p in found), found


def test_real_booleans_still_load() -> None:
    spec = load_spec(with_pool("gcp", gpu_taint=False, auto_repair=True))
    assert spec.node_pools[0].gpu_taint is False and spec.node_pools[0].auto_repair is True


@pytest.mark.parametrize("version", ["1.\u0663\u0664", "\uff11.34", "1.34.\u0661"])
def test_kubernetes_versions_are_ascii_digits(version: str) -> None:
    assert any(p.startswith("kubernetes.version") for p in
               _problems(spec_dict("gcp", kubernetes={"version": version})))


@pytest.mark.parametrize("version", ["\u0661.2.3", "1.2.3; id"])
def test_addon_versions_are_ascii_digits(version: str) -> None:
    found = _problems(spec_dict("gcp", addons={"gpu_operator": {"version": version}}))
    assert any(p.startswith("addons.gpu_operator.version") for p in found), found


def test_many_small_ranges_adding_up_to_the_internet_are_internet_wide() -> None:
    """128 x /8 is half of IPv4: judged by the total, not entry by entry."""
    eights = [f"{i}.0.0.0/8" for i in range(1, 129)]
    found = _problems(spec_dict("aws", api_access={"authorized_cidrs": eights}))
    assert any("128 ranges covering 2147483648 addresses" in p for p in found), found
    two = ["11.0.0.0/8", "12.0.0.0/8"]
    assert any("2 ranges covering 33554432 addresses" in p
               for p in _problems(spec_dict("aws", api_access={"authorized_cidrs": two})))
    one = load_spec(spec_dict("aws", api_access={"authorized_cidrs": ["11.0.0.0/8"]}))
    assert [str(c) for c in one.api_access.authorized_cidrs] == ["11.0.0.0/8"]
    # Overlaps count once: a /8 and its own halves are still one /8.
    same = ["11.0.0.0/8", "11.0.0.0/9", "11.128.0.0/9"]
    assert load_spec(spec_dict("aws", api_access={"authorized_cidrs": same}))


DUPLICATE = """config:
  gpu-fabric:cluster:
    name: a
    cloud: gcp
    node_pools:
    - name: gpu
      machine_type: a4-highgpu-8g
      node_count: 2
      node_count: 200
"""


def test_a_duplicate_yaml_key_is_refused_with_its_line(tmp_path: Path, capsys) -> None:
    """PyYAML keeps the last of two equal keys: 200 nodes instead of 2."""
    path = tmp_path / "Pulumi.dup.yaml"
    path.write_text(DUPLICATE)
    for argv in (["validate", "--config", str(path)], ["plan", "--config", str(path)]):
        assert main(argv) == 1
        err = capsys.readouterr().err
        assert (f"{path}:9:7: the key 'node_count' is written twice in the same mapping "
                "(first at line 8)") in err, err


def test_merge_keys_may_still_be_overridden() -> None:
    """``<<: *base`` then a key of base is YAML's override, not a duplicate."""
    from gpu_fabric.plan.safe_yaml import load_bounded

    doc = load_bounded("base: &b {a: 1, b: 2}\nx:\n  <<: *b\n  a: 3\n", "t")
    assert doc["x"] == {"a": 3, "b": 2}
    with pytest.raises(SpecError):
        load_bounded("x: {a: 1, a: 2}\n", "t")
