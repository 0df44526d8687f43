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
