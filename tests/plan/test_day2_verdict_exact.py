"""The day-2 verdict reads a pool's own surge / unavailable settings (plan/day2.py).

tests/plan/test_day2_verdict.py covers each cloud's defaults; here the planned inputs
set the values, and the verdict and its one-line text are written out whole.
Sources of the settings (the same as clouds/<cloud>/plan_facts.py):

* EKS: ``updateConfig.maxUnavailable`` (AWS::EKS::Nodegroup UpdateConfig), surge of up to
  2 new instances first (https://docs.aws.amazon.com/eks/latest/userguide/
  managed-node-update-behavior.html, "Scale up phase");
* AKS: ``upgradeSettings.maxSurge`` / ``maxUnavailable``, a count or a percentage
  (https://learn.microsoft.com/en-us/azure/aks/upgrade-aks-node-pools-rolling).
"""

from __future__ import annotations

from gpu_fabric.plan.day2 import Verdict, verdict

NG = "aws:eks/nodeGroup:NodeGroup"
AKS_POOL = "azure-native:containerservice:AgentPool"
DRAINED = "every node is drained and replaced"


def test_eks_max_unavailable_is_read_from_the_group() -> None:
    got = verdict("update", NG, ["version"], [], {"updateConfig": {"maxUnavailable": 3}})
    assert got == Verdict(
        "rolling", ("version",), nodes_at_once="5", spare_capacity=True, nodes_down=True,
        note=f"surge 2, unavailable 3; {DRAINED}", runbook="docs/day2.md#eks-roll-node-images")


def test_aks_percent_surge_with_unavailable_nodes_is_shown_as_a_sum() -> None:
    inputs = {"upgradeSettings": {"maxSurge": "33%", "maxUnavailable": "1"}}
    got = verdict("update", AKS_POOL, ["nodeImageVersion"], [], inputs)
    assert (got.kind, got.nodes_at_once, got.spare_capacity, got.note) == (
        "rolling", "33% + 1", True, f"surge 33%, unavailable 1; {DRAINED}")


def test_aks_zero_percent_surge_needs_no_spare_capacity() -> None:
    inputs = {"upgradeSettings": {"maxSurge": "0%", "maxUnavailable": "2"}}
    got = verdict("update", AKS_POOL, ["orchestratorVersion"], [], inputs)
    assert (got.nodes_at_once, got.spare_capacity) == ("2", False)
    assert got.text() == (
        "rolling; 2 node(s) at a time; no spare capacity needed; takes nodes down; "
        f"surge 0%, unavailable 2; {DRAINED}; caused by `orchestratorVersion`; "
        "see docs/day2.md#aks-roll-node-images")


def test_aks_zero_percent_surge_and_zero_unavailable_replace_one_node_at_a_time() -> None:
    inputs = {"upgradeSettings": {"maxSurge": "0%", "maxUnavailable": "0"}}
    got = verdict("update", AKS_POOL, ["orchestratorVersion"], [], inputs)
    assert (got.nodes_at_once, got.spare_capacity, got.note) == (
        "1", False, f"surge 0%, unavailable 1; {DRAINED}")


# Verdicts per action and role (the roles and runbook prefixes of clouds/gcp/plan_facts.py;
# the sections of docs/day2.md, checked to exist by tests/day2/test_runbook.py).
GKE_POOL = "gcp:container/nodePool:NodePool"
GKE_CLUSTER = "gcp:container/cluster:Cluster"
POOL_NODES = ("the pool's nodes: the jobs running on them and node-local data "
              "(local SSDs, emptyDir, hostPath)")


def test_removing_a_pool_takes_its_nodes_and_points_to_the_replace_runbook() -> None:
    assert verdict("remove", GKE_POOL, [], [], None) == Verdict(
        "destroy", nodes_down=True, destroys=POOL_NODES,
        runbook="docs/day2.md#gke-replace-a-pool-without-downtime")


def test_replacing_a_cluster_takes_every_node_down() -> None:
    assert verdict("replace", GKE_CLUSTER, ["location"], ["location"], {}) == Verdict(
        "replace", ("location",), nodes_down=True,
        destroys="the whole cluster: every node, workload and in-cluster state")


def test_a_control_plane_upgrade_says_the_pools_do_not_roll() -> None:
    got = verdict("update", GKE_CLUSTER, ["minMasterVersion"], [], {})
    assert got == Verdict(
        "in-place", ("minMasterVersion",),
        note="control plane upgraded in place; this input rolls no node (pools roll when "
             "their own version changes, or by auto-upgrade where it is on)",
        runbook="docs/day2.md#gke-upgrade-kubernetes")


def test_other_in_place_changes_point_to_a_runbook_for_pools_only() -> None:
    assert verdict("update", GKE_CLUSTER, ["resourceLabels.team"], [], {}) == Verdict(
        "in-place", ("resourceLabels.team",))
    assert verdict("update", GKE_POOL, ["nodeCount"], [], {}) == Verdict(
        "in-place", ("nodeCount",), runbook="docs/day2.md#gke-resize")
