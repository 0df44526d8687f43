"""azure: the cloud's part of the Kubernetes fabric layer (pure; no SDK).

Interface (see gpu_fabric.fabric.layer): addon_defaults, chart_values, parts.

On AKS the InfiniBand HCAs reach pods through the NVIDIA Network Operator: its
``nic-cluster-policy`` runs the DOCA (MOFED) driver container and the RDMA shared
device plugin (or the SR-IOV device plugin) with the resource names of the
fabric description, on the IB pools' nodes only. No Multus: IB verbs need no
second pod interface. The GPU Operator installs the driver with nvidia-peermem
(GPUDirect RDMA; without it NCCL copies through host memory). NCCL gets the VM
family's topology file from a ConfigMap in every workload namespace.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from gpu_fabric import versions
from gpu_fabric.catalog import FabricKind, GpuVendor
from gpu_fabric.clouds.azure.topology import topology_config_map
from gpu_fabric.fabric.addons import (
    GPU_OPERATOR,
    MULTUS,
    NETWORK_OPERATOR,
    NVIDIA_DRA_DRIVER,
    RDMA_SHARED_DEVICE_PLUGIN,
    SRIOV_DEVICE_PLUGIN,
)
from gpu_fabric.fabric.description import Attach, DevicePlugin
from gpu_fabric.fabric.layer import Manifest, Part
from gpu_fabric.fabric.manifests import network_operator
from gpu_fabric.fabric.manifests.rdma_shared import SharedResource
from gpu_fabric.fabric.manifests.sriov import MELLANOX_VENDOR, VfResource, rdma_vfs
from gpu_fabric.fabric.naming import split_resource
from gpu_fabric.fabric.plugin_guards import check_resource_name, refuse_second_plugin

if TYPE_CHECKING:
    from gpu_fabric.fabric.addons import ResolvedAddons
    from gpu_fabric.fabric.description import FabricDescription
    from gpu_fabric.spec import ClusterSpec

NETWORK_OPERATOR_PART = NETWORK_OPERATOR.part
NIC_POLICY_PART = "nic-cluster-policy"
TOPOLOGY_PART = "nccl-topology"
# Pods that may share the HCAs of one node (Azure's rdmaSharedDevicePlugin config).
SHARED_HCA_MAX = 63
OFED_ENV = {"OFED_BLACKLIST_MODULES_FILE": "/host/etc/modprobe.d/blacklist-ofed-modules.conf"}


def _ib(fabrics: Mapping[str, FabricDescription]) -> list[FabricDescription]:
    return [f for f in fabrics.values()
            if f.machine.fabric is FabricKind.INFINIBAND and f.machine.has_fabric]


def addon_defaults(
    spec: ClusterSpec, fabrics: Mapping[str, FabricDescription]
) -> dict[str, bool]:
    ib = _ib(fabrics)
    nvidia = any(f.machine.gpu.vendor is GpuVendor.NVIDIA for f in fabrics.values())
    return {
        # The Network Operator's NicClusterPolicy runs the device plugins: the
        # standalone plugin DaemonSets and Multus stay off.
        NETWORK_OPERATOR.key: bool(ib),
        RDMA_SHARED_DEVICE_PLUGIN.key: False,
        SRIOV_DEVICE_PLUGIN.key: False,
        MULTUS.key: False,
        GPU_OPERATOR.key: nvidia,
    }


def chart_values(
    addon: str, spec: ClusterSpec, fabrics: Mapping[str, FabricDescription]
) -> dict[str, Any]:
    if addon == NVIDIA_DRA_DRIVER.key:
        # The GPU Operator's driver container holds the driver: nvidia-dra-driver-gpu
        # 25.12.0 values.yaml lines 19-23 ("If the NVIDIA GPU driver is managed using the
        # NVIDIA GPU Driver Container, this is typically /run/nvidia/driver").
        if operator_installs_driver(spec, fabrics):
            return {"nvidiaDriverRoot": OPERATOR_DRIVER_ROOT}
        return {}
    if addon != GPU_OPERATOR.key:
        return {}
    from gpu_fabric.fabric.addons import resolve_addons

    addons = resolve_addons(spec, fabrics)
    rdma = any(f.machine.fabric.is_rdma for f in fabrics.values())
    values: dict[str, Any] = {
        # AKS pools are created with gpu_profile.driver None: the operator owns the
        # driver and loads nvidia-peermem against the DOCA driver container's MOFED.
        "driver": {"enabled": True, "rdma": {"enabled": rdma, "useHostMofed": False}},
        # The Network Operator already runs NFD; two NFD masters fight over labels.
        "nfd": {"enabled": not addons.on(NETWORK_OPERATOR)},
        "vgpuDeviceManager": {"enabled": False},
        "vfioManager": {"enabled": False},
        "sandboxDevicePlugin": {"enabled": False},
    }
    if not any(p.mig for p in spec.node_pools):
        values["migManager"] = {"enabled": False}
    return values


OPERATOR_DRIVER_ROOT = "/run/nvidia/driver"


def operator_installs_driver(
    spec: ClusterSpec, fabrics: Mapping[str, FabricDescription]
) -> bool:
    """True when the GPU Operator installs the NVIDIA driver (AKS must then not)."""
    from gpu_fabric.fabric.addons import resolve_addons

    addon = resolve_addons(spec, fabrics)[GPU_OPERATOR.key]
    if not addon.enabled:
        return False
    driver = addon.values.get("driver", {})
    return bool(driver.get("enabled", True)) if isinstance(driver, Mapping) else True


def workload_manifests(fabrics: Sequence[FabricDescription], ns: str) -> list[Manifest]:
    """Namespaced objects a workload of these fabrics mounts (NCCL topology ConfigMaps):
    every namespace that runs fabric pods needs its own copy (team namespaces too)."""
    topologies = sorted({f.machine.topology for f in fabrics if f.machine.topology})
    return [topology_config_map(t, ns) for t in topologies]


def _fabric_namespaces(spec: ClusterSpec, fabrics: Sequence[FabricDescription]) -> list[str]:
    """The fabric namespaces and the namespaces of teams that use these pools."""
    from gpu_fabric.fabric.injection import fabric_namespaces

    out: list[str] = []
    for fabric in fabrics:
        out += [ns for ns in fabric_namespaces(spec, fabric) if ns not in out]
    return out


def _workload_after(spec: ClusterSpec) -> tuple[str, ...]:
    from gpu_fabric.fabric.parts import SYSTEM_NAMESPACES, WORKLOAD_NAMESPACES

    if any(ns not in SYSTEM_NAMESPACES for ns in spec.fabric.namespaces):
        return (WORKLOAD_NAMESPACES,)
    return ()


def shared_resources(fabrics: list[FabricDescription]) -> list[SharedResource]:
    """RDMA shared device plugin resources: every IB HCA of the node behind one name."""
    out: list[SharedResource] = []
    for fabric in fabrics:
        if fabric.attach is not Attach.DEVICE_PLUGIN:
            continue
        if fabric.device_plugin is not DevicePlugin.RDMA_SHARED:
            continue
        for resource in fabric.pooled_resources:
            prefix, name = split_resource(resource)
            found = SharedResource(
                name, {"vendors": [MELLANOX_VENDOR], "linkTypes": ["infiniband"]},
                prefix, SHARED_HCA_MAX,
            )
            if found not in out:
                out.append(found)
    return out


def sriov_resources(fabrics: list[FabricDescription]) -> list[VfResource]:
    """SR-IOV device plugin resources: one exclusive IB VF per request."""
    out: list[VfResource] = []
    for fabric in fabrics:
        if fabric.attach is not Attach.DEVICE_PLUGIN:
            continue
        if fabric.device_plugin is not DevicePlugin.SRIOV:
            continue
        for resource in fabric.pooled_resources:
            prefix, name = split_resource(resource)
            found = rdma_vfs(name, prefix, link_type="infiniband")
            if found not in out:
                out.append(found)
    return out


def _check_device_plugins(
    spec: ClusterSpec, ib: list[FabricDescription], addons: ResolvedAddons
) -> None:
    """The NicClusterPolicy's plugins get valid resource names, and no generic add-on
    runs a second plugin for the same HCAs / VFs (see gpu_fabric.fabric.plugin_guards)."""
    owner = "the Network Operator's NicClusterPolicy (addons.network_operator)"
    for fabric in ib:
        for resource in fabric.pooled_resources:
            plugin = (DevicePlugin.SRIOV if fabric.device_plugin is DevicePlugin.SRIOV
                      else DevicePlugin.RDMA_SHARED)
            check_resource_name(spec, fabric, split_resource(resource)[1], plugin,
                                f"the pool's resource {resource}")
    shared = shared_resources(ib)
    if shared and addons.on(RDMA_SHARED_DEVICE_PLUGIN):
        refuse_second_plugin(RDMA_SHARED_DEVICE_PLUGIN.key, "rdma-shared",
                             owner + " with rdmaSharedDevicePlugin",
                             ", ".join(r.resource for r in shared))
    vfs = sriov_resources(ib)
    if vfs and addons.on(SRIOV_DEVICE_PLUGIN):
        refuse_second_plugin(SRIOV_DEVICE_PLUGIN.key, "sriov",
                             owner + " with sriovDevicePlugin",
                             ", ".join(r.resource for r in vfs))


def nic_cluster_policy(
    operator_version: str, fabrics: list[FabricDescription]
) -> Manifest:
    """``nic-cluster-policy`` for the IB pools: DOCA driver + the pools' device plugin."""
    policy = network_operator.nic_cluster_policy(
        operator_version,
        doca_driver=network_operator.DocaDriver(versions.AZURE_DOCA_DRIVER.tag, OFED_ENV),
        rdma_shared=shared_resources(fabrics),
        sriov=sriov_resources(fabrics),
    )
    # Only the IB pools' nodes (selected by the labels the pools carry): NFD's
    # default PCI rules do not label InfiniBand controllers (class 0207).
    terms = [
        {"matchExpressions": [
            {"key": k, "operator": "In", "values": [v]} for k, v in sorted(f.node_selector.items())
        ]}
        for f in fabrics if f.node_selector
    ]
    if terms:
        policy["spec"]["nodeAffinity"] = {
            "requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": terms}
        }
    return policy


