"""How DOKS fabric pools hand ``fabric0..N`` to pods (pure; no SDK). The DO seed, in code.

The DOKS-managed RDMA shared device plugin exposes ``rdma/fabricN`` per NIC;
Multus (thick) moves each NIC into the pod with a ``host-device``
NetworkAttachmentDefinition ``roce-net-fabricN``; the pod annotation
``roce-net-fabric0@fabric0, ...`` keeps the interface names.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from gpu_fabric.catalog import GpuVendor
from gpu_fabric.clouds.digitalocean.doks_version import doks_version
from gpu_fabric.clouds.digitalocean.managed import options, uses_gpu_dra, vendors
from gpu_fabric.clouds.digitalocean.provider import PROVIDER
from gpu_fabric.fabric.derive import (
    AMD_GPU_CLASS,
    NVIDIA_GPU_CLASS,
    dra_classes,
    fabric_mtu,
    nccl_env,
    pool_labels,
    pool_taints,
)
from gpu_fabric.fabric.description import (
    GPU_PRESENT_LABEL,
    Attach,
    DevicePlugin,
    DraClasses,
    FabricDescription,
    Rail,
)
from gpu_fabric.fabric.problems import refuse

if TYPE_CHECKING:
    from gpu_fabric.spec import ClusterSpec, GpuNodePoolSpec

NAD_PREFIX = "roce-net-"
MULTUS_ANNOTATION = "k8s.v1.cni.cncf.io/networks"
# DraNet has no DigitalOcean plug-in (``args.cloudProviderHint``; dranet v1.4.0
# cmd/dranet/app.go and values.schema.json).
DRANET_PROVIDER_HINT = "NONE"
# DO VPC ip_range limits (pulumi-digitalocean Vpc.ip_range: "not larger than /16 or
# smaller than /24").
VPC_PREFIXES = (16, 24)
# Partial-node pods: refused (fragment helper, admission guard, acceptance). The CNI
# host-device plugin moves a NIC into one pod's namespace (DO seed: "move the NICs ...
# into the container namespace via the host-device plugin"), the RDMA shared device
# plugin's rdma/fabricN does not make that exclusive, and the GPU device plugin picks
# GPUs without regard to NICs: two 4-GPU pods on one node would both ask for the same
# fabricN and the second would fail at CNI (or hold NICs far from its GPUs).
FULL_NODE = (
    "DOKS fabric NICs are moved whole into one pod by host-device (DO multi-node GPU guide), "
    "and nothing pairs them with the GPUs the device plugin picks, so a second partial-node "
    "pod on the node would fail at CNI; run one full-node (8-GPU) pod per node"
)


def nad_name(netdev: str) -> str:
    return f"{NAD_PREFIX}{netdev}"


def check_cluster(spec: ClusterSpec) -> None:
    """DO rules that span sections (run before any resource exists)."""
    if spec.existing is None:
        doks_version(spec)
    mode = spec.fabric.mode.value
    if mode == "host-network":
        refuse("fabric.mode", "DOKS fabric NICs reach pods through Multus host-device; use "
               "device-plugin, dra or auto", mode)
    if spec.fabric.nad_type not in ("auto", "host-device"):
        refuse("fabric.nad_type", "DOKS fabric NICs are whole devices moved into the pod; "
               "use host-device or auto", spec.fabric.nad_type)
    if spec.fabric.device_plugin not in ("auto", "rdma-shared"):
        refuse("fabric.device_plugin", "DOKS exposes fabric NICs with the RDMA shared device "
               "plugin (rdma/fabricN); use rdma-shared or auto", spec.fabric.device_plugin)
    opts = options(spec)
    if opts.amd_gpu_partition_mode and GpuVendor.AMD not in vendors(spec):
        refuse("digitalocean.amd_gpu_partition_mode", "only AMD GPU pools have a partition "
               "mode; remove it or add an AMD pool", opts.amd_gpu_partition_mode)
    low, high = VPC_PREFIXES
    cidr = spec.network.cidr
    if spec.existing is None and opts.vpc_uuid is None and not low <= cidr.prefixlen <= high:
        refuse("network.cidr", f"a DigitalOcean VPC range is /{low} to /{high}", str(cidr))


def gpu_classes(spec: ClusterSpec, vendor: GpuVendor) -> DraClasses:
    """DRA classes for GPUs claimed through DOKS's managed driver of the pool's vendor."""
    classes = dra_classes(spec)
    if vendor is GpuVendor.AMD and spec.fabric.gpu_device_class == NVIDIA_GPU_CLASS:
        classes = replace(classes, gpu_class=AMD_GPU_CLASS)
    return classes


def node_labels(pool: GpuNodePoolSpec) -> dict[str, str]:
    """Our labels plus ``nvidia.com/gpu.present=true`` on NVIDIA pools, as on EKS.

    Both the NVIDIA DRA kubelet plugin and the NVIDIA device plugin chart select on it:
    NVIDIA/k8s-device-plugin deployments/helm/nvidia-device-plugin/values.yaml (v0.18.2,
    fb1242ad) lines 64-85: ``affinity`` requires ``feature.node.kubernetes.io/pci-10de.present``,
    ``feature.node.kubernetes.io/cpu-model.vendor_id=NVIDIA`` or
    ``nvidia.com/gpu.present=true``; DOKS nodes carry none of the first two without NFD,
    which ``gfd.enabled: false`` keeps off. DOKS's own device plugin ignores the label.
    """
    labels = pool_labels(pool, dra=False)
    if pool.machine.gpu.vendor is GpuVendor.NVIDIA:
        labels.setdefault(GPU_PRESENT_LABEL, "true")
    return labels


def describe(spec: ClusterSpec, pool: GpuNodePoolSpec) -> FabricDescription:
    check_cluster(spec)
    machine = pool.machine
    attach = Attach.DEVICE_PLUGIN if machine.has_fabric else Attach.NONE
    rails = tuple(
        Rail(i, netdev, hca, f"rdma/{netdev}", nad_name(netdev), netdev)
        for i, (netdev, hca) in enumerate(zip(machine.nic_names, machine.hca_names, strict=True))
    )
    gpu_dra = uses_gpu_dra(spec)
    return FabricDescription(
        cloud=spec.cloud,
        pool=pool.name,
        machine=machine,
        attach=attach,
        device_plugin=DevicePlugin.RDMA_SHARED if machine.has_fabric else DevicePlugin.NONE,
        rails=rails,
        gpu_resource=machine.gpu_resource,
        network_annotation_key=MULTUS_ANNOTATION if machine.has_fabric else None,
        nccl_env=nccl_env(machine),
        node_labels=node_labels(pool),
        taints=pool_taints(spec, pool, PROVIDER.gpu_taint(pool.machine.gpu.vendor)),
        mtu=fabric_mtu(spec, machine),
        dra=gpu_classes(spec, machine.gpu.vendor) if gpu_dra else None,
        gpu_dra=gpu_dra,
        nad_type="host-device" if machine.has_fabric else None,
        ipam="none" if machine.has_fabric else None,
        pod_gpu_counts=(machine.gpus,) if machine.has_fabric else None,
        pod_gpu_counts_reason=FULL_NODE if machine.has_fabric else "",
        dranet_provider_hint=DRANET_PROVIDER_HINT,
    )
