"""Which nodes the active check picks, how it pairs them, what it writes on them
(gpu_fabric.health.logic), against fake node and pod lists.

Reference design: oracle-quickstart/oci-hpc-oke at 61d210a,
manifests/active-health-checks/active-health-checks-nccl-tests.yaml (the applier
CronJob): a GPU node is idle when its pods' ``nvidia.com/gpu`` requests sum to 0, is
skipped when its last-run label is from today, needs a partner (at least 2 nodes), and
both nodes get ``...-nccl-tests=pass|fail`` and ``...-last-run`` labels. Here: an
interval in hours instead of "today", cordoned/tainted/not-Ready nodes never picked,
a failed node re-tested with a known-good partner.
"""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from gpu_fabric.health import logic
from gpu_fabric.health.logic import Pair, Port, RailResult
from tests.health.fakes import POOL_CONFIG, node, pod

NOW = datetime(2026, 11, 27, 10, 17, tzinfo=UTC)
NVSENTINEL_TAINT = {"key": "nvsentinel.dgxc.nvidia.com/quarantined", "value": "true",
                    "effect": "NoSchedule"}


def pairs(nodes: list[dict], pods: list[dict], max_pairs: int = 4) -> list[Pair]:
    return logic.select_pairs(nodes, pods, POOL_CONFIG, NOW, 24, max_pairs)


def test_time_labels_have_no_colon_and_round_trip() -> None:
    # Label values: [A-Za-z0-9_.-], 63 chars (k8s.io/apimachinery validation IsValidLabelValue).
    assert logic.format_time(NOW) == "2026-11-27T10-17-00Z"
    assert logic.parse_time("2026-11-27T10-17-00Z") == NOW
    assert logic.parse_time("2026-11-27") is None
    assert logic.parse_time(None) is None


def test_due_idle_nodes_are_paired_oldest_first() -> None:
    nodes = [
        node("a", labels={logic.LAST_RUN: "2026-11-26T09-00-00Z", logic.VERDICT: "pass"}),
        node("b"),  # never tested
        node("c", labels={logic.LAST_RUN: "2026-11-20T00-00-00Z", logic.VERDICT: "pass"}),
        node("d"),
    ]
    # Never tested first (b, d by name), then the oldest check (c, then a).
    assert pairs(nodes, []) == [Pair(("b", "d")), Pair(("c", "a"))]


def test_recently_checked_nodes_are_not_due() -> None:
    nodes = [node("a", labels={logic.LAST_RUN: "2026-11-27T00-00-00Z", logic.VERDICT: "pass"}),
             node("b", labels={logic.LAST_RUN: "2026-11-26T11-00-00Z", logic.VERDICT: "pass"})]
    assert pairs(nodes, []) == []  # 10 h and 23 h ago, interval 24 h


def test_busy_cordoned_tainted_unready_and_foreign_nodes_are_never_picked() -> None:
    nodes = [
        node("idle1"), node("idle2"),
        node("busy"),
        node("cordoned", cordoned=True),  # kubectl cordon / NVSentinel fault quarantine
        node("quarantined", taints=[NVSENTINEL_TAINT]),
        node("notready", ready=False),
        {**node("other"), "metadata": {"name": "other", "labels": {"gpufabric.dev/pool": "x"}}},
    ]
    assert pairs(nodes, [pod("busy")]) == [Pair(("idle1", "idle2"))]


@pytest.mark.parametrize("holder", [
    pod("n1"),                      # limits nvidia.com/gpu: 8
    pod("n1", init=True),           # an init container's GPUs
    pod("n1", claims=True),         # DRA: spec.resourceClaims
    pod("n1", phase="Pending"),     # bound, not yet running: the GPUs are taken
])
def test_a_pod_holding_gpus_makes_its_node_busy(holder: dict) -> None:
    assert logic.busy_nodes([holder], "nvidia.com/gpu") == {"n1"}


@pytest.mark.parametrize("harmless", [
    pod("n1", phase="Succeeded"),
    pod("n1", phase="Failed"),
    pod("n1", daemonset=True),
    pod("n1", gpus=0),
])
def test_finished_daemonset_and_gpu_less_pods_do_not(harmless: dict) -> None:
    assert logic.busy_nodes([harmless], "nvidia.com/gpu") == set()


def test_a_failed_node_is_retested_with_a_known_good_partner() -> None:
    nodes = [
        node("bad", labels={logic.LAST_RUN: "2026-11-27T09-17-00Z", logic.VERDICT: "fail"},
             taints=[{"key": "nvidia.com/gpu", "value": "true", "effect": "NoSchedule"},
                     {"key": logic.TAINT_KEY, "value": "failed", "effect": "NoSchedule"}]),
        node("good", labels={logic.LAST_RUN: "2026-11-27T08-00-00Z", logic.VERDICT: "pass"}),
        node("new1"), node("new2"),
    ]
    # Its own taint does not keep it out; the failed node goes first, with "good".
    assert pairs(nodes, []) == [Pair(("bad", "good"), "good"), Pair(("new1", "new2"))]


def test_an_odd_node_out_gets_a_partner_and_max_pairs_holds() -> None:
    nodes = [node("x"), node("y"), node("z"),
             node("p", labels={logic.LAST_RUN: "2026-11-27T07-00-00Z", logic.VERDICT: "pass"})]
    assert pairs(nodes, []) == [Pair(("x", "y")), Pair(("z", "p"), "p")]
    assert pairs(nodes, [], max_pairs=1) == [Pair(("x", "y"))]


def test_a_single_idle_node_without_partner_waits() -> None:
    assert pairs([node("x")], []) == []


