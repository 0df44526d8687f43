"""AzureGpuCluster on the resource graph: AKS, ND pools, IB feature, network, kubeconfig."""

from __future__ import annotations

import base64
from pathlib import Path
from typing import Any

import pytest

from gpu_fabric.catalog import get_machine
from gpu_fabric.clouds.azure import fakes
from gpu_fabric.clouds.azure.cluster import InfinibandFeatureError, _decode_kubeconfig
from gpu_fabric.errors import SpecError
from gpu_fabric.plan import PlanResult
from gpu_fabric.plan.values import SECRET
from tests.specs import spec_dict, with_pool

AKS = "azure-native:containerservice:ManagedCluster"
POOL = "azure-native:containerservice:AgentPool"
FEATURE = "azure-native:features:SubscriptionFeatureRegistration"
NSG = "azure-native:network:NetworkSecurityGroup"
SUBNET = "azure-native:network:Subnet"
RG = "azure-native:resources:ResourceGroup"
GB200 = "Standard_ND128isr_NDR_GB200_v6"
ROOT = Path(__file__).resolve().parents[3]


def _pool(plan: PlanResult, name: str | None = None) -> dict[str, Any]:
    return plan.one(POOL, name).inputs


# -- stacks ------------------------------------------------------------------------
@pytest.mark.parametrize(("stack", "vm_size"), [
    ("azure-ndv5", "Standard_ND96isr_H100_v5"), ("azure-ndv4", "Standard_ND96asr_v4"),
])
def test_stack_has_one_nd_pool_of_its_vm_size(stack_plan, stack: str, vm_size: str) -> None:
    plan = stack_plan(stack)
    pool = _pool(plan)
    assert pool["vmSize"] == vm_size
    assert pool["count"] == 2
    assert pool["mode"] == "User" and pool["osSKU"] == "Ubuntu"
    # One pool = one scale set = one InfiniBand fabric.
    assert pool["type"] == "VirtualMachineScaleSets"
    out = plan.outputs["node_pools"][0]
    assert out["fabric_nics"] == get_machine(vm_size).fabric_nics


def test_cluster_has_oidc_workload_identity_and_a_pinned_version(stack_plan) -> None:
    cluster = stack_plan("azure-ndv5").one(AKS).inputs
    assert cluster["kubernetesVersion"] == "1.34"
    assert cluster["identity"]["type"] == "SystemAssigned"
    assert cluster["oidcIssuerProfile"] == {"enabled": True}
    assert cluster["securityProfile"]["workloadIdentity"] == {"enabled": True}
    assert cluster["networkProfile"]["networkPlugin"] == "azure"
    assert cluster["networkProfile"]["networkPluginMode"] == "overlay"
    system = cluster["agentPoolProfiles"]
    assert [p["mode"] for p in system] == ["System"]


def test_gpu_pool_driver_is_left_to_the_gpu_operator(stack_plan) -> None:
    pool = _pool(stack_plan("azure-ndv5"))
    assert pool["gpuProfile"] == {"driver": "None"}
    assert pool["nodeTaints"] == ["sku=gpu:NoSchedule"]
    assert pool["nodeLabels"]["gpufabric.dev/pool"] == "h100"


def test_aks_installs_the_driver_when_the_gpu_operator_is_off(spec_plan) -> None:
    plan = spec_plan(spec_dict("azure", addons={"gpu_operator": {"enabled": False}}))
    assert _pool(plan)["gpuProfile"] == {"driver": "Install"}


def test_children_are_named_after_the_component(spec_plan) -> None:
    plan = spec_plan(spec_dict("azure", name="blue"))
    cloud = [r for r in plan.resources if r.type.startswith("azure-native:")]
    assert cloud and all(r.name.startswith("blue-") for r in cloud)
    assert plan.one(AKS).name == "blue-aks"
    assert plan.one(POOL).name == "blue-pool-gpu"
    assert plan.one(RG).name == "blue-rg"


def test_gpu_pool_waits_for_feature_subnet_access_and_cluster(stack_plan) -> None:
    plan = stack_plan("azure-ndv5")
    pool = plan.one(POOL)
    for dep in (plan.one(FEATURE), plan.one(AKS),
                plan.one("azure-native:authorization:RoleAssignment",
                         "azure-ndv5-subnet-access-nodes")):
        assert plan.depends_on(pool, dep), dep.name


