"""One run of the check's CronJob against a fake API server (gpu_fabric.health.controller):
the layer's real config for a stack, the NCCL fixtures as test logs, the verdict's answer
written on the nodes.

Fixtures (tests/data/nccl): synth-p5-2node-allreduce-efa.log, line 52: 16 GiB in-place
busbw 474.28 GB/s, over the p5.48xlarge floor 377.2 GB/s (catalog aws.py, 8 GPUs);
synth-azure-2node-wrong-results.log: 30 wrong results (tests/nccl/test_nccl_verdict*).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from gpu_fabric.fabric.description import describe_cluster
from gpu_fabric.fabric.layer import build_layer
from gpu_fabric.health import controller, logic
from gpu_fabric.spec import load_spec
from tests.health.fakes import node
from tests.specs import spec_dict

DATA = Path(__file__).resolve().parents[1] / "data" / "nccl"
NOW = datetime(2026, 11, 27, 10, 17, tzinfo=UTC)


def check_config(cloud: str, **health: Any) -> dict[str, Any]:
    spec = load_spec(spec_dict(cloud, health={"enabled": True, **health}))
    layer = build_layer(spec, describe_cluster(spec))
    (cm,) = [m for m in layer.part("fabric-health").manifests
             if m["metadata"]["name"] == "gpu-fabric-health-config"]
    return dict(json.loads(cm["data"]["config.json"]))


class FakeApi:
    """Nodes, pods created from the test's objects, a canned launcher log."""

    def __init__(self, nodes: list[dict[str, Any]], launcher_log: str, *,
                 phase: str = "Succeeded", workers_run: bool = True) -> None:
        self.nodes = {n["metadata"]["name"]: n for n in nodes}
        self.launcher_log = launcher_log
        self.phase = phase
        self.workers_run = workers_run
        self.created: list[dict[str, Any]] = []
        self.deleted: list[str] = []
        self.pods: list[dict[str, Any]] = []
        self.patches: list[tuple[str, Mapping[str, Any]]] = []

    def list_nodes(self) -> list[dict[str, Any]]:
        return list(self.nodes.values())

    def list_pods(self) -> list[dict[str, Any]]:
        return []

    def create(self, obj: Mapping[str, Any]) -> None:
        self.created.append(dict(obj))
        if obj["kind"] != "MPIJob":
            return
        specs = obj["spec"]["mpiReplicaSpecs"]
        labels = specs["Worker"]["template"]["metadata"]["labels"]
        terms = specs["Worker"]["template"]["spec"]["affinity"]["nodeAffinity"][
            "requiredDuringSchedulingIgnoredDuringExecution"]["nodeSelectorTerms"]
        for i, where in enumerate(terms[0]["matchFields"][0]["values"]):
            self.pods.append({"metadata": {"name": f"{obj['metadata']['name']}-worker-{i}",
                                           "labels": labels},
                              "spec": {"nodeName": where if self.workers_run else None},
                              "status": {"phase": "Running" if self.workers_run else "Pending"}})
        launcher = specs["Launcher"]["template"]["metadata"]["labels"]
        self.pods.append({"metadata": {"name": f"{obj['metadata']['name']}-launcher",
                                       "labels": launcher},
                          "spec": {"nodeName": "sys-1"}, "status": {"phase": self.phase}})

    def pods_of(self, namespace: str, selector: str) -> list[dict[str, Any]]:
        wanted = dict(kv.split("=") for kv in selector.split(","))
        return [p for p in self.pods
                if all(p["metadata"]["labels"].get(k) == v for k, v in wanted.items())]

    def log(self, namespace: str, pod: str, container: str) -> str:
        return self.launcher_log if pod.endswith("-launcher") else ""

    def delete(self, obj: Mapping[str, Any]) -> None:
        self.deleted.append(f"{obj['kind']}/{obj['metadata']['name']}")

    def get_node(self, name: str) -> dict[str, Any]:
        return self.nodes[name]

    def patch_node(self, name: str, patch: Mapping[str, Any]) -> None:
        self.patches.append((name, patch))
        target = self.nodes[name]
        for key, value in patch["metadata"]["labels"].items():
            if value is None:
                target["metadata"]["labels"].pop(key, None)
            else:
                target["metadata"]["labels"][key] = value
        if "spec" in patch:
            target["spec"]["taints"] = patch["spec"]["taints"]


def rails(host: str, count: int, state: str = "4: ACTIVE") -> str:
    return "".join(f"gpufabric-rail {host} rdmap{i}s0 1 {state} | 100 Gb/sec (4X EDR)\n"
                   for i in range(count))


def run(api: FakeApi, config: dict[str, Any]) -> int:
    said: list[str] = []
    return controller.run_once(api, config, lambda: NOW, lambda s: None, said.append)