# -- the run's objects ------------------------------------------------------------------
TEMPLATE = [{
    "apiVersion": "kubeflow.org/v2beta1", "kind": "MPIJob",
    "metadata": {"name": logic.PLACEHOLDER, "labels": {"app": logic.PLACEHOLDER}},
    "spec": {"mpiReplicaSpecs": {
        "Launcher": {"template": {"metadata": {"labels": {logic.ROLE: "launcher"}},
                                  "spec": {"containers": [{"name": "l"}]}}},
        "Worker": {"template": {"metadata": {"labels": {logic.ROLE: "worker"}},
                                "spec": {"containers": [{"name": "w"}]}}},
    }},
}]


def test_instantiate_names_the_run_and_pins_workers_to_the_pair() -> None:
    (job,) = logic.instantiate(TEMPLATE, "gfh-gpu-2611271017-0", ("n1", "n2"))
    assert job["metadata"] == {"name": "gfh-gpu-2611271017-0",
                               "labels": {"app": "gfh-gpu-2611271017-0"}}
    worker = job["spec"]["mpiReplicaSpecs"]["Worker"]["template"]["spec"]
    required = {"nodeSelectorTerms": [{"matchFields": [
        {"key": "metadata.name", "operator": "In", "values": ["n1", "n2"]}]}]}
    assert worker["affinity"] == {
        "nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": required}}
    assert "affinity" not in job["spec"]["mpiReplicaSpecs"]["Launcher"]["template"]["spec"]
    assert TEMPLATE[0]["metadata"]["name"] == logic.PLACEHOLDER  # the template is untouched


def test_run_names_are_short_dns_labels() -> None:
    assert logic.run_name("gpu", NOW, 0) == "gfh-gpu-2611271017-0"
    long = logic.run_name("a-very-long-pool-name-of-forty-chars-xx", NOW, 3)
    assert long == "gfh-a-very-long-pool-nam-2611271017-3"
    assert len(long) <= 40  # MPIJob pod names: <name>-worker-N, <= 52 (nccl.manifests.k8s_name)


# -- what the nodes get ---------------------------------------------------------------------
def test_labels_of_a_pass_and_a_fail() -> None:
    ok = logic.NodeResult("n1", True, 474.28, RailResult(8, 8, 400.0))
    assert logic.labels_for(ok, NOW) == {
        logic.LAST_RUN: "2026-11-27T10-17-00Z", logic.VERDICT: "pass",
        logic.BUSBW: "474.3", logic.RAILS: "8-of-8", logic.RAIL_GBPS: "400"}
    bad = logic.NodeResult("n1", False, None, None, ("no nccl-tests result",))
    assert logic.labels_for(bad, NOW) == {
        logic.LAST_RUN: "2026-11-27T10-17-00Z", logic.VERDICT: "fail",
        logic.BUSBW: None, logic.RAILS: None, logic.RAIL_GBPS: None}


def test_the_taint_is_added_on_failure_removed_on_pass_and_others_kept() -> None:
    other = {"key": "nvidia.com/gpu", "value": "true", "effect": "NoSchedule"}
    ours = {"key": "gpufabric.dev/fabric-health", "value": "failed", "effect": "NoSchedule"}
    clean, tainted = node("n", taints=[other]), node("n", taints=[other, ours])
    assert logic.taints_for(clean, False, True) == [other, ours]
    assert logic.taints_for(clean, False, False) is None  # taint_on_failure: false
    assert logic.taints_for(tainted, True, True) == [other]
    assert logic.taints_for(tainted, False, True) is None  # already there
    assert logic.taints_for(clean, True, True) is None


def test_a_patch_that_replaces_taints_carries_the_resource_version() -> None:
    bad = logic.NodeResult("n", False, 11.0, None)
    patch = logic.node_patch(node("n", version="42"), bad, NOW, True)
    assert patch["metadata"]["resourceVersion"] == "42"
    assert patch["spec"]["taints"][-1] == {
        "key": "gpufabric.dev/fabric-health", "value": "failed", "effect": "NoSchedule"}
    good = logic.NodeResult("n", True, 474.28, None)
    assert logic.node_patch(node("n"), good, NOW, True) == {"metadata": {"labels": {
        logic.LAST_RUN: "2026-11-27T10-17-00Z", logic.VERDICT: "pass", logic.BUSBW: "474.3",
        logic.RAILS: None, logic.RAIL_GBPS: None}}}


def test_a_failed_rerun_with_a_partner_marks_only_the_failed_node() -> None:
    failed = logic.NcclResult(False, 11.0, ("below floor",))
    results = logic.pair_results(Pair(("bad", "good"), "good"), failed, {}, {}, {"expected": 8})
    assert [(r.node, r.passed) for r in results] == [("bad", False)]
    results = logic.pair_results(Pair(("x", "y")), failed, {}, {}, {"expected": 8})
    assert [(r.node, r.passed) for r in results] == [("x", False), ("y", False)]


def test_a_down_rail_fails_its_node_alone() -> None:
    rails = {"expected": 2, "gbps": 400, "devices": ["mlx5_0", "mlx5_1"]}
    good_ports = [Port("mlx5_0", 1, True, 400.0), Port("mlx5_1", 1, True, 400.0)]
    bad_ports = [Port("mlx5_0", 1, True, 400.0), Port("mlx5_1", 1, False, 400.0)]
    passed = logic.NcclResult(True, 474.28)
    results = logic.pair_results(
        Pair(("n1", "n2")), passed, {"w-0": good_ports, "w-1": bad_ports},
        {"w-0": "n1", "w-1": "n2"}, rails)
    assert [(r.node, r.passed, r.reasons) for r in results] == [
        ("n1", True, ()), ("n2", False, ("1 of 2 rails up at full rate",))]