# -- AKSInfinibandSupport -------------------------------------------------------------
def test_feature_is_registered_for_h100_pools(stack_plan) -> None:
    feature = stack_plan("azure-ndv5").one(FEATURE).inputs
    assert feature["featureName"] == "AKSInfinibandSupport"
    assert feature["providerNamespace"] == "Microsoft.ContainerService"


def test_feature_is_not_registered_for_gb200_pools(spec_plan) -> None:
    plan = spec_plan(with_pool("azure", machine_type=GB200))
    assert plan.by_type(FEATURE) == []
    assert _pool(plan)["osSKU"] == "Ubuntu2404"


def test_mixed_h100_and_gb200_pools_are_refused(spec_plan) -> None:
    spec = spec_dict("azure")
    spec["node_pools"].append({"name": "gb", "machine_type": GB200, "node_count": 2})
    with pytest.raises(SpecError, match="AKSInfinibandSupport") as err:
        spec_plan(spec)
    assert err.value.problems[0].path == "node_pools"


def test_mixed_pools_are_allowed_when_the_feature_is_ignored(spec_plan) -> None:
    spec = spec_dict("azure", azure={"infiniband_feature": "ignore"})
    spec["node_pools"].append({"name": "gb", "machine_type": GB200, "node_count": 2})
    plan = spec_plan(spec)
    assert plan.by_type(FEATURE) == [] and len(plan.by_type(POOL)) == 2


def test_check_mode_reads_the_feature_instead_of_registering_it(spec_plan) -> None:
    plan = spec_plan(spec_dict("azure", azure={"infiniband_feature": "check"}))
    assert plan.by_type(FEATURE) == []
    assert _pool(plan)["vmSize"] == "Standard_ND96isr_H100_v5"


def test_check_mode_fails_clearly_for_gb200_on_a_registered_subscription(spec_plan) -> None:
    spec = with_pool("azure", machine_type=GB200)
    spec["azure"] = {"infiniband_feature": "check"}
    with pytest.raises(InfinibandFeatureError) as err:
        spec_plan(spec)
    assert "az feature unregister --namespace Microsoft.ContainerService" in str(err.value)
    # The failed plan leaves nothing behind: the next plan in this process is whole.
    assert spec_plan(spec_dict("azure")).by_type("azure-native:containerservice:AgentPool")


def test_feature_check_messages() -> None:
    from gpu_fabric.clouds.azure.cluster import check_feature_state

    assert check_feature_state("Registered", "registered") == "Registered"
    with pytest.raises(InfinibandFeatureError, match="az feature register"):
        check_feature_state("NotRegistered", "registered")
    assert check_feature_state("NotRegistered", "unregistered") == "NotRegistered"


# -- network -------------------------------------------------------------------------
WIDE = {"0.0.0.0/0", "*", "Internet", "Any", "any", "internet"}


@pytest.mark.parametrize("mode", ["overlay", "flat"])
def test_nsg_never_allows_the_internet_inbound(spec_plan, mode: str) -> None:
    plan = spec_plan(spec_dict("azure", azure={"network_plugin_mode": mode}))
    rules = plan.one(NSG).inputs["securityRules"]
    inbound_allows = [r for r in rules if r["direction"] == "Inbound" and r["access"] == "Allow"]
    assert inbound_allows
    for rule in inbound_allows:
        sources = set(rule.get("sourceAddressPrefixes", [])) | {rule.get("sourceAddressPrefix")}
        assert not sources & WIDE, rule
    assert any(r["access"] == "Deny" and r["sourceAddressPrefix"] == "Internet" for r in rules)


def test_node_subnet_carries_the_nsg(stack_plan) -> None:
    plan = stack_plan("azure-ndv5")
    subnet = plan.one(SUBNET).inputs
    assert subnet["networkSecurityGroup"]["id"].endswith("/networkSecurityGroups/azure-ndv5-nsg")
    assert subnet["addressPrefix"] == "10.10.0.0/20"


def test_flat_mode_adds_a_delegated_pod_subnet_inside_the_vnet(spec_plan) -> None:
    plan = spec_plan(spec_dict("azure", azure={"network_plugin_mode": "flat"}))
    pods = plan.one(SUBNET, "test-azure-pods").inputs
    assert pods["addressPrefix"] == "10.0.128.0/17"
    assert pods["delegations"][0]["serviceName"] == "Microsoft.ContainerService/managedClusters"
    assert _pool(plan)["podSubnetID"].endswith("/subnets/pods")
    network = plan.one(AKS).inputs["networkProfile"]
    # (the SDK fills podCidr with its default 10.244.0.0/16; AKS ignores it without overlay)
    assert "networkPluginMode" not in network