def test_a_passing_pair_on_aws_gets_pass_labels_and_the_job_is_cleaned_up() -> None:
    config = check_config("aws")
    name = "gfh-gpu-2611271017-0"
    text = (rails(f"{name}-worker-0", 32) + rails(f"{name}-worker-1", 32)
            + (DATA / "synth-p5-2node-allreduce-efa.log").read_text())
    api = FakeApi([node("n1"), node("n2")], text)
    assert run(api, config) == 2
    for n in ("n1", "n2"):
        labels = api.nodes[n]["metadata"]["labels"]
        assert {k: v for k, v in labels.items() if k.startswith("gpufabric.dev/health")} == {
            "gpufabric.dev/health-last-run": "2026-11-27T10-17-00Z",
            "gpufabric.dev/health-verdict": "pass",
            "gpufabric.dev/health-busbw": "474.3",
            "gpufabric.dev/health-rails": "32-of-32",
            "gpufabric.dev/health-rail-gbps": "100",
        }
        assert [t["key"] for t in api.nodes[n]["spec"]["taints"]] == ["nvidia.com/gpu"]
    assert [o["kind"] for o in api.created] == ["MPIJob"]
    assert api.created[0]["metadata"] == {
        "name": name, "namespace": "default",
        "labels": {"app.kubernetes.io/managed-by": "gpu-fabric",
                   "gpufabric.dev/nccl-acceptance": name}}
    assert api.deleted == [f"MPIJob/{name}"]


def test_a_down_efa_rail_fails_only_its_node() -> None:
    config = check_config("aws")
    name = "gfh-gpu-2611271017-0"
    text = (rails(f"{name}-worker-0", 32) + rails(f"{name}-worker-1", 31)
            + rails(f"{name}-worker-1", 1, "1: DOWN").replace("rdmap0s0", "rdmap31s0")
            + (DATA / "synth-p5-2node-allreduce-efa.log").read_text())
    api = FakeApi([node("n1"), node("n2")], text)
    run(api, config)
    assert api.nodes["n1"]["metadata"]["labels"][logic.VERDICT] == "pass"
    assert api.nodes["n2"]["metadata"]["labels"][logic.VERDICT] == "fail"
    assert api.nodes["n2"]["metadata"]["labels"][logic.RAILS] == "31-of-32"
    assert api.nodes["n2"]["spec"]["taints"][-1] == {
        "key": "gpufabric.dev/fabric-health", "value": "failed", "effect": "NoSchedule"}


def test_wrong_results_on_azure_fail_and_taint_both_nodes_unless_told_not_to() -> None:
    text = (DATA / "synth-azure-2node-wrong-results.log").read_text()
    sku = [{"key": "sku", "value": "gpu", "effect": "NoSchedule"}]  # AKS GPU pools' taint
    api = FakeApi([node("n1", taints=sku), node("n2", taints=list(sku))], text, phase="Failed")
    run(api, check_config("azure"))
    for n in ("n1", "n2"):
        assert api.nodes[n]["metadata"]["labels"][logic.VERDICT] == "fail"
        assert api.nodes[n]["metadata"]["labels"][logic.BUSBW] == "379.6"  # line 44
        assert api.nodes[n]["spec"]["taints"][-1]["key"] == "gpufabric.dev/fabric-health"
    api = FakeApi([node("n1", taints=list(sku)), node("n2", taints=list(sku))], text,
                  phase="Failed")
    run(api, check_config("azure", taint_on_failure=False))
    assert api.nodes["n1"]["metadata"]["labels"][logic.VERDICT] == "fail"
    assert [t["key"] for t in api.nodes["n1"]["spec"]["taints"]] == ["sku"]


def test_a_pair_that_never_started_gets_no_verdict() -> None:
    api = FakeApi([node("n1"), node("n2")], "", phase="Pending", workers_run=False)
    assert run(api, check_config("aws")) == 0
    assert api.patches == []
    assert api.deleted == ["MPIJob/gfh-gpu-2611271017-0"]  # cleaned up all the same


def test_a_hung_test_fails_after_the_timeout() -> None:
    api = FakeApi([node("n1"), node("n2")], "NCCL INFO Bootstrap\n", phase="Running")
    run(api, check_config("aws"))
    assert api.nodes["n1"]["metadata"]["labels"][logic.VERDICT] == "fail"


@pytest.mark.parametrize("busy", ["n1", "n2"])
def test_nothing_runs_when_a_pair_cannot_be_formed(busy: str) -> None:
    api = FakeApi([node("n1"), node("n2", cordoned=busy == "n2")], "")
    if busy == "n1":
        api.nodes["n1"]["spec"]["taints"].append(
            {"key": "nvsentinel.dgxc.nvidia.com/quarantined", "effect": "NoSchedule"})
    assert run(api, check_config("aws")) == 0
    assert api.created == []
