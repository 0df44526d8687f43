"""AKS: what a first ``pulumi up`` and the first job hit (issue 18, Azure).

Expected values are literal, from the sources named beside them.
"""

from __future__ import annotations

import asyncio

import pytest

from gpu_fabric.fabric.description import describe_cluster
from gpu_fabric.spec import load_spec
from tests.fabric_helpers import layer_of
from tests.specs import spec_dict

# AKS GPU pools: `sku=gpu:NoSchedule` (AKS GPU docs; Azure/aks-rdma-infiniband), plus a
# spec's own taint.
POOL_TAINTS = [("sku", "gpu", "NoSchedule"), ("dedicated", "training", "NoSchedule")]
# Mellanox/network-operator 26.4.1 deployment/network-operator/values.yaml
# node-feature-discovery.worker.tolerations (the chart default this project replaced).
UPSTREAM_NFD_WORKER = [
    {"key": "node-role.kubernetes.io/master", "operator": "Exists", "effect": "NoSchedule"},
    {"key": "node-role.kubernetes.io/control-plane", "operator": "Exists",
     "effect": "NoSchedule"},
    {"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"},
]


def _run(coro):
    """Run a coroutine on a private loop (asyncio.run would unset the thread's loop,
    which later Pulumi tests in this process need)."""
    loop = asyncio.new_event_loop()
    try:
        return loop.run_until_complete(coro)
    finally:
        loop.close()


def tolerates(tolerations: list[dict], key: str, value: str, effect: str) -> bool:
    """Kubernetes' rule (core/v1 Toleration.ToleratesTaint)."""
    for t in tolerations:
        if t.get("effect") and t["effect"] != effect:
            continue
        if t.get("key") and t["key"] != key:
            continue
        op = t.get("operator", "Equal")
        if op == "Exists" or t.get("value", "") == value:
            return True
    return False


def _spec():
    data = spec_dict("azure")
    data["node_pools"][0]["taints"] = [{"key": "dedicated", "value": "training",
                                        "effect": "NoSchedule"}]
    return load_spec(data)


def _chart(layer, name):
    return next(c for c in layer.charts() if c.chart.name == name)


def test_the_upstream_nfd_worker_would_skip_aks_gpu_nodes() -> None:
    assert not tolerates(UPSTREAM_NFD_WORKER, "sku", "gpu", "NoSchedule")


@pytest.mark.parametrize(("key", "value", "effect"), POOL_TAINTS)
def test_every_nfd_and_node_agent_tolerates_the_nd_pool_taints(key, value, effect) -> None:
    spec = _spec()
    assert {(t.key, t.value, t.effect) for t in describe_cluster(spec)["gpu"].taints} == set(
        POOL_TAINTS)
    layer = layer_of(spec)
    network = _chart(layer, "network-operator").values
    # The NFD worker labels the nodes pci-10de / pci-15b3 that the GPU Operator and the
    # NicClusterPolicy select on: it must run there.
    assert tolerates(network["node-feature-discovery"]["worker"]["tolerations"],
                     key, value, effect)
    assert tolerates(network["operator"]["tolerations"], key, value, effect)
    gpu = _chart(layer, "gpu-operator").values
    assert gpu["nfd"]["enabled"] is False  # one NFD: the Network Operator's
    assert tolerates(gpu["daemonsets"]["tolerations"], key, value, effect)
    (policy,) = [m for m in layer.manifests() if m["kind"] == "NicClusterPolicy"]
    # DOCA driver and the RDMA shared device plugin are the policy's DaemonSets.
    assert {"ofedDriver", "rdmaSharedDevicePlugin"} <= set(policy["spec"])
    assert tolerates(policy["spec"]["tolerations"], key, value, effect)


def test_gpu_operator_nfd_worker_tolerates_pool_taints_where_it_runs() -> None:
    from gpu_fabric.fabric.manifests import gpu_operator

    values = gpu_operator.values(install_driver=True, rdma=True, nfd=True)
    tolerations = values["node-feature-discovery"]["worker"]["tolerations"]
    for key, value, effect in POOL_TAINTS:
        assert tolerates(tolerations, key, value, effect)


# -- AKSInfinibandSupport ----------------------------------------------------------------
def test_the_gpu_pool_waits_until_the_feature_is_registered() -> None:
    """Azure/aks-rdma-infiniband: registration is asynchronous; poll until Registered
    before adding the ND pool (the old code created the pool right after the PUT)."""
    from gpu_fabric.clouds.azure.cluster import wait_for_registered

    states = iter(["Registering", "Registering", "Registered"])
    slept: list[float] = []

    async def read() -> str | None:
        return next(states)

    async def sleep(seconds: float) -> None:
        slept.append(seconds)

    result = _run(wait_for_registered("Pending", read, sleep=sleep, interval=30))
    assert result == "Registered"
    assert slept == [30, 30, 30]


