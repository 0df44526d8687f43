"""``kubernetes.freeze``: one switch that stops automatic minor and node upgrades on every
cloud during a long run (issue 32), wired into each cloud's own maintenance settings.

Sources of the expected inputs:
* GKE maintenance exclusion scope NO_MINOR_OR_NODE_UPGRADES ("allows control plane patch
  upgrades only", https://cloud.google.com/kubernetes-engine/docs/concepts/
  maintenance-windows-and-exclusions#scope_of_maintenance_to_exclude);
* AKS ``autoUpgradeProfile.upgradeChannel`` ``none`` and ``nodeOSUpgradeChannel``
  ``None`` turn both auto-upgrades off (https://learn.microsoft.com/en-us/azure/aks/
  auto-upgrade-cluster, https://learn.microsoft.com/en-us/azure/aks/auto-upgrade-node-os-image);
* DOKS ``auto_upgrade`` (https://docs.digitalocean.com/products/kubernetes/how-to/upgrade-cluster/);
* EKS ``upgradePolicy.supportType`` ``EXTENDED`` keeps the version past standard support
  instead of an automatic upgrade (https://docs.aws.amazon.com/eks/latest/userguide/
  extended-support-control.html); EKS managed node groups and OKE never upgrade by
  themselves, so a freeze changes nothing else there.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest

from gpu_fabric.errors import SpecError
from gpu_fabric.plan import load_stack_file
from gpu_fabric.plan.runner import run_spec

FREEZE = {"start": "2026-12-01T00:00:00Z", "end": "2027-01-15T00:00:00Z"}


def _spec(stack: str, *, auto: bool, freeze: dict[str, Any] | None) -> dict[str, Any]:
    spec = copy.deepcopy(load_stack_file(stack).cluster)
    kube = spec.setdefault("kubernetes", {})
    kube["auto_upgrade"] = auto
    if freeze is not None:
        kube["freeze"] = freeze
    return spec


def _inputs(stack: str, type_: str, **kw: Any) -> dict[str, Any]:
    return run_spec(_spec(stack, **kw), stack=stack).one(type_).inputs


def test_gke_freeze_is_a_maintenance_exclusion() -> None:
    got = _inputs("gcp-a4", "gcp:container/cluster:Cluster", auto=False, freeze=FREEZE)
    assert got["maintenancePolicy"]["maintenanceExclusions"] == [{
        "exclusionName": "gpu-fabric-freeze",
        "startTime": "2026-12-01T00:00:00Z", "endTime": "2027-01-15T00:00:00Z",
        "exclusionOptions": {"scope": "NO_MINOR_OR_NODE_UPGRADES"},
    }]
    # Without an end: until the minor version's end of support.
    open_ended = _inputs("gcp-a4", "gcp:container/cluster:Cluster", auto=False,
                         freeze={"start": "2026-12-01T00:00:00Z"})
    assert open_ended["maintenancePolicy"]["maintenanceExclusions"][0]["exclusionOptions"] == {
        "scope": "NO_MINOR_OR_NODE_UPGRADES", "endTimeBehavior": "UNTIL_END_OF_SUPPORT"}
    unfrozen = _inputs("gcp-a4", "gcp:container/cluster:Cluster", auto=False, freeze=None)
    assert "maintenancePolicy" not in unfrozen


def test_aks_freeze_turns_both_channels_off() -> None:
    aks = "azure-native:containerservice:ManagedCluster"
    frozen = _inputs("azure-ndv5", aks, auto=True, freeze=FREEZE)
    assert frozen["autoUpgradeProfile"] == {"upgradeChannel": "none",
                                           "nodeOSUpgradeChannel": "None"}
    live = _inputs("azure-ndv5", aks, auto=True, freeze=None)
    assert live["autoUpgradeProfile"]["upgradeChannel"] != "none"


def test_doks_freeze_turns_auto_upgrade_off() -> None:
    doks = "digitalocean:index/kubernetesCluster:KubernetesCluster"
    assert _inputs("do-h200", doks, auto=True, freeze=FREEZE)["autoUpgrade"] is False
    assert _inputs("do-h200", doks, auto=True, freeze=None)["autoUpgrade"] is True


def test_eks_freeze_keeps_extended_support() -> None:
    eks = "aws:eks/cluster:Cluster"
    assert _inputs("aws-p5", eks, auto=True, freeze=FREEZE)["upgradePolicy"] == {
        "supportType": "EXTENDED"}
    assert _inputs("aws-p5", eks, auto=True, freeze=None)["upgradePolicy"] == {
        "supportType": "STANDARD"}


def test_oke_freeze_changes_nothing() -> None:
    frozen = run_spec(_spec("oci-h100", auto=False, freeze=FREEZE), stack="oci-h100")
    plain = run_spec(_spec("oci-h100", auto=False, freeze=None), stack="oci-h100")
    assert [(r.urn, r.inputs) for r in frozen.resources] == [
        (r.urn, r.inputs) for r in plain.resources]


@pytest.mark.parametrize(("freeze", "message"), [
    ({"start": "2026-12-01"},
     "'2026-12-01' is not an RFC 3339 UTC time like 2026-12-01T00:00:00Z"),
    ({"start": "2026-12-01T00:00:00Z", "end": "2026-11-01T00:00:00Z"},
     "freeze.end 2026-11-01T00:00:00Z is not after freeze.start 2026-12-01T00:00:00Z"),
])
def test_a_bad_freeze_is_refused_naming_the_field(freeze: dict, message: str) -> None:
    with pytest.raises(SpecError) as err:
        run_spec(_spec("gcp-a4", auto=False, freeze=freeze), stack="gcp-a4")
    text = str(err.value)
    assert "kubernetes.freeze" in text and message in text
