"""How EKS GPU node groups hand EFA devices to pods (pure; no SDK).

Device plugin (default): ``vpc.amazonaws.com/efa`` from aws-efa-k8s-device-plugin,
``efa per GPU x GPUs`` per pod (p5: 4 x 8 = 32), 2 MiB hugepages (the EFA driver
pre-allocates them) and /dev/shm. DRA (Kubernetes >= 1.34, opt-in): EFA devices
through DraNet claims aligned with the GPUs on pcieRoot.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from components.fabric.derive import dra_classes, fabric_mtu, nccl_env, pool_labels, pool_taints
from components.fabric.description import (
    GPU_PRESENT_LABEL,
    Attach,
    DevicePlugin,
    FabricDescription,
    Rail,
)
from components.fabric.problems import refuse

if TYPE_CHECKING:
    from components.spec import ClusterSpec, GpuNodePoolSpec

EFA_RESOURCE = "vpc.amazonaws.com/efa"
# The EFA driver pre-allocates 5128 x 2 MiB hugepages per node (EKS node-efa doc);
# libfabric uses them for its bounce buffers, so a pod asks for 5120Mi.
EFA_HUGEPAGES = "5120Mi"
# Node labels our GPU node groups carry (the EFA and NVIDIA device plugins select on them).
EFA_PRESENT_LABEL = "vpc.amazonaws.com/efa.present"


def _labels(pool: GpuNodePoolSpec, *, dra: bool) -> dict[str, str]:
    labels = pool_labels(pool, dra=dra)
    if pool.machine.gpu.vendor.value == "nvidia":
        # No GPU feature discovery on EKS: the NVIDIA device plugin chart's default
        # affinity selects nvidia.com/gpu.present=true, so the node group sets it.
        labels.setdefault(GPU_PRESENT_LABEL, "true")
    if pool.machine.has_fabric:
        labels.setdefault(EFA_PRESENT_LABEL, "true")
    return labels


def describe(spec: ClusterSpec, pool: GpuNodePoolSpec) -> FabricDescription:
    machine = pool.machine
    mode = spec.fabric.mode.value
    if mode == "host-network":
        refuse("fabric.mode", "EKS EFA pods use the device plugin or DRA, not hostNetwork", mode)
    if not machine.has_fabric:
        attach = Attach.NONE
    else:
        attach = Attach.DRA if mode == "dra" else Attach.DEVICE_PLUGIN
    dra = attach is Attach.DRA
    rails = tuple(Rail(i, None, None, None, None, None) for i in range(machine.fabric_nics))
    return FabricDescription(
        cloud=spec.cloud,
        pool=pool.name,
        machine=machine,
        attach=attach,
        device_plugin=DevicePlugin.EFA if attach is Attach.DEVICE_PLUGIN else DevicePlugin.NONE,
        rails=rails,
        gpu_resource=machine.gpu_resource,
        pooled_resources={EFA_RESOURCE: machine.fabric_nics}
        if attach is Attach.DEVICE_PLUGIN
        else {},
        pooled_scaling="per_gpu",
        nccl_env=nccl_env(machine),
        node_labels=_labels(pool, dra=dra),
        taints=pool_taints(spec, pool),
        mtu=fabric_mtu(spec, machine),
        dra=dra_classes(spec) if dra else None,
        gpu_dra=dra,
        hugepages_2mi=EFA_HUGEPAGES if machine.has_fabric else None,
    )
