"""The day-2 verdict of a change (components/gpu_fabric/plan/day2.py), on small plans.

Each expected verdict is written out with the cloud's documented behaviour it
encodes (the numbers live in clouds/<cloud>/plan_facts.py with the same sources).
"""

from __future__ import annotations

import json

from gpu_fabric.cli import main
from gpu_fabric.plan.day2 import Verdict, verdict
from gpu_fabric.plan.diff import diff_plans, to_markdown
from tests.support.plans import plan_doc

NG = "aws:eks/nodeGroup:NodeGroup"
GKE_POOL = "gcp:container/nodePool:NodePool"
AKS_POOL = "azure-native:containerservice:AgentPool"
OKE_POOL = "oci:ContainerEngine/nodePool:NodePool"
DOKS = "digitalocean:index/kubernetesCluster:KubernetesCluster"




def test_eks_default_update_launches_new_nodes_first() -> None:
    """EKS managed-node-update-behavior, "Scale up phase": the ASG grows by up to two
    instances per AZ (GPU groups use one AZ) before maxUnavailable (default 1) drain."""
    got = verdict("update", NG, ["version"], [], {"updateConfig": {"maxUnavailable": 1}})
    assert got == Verdict(
        "rolling", ("version",), nodes_at_once="3", spare_capacity=True, nodes_down=True,
        note="surge 2, unavailable 1; every node is drained and replaced",
        runbook="docs/day2.md#eks-roll-node-images")


def test_eks_minimal_strategy_needs_no_spare_capacity() -> None:
    """AWS::EKS::Nodegroup UpdateConfig UpdateStrategy MINIMAL terminates old instances
    first: one node down at a time, nothing launched beyond the group's size."""
    inputs = {"updateConfig": {"maxUnavailable": 1, "updateStrategy": "MINIMAL"}}
    got = verdict("update", NG, ["releaseVersion"], [], inputs)
    assert (got.kind, got.nodes_at_once, got.spare_capacity, got.nodes_down) == (
        "rolling", "1", False, True)


def test_eks_capacity_block_is_told_to_scale_to_zero() -> None:
    """capacity-blocks-mng, Considerations: "When upgrading a managed node group with
    Capacity Blocks, make sure to set the desired node group size to 0"."""
    inputs = {"capacityType": "CAPACITY_BLOCK",
              "updateConfig": {"maxUnavailable": 1, "updateStrategy": "MINIMAL"}}
    got = verdict("update", NG, ["version"], [], inputs)
    assert got.note == (
        "surge 0, unavailable 1; every node is drained and replaced; Capacity Block: scale "
        "the group to 0 before this update (docs/day2.md#eks-upgrade-kubernetes)")
    on_demand = verdict("update", NG, ["version"], [], {"capacityType": "ON_DEMAND"})
    assert on_demand.note == "surge 2, unavailable 1; every node is drained and replaced"


def test_eks_scaling_is_in_place() -> None:
    got = verdict("update", NG, ["scalingConfig.maxSize"], [], {})
    assert got == Verdict("in-place", ("scalingConfig.maxSize",),
                          runbook="docs/day2.md#eks-resize")


def test_gke_surge_settings_are_read_from_the_pool() -> None:
    """GKE surge upgrades default to maxSurge 1, maxUnavailable 0 (node-pool-upgrade-
    strategies); the GPU pools set 0 / 1 (clouds/gcp/layout.py GPU_POOL_MAX_*)."""
    default = verdict("update", GKE_POOL, ["nodeConfig.imageType"], [], {})
    assert (default.nodes_at_once, default.spare_capacity) == ("1", True)
    gpu = verdict("update", GKE_POOL, ["nodeConfig.imageType"], [],
                  {"upgradeSettings": {"maxSurge": 0, "maxUnavailable": 1}})
    assert (gpu.kind, gpu.nodes_at_once, gpu.spare_capacity) == ("rolling", "1", False)


