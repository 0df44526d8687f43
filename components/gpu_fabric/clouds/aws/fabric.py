"""How EKS GPU node groups hand EFA devices to pods (pure; no SDK).

Device plugin (default): ``vpc.amazonaws.com/efa`` from aws-efa-k8s-device-plugin,
``efa per GPU x GPUs`` per pod (p5: 4 x 8 = 32), 2 MiB hugepages for the pod's GPU
share (the EFA installer pre-allocates them) with a memory request, and /dev/shm.
DRA (Kubernetes >= 1.34, opt-in): EFA devices through DraNet claims aligned with the
GPUs on pcieRoot (p4d: 2 GPUs + 1 EFA per root).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from gpu_fabric.clouds.aws.provider import PROVIDER
from gpu_fabric.fabric.derive import dra_classes, fabric_mtu, nccl_env, pool_labels, pool_taints
from gpu_fabric.fabric.description import (
    GPU_PRESENT_LABEL,
    Attach,
    DevicePlugin,
    FabricDescription,
    Rail,
)
from gpu_fabric.fabric.problems import refuse

if TYPE_CHECKING:
    from gpu_fabric.catalog import Machine
    from gpu_fabric.spec import ClusterSpec, GpuNodePoolSpec

EFA_RESOURCE = "vpc.amazonaws.com/efa"
# Hugepages for libfabric's bounce buffers, for a full node; a pod asks for its GPU
# share (p5: 640Mi per GPU). Full-node figure: awsome-distributed-training
# micro-benchmarks/nccl-tests/kubernetes/nccl-tests.yaml (hugepages-2Mi: 5120Mi for 8
# GPUs). What the node offers: the AL2023 AMI runs the EFA installer
# (amazon-eks-ami templates/al2023/provisioners/install-efa.sh), which pre-allocates
# 5128 x 2 MiB = 10256Mi (EKS node-efa doc); awsome's READMEs show 21122Mi allocatable
# on a p4de and 42242Mi on a p5. Eight 1-GPU pods (8 x 640Mi) fit in the smallest.
EFA_HUGEPAGES = "5120Mi"
# Memory *request* beside the hugepages (the API server refuses hugepages with neither
# cpu nor memory: kubernetes pkg/apis/core/validation "HugePages require cpu or
# memory"). Full-node figure from the same awsome MPIJob (memory: 32000Mi for 8 GPUs),
# scaled with the GPU share; requested only, never a limit on the training process.
EFA_MEMORY_REQUEST = "32000Mi"
# DraNet's provider plug-in for this cloud (``args.cloudProviderHint``; dranet v1.4.0
# cmd/dranet/app.go and values.schema.json).
DRANET_PROVIDER_HINT = "AWS"
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


def whole_device_counts(machine: Machine) -> tuple[int, ...] | None:
    """GPU counts per pod for which a full node of such pods gets its EFA devices.

    The EFA device plugin hands out whole devices and never shares one, so where GPUs
    share an EFA (p4d: 2 GPUs per EFA) a 1-GPU pod still takes a whole EFA: eight 1-GPU
    pods would need 8 of the 4, and four stay Pending. None when every count fits.
    """
    fits = tuple(g for g in range(1, machine.gpus + 1)
                 if (machine.gpus // g) * machine.nics_for(g) <= machine.fabric_nics)
    return None if len(fits) == machine.gpus else fits


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
    counts = whole_device_counts(machine) if attach is Attach.DEVICE_PLUGIN else None
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
        taints=pool_taints(spec, pool, PROVIDER.gpu_taint(pool.machine.gpu.vendor)),
        mtu=fabric_mtu(spec, machine),
        dra=dra_classes(spec) if dra else None,
        gpu_dra=dra,
        hugepages_2mi=EFA_HUGEPAGES if machine.has_fabric else None,
        memory_request=EFA_MEMORY_REQUEST if machine.has_fabric else None,
        dranet_provider_hint=DRANET_PROVIDER_HINT,
        pod_gpu_counts=counts,
        pod_gpu_counts_reason=(
            f"the EFA device plugin gives each pod whole EFA devices and never shares one; "
            f"{machine.name} has {machine.fabric_nics} EFA for {machine.gpus} GPUs, so a "
            "full node of 1-GPU pods would need more EFA than it has and some would stay "
            "Pending. Use 2-GPU pods, or fabric.mode dra (claims pair the GPUs with their "
            "PCIe root's EFA; a root's EFA still goes to one claim)" if counts else ""),
    )
