"""Which AKS, network, feature and role-assignment changes replace, which AKS refuses,
as pulumi-azure-native 3.29.0 and AKS say.

Sources (read through the code index and fetched mirrors; the expected values below are
written from them, not from clouds/azure/plan_facts.py):
* pulumi/pulumi-azure-native provider/pkg/gen/replacement.go @1b7112af33c6, ``forceNewMap``:
  line 14 Authorization RoleAssignment ``principalId``, ``scope``; lines 29-35 ManagedCluster
  ``diskEncryptionSetID`` ... ``windowsProfile``; lines 41-53 its network profile
  (``serviceCidr`` ... ``outboundType``); lines 61-67 AgentPool: only ``gpuInstanceProfile``,
  ``vmSize``, ``nodePublicIPTags``; lines 75-83 Network: no NetworkSecurityGroup entry;
  line 82 VirtualNetwork ``location``; line 85 ResourceGroup ``location``.
* provider/pkg/provider/diff.go @1b99ef0b L23-30: every path parameter of the resource's PUT
  replaces. The installed SDK names them: maintenance_configuration.py L197-205
  (configName, resourceGroupName, resourceName), network_security_group.py L223-226,
  subscription_feature_registration.py L132-136 (featureName, providerNamespace; the PUT
  path .../featureProviders/{providerNamespace}/subscriptionFeatureRegistrations/
  {featureName}, Microsoft.Features stable/2021-07-01/SubscriptionFeatureRegistration.json
  @0c1e42fc L37), role_assignment.py L264-270 (roleAssignmentName, scope).
* provider/pkg/gen/properties.go @000c5318 ``forceNew``: x-ms-mutability without "update"
  replaces, no extension means updatable. Azure/azure-rest-api-specs
  specification/containerservice/resource-manager/Microsoft.ContainerService/aks/stable/
  2025-09-01/managedClusters.json @1041da1a (the API version 3.29.0 uses: SDK
  containerservice/agent_pool.py L923): #/definitions/ManagedClusterAgentPoolProfileProperties
  gives osDiskSizeGB, vnetSubnetID, podSubnetID, osType, osSKU, availabilityZones and
  gpuProfile no x-ms-mutability (nor do ContainerServiceOSDisk, OSType, OSSKU, GPUProfile):
  azure-native updates them in place.
* What AKS does with those updates: MicrosoftDocs/azure-aks-docs @fb060abe articles/aks/
  concepts-storage.md L42/L56 ("You can't change the OS disk size after cluster or node pool
  creation"), reliability-availability-zones-configure.md L53 (zones), aks-managed-gpu-nodes.md
  L98 (gpuProfile driver immutable), upgrade-os-version.md L26 (no Windows OS type on
  update), L65-83 (an existing pool's OS SKU moves between Linux SKUs with `az aks nodepool
  update`; Windows2022/Windows2025 not supported there); hashicorp/terraform-provider-azurerm
  @69697b7f kubernetes_cluster_node_pool_resource.go L951-967 (os_disk_size_gb,
  pod_subnet_id, vnet_subnet_id, zones are changed only by creating the pool anew).
  MicrosoftDocs/azure-docs @12c695d5 articles/azure-linux/tutorial-azure-linux-migration.md
  ("In-place OS SKU migration"): an OS SKU change "rolls the cluster through the standard
  node image upgrade process".
* A pool's max pods and custom kubelet configuration: managedClusters.json @1041da1a
  (ManagedClusterAgentPoolProfileProperties) gives ``maxPods`` and ``kubeletConfig`` no
  x-ms-mutability and forceNewMap has neither (F 61-67): updated in place. AKS: "You can't
  change the max pods setting of a node pool after you create it" (azure-aks-docs @fb060abe
  create-node-pools.md L59); a custom kubelet configuration is given when a cluster or pool
  is created (custom-node-configuration.md L15, L173-184), an update changing it fails with
  CustomKubeletConfigOrCustomLinuxOSConfigCanNotBeChanged (github.com/Azure/AKS issues 2300,
  2591); azurerm creates the pool anew for both (kubernetes_cluster_node_pool_resource.go
  @69697b7f L954 kubelet_config, L957 max_pods).
* The system pool is ``agentPoolProfiles[0]`` of the ManagedCluster: forceNewMap's
  ManagedCluster set (F 27-60) names none of its properties (nodePublicIPTags aside), so
  azure-native updates it in place; AKS refuses the same changes as on any pool, and a VM
  size change: "You can't change the virtual machine (VM) size of a node pool after you
  create it" (create-node-pools.md L58; the in-place VMSS resize needs API
  2026-01-02-preview, resize-node-pool.md L24-48, 3.29.0 sends 2025-09-01); a new pool name
  in a cluster PUT fails with "Adding agent pools to an existing cluster is not allowed
  through managed cluster operations" (github.com/pulumi/pulumi-azure-native/issues/579).
  Its count and orchestratorVersion are updated (scale, upgrade). azurerm cycles the
  default pool for the same inputs (kubernetes_cluster_resource.go @69697b7f L2669-2687).
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from gpu_fabric.cli import main
from gpu_fabric.plan.diff import ResourceChange, diff_plans, to_markdown

CLUSTER = "azure-native:containerservice:ManagedCluster"
POOL = "azure-native:containerservice:AgentPool"
WINDOW = "azure-native:containerservice:MaintenanceConfiguration"
NSG = "azure-native:network:NetworkSecurityGroup"
FEATURE = "azure-native:features:SubscriptionFeatureRegistration"
ROLE = "azure-native:authorization:RoleAssignment"
GROUP = "azure-native:resources:ResourceGroup"
RUNBOOK = "docs/day2.md#aks-replace-a-pool-without-downtime"
GPU_POOL_UPGRADE = {"upgradeSettings": {"maxSurge": "0", "maxUnavailable": "1"}}


def _doc(type_: str, inputs: dict[str, Any]) -> dict[str, Any]:
    return {"stack": "s", "resources": [
        {"urn": f"urn:pulumi:s::p::{type_}::x", "type": type_, "name": "x",
         "inputs": inputs}]}


def _change(type_: str, before: dict, after: dict) -> ResourceChange:
    [change] = diff_plans(_doc(type_, before), _doc(type_, after)).changes
    return change


def _action(type_: str, before: dict, after: dict) -> str:
    return _change(type_, before, after).action


@pytest.mark.parametrize(("type_", "before", "after", "action"), [
    # F line 14: a role assignment's principal or scope is its identity; diff.go: its
    # name is a path parameter too.
    (ROLE, {"principalId": "a", "scope": "/s"}, {"principalId": "b", "scope": "/s"}, "replace"),
    (ROLE, {"principalId": "a", "scope": "/s"}, {"principalId": "a", "scope": "/t"}, "replace"),
    (ROLE, {"roleAssignmentName": "g1"}, {"roleAssignmentName": "g2"}, "replace"),
    # F line 53: the cluster's outbound type.
    (CLUSTER, {"networkProfile": {"outboundType": "loadBalancer"}},
     {"networkProfile": {"outboundType": "userDefinedRouting"}}, "replace"),
    # F line 33: location; S: kubernetesVersion is updated in place.
    (CLUSTER, {"location": "eastus"}, {"location": "westus3"}, "replace"),
    (CLUSTER, {"kubernetesVersion": "1.33"}, {"kubernetesVersion": "1.34"}, "update"),
    # F lines 62-63: an agent pool's GPU instance profile and VM size.
    (POOL, {"gpuInstanceProfile": "MIG1g"}, {"gpuInstanceProfile": "MIG2g"}, "replace"),
    (POOL, {"vmSize": "Standard_ND96asr_v4"}, {"vmSize": "Standard_ND96isr_H100_v5"},
     "replace"),
    (POOL, {"count": 2}, {"count": 3}, "update"),
    # managedClusters.json 2025-09-01: no x-ms-mutability, not in forceNewMap: updated.
    (POOL, {"osDiskSizeGB": 256}, {"osDiskSizeGB": 512}, "update"),
    (POOL, {"osSKU": "Ubuntu"}, {"osSKU": "Ubuntu2404"}, "update"),
    (POOL, {"osType": "Linux"}, {"osType": "Windows"}, "update"),
    (POOL, {"vnetSubnetID": "/s/a"}, {"vnetSubnetID": "/s/b"}, "update"),
    (POOL, {"podSubnetID": "/s/a"}, {"podSubnetID": "/s/b"}, "update"),
    (POOL, {"gpuProfile": {"driver": "Install"}}, {"gpuProfile": {"driver": "None"}},
     "update"),
    (POOL, {"availabilityZones": ["1"]}, {"availabilityZones": ["2"]}, "update"),
    (POOL, {"maxPods": 30}, {"maxPods": 60}, "update"),
    (POOL, {"kubeletConfig": {"topologyManagerPolicy": "restricted"}},
     {"kubeletConfig": {"topologyManagerPolicy": "single-numa-node"}}, "update"),
    # The system pool inside the cluster: F 27-60 names none of its inputs.
    (CLUSTER, {"agentPoolProfiles": [{"vmSize": "Standard_D4s_v5"}]},
     {"agentPoolProfiles": [{"vmSize": "Standard_D8s_v5"}]}, "update"),
    # F line 85.
    (GROUP, {"location": "eastus"}, {"location": "westus3"}, "replace"),
    (GROUP, {"tags": {"a": "1"}}, {"tags": {"a": "2"}}, "update"),
    # diff.go L23-30: the PUT path parameters; the bodies carry no x-ms-mutability.
    (WINDOW, {"configName": "aksManagedNodeOSUpgradeSchedule"},
     {"configName": "aksManagedAutoUpgradeSchedule"}, "replace"),
    (WINDOW, {"resourceName": "c1"}, {"resourceName": "c2"}, "replace"),
    (WINDOW, {"maintenanceWindow": {"durationHours": 4}},
     {"maintenanceWindow": {"durationHours": 8}}, "update"),
    (NSG, {"networkSecurityGroupName": "a-nsg"}, {"networkSecurityGroupName": "b-nsg"},
     "replace"),
    (NSG, {"securityRules": [{"priority": 100}]}, {"securityRules": [{"priority": 110}]},
     "update"),
    (FEATURE, {"featureName": "AKSInfinibandSupport"}, {"featureName": "Other"}, "replace"),
    (FEATURE, {"providerNamespace": "Microsoft.ContainerService"},
     {"providerNamespace": "Microsoft.Compute"}, "replace"),
    (FEATURE, {"properties": {"shouldFeatureDisplayInPortal": False}},
     {"properties": {"shouldFeatureDisplayInPortal": True}}, "update"),
])
def test_azure_native_replacing_inputs(type_: str, before: dict, after: dict,
                                       action: str) -> None:
    assert _action(type_, before, after) == action


@pytest.mark.parametrize(("before", "after", "cause"), [
    ({"osDiskSizeGB": 256}, {"osDiskSizeGB": 512}, ("osDiskSizeGB",)),
    ({"availabilityZones": ["1"]}, {"availabilityZones": ["2"]}, ("availabilityZones[0]",)),
    ({"availabilityZones": ["1"]}, {"availabilityZones": ["1", "2"]}, ("availabilityZones",)),
    ({"gpuProfile": {"driver": "Install"}}, {"gpuProfile": {"driver": "None"}},
     ("gpuProfile.driver",)),
    ({"vnetSubnetID": "/s/a"}, {"vnetSubnetID": "/s/b"}, ("vnetSubnetID",)),
    ({"podSubnetID": "/s/a"}, {"podSubnetID": "/s/b"}, ("podSubnetID",)),
    ({"osType": "Linux"}, {"osType": "Windows"}, ("osType",)),
    # upgrade-os-version.md L66-73: Windows SKUs are not set by a node pool update.
    ({"osSKU": "Ubuntu"}, {"osSKU": "Windows2022"}, ("osSKU",)),
    # create-node-pools.md L59; custom-node-configuration.md L15 + Azure/AKS 2591.
    ({"maxPods": 30}, {"maxPods": 60}, ("maxPods",)),
    ({"kubeletConfig": {"topologyManagerPolicy": "restricted"}},
     {"kubeletConfig": {"topologyManagerPolicy": "single-numa-node"}},
     ("kubeletConfig.topologyManagerPolicy",)),
    ({"count": 2}, {"count": 2, "kubeletConfig": {"topologyManagerPolicy": "restricted"}},
     ("kubeletConfig",)),
    # A resize with a refused change in the same update: AKS rejects the whole update.
    ({"count": 2, "osDiskSizeGB": 256}, {"count": 3, "osDiskSizeGB": 512},
     ("osDiskSizeGB",)),
])
def test_aks_refuses_what_azure_native_updates(before: dict, after: dict,
                                               cause: tuple[str, ...]) -> None:
    change = _change(POOL, before, after)
    assert change.action == "update"
    assert change.verdict is not None
    assert (change.verdict.kind, change.verdict.cause, change.verdict.nodes_down,
            change.verdict.runbook) == ("refused", cause, False, RUNBOOK)


@pytest.mark.parametrize(("before", "after"), [
    ("Ubuntu", "Ubuntu2404"), ("Ubuntu2204", "AzureLinux"), ("AzureLinux", "AzureLinux3"),
])
def test_a_linux_os_sku_change_rolls_the_pool(before: str, after: str) -> None:
    """upgrade-os-version.md L83 ("migrate between any supported Linux os-sku") and the
    Azure Linux tutorial (node image upgrade process): the GPU pool's maxSurge 0 /
    maxUnavailable 1 reimage one node at a time with no spare VM."""
    change = _change(POOL, {"osSKU": before, **GPU_POOL_UPGRADE},
                     {"osSKU": after, **GPU_POOL_UPGRADE})
    assert change.verdict is not None
    assert (change.action, change.verdict.kind, change.verdict.cause,
            change.verdict.nodes_at_once, change.verdict.spare_capacity,
            change.verdict.runbook) == (
        "update", "rolling", ("osSKU",), "1", False, "docs/day2.md#aks-roll-node-images")


def test_a_refused_change_is_in_the_json_and_warned_in_markdown(tmp_path, capsys) -> None:
    base, head = _doc(POOL, {"osDiskSizeGB": 256}), _doc(POOL, {"osDiskSizeGB": 512})
    result = diff_plans(base, head)
    change = result.to_json()["changes"][0]
    # The diff's original keys are unchanged; the verdict carries the refusal.
    assert list(change) == ["action", "urn", "type", "name", "paths", "replacing_paths",
                            "values", "verdict"]
    assert (change["action"], change["replacing_paths"]) == ("update", [])
    verdict = change["verdict"]
    assert (verdict["kind"], verdict["cause"], verdict["runbook"]) == (
        "refused", ["osDiskSizeGB"], RUNBOOK)
    assert "AKS cannot change a pool's OS disk size after it is created" in verdict["note"]
    assert "concepts-storage.md L42, L56" in verdict["note"]
    markdown = to_markdown(result)
    assert ("> **Warning**: `x` (azure-native:containerservice:AgentPool) cannot be "
            "updated in place: the cloud refuses a change of `osDiskSizeGB`\n") in markdown
    assert "| ~ update :warning: | `azure-native:containerservice:AgentPool` | `x` |" in markdown
    # --fail-on-replace stops on a change `pulumi up` would fail on, as on a replacement.
    (tmp_path / "b.json").write_text(json.dumps(base))
    (tmp_path / "h.json").write_text(json.dumps(head))
    args = ["diff", "--base", str(tmp_path / "b.json"), "--head", str(tmp_path / "h.json")]
    assert main([*args, "--fail-on-replace", "--json"]) == 4
    capsys.readouterr()
    assert main([*args, "--json"]) == 0


def test_a_linux_os_sku_change_does_not_trip_fail_on_replace(tmp_path, capsys) -> None:
    (tmp_path / "b.json").write_text(json.dumps(_doc(POOL, {"osSKU": "Ubuntu"})))
    (tmp_path / "h.json").write_text(json.dumps(_doc(POOL, {"osSKU": "Ubuntu2404"})))
    assert main(["diff", "--base", str(tmp_path / "b.json"), "--head",
                 str(tmp_path / "h.json"), "--fail-on-replace", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["changes"][0]["verdict"]["kind"] == "rolling"


GOLDEN = Path(__file__).resolve().parents[2] / "data" / "golden" / "azure-ndv5" / "plan.json"


def test_our_gpu_pool_replaces_what_aks_refuses() -> None:
    """The library's AKS pools register the always-refused inputs with
    ``replace_on_changes`` (azurerm creates the pool anew for the same inputs, TF L951-967),
    so `pulumi up` replaces the pool (deleting first: fixed name) instead of sending an
    update AKS rejects half-way through. The OS SKU is not among them (Linux SKUs move in
    place, upgrade-os-version.md L65-83)."""
    plan = json.loads(GOLDEN.read_text())
    (pool,) = [r for r in plan["resources"] if r["type"] == POOL]
    assert pool["options"]["replace_on_changes"] == [
        "osDiskSizeGB", "availabilityZones", "gpuProfile", "vnetSubnetID", "podSubnetID",
        "osType", "kubeletConfig", "maxPods"]
    assert pool["options"]["delete_before_replace"] is True
    head = copy.deepcopy(plan)
    (changed,) = [r for r in head["resources"] if r["type"] == POOL]
    changed["inputs"]["osDiskSizeGB"] = 1024
    (change,) = diff_plans(plan, head).changes
    assert (change.action, change.replacing_paths) == ("replace", ("osDiskSizeGB",))
    assert change.verdict is not None
    assert (change.verdict.kind, change.verdict.nodes_down, change.verdict.runbook) == (
        "replace", True, RUNBOOK)
    # A count change beside it is carried by the replacement; alone it is in place.
    changed["inputs"]["count"] = 3
    (change,) = diff_plans(plan, head).changes
    assert change.replacing_paths == ("osDiskSizeGB",)
    del changed["inputs"]["osDiskSizeGB"]
    changed["inputs"]["count"] = pool["inputs"]["count"] + 1
    assert [c.action for c in diff_plans(plan, head).changes] == ["update"]


SYSTEM = {"name": "system", "mode": "System", "vmSize": "Standard_D4s_v5", "count": 2,
          "osType": "Linux", "osSKU": "Ubuntu", "orchestratorVersion": "1.34",
          "vnetSubnetID": "/s/nodes", "availabilityZones": []}


@pytest.mark.parametrize(("field", "after", "cause"), [
    # create-node-pools.md L58; resize-node-pool.md L24-48 (API 2026-01-02-preview).
    ("vmSize", "Standard_D8s_v5", "agentPoolProfiles[0].vmSize"),
    # concepts-storage.md L42/L56.
    ("osDiskSizeGB", 256, "agentPoolProfiles[0].osDiskSizeGB"),
    # reliability-availability-zones-configure.md L53: none to one zone.
    ("availabilityZones", ["1"], "agentPoolProfiles[0].availabilityZones"),
    # azurerm kubernetes_cluster_resource.go L2681, L2684 (subnets: the pool is cycled).
    ("vnetSubnetID", "/s/other", "agentPoolProfiles[0].vnetSubnetID"),
    ("podSubnetID", "/s/pods", "agentPoolProfiles[0].podSubnetID"),
    # upgrade-os-version.md L26, L66-73.
    ("osType", "Windows", "agentPoolProfiles[0].osType"),
    ("osSKU", "Windows2022", "agentPoolProfiles[0].osSKU"),
    # create-node-pools.md L59; custom-node-configuration.md L15 + Azure/AKS 2591.
    ("maxPods", 60, "agentPoolProfiles[0].maxPods"),
    ("kubeletConfig", {"topologyManagerPolicy": "restricted"},
     "agentPoolProfiles[0].kubeletConfig"),
    # pulumi-azure-native issue 579: a cluster PUT cannot introduce a pool.
    ("name", "system2", "agentPoolProfiles[0].name"),
])
def test_aks_refuses_a_system_pool_change_the_cluster_update_sends(
        field: str, after: Any, cause: str) -> None:
    before = {"agentPoolProfiles": [SYSTEM]}
    change = _change(CLUSTER, before, {"agentPoolProfiles": [{**SYSTEM, field: after}]})
    # In place for azure-native (never a cluster replacement), refused by AKS.
    assert (change.action, change.replacing_paths) == ("update", ())
    assert change.verdict is not None
    assert (change.verdict.kind, change.verdict.cause, change.verdict.nodes_down,
            change.verdict.runbook) == ("refused", (cause,), False, RUNBOOK)
    assert "agentPoolProfiles" in (change.verdict.note or "")
    assert "kubernetes_cluster_resource.go L2669-2687" in (change.verdict.note or "")


@pytest.mark.parametrize(("field", "after"), [
    ("count", 3), ("orchestratorVersion", "1.35"),
])
def test_the_system_pool_scales_and_upgrades_in_place(field: str, after: Any) -> None:
    """Scaling and upgrading a pool are the updates AKS takes (`az aks nodepool scale`,
    `az aks nodepool upgrade`; azurerm updates the default pool in place for them:
    kubernetes_cluster_resource.go L2669-2687 lists neither, L2763-2767 updates the pool)."""
    change = _change(CLUSTER, {"agentPoolProfiles": [SYSTEM]},
                     {"agentPoolProfiles": [{**SYSTEM, field: after}]})
    assert change.verdict is not None
    assert (change.action, change.verdict.kind, change.verdict.cause) == (
        "update", "in-place", (f"agentPoolProfiles[0].{field}",))


def test_a_system_pool_resize_in_the_stack_is_refused_not_a_cluster_replacement() -> None:
    """From the spec: ``system_pool.machine_type`` reaches the ManagedCluster's
    ``agentPoolProfiles[0].vmSize`` (clouds/azure/cluster.py), and the cluster is not
    registered with replace_on_changes (that would destroy the cluster)."""
    from gpu_fabric.plan import load_stack_file
    from gpu_fabric.plan.runner import run_spec

    base = json.loads(GOLDEN.read_text())
    (cluster,) = [r for r in base["resources"] if r["type"] == CLUSTER]
    assert cluster["options"]["replace_on_changes"] == []
    spec = copy.deepcopy(load_stack_file("azure-ndv5").cluster)
    spec["system_pool"] = {**spec.get("system_pool", {}), "machine_type": "Standard_D8s_v5"}
    head = run_spec(spec, stack="azure-ndv5").to_json()
    (change,) = diff_plans(base, head).changes
    assert change.verdict is not None
    assert (change.type, change.action, change.paths, change.verdict.kind,
            change.verdict.runbook) == (
        CLUSTER, "update", ("agentPoolProfiles[0].vmSize",), "refused", RUNBOOK)
    spec["system_pool"] = {**spec["system_pool"], "machine_type": None, "node_count": 3}
    head = run_spec(spec, stack="azure-ndv5").to_json()
    (change,) = diff_plans(base, head).changes
    assert change.verdict is not None
    assert (change.paths, change.verdict.kind) == (("agentPoolProfiles[0].count",), "in-place")