def test_aks_percent_surge_is_reported_as_given() -> None:
    """AKS maxSurge default 10% (upgrade-aks-node-pools-rolling)."""
    got = verdict("update", AKS_POOL, ["orchestratorVersion"], [], {})
    assert (got.nodes_at_once, got.spare_capacity) == ("10%", True)
    gpu = verdict("update", AKS_POOL, ["orchestratorVersion"], [],
                  {"upgradeSettings": {"maxSurge": "0", "maxUnavailable": "1"}})
    assert (gpu.nodes_at_once, gpu.spare_capacity) == ("1", False)


def test_oke_without_node_cycling_reaches_new_nodes_only() -> None:
    got = verdict("update", OKE_POOL, ["nodeSourceDetails.imageId"], [], {})
    assert got == Verdict(
        "in-place", ("nodeSourceDetails.imageId",),
        note="reaches new nodes only: existing nodes keep the old version/image until "
             "cycled (nodePoolCyclingDetails.isNodeCyclingEnabled is off)",
        runbook="docs/day2.md#oke-roll-node-images")
    cycled = verdict("update", OKE_POOL, ["kubernetesVersion"], [], {
        "nodePoolCyclingDetails": {"isNodeCyclingEnabled": True, "maximumSurge": "0",
                                   "maximumUnavailable": "1"}})
    assert (cycled.kind, cycled.nodes_at_once, cycled.spare_capacity) == ("rolling", "1", False)


def test_doks_version_rolls_every_node_with_or_without_surge() -> None:
    surge = verdict("update", DOKS, ["version"], [], {"surgeUpgrade": True})
    assert (surge.kind, surge.nodes_at_once, surge.spare_capacity) == (
        "rolling", "a batch", True)
    one = verdict("update", DOKS, ["version"], [], {"surgeUpgrade": False})
    assert (one.nodes_at_once, one.spare_capacity) == ("1", False)


def test_replace_and_destroy_say_what_is_lost() -> None:
    got = verdict("replace", GKE_POOL, ["networkConfig.x"], ["networkConfig.x"], {})
    assert got == Verdict(
        "replace", ("networkConfig.x",), nodes_down=True,
        destroys="the pool's nodes: the jobs running on them and node-local data "
                 "(local SSDs, emptyDir, hostPath)",
        runbook="docs/day2.md#gke-replace-a-pool-without-downtime")
    gone = verdict("remove", "gcp:container/cluster:Cluster", [], [], None)
    assert (gone.kind, gone.nodes_down, gone.destroys) == (
        "destroy", True, "the whole cluster: every node, workload and in-cluster state")
    other = verdict("replace", "kubernetes:core/v1:ConfigMap", ["data"], ["data"], {})
    assert (other.destroys, other.nodes_down, other.runbook) == (
        "the resource (created again)", False, None)
    assert verdict("add", NG, [], [], {}) == Verdict("create")


def test_control_plane_version_is_in_place() -> None:
    got = verdict("update", "aws:eks/cluster:Cluster", ["version"], [], {})
    assert (got.kind, got.cause, got.nodes_down, got.runbook) == (
        "in-place", ("version",), False, "docs/day2.md#eks-upgrade-kubernetes")


