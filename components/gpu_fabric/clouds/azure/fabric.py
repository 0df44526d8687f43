"""How AKS ND-series pools hand InfiniBand to pods (pure; no SDK).

The NVIDIA Network Operator's NicClusterPolicy runs either the RDMA shared device
plugin (default: one ``rdma/hca_shared_devices_a`` slot per pod gives every IB
HCA; the name NeMo's Azure injection requests) or the SR-IOV device plugin
(``rdma/ib``, one exclusive NIC per GPU). No Multus: IB RDMA needs no second
pod interface. NCCL gets the VM size's topology file from a ConfigMap.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from gpu_fabric.clouds.azure.provider import PROVIDER
from gpu_fabric.clouds.azure.topology import TOPOLOGY_KEY, config_map_name
from gpu_fabric.fabric.derive import (
    dra_classes,
    fabric_mtu,
    nccl_env,
    pool_labels,
    pool_taints,
    refuse_amd_gpu_dra,
)
from gpu_fabric.fabric.description import Attach, DevicePlugin, FabricDescription, Rail
from gpu_fabric.fabric.problems import refuse

if TYPE_CHECKING:
    from gpu_fabric.spec import ClusterSpec, GpuNodePoolSpec

SHARED_RESOURCE = "rdma/hca_shared_devices_a"
SRIOV_RESOURCE = "rdma/ib"
TOPOLOGY_MOUNT = "/opt/nvidia-topology"
# DraNet's provider plug-in for this cloud (``args.cloudProviderHint``; dranet v1.4.0
# cmd/dranet/app.go and values.schema.json).
DRANET_PROVIDER_HINT = "AZURE"


def topology_config_map(topology: str) -> str:
    """Name of the ConfigMap holding a VM family's NCCL topology file."""
    return config_map_name(topology)


def describe(spec: ClusterSpec, pool: GpuNodePoolSpec) -> FabricDescription:
    machine = pool.machine
    mode = spec.fabric.mode.value
    if mode == "host-network":
        refuse("fabric.mode", "AKS pods get IB devices from a device plugin; use device-plugin",
               mode)
    # DRA on AKS: GPUs (and GB200/GB300 ComputeDomains) through the NVIDIA DRA driver,
    # the HCAs stay on the Network Operator's device plugin. dranet's AKS examples
    # (kubernetes-sigs/dranet examples/azure_aks_examples: gb300, mi300x) show the IB
    # VFs publishing dra.net/numaNode and no resource.kubernetes.io/pcieRoot, and the
    # GPU DRA drivers publish no dra.net/numaNode: no claim constraint can pair a GPU
    # with its HCA (the examples pin devices by bus id), and a pcieRoot constraint
    # would leave every pod Pending. NCCL pairs them by the topology file instead.
    attach = Attach.NONE if not machine.has_fabric else Attach.DEVICE_PLUGIN
    sriov = spec.fabric.device_plugin == "sriov"
    plugin = DevicePlugin.NONE
    pooled: dict[str, int] = {}
    scaling = "per_pod"
    if attach is Attach.DEVICE_PLUGIN:
        plugin = DevicePlugin.SRIOV if sriov else DevicePlugin.RDMA_SHARED
        pooled = {SRIOV_RESOURCE: machine.fabric_nics} if sriov else {SHARED_RESOURCE: 1}
        scaling = "per_gpu" if sriov else "per_pod"
    env_overrides: dict[str, str] = {}
    mounts: dict[str, str] = {}
    if machine.topology and machine.has_fabric:
        mounts[topology_config_map(machine.topology)] = TOPOLOGY_MOUNT
        env_overrides["NCCL_TOPO_FILE"] = f"{TOPOLOGY_MOUNT}/{TOPOLOGY_KEY}"
    dra = mode == "dra"
    if dra:
        refuse_amd_gpu_dra(spec, pool, "AKS", "auto or device-plugin")
    return FabricDescription(
        cloud=spec.cloud,
        pool=pool.name,
        machine=machine,
        attach=attach,
        device_plugin=plugin,
        rails=tuple(
            Rail(i, netdev, None, None, None, None) for i, netdev in enumerate(machine.nic_names)
        ),
        gpu_resource=machine.gpu_resource,
        pooled_resources=pooled,
        pooled_scaling=scaling,
        nccl_env=nccl_env(machine, env_overrides),
        node_labels=pool_labels(pool, dra=dra),
        taints=pool_taints(spec, pool, PROVIDER.gpu_taint(pool.machine.gpu.vendor)),
        mtu=fabric_mtu(spec, machine),
        dra=dra_classes(spec) if dra else None,
        gpu_dra=dra,
        config_map_mounts=mounts,
        dranet_provider_hint=DRANET_PROVIDER_HINT,
    )