def parts(
    spec: ClusterSpec, fabrics: Mapping[str, FabricDescription], addons: ResolvedAddons
) -> list[Part]:
    from gpu_fabric.fabric.parts import chart_release, own_namespace

    ib = _ib(fabrics)
    out: list[Part] = []
    if addons.on(NETWORK_OPERATOR):
        if ib:
            _check_device_plugins(spec, ib, addons)
        this = sys.modules[__name__]
        out.append(Part(
            NETWORK_OPERATOR_PART,
            tuple(own_namespace(NETWORK_OPERATOR, addons)),
            (chart_release(NETWORK_OPERATOR, addons, network_operator.chart_values(), this,
                           spec, fabrics),),
            description="NVIDIA Network Operator (NFD, operator; CRDs for the NicClusterPolicy)",
        ))
        if ib:
            version = addons[NETWORK_OPERATOR.key].chart().version
            out.append(Part(
                NIC_POLICY_PART,
                (nic_cluster_policy(version, ib),),
                after=(NETWORK_OPERATOR_PART,),
                description="NicClusterPolicy: DOCA driver and the IB device plugin",
            ))
    topologies = sorted({f.machine.topology for f in ib if f.machine.topology})
    if topologies:
        out.append(Part(
            TOPOLOGY_PART,
            tuple(m for ns in _fabric_namespaces(spec, ib) for m in workload_manifests(ib, ns)),
            # Team namespaces are created by the platform's teams part.
            after=_workload_after(spec) + (("teams",) if spec.tenancy.teams else ()),
            description="NCCL topology files of the ND VM families (NCCL_TOPO_FILE)",
        ))
    return out
