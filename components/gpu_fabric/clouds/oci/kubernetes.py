"""oci: the cloud's part of the Kubernetes fabric layer (pure; no SDK).

Interface (see gpu_fabric.fabric.layer): addon_defaults, chart_values, parts.

What an OKE RDMA pool needs in the default (SR-IOV) mode, following
oci-hpc-oke: the NVIDIA Network Operator with its SR-IOV network operator, one
``SriovNetworkNodePolicy`` per pool (VFs created by the node image, hence
``externallyManaged``; one VF per RDMA port, so ``nvidia.com/rdma-vf`` counts the
catalog's ``fabric_nics``), the CNI plugins and nv-ipam from a
``NicClusterPolicy`` with an ``IPPool`` for the VF addresses, and the SR-IOV NAD
``rdma-vf`` (generic layer) behind Multus. The node image ships the NVIDIA driver
and DOCA-OFED, so the GPU Operator installs neither.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from gpu_fabric.catalog import GpuVendor
from gpu_fabric.clouds.oci.fabric import SRIOV_NETWORK
from gpu_fabric.fabric.addons import GPU_OPERATOR, MULTUS, NETWORK_OPERATOR, SRIOV_DEVICE_PLUGIN
from gpu_fabric.fabric.description import DevicePlugin
from gpu_fabric.fabric.layer import Manifest, Part
from gpu_fabric.fabric.manifests import network_operator
from gpu_fabric.fabric.manifests.common import meta, namespace
from gpu_fabric.fabric.manifests.sriov import MELLANOX_VENDOR
from gpu_fabric.fabric.plugin_guards import refuse_second_plugin
from gpu_fabric.fabric.taints import daemonset_tolerations

if TYPE_CHECKING:
    from gpu_fabric.fabric.addons import ResolvedAddons
    from gpu_fabric.fabric.description import FabricDescription
    from gpu_fabric.spec import ClusterSpec

SRIOV_API = "sriovnetwork.openshift.io/v1"
VF_PREFIX = "nvidia.com"
# Namespace the OKE NvidiaNetworkOperator add-on installs into (oci-hpc-oke manifests).
ADDON_NAMESPACE = "nvidia-network-operator"
POOL_SELECTOR_LABEL = "gpufabric.dev/pool"
# Add-on mode parts: the wait on the GPU Operator's toolkit and the OKE add-on after it.
TOOLKIT_WAIT_PART = "gpu-toolkit-rollout"
# The add-on is the Network Operator's part in add-on mode (it was named
# "network-operator-addon" before issue 31; a part has no resources of its own, so no URN
# changes): the NADs and the VF policies wait for it under the same name in both modes.
NETWORK_OPERATOR_ADDON_PART = NETWORK_OPERATOR.part


def _sriov(fabrics: Mapping[str, FabricDescription]) -> list[FabricDescription]:
    return [f for f in fabrics.values() if f.device_plugin is DevicePlugin.SRIOV]


def _addon_mode(spec: ClusterSpec) -> bool:
    return spec.options is not None and spec.options.network_operator == "addon"


def operator_namespace(spec: ClusterSpec, addons: ResolvedAddons) -> str:
    return ADDON_NAMESPACE if _addon_mode(spec) else addons[NETWORK_OPERATOR.key].namespace


def addon_defaults(
    spec: ClusterSpec, fabrics: Mapping[str, FabricDescription]
) -> dict[str, bool]:
    sriov = bool(_sriov(fabrics))
    nvidia = any(f.machine.gpu.vendor is GpuVendor.NVIDIA for f in fabrics.values())
    return {
        # The SR-IOV NAD needs Multus (and its CRD, shipped by the multus part). In add-on
        # mode the NvidiaNetworkOperator add-on's own NicClusterPolicy runs Multus (and
        # its chart ships the NAD CRD): a second Multus DaemonSet would fight it.
        MULTUS.key: sriov and not _addon_mode(spec),
        NETWORK_OPERATOR.key: sriov,
        GPU_OPERATOR.key: nvidia,
    }


def network_operator_addon_config() -> dict[str, str]:
    """Configuration of the OKE NvidiaNetworkOperator add-on (oci-hpc-oke's keys).

    oci-hpc-oke (terraform/oke-addons.tf at 61d210a, lines 190-210) sets
    ``sriovNetworkOperator.enabled`` and ``nicClusterPolicy.tolerations``: the add-on runs
    its own NicClusterPolicy (Multus, CNI plugins, nv-ipam), whose DaemonSets tolerate
    only ``nvidia.com/gpu`` by default. It is configured here, never replaced: the
    operator reconciles one policy named ``nic-cluster-policy``. Our tolerations cover
    every GPU taint this project sets (fabric/taints.py).
    """
    import json

    return {
        "nicClusterPolicy.tolerations": json.dumps(daemonset_tolerations(),
                                                   separators=(",", ":")),
        "sriovNetworkOperator.enabled": "true",
    }


def chart_values(
    addon: str, spec: ClusterSpec, fabrics: Mapping[str, FabricDescription]
) -> dict[str, Any]:
    if addon == GPU_OPERATOR.key:
        # The RDMA images carry the NVIDIA driver and DOCA-OFED: no driver container,
        # peermem against the host's OFED. One NFD per cluster: the GPU Operator's
        # (installed first, it labels pci-10de and pci-15b3: its worker whitelists
        # classes 02/0200/0207), or the OKE NodeFeatureDiscovery add-on in add-on mode.
        return {"driver": {"enabled": False, "rdma": {"useHostMofed": True}},
                "nfd": {"enabled": not _addon_mode(spec)}}
    if addon == NETWORK_OPERATOR.key:
        return {
            "sriovNetworkOperator": {"enabled": True},
            "sriov-network-operator": {
                "operator": {"resourcePrefix": VF_PREFIX,
                             "tolerations": daemonset_tolerations()},
                "sriovOperatorConfig": {"deploy": True},
            },
        }
    return {}


def parts(
    spec: ClusterSpec, fabrics: Mapping[str, FabricDescription], addons: ResolvedAddons
) -> list[Part]:
    sriov = _sriov(fabrics)
    if not addons.on(NETWORK_OPERATOR):
        return []
    if sriov and addons.on(SRIOV_DEVICE_PLUGIN):
        # The SR-IOV network operator (network_operator_addon_config / chart_values
        # sriovNetworkOperator) runs the SR-IOV device plugin for the pools' VF
        # policies (network-operator 26.4.1 values.yaml: sriov-network-operator
        # images.sriovDevicePlugin, operator.resourcePrefix "nvidia.com").
        refuse_second_plugin(
            SRIOV_DEVICE_PLUGIN.key, "sriov",
            "the Network Operator's SR-IOV network operator (addons.network_operator)",
            ", ".join(sorted({r for f in sriov for r in f.pooled_resources})),
        )
    from gpu_fabric.fabric.parts import chart_release

    ns = operator_namespace(spec, addons)
    out: list[Part] = []
    after: tuple[str, ...] = ()
    if _addon_mode(spec):
        if spec.existing is None:
            out += addon_parts(spec, fabrics, addons)
        else:
            # The cluster's own add-on runs already: nothing to install or wait for.
            out.append(Part(NETWORK_OPERATOR_ADDON_PART, description="NVIDIA Network "
                            "Operator: the existing cluster's NvidiaNetworkOperator add-on"))
        after = (NETWORK_OPERATOR_ADDON_PART,)
    if not sriov:
        return out
    if not _addon_mode(spec):
        gpu_operator = addons.on(GPU_OPERATOR)
        # One NFD: the GPU Operator's when it runs, else the Network Operator's.
        release = chart_release(
            NETWORK_OPERATOR, addons,
            network_operator.chart_values(nfd=not gpu_operator,
                                          node_feature_rules=not gpu_operator),
            sys.modules[__name__], spec, fabrics,
        )
        # oci-hpc-oke orders them (terraform/oke-addons.tf): the GPU Operator's toolkit
        # restarts crio on every GPU node, which strands the nv-ipam pods wired before
        # it; the Network Operator comes after the GPU Operator.
        wait, after = _after_gpu_toolkit(spec, fabrics, addons)
        out += wait
        out.append(Part(
            NETWORK_OPERATOR.part, (namespace(ns, privileged=True),), (release,),
            after=after,
            description="NVIDIA Network Operator (chart) with the SR-IOV network operator",
        ))
        after = (NETWORK_OPERATOR.part,)
    if not _addon_mode(spec):
        # Add-on mode: the add-on's own NicClusterPolicy (network_operator_addon_config).
        version = addons[NETWORK_OPERATOR.key].chart().version
        out.append(Part(
            "nic-cluster-policy", (nic_cluster_policy(version),), after=after,
            description="NicClusterPolicy: CNI plugins and nv-ipam for the SR-IOV VFs",
        ))
    objects: list[Manifest] = [vf_policy(f, ns) for f in sriov]
    objects.append(ip_pool(spec, sriov, ns))
    out.append(Part(
        "rdma-vf-policies", tuple(objects), after=after,
        description="SriovNetworkNodePolicy per RDMA pool (one VF per port) and the VF IPPool",
    ))
    return out


def toolkit_wait_part(
    spec: ClusterSpec, fabrics: Mapping[str, FabricDescription], addons: ResolvedAddons
) -> Part | None:
    """The Job that waits for the GPU Operator's container toolkit on every NVIDIA GPU
    node, or None where there is nothing to wait for.

    The Network Operator (chart or add-on) goes after it: oci-hpc-oke
    (terraform/oke-addons.tf at 61d210a, ``wait_for_gpu_operator_toolkit``) waits for
    the toolkit DaemonSet's rollout because the toolkit restarts crio on every GPU node,
    which strands the nv-ipam pods crio wired before it. Waiting for the GPU Operator's
    Helm release is not enough: the operator creates the toolkit DaemonSet after the
    release is ready. None without a GPU Operator, with its toolkit turned off
    (``addons.gpu_operator.values.toolkit.enabled: false``: nothing restarts crio),
    without NVIDIA GPU nodes (the DaemonSet is never created), and on an existing
    cluster, whose node counts the spec does not own (a wrong count would hold the Job
    until its timeout).
    """
    if spec.existing is not None or not addons.on(GPU_OPERATOR):
        return None
    toolkit = addons[GPU_OPERATOR.key].values.get("toolkit") or {}
    nodes = sum(p.node_count for p in spec.node_pools
                if fabrics[p.name].machine.gpu.vendor is GpuVendor.NVIDIA)
    if toolkit.get("enabled", True) is False or not nodes:
        return None
    from gpu_fabric.clouds.oci import toolkit_wait

    return Part(
        TOOLKIT_WAIT_PART,
        tuple(toolkit_wait.manifests(addons[GPU_OPERATOR.key].namespace, nodes)),
        after=(GPU_OPERATOR.part,),
        description="Job: waits until the GPU Operator's container toolkit (which "
        "restarts crio) is available on every NVIDIA GPU node",
    )


def _after_gpu_toolkit(
    spec: ClusterSpec, fabrics: Mapping[str, FabricDescription], addons: ResolvedAddons
) -> tuple[list[Part], tuple[str, ...]]:
    """What the Network Operator (chart or add-on) comes after: the toolkit wait Job's
    part when there is one (returned to be added), else the GPU Operator's release, else
    nothing."""
    if (wait := toolkit_wait_part(spec, fabrics, addons)) is not None:
        return [wait], (TOOLKIT_WAIT_PART,)
    return [], (GPU_OPERATOR.part,) if addons.on(GPU_OPERATOR) else ()


def addon_parts(
    spec: ClusterSpec, fabrics: Mapping[str, FabricDescription], addons: ResolvedAddons
) -> list[Part]:
    """Add-on mode: the NvidiaNetworkOperator add-on as a layer part, after the GPU
    Operator's container toolkit has rolled out on every NVIDIA GPU node.

    oci-hpc-oke (terraform/oke-addons.tf at 61d210a) orders NodeFeatureDiscovery, the
    GPU Operator, ``wait_for_gpu_operator_toolkit``, then the Network Operator: the
    toolkit's crio restart strands the nv-ipam pods crio wired before it. The add-on is
    an OCI resource the cluster component creates (``installed_by``) with the wait Job
    (:mod:`gpu_fabric.clouds.oci.toolkit_wait`) among its dependencies. Without a GPU
    Operator there is no toolkit to wait for; with its toolkit turned off
    (``addons.gpu_operator.values.toolkit.enabled: false``) nothing restarts crio, so the
    add-on waits for the GPU Operator release only.
    """
    out, after = _after_gpu_toolkit(spec, fabrics, addons)
    out.append(Part(
        NETWORK_OPERATOR_ADDON_PART, after=after,
        installed_by="the OKE NvidiaNetworkOperator add-on (created by OciGpuCluster)",
        description="NVIDIA Network Operator as an OKE add-on, after the GPU toolkit",
    ))
    return out


def nic_cluster_policy(version: str) -> Manifest:
    """CNI plugins (sriov chain: tuning, sbr) and nv-ipam; Multus comes from the multus part."""
    policy = network_operator.nic_cluster_policy(version, secondary_network=True, nv_ipam=True)
    policy["spec"]["secondaryNetwork"].pop("multus", None)
    return policy


def vf_policy(fabric: FabricDescription, ns: str) -> Manifest:
    """One VF on every RDMA port of the pool's nodes, as ``nvidia.com/rdma-vf``."""
    resource = next(iter(fabric.pooled_resources)).partition("/")[2]
    spec: dict[str, Any] = {
        "resourceName": resource,
        "deviceType": "netdevice",
        "isRdma": True,
        "numVfs": 1,
        "externallyManaged": True,
        "priority": 90,
        "nicSelector": {
            "vendor": MELLANOX_VENDOR,
            "pfNames": [r.netdev for r in fabric.rails if r.netdev],
        },
        "nodeSelector": dict(fabric.node_selector) or {POOL_SELECTOR_LABEL: fabric.pool},
    }
    if fabric.mtu:
        spec["mtu"] = fabric.mtu
    return {"apiVersion": SRIOV_API, "kind": "SriovNetworkNodePolicy",
            "metadata": meta(f"rdma-vf-{fabric.pool}", ns), "spec": spec}


def ip_pool(spec: ClusterSpec, fabrics: list[FabricDescription], ns: str) -> Manifest:
    """The nv-ipam pool of VF addresses: a per-node block with room for every VF twice
    (pods restarting while their successors start)."""
    vfs = max(n for f in fabrics for n in f.pooled_resources.values())
    block = 1
    while block < 2 * vfs:
        block *= 2
    vf = fabrics[0].sriov_network
    name = vf.ipam_pool if vf is not None else SRIOV_NETWORK
    subnet = spec.network.fabric_cidr
    # oci-hpc-oke's IPPool sets a gateway (192.168.0.1 in 192.168.0.0/16, the first
    # host): the sbr plugin builds the VF's routing table from it.
    gateway = str(next(subnet.hosts()))
    return network_operator.ip_pool(name, ns, str(subnet), gateway=gateway,
                                    per_node_block=block)
