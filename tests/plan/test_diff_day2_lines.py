"""Which changes the PR comment's "Day-2 verdict" section lists (plan/diff.py ``_day2_lines``),
and that ``diff_plans`` judges an update on the head plan's inputs.

The section lists a change that replaces, rolls or destroys, that carries a note, or that
takes nodes down; other in-place changes say nothing the table does not. A ConfigMap's
``data`` replaces it (pulumi/pulumi-kubernetes provider/pkg/provider/diff.go, ``core``
``"ConfigMap": properties{".binaryData", ".data"}``), without touching a node; an EKS node
group's ``updateConfig.maxUnavailable`` (AWS::EKS::Nodegroup UpdateConfig) drains that many
nodes beside the two launched first (https://docs.aws.amazon.com/eks/latest/userguide/
managed-node-update-behavior.html, "Scale up phase").
"""

from __future__ import annotations

from typing import Any

from gpu_fabric.plan.diff import diff_plans, to_markdown
from tests.support.plans import plan_doc

CM = "kubernetes:core/v1:ConfigMap"
GKE = "gcp:container/cluster:Cluster"
NG = "aws:eks/nodeGroup:NodeGroup"




def _plans() -> tuple[dict[str, Any], dict[str, Any]]:
    base = plan_doc((CM, "cm", {"metadata": {"name": "a"}, "data": {"k": "1"}}),
                (GKE, "gke", {"minMasterVersion": "1.33", "resourceLabels": {"t": "a"}}),
                (NG, "gpu", {"version": "1.33", "updateConfig": {"maxUnavailable": 3}}))
    head = plan_doc((CM, "cm", {"metadata": {"name": "a"}, "data": {"k": "2"}}),
                (GKE, "gke", {"minMasterVersion": "1.34", "resourceLabels": {"t": "b"}}),
                (NG, "gpu", {"version": "1.34", "updateConfig": {"maxUnavailable": 3}}))
    return base, head


def test_the_day2_section_lists_replacements_notes_and_rolls() -> None:
    markdown = to_markdown(diff_plans(*_plans()))
    section = markdown.split("#### Day-2 verdict\n\n", 1)[1].split("\n\n", 1)[0]
    assert section.splitlines() == [
        "- `cm` (`kubernetes:core/v1:ConfigMap`): replace; destroys the resource (created "
        "again); caused by `data.k`",
        "- `gke` (`gcp:container/cluster:Cluster`): in-place; control plane upgraded in place; "
        "this input rolls no node (pools roll when their own version changes, or by "
        "auto-upgrade where it is on); caused by `minMasterVersion`; see "
        "docs/day2.md#gke-upgrade-kubernetes",
        "- `gpu` (`aws:eks/nodeGroup:NodeGroup`): rolling; 5 node(s) at a time; needs spare "
        "capacity; takes nodes down; surge 2, unavailable 3; every node is drained and "
        "replaced; caused by `version`; see docs/day2.md#eks-roll-node-images",
    ]


def test_an_in_place_change_without_a_note_is_not_in_the_section() -> None:
    base = plan_doc((GKE, "gke", {"resourceLabels": {"t": "a"}}))
    head = plan_doc((GKE, "gke", {"resourceLabels": {"t": "b"}}))
    assert "Day-2 verdict" not in to_markdown(diff_plans(base, head))


def test_an_update_is_judged_on_the_head_inputs() -> None:
    changes = diff_plans(*_plans()).to_json()["changes"]
    (gpu,) = [c for c in changes if c["name"] == "gpu"]
    assert (gpu["verdict"]["nodes_at_once"], gpu["verdict"]["note"]) == (
        "5", "surge 2, unavailable 3; every node is drained and replaced")
