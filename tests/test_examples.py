"""The example programs in examples/ (a team's own Pulumi programs) run under mocks."""

from __future__ import annotations

import runpy
from pathlib import Path

import pytest
import yaml

from components.plan.runner import run_program

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


def _run_example(name: str, config: dict[str, str], secret_keys: list[str] | None = None):
    folder = EXAMPLES / name
    project = yaml.safe_load((folder / "Pulumi.yaml").read_text())["name"]
    config = {f"{project}:{k}": v for k, v in config.items()}
    return run_program(
        lambda: runpy.run_path(str(folder / "__main__.py"), run_name="__main__"),
        project=project,
        config=config,
        secret_keys=[f"{project}:{k}" for k in secret_keys or []],
    )


def test_every_example_is_a_pulumi_project() -> None:
    folders = [p for p in EXAMPLES.iterdir() if p.is_dir()]
    assert len(folders) >= 2
    for folder in folders:
        meta = yaml.safe_load((folder / "Pulumi.yaml").read_text())
        assert meta["runtime"]["name"] == "python", folder
        assert (folder / "__main__.py").is_file() and (folder / "requirements.txt").is_file()


def test_team_program_builds_two_pools_and_its_namespaces() -> None:
    plan = _run_example("gcp-a4-team", {"gcp-project": "team-proj", "reservation": "r-a4"})
    cluster = plan.one("gpufabric:gcp:GpuCluster", "team-a4")
    pools = [r for r in plan.by_type("gcp:container/nodePool:NodePool")]
    gpu_pools = [p for p in pools if "a4" in str(p.inputs.get("nodeConfig", {}).get("machineType"))]
    assert len(gpu_pools) == 2
    provider = plan.one("pulumi:providers:kubernetes")
    team_ns = [
        r for r in plan.by_type("kubernetes:core/v1:Namespace")
        if r.name.startswith("team-a4-ns-")
    ]
    assert {r.inputs["metadata"]["name"] for r in team_ns} == {"research", "inference-eval"}
    for ns in team_ns:
        assert ns.parent == cluster.urn and ns.provider.startswith(provider.urn)
    assert plan.outputs["kubeconfig"] == "[secret]"


def test_team_program_needs_its_project() -> None:
    with pytest.raises(Exception, match="gcp-project"):
        _run_example("gcp-a4-team", {})


def test_fabric_only_program_installs_the_layer_with_its_provider() -> None:
    plan = _run_example(
        "fabric-only", {"kubeconfig": "apiVersion: v1\nkind: Config\n"}, secret_keys=["kubeconfig"]
    )
    assert not [r for r in plan.resources if r.type.split(":")[0] in ("gcp", "digitalocean")]
    provider = plan.one("pulumi:providers:kubernetes", "doks")
    assert provider.inputs["kubeconfig"] == "[secret]"
    nads = plan.by_type("kubernetes:k8s.cni.cncf.io/v1:NetworkAttachmentDefinition")
    assert len(nads) == 8
    assert all(r.provider and r.provider.startswith(provider.urn) for r in nads)
    fragment = plan.outputs["pod_fragment"]
    limits = fragment["container"]["resources"]["limits"]
    assert str(limits["rdma/fabric7"]) == "1" and str(limits["nvidia.com/gpu"]) == "8"
