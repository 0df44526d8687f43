"""The spec: valid examples parse; every bad input names the field, the value and the fix."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gpu_fabric.catalog import Cloud
from gpu_fabric.errors import SpecError
from gpu_fabric.plan.stackfile import available_stacks, load_stack_file, parse_stack_text
from gpu_fabric.spec import ClusterSpec, load_spec, spec_json_schema
from tests.specs import CLOUDS, spec_dict, with_pool

BAD = Path(__file__).parents[1] / "data" / "bad_stacks"


def _expected(path: Path) -> list[str]:
    first = path.read_text().splitlines()[0]
    assert first.startswith("# expect:"), f"{path.name} must start with '# expect: <paths>'"
    return [p.strip() for p in first.removeprefix("# expect:").split(",")]


def _problems(path: Path) -> list[str]:
    with pytest.raises(SpecError) as info:
        stack = parse_stack_text(path.read_text(), path.stem, path)
        load_spec(stack.cluster, source=str(path))
    return [f"{p.path}" for p in info.value.problems]


@pytest.mark.parametrize("cloud", CLOUDS)
def test_minimal_spec_of_every_cloud_parses(cloud: str) -> None:
    spec = load_spec(spec_dict(cloud))
    assert spec.cloud is Cloud(cloud)
    assert spec.node_pools[0].machine.cloud is Cloud(cloud)


@pytest.mark.parametrize("stack", available_stacks())
def test_every_committed_stack_is_valid(stack: str) -> None:
    spec = load_spec(load_stack_file(stack).cluster)
    assert spec.node_pools


@pytest.mark.parametrize("path", sorted(BAD.glob("*.yaml")), ids=lambda p: p.stem)
def test_bad_stack_names_the_field(path: Path) -> None:
    expected = _expected(path)
    paths = _problems(path)
    for want in expected:
        assert any(p == want or p.startswith(want) or want in p for p in paths), (
            f"{path.name}: expected a problem at {want!r}, got {paths}"
        )


def test_all_problems_of_a_file_are_reported_together() -> None:
    data = spec_dict("gcp", name="Bad_Name")
    data["node_pools"][0]["machine_type"] = "a4-highgpu-16g"
    data["network"] = {"cidr": "10.0.0.1/16"}
    data["nodepool"] = {}
    with pytest.raises(SpecError) as info:
        load_spec(data)
    paths = {p.path for p in info.value.problems}
    assert {"name", "node_pools[0].machine_type", "network.cidr", "nodepool"} <= paths


def test_error_names_value_and_valid_choices() -> None:
    with pytest.raises(SpecError) as info:
        load_spec(with_pool("gcp", machine_type="a4-highgpu-16g"))
    text = str(info.value)
    assert "node_pools[0].machine_type" in text
    assert "'a4-highgpu-16g'" in text
    assert "a4-highgpu-8g" in text  # what would be valid


def test_unknown_key_lists_valid_keys() -> None:
    data = with_pool("aws")
    data["node_pools"][0]["machinetype"] = "p5.48xlarge"
    with pytest.raises(SpecError) as info:
        load_spec(data)
    msg = next(p.message for p in info.value.problems if p.path == "node_pools[0].machinetype")
    assert "machine_type" in msg and "node_count" in msg


def test_constructing_the_model_directly_applies_cloud_rules() -> None:
    data = with_pool("aws", machine_type="a4-highgpu-8g")
    with pytest.raises(ValueError, match="not an AWS machine type"):
        ClusterSpec(**data)
    with pytest.raises(ValueError, match="not an AWS machine type"):
        ClusterSpec.model_validate(data)


def test_spec_is_immutable() -> None:
    spec = load_spec(spec_dict("gcp"))
    with pytest.raises(ValueError):
        spec.name = "other"  # type: ignore[misc]


def test_non_mapping_spec_is_refused() -> None:
    with pytest.raises(SpecError, match="must be a mapping"):
        load_spec(["not", "a", "mapping"])


def test_json_schema_covers_the_model() -> None:
    schema = spec_json_schema()
    assert schema["title"] == "gpu-fabric:cluster"
    assert {"name", "cloud", "location", "node_pools"} <= set(schema["required"])
    assert schema["additionalProperties"] is False
    json.dumps(schema)  # serialisable


def test_committed_schema_file_is_current() -> None:
    committed = Path(__file__).parents[2] / "schema" / "cluster.schema.json"
    assert json.loads(committed.read_text()) == json.loads(json.dumps(spec_json_schema())), (
        "schema/cluster.schema.json is stale: run `make schema`"
    )


def test_secure_values_are_masked_and_marked_secret() -> None:
    stack = parse_stack_text(
        "config:\n  gpu-fabric:token:\n    secure: v1:abc\n  gpu-fabric:cluster: {}\n", "s"
    )
    assert stack.config["gpu-fabric:token"] != "v1:abc"
    assert stack.secret_keys == ["gpu-fabric:token"]


def test_multi_node_pool_of_machine_without_fabric_is_refused() -> None:
    with pytest.raises(SpecError) as info:
        load_spec(with_pool("azure", machine_type="Standard_NC24ads_A100_v4", node_count=2))
    problem = next(p for p in info.value.problems if p.path == "node_pools[0].machine_type")
    assert "no scale-out GPU fabric" in problem.message
    # A single node of it is fine.
    load_spec(with_pool("azure", machine_type="Standard_NC24ads_A100_v4", node_count=1))


def test_mig_profile_is_checked_against_the_gpu_model() -> None:
    ok = load_spec(with_pool("oci", machine_type="BM.GPU.H100.8", mig={"profile": "1g.10gb"}))
    assert ok.node_pools[0].mig is not None
    with pytest.raises(SpecError, match=r"1g\.5gb"):
        load_spec(with_pool("oci", machine_type="BM.GPU.H100.8", mig={"profile": "1g.5gb"}))


@pytest.mark.parametrize("path", sorted(BAD.glob("*.yaml")), ids=lambda p: p.stem)
def test_bad_stack_plans_nothing(path: Path, capsys) -> None:
    """`plan` refuses before the program runs: exit 1, no resource on stdout, field on stderr."""
    from gpu_fabric.cli import main

    assert main(["plan", "--config", str(path), "--quiet"]) == 1
    captured = capsys.readouterr()
    assert captured.out == ""
    assert _expected(path)[0] in captured.err


def test_bad_stack_corpus_covers_every_cloud() -> None:
    files = sorted(BAD.glob("*.yaml"))
    assert len(files) >= 40
    text = "\n".join(p.read_text() for p in files)
    for cloud in CLOUDS:
        assert f"cloud: {cloud}" in text, cloud