def test_a_registration_that_never_completes_fails_with_the_steps() -> None:
    from gpu_fabric.clouds.azure.cluster import InfinibandFeatureError, wait_for_registered

    async def read() -> str | None:
        return "Registering"

    async def sleep(seconds: float) -> None:
        return None

    with pytest.raises(InfinibandFeatureError) as err:
        _run(wait_for_registered("Registering", read, sleep=sleep, timeout=60,
                                        interval=30))
    message = str(err.value)
    assert "az provider register -n Microsoft.ContainerService" in message
    assert "'Registering'" in message


def test_the_pool_vm_size_waits_on_the_registration(stack_plan) -> None:
    plan = stack_plan("azure-ndv5")
    pool = plan.one("azure-native:containerservice:AgentPool")
    feature = plan.one("azure-native:features:SubscriptionFeatureRegistration")
    assert plan.depends_on(pool, feature)
    assert pool.inputs["vmSize"] == "Standard_ND96isr_H100_v5"


# -- DRA ------------------------------------------------------------------------------
@pytest.mark.parametrize("machine", ["Standard_ND96isr_H100_v5", "Standard_ND96asr_v4"])
def test_dra_on_aks_claims_gpus_only_and_keeps_hcas_on_the_device_plugin(machine) -> None:
    """kubernetes-sigs/dranet examples/azure_aks_examples (f258477): Azure IB VFs publish
    dra.net/numaNode and no resource.kubernetes.io/pcieRoot, so a GPU+NIC claim
    constrained on pcieRoot (what the layer built before) can never be satisfied."""
    from gpu_fabric.fabric.workload import pod_fragment

    data = spec_dict("azure", fabric={"mode": "dra"})
    data["node_pools"][0]["machine_type"] = machine
    spec = load_spec(data)
    fabric = describe_cluster(spec)["gpu"]
    assert fabric.gpu_dra and fabric.attach.value == "device-plugin"
    templates = [m for m in layer_of(spec).manifests() if m["kind"] == "ResourceClaimTemplate"]
    assert templates
    for template in templates:
        devices = template["spec"]["spec"]["devices"]
        assert "constraints" not in devices
        assert {r["exactly"]["deviceClassName"] for r in devices["requests"]} == {
            "gpu.nvidia.com"}
    assert not [m for m in layer_of(spec).manifests() if m["kind"] == "DeviceClass"
                and "dra.net" in str(m)]
    fragment = pod_fragment(fabric, 8)
    assert fragment.limits["rdma/hca_shared_devices_a"] == "1"
    assert fragment.resource_claims == [{"name": "gpu",
                                         "resourceClaimTemplateName": "8-gpu"}]


def test_dra_on_an_amd_pool_is_refused_at_validate_time() -> None:
    """ND MI300X v5 has AMD GPUs: the NVIDIA DRA driver (DeviceClass gpu.nvidia.com, what
    the layer claimed before) publishes none of them. AMD's driver is ROCm/k8s-gpu-dra-driver
    (deployments/helm/k8s-gpu-dra-driver/templates/deviceclass.yaml at 4482249: DeviceClass
    gpu.amd.com), not installed on AKS by this library: refused on the one validation path."""
    from gpu_fabric.errors import SpecError
    from gpu_fabric.preflight import check_spec

    data = spec_dict("azure", fabric={"mode": "dra"})
    data["node_pools"][0]["machine_type"] = "Standard_ND96isr_MI300X_v5"
    with pytest.raises(SpecError) as info:
        check_spec(load_spec(data))
    (problem,) = info.value.problems
    assert problem.path == "fabric.mode"
    assert problem.value == "dra"
    assert problem.message == (
        "pool 'gpu' (Standard_ND96isr_MI300X_v5) has AMD MI300X 192GB GPUs; GPU DRA on AKS "
        "is the NVIDIA DRA driver (DeviceClass gpu.nvidia.com), which publishes no AMD GPU, and "
        "AMD's driver (DeviceClass gpu.amd.com) is not installed on AKS; valid for this "
        "pool: fabric.mode auto or device-plugin")


def test_dra_driver_looks_for_the_gpu_operators_driver_container() -> None:
    """NVIDIA/k8s-dra-driver-gpu v25.12.0 deployments/helm/nvidia-dra-driver-gpu/values.yaml
    lines 19-23: "If the NVIDIA GPU driver is managed using the NVIDIA GPU Driver Container,
    this is typically /run/nvidia/driver. For driver installed directly on a host, a value of
    `/` is used." AKS pools leave the driver to the GPU Operator by default (gpu_profile
    None); before issue 31 the DRA driver got "/" and GPU claims stayed Pending."""
    spec = load_spec(spec_dict("azure", fabric={"mode": "dra"}))
    (release,) = [c for c in layer_of(spec).charts() if c.chart.name == "nvidia-dra-driver-gpu"]
    assert release.values["nvidiaDriverRoot"] == "/run/nvidia/driver"
    host = spec_dict("azure", fabric={"mode": "dra"},
                     addons={"gpu_operator": {"values": {"driver": {"enabled": False}}}})
    (release,) = [c for c in layer_of(load_spec(host)).charts()
                  if c.chart.name == "nvidia-dra-driver-gpu"]
    assert release.values["nvidiaDriverRoot"] == "/"