def test_overlay_pod_range_overlapping_the_vnet_is_refused(spec_plan) -> None:
    spec = spec_dict("azure", network={"cidr": "10.244.0.0/16"})
    with pytest.raises(SpecError, match=r"network\.pod_cidr"):
        spec_plan(spec)


def test_existing_resource_group_is_not_created(spec_plan) -> None:
    plan = spec_plan(spec_dict("azure", azure={"resource_group": "gpu-team"}))
    assert plan.by_type(RG) == []
    assert plan.one(AKS).inputs["resourceGroupName"] == "gpu-team"


def test_existing_subnet_skips_the_network(spec_plan) -> None:
    subnet = "/subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/net/" \
             "providers/Microsoft.Network/virtualNetworks/vnet/subnets/aks"
    plan = spec_plan(spec_dict("azure", azure={"existing_subnet_id": subnet}))
    assert plan.by_type(SUBNET) == [] and plan.by_type(NSG) == []
    assert _pool(plan)["vnetSubnetID"] == subnet


# -- kubeconfig ------------------------------------------------------------------------
def test_kubeconfig_is_a_secret_everywhere(stack_plan) -> None:
    plan = stack_plan("azure-ndv5")
    assert plan.outputs["kubeconfig"] == SECRET
    assert plan.one("pulumi:providers:kubernetes").inputs["kubeconfig"] == SECRET


def test_kubeconfig_is_decoded_from_the_user_credentials() -> None:
    raw = fakes.CALLS["azure-native:containerservice:listManagedClusterUserCredentials"](
        {"resourceName": "c1", "resourceGroupName": "rg1"}
    )

    class Cred:
        value = raw["kubeconfigs"][0]["value"]

    class Result:
        kubeconfigs = [Cred()]

    text = _decode_kubeconfig(Result())
    assert text == base64.b64decode(Cred.value).decode()
    assert "server: https://c1-" in text and "kind: Config" in text


def test_preview_leaves_the_kubeconfig_unknown_but_plans(stack_plan) -> None:
    plan = stack_plan("azure-ndv5", preview=True)
    assert plan.one(POOL).inputs["vmSize"] == "Standard_ND96isr_H100_v5"


# -- refusals --------------------------------------------------------------------------
@pytest.mark.parametrize("name", ["gpu-pool", "Gpu", "abcdefghijklm", "1gpu"])
def test_bad_azure_pool_names_are_refused(spec_plan, name: str) -> None:
    with pytest.raises(SpecError, match="Azure agent pool names") as err:
        spec_plan(with_pool("azure", name=name))
    assert err.value.problems[0].path == "node_pools[0].name"


def test_pool_named_system_is_refused(spec_plan) -> None:
    with pytest.raises(SpecError, match="system pool") as err:
        spec_plan(with_pool("azure", name="system"))
    assert err.value.problems[0].path == "node_pools[0].name"


def test_multi_node_pool_without_infiniband_is_refused(spec_plan) -> None:
    with pytest.raises(SpecError, match="no scale-out GPU fabric") as err:
        spec_plan(with_pool("azure", machine_type="Standard_NC24ads_A100_v4", node_count=2))
    assert "Standard_ND96isr_H100_v5" in str(err.value)


def test_gb200_pool_on_plain_ubuntu_is_refused(spec_plan) -> None:
    with pytest.raises(SpecError, match="Ubuntu2404") as err:
        spec_plan(with_pool("azure", machine_type=GB200, os_image="Ubuntu"))
    assert err.value.problems[0].path == "node_pools[0].os_image"


def test_bad_zone_is_refused(spec_plan) -> None:
    with pytest.raises(SpecError, match="availability zones") as err:
        spec_plan(spec_dict("azure", location={"region": "eastus", "zone": "eastus-1"}))
    assert err.value.problems[0].path == "location.zone"


def test_spot_pool_uses_spot_scale_set(spec_plan) -> None:
    pool = _pool(spec_plan(with_pool("azure", capacity={"type": "spot"})))
    assert pool["scaleSetPriority"] == "Spot" and pool["scaleSetEvictionPolicy"] == "Delete"
