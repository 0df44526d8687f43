"""Azure Kubernetes layer: NicClusterPolicy, IB resources, topology files, GPU Operator."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET

import pytest

from gpu_fabric.catalog import get_machine
from gpu_fabric.clouds.azure.topology import GPU_CLASS, IB_CLASS, topology_xml
from gpu_fabric.fabric.description import describe_cluster
from gpu_fabric.fabric.workload import pod_fragment
from gpu_fabric.spec import load_spec
from tests.specs import spec_dict, with_pool

POLICY = "kubernetes:mellanox.com/v1alpha1:NicClusterPolicy"
CM = "kubernetes:core/v1:ConfigMap"


@pytest.mark.parametrize("vm_size", ["Standard_ND96asr_v4", "Standard_ND96isr_H100_v5",
                                     "Standard_ND96isr_H200_v5"])
def test_topology_xml_lists_every_gpu_and_hca_of_the_catalog(vm_size: str) -> None:
    machine = get_machine(vm_size)
    root = ET.fromstring(topology_xml(str(machine.topology)))
    classes = [p.get("class") for p in root.iter("pci")]
    assert classes.count(GPU_CLASS) == machine.gpus
    assert classes.count(IB_CLASS) == machine.fabric_nics


@pytest.mark.parametrize(("stack", "topo"), [("azure-ndv5", "ndv5"), ("azure-ndv4", "ndv4")])
def test_topology_config_map_is_in_every_workload_namespace_and_mounted(
    stack_plan, stack: str, topo: str
) -> None:
    from gpu_fabric.plan.stackfile import load_stack_file

    plan = stack_plan(stack)
    spec = load_spec(load_stack_file(stack).cluster)
    maps = [r.inputs for r in plan.by_type(CM) if r.inputs["metadata"]["name"].startswith("nccl-")]
    assert sorted(m["metadata"]["namespace"] for m in maps) == sorted(spec.fabric.namespaces)
    assert all(m["metadata"]["name"] == f"nccl-topology-{topo}" for m in maps)
    assert maps[0]["data"]["topo.xml"] == topology_xml(topo)
    fabric = next(iter(describe_cluster(spec).values()))
    fragment = pod_fragment(fabric, 8)
    volume = next(v for v in fragment.volumes if "configMap" in v)
    assert volume["configMap"]["name"] == f"nccl-topology-{topo}"
    mount = next(m for m in fragment.volume_mounts if m["name"] == volume["name"])
    assert fragment.env["NCCL_TOPO_FILE"] == f"{mount['mountPath']}/topo.xml"
    assert fragment.env["NCCL_IB_PCI_RELAXED_ORDERING"] == "1"
    assert fragment.env["NCCL_SOCKET_IFNAME"] == "eth0"
    assert "IPC_LOCK" in fragment.capabilities
    assert any(v.get("emptyDir", {}).get("medium") == "Memory" for v in fragment.volumes)


def test_nic_cluster_policy_shares_the_ib_hcas_under_the_requested_name(stack_plan) -> None:
    plan = stack_plan("azure-ndv5")
    policy = plan.one(POLICY).inputs["spec"]
    assert policy["ofedDriver"]["image"] == "doca-driver"
    config = json.loads(policy["rdmaSharedDevicePlugin"]["config"])["configList"]
    assert [(c["resourcePrefix"], c["resourceName"]) for c in config] == [
        ("rdma", "hca_shared_devices_a")
    ]
    assert config[0]["selectors"] == {"vendors": ["15b3"], "linkTypes": ["infiniband"]}
    terms = policy["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]
    keys = [e["key"] for t in terms["nodeSelectorTerms"] for e in t["matchExpressions"]]
    assert keys == ["gpufabric.dev/pool"]


# Azure/azhpc-images topology/ndv5-topo.xml: 1 GPU + 1 IB HCA per PCIe switch (8 HCAs);
# ndv4-topo.xml: 2 GPU/HCA pairs per switch (8 HCAs). A pod gets its GPUs' HCAs.
@pytest.mark.parametrize(("vm_size", "gpus", "hcas"), [("Standard_ND96isr_H100_v5", 8, "8"),
                                                       ("Standard_ND96isr_H100_v5", 4, "4"),
                                                       ("Standard_ND96asr_v4", 8, "8")])
def test_sriov_ib_device_count_follows_the_catalog(
    spec_plan, vm_size: str, gpus: int, hcas: str
) -> None:
    raw = with_pool("azure", machine_type=vm_size)
    raw["fabric"] = {"mode": "device-plugin", "device_plugin": "sriov"}
    fabric = describe_cluster(load_spec(raw))["gpu"]
    assert pod_fragment(fabric, gpus).limits["rdma/ib"] == hcas
    policy = spec_plan(raw).one(POLICY).inputs["spec"]
    resources = json.loads(policy["sriovDevicePlugin"]["config"])["resourceList"]
    assert [(r["resourcePrefix"], r["resourceName"]) for r in resources] == [("rdma", "ib")]
    assert "rdmaSharedDevicePlugin" not in policy


def test_gpu_operator_runs_peermem_and_owns_the_driver(stack_plan) -> None:
    plan = stack_plan("azure-ndv5")
    release = next(r for r in plan.by_type("kubernetes:helm.sh/v3:Release")
                   if r.inputs["chart"] == "gpu-operator")
    values = release.inputs["values"]
    assert values["driver"]["enabled"] is True
    assert values["driver"]["rdma"] == {"enabled": True, "useHostMofed": False}
    assert values["nfd"] == {"enabled": False}  # the Network Operator runs NFD


def test_no_multus_or_standalone_device_plugins_on_aks() -> None:
    from gpu_fabric.fabric.layer import build_layer

    spec = load_spec(spec_dict("azure"))
    layer = build_layer(spec, describe_cluster(spec))
    assert {"network-operator", "nic-cluster-policy", "nccl-topology"} <= set(layer.names)
    assert not {"multus", "rdma-shared-device-plugin", "sriov-device-plugin"} & set(layer.names)