def test_diff_json_adds_the_verdict_and_markdown_lists_it(tmp_path, capsys) -> None:
    base = plan_doc((NG, "gpu", {"version": "1.34", "updateConfig": {"maxUnavailable": 1}}))
    head = plan_doc((NG, "gpu", {"version": "1.35", "updateConfig": {"maxUnavailable": 1}}))
    result = diff_plans(base, head)
    change = result.to_json()["changes"][0]
    # The keys before "verdict" are the diff's original format, unchanged.
    assert list(change) == ["action", "urn", "type", "name", "paths", "replacing_paths",
                            "values", "verdict"]
    assert change["verdict"] == {
        "kind": "rolling", "cause": ["version"], "nodes_at_once": "3",
        "spare_capacity": True, "nodes_down": True, "destroys": None,
        "note": "surge 2, unavailable 1; every node is drained and replaced",
        "runbook": "docs/day2.md#eks-roll-node-images"}
    assert to_markdown(result) == (
        "### Offline plan diff: `s`\n\n1 to update\n\n"
        "#### Day-2 verdict\n\n- `gpu` (`aws:eks/nodeGroup:NodeGroup`): rolling; 3 node(s) "
        "at a time; needs spare capacity; takes nodes down; surge 2, unavailable 1; every "
        "node is drained and replaced; caused by `version`; see "
        "docs/day2.md#eks-roll-node-images\n\n"
        "| action | type | name | changed inputs |\n|---|---|---|---|\n"
        '| ~ update | `aws:eks/nodeGroup:NodeGroup` | `gpu` | version: `"1.34"` → `"1.35"` |\n')
    # --fail-on-replace keeps its meaning: a rolling update is not a replacement.
    (tmp_path / "b.json").write_text(json.dumps(base))
    (tmp_path / "h.json").write_text(json.dumps(head))
    assert main(["diff", "--base", str(tmp_path / "b.json"), "--head",
                 str(tmp_path / "h.json"), "--fail-on-replace", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["changes"][0]["verdict"]["kind"] == "rolling"


def test_an_in_place_only_diff_prints_no_verdict_section() -> None:
    base = plan_doc((NG, "gpu", {"scalingConfig": {"maxSize": 2}}))
    head = plan_doc((NG, "gpu", {"scalingConfig": {"maxSize": 3}}))
    assert "Day-2 verdict" not in to_markdown(diff_plans(base, head))


def test_an_eks_launch_template_change_rolls_its_node_group() -> None:
    """The node group uses the template's latest version (clouds/aws/nodegroup.py
    ``launch_template``); a new version is applied by replacing every node (EKS
    managed-node-update-behavior, "Setup phase"). The version is a computed output, so
    the plan sees only the template's own inputs change."""
    got = verdict("update", "aws:ec2/launchTemplate:LaunchTemplate",
                  ["capacityReservationSpecification"], [], {})
    assert got == Verdict(
        "rolling", ("capacityReservationSpecification",), nodes_down=True,
        note="a new launch template version: EKS rolls every node of the node group using "
             "it, with that group's updateConfig",
        runbook="docs/day2.md#eks-roll-node-images")


def test_a_workload_template_change_says_its_pods_are_replaced() -> None:
    """A Deployment rolls "if and only if" its .spec.template changes (kubernetes.io/docs/
    concepts/workloads/controllers/deployment/#updating-a-deployment); the same holds
    for DaemonSets and StatefulSets. The NCCL installer DaemonSet runs on every GPU node."""
    ds, deploy = "kubernetes:apps/v1:DaemonSet", "kubernetes:apps/v1:Deployment"
    image = "spec.template.spec.containers[0].image"
    assert verdict("update", ds, [image, "metadata.labels.x"], [], {}) == Verdict(
        "in-place", (image,),
        note="pod template changed: its pod on every node it runs on is replaced")
    assert verdict("update", deploy, [image], [], {}) == Verdict(
        "in-place", (image,), note="pod template changed: its pods are replaced")
    assert verdict("update", "kubernetes:apps/v1:StatefulSet", ["spec.template"], [], {}
                   ) == Verdict("in-place", ("spec.template",),
                                note="pod template changed: its pods are replaced")
    # Outside the template (replicas), or a kind without pods, or a path that only
    # starts like it: in place, nothing more.
    assert verdict("update", deploy, ["spec.replicas"], [], {}) == Verdict(
        "in-place", ("spec.replicas",))
    assert verdict("update", "kubernetes:core/v1:ConfigMap", ["spec.template"], [], {}
                   ) == Verdict("in-place", ("spec.template",))
    assert verdict("update", ds, ["spec.templateGeneration"], [], {}) == Verdict(
        "in-place", ("spec.templateGeneration",))
    # A type token of another provider that ends in ":DaemonSet" is no Kubernetes object.
    assert verdict("update", "other:apps/v1:DaemonSet", [image], [], {}) == Verdict(
        "in-place", (image,))
    # The Markdown lists it under the verdicts (a note is worth showing).
    before = plan_doc((ds, "nccl", {"spec": {"template": {"spec": {"containers": [
        {"image": "a:1"}]}}}}))
    after = plan_doc((ds, "nccl", {"spec": {"template": {"spec": {"containers": [
        {"image": "a:2"}]}}}}))
    assert ("- `nccl` (`kubernetes:apps/v1:DaemonSet`): in-place; pod template changed: its "
            "pod on every node it runs on is replaced") in to_markdown(diff_plans(before, after))
