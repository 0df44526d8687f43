"""Building blocks the per-cloud describers share (pure functions of spec + catalog)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from gpu_fabric.catalog import GpuVendor, Machine
from gpu_fabric.fabric.description import (
    FABRIC_LABEL,
    GPU_PRESENT_LABEL,
    POOL_LABEL,
    DevicePlugin,
    DraClasses,
    FabricDescription,
    Taint,
)
from gpu_fabric.fabric.problems import refuse
from gpu_fabric.kube_version import KubeVersion

if TYPE_CHECKING:
    from gpu_fabric.spec import ClusterSpec, GpuNodePoolSpec

DRA_V1 = "resource.k8s.io/v1"
DRA_V1BETA1 = "resource.k8s.io/v1beta1"
DRANET_DRIVER = "dra.net"
DEFAULT_NIC_CLASS = "dranet"
NVIDIA_GPU_CLASS = "gpu.nvidia.com"
# DeviceClass of AMD's GPU DRA driver (ROCm/k8s-gpu-dra-driver
# deployments/helm/k8s-gpu-dra-driver/templates/deviceclass.yaml: gpu.amd.com, selecting
# device.driver == 'gpu.amd.com'). Only DOKS installs that driver (its managed
# amd_gpu_dra_driver); elsewhere this library installs the NVIDIA one.
AMD_GPU_CLASS = "gpu.amd.com"


def pool_labels(pool: GpuNodePoolSpec, *, dra: bool) -> dict[str, str]:
    """Labels every GPU pool carries: ours (pool, fabric), the DRA driver's, the user's.

    Layers above the fabric add theirs (MIG's ``nvidia.com/mig.config``) through
    :func:`~gpu_fabric.fabric.description.describe_cluster`.
    """
    labels = {POOL_LABEL: pool.name, FABRIC_LABEL: pool.machine.fabric.value}
    if dra or pool.machine.nvlink_domain:
        # The NVIDIA DRA kubelet plugin schedules on nvidia.com/gpu.present=true; set it
        # declaratively on the pool instead of labelling nodes by hand (GKE seed). NVLink
        # pools run it in every mode (its compute-domain plugin gives the IMEX channel).
        labels[GPU_PRESENT_LABEL] = "true"
    labels.update(pool.labels)
    return labels


def pool_taints(spec: ClusterSpec, pool: GpuNodePoolSpec, gpu_taint: Taint) -> tuple[Taint, ...]:
    """The pool's taints: the cloud's ``gpu_taint`` (unless the pool opts out), then its own."""
    taints = [gpu_taint] if pool.gpu_taint else []
    taints += [Taint(t.key, t.value, t.effect) for t in pool.taints]
    return tuple(taints)


def nccl_env(machine: Machine, overrides: Mapping[str, str] | None = None) -> dict[str, str]:
    """The machine's NCCL env with the transport pinned (``NCCL_NET``): fail closed.

    Without the pin NCCL silently falls back to ``NET/Socket`` when the fabric is
    missing; with it, the job fails at init and says why.
    """
    if machine.nccl is None:
        return {}
    env = dict(machine.nccl.env)
    if machine.nccl.net:
        env["NCCL_NET"] = machine.nccl.net
    env.update(overrides or {})
    return env


def fabric_mtu(spec: ClusterSpec, machine: Machine) -> int | None:
    return spec.fabric.mtu or machine.mtu


def refuse_amd_gpu_dra(
    spec: ClusterSpec, pool: GpuNodePoolSpec, cluster_kind: str, valid_modes: str
) -> None:
    """Refuse GPU DRA on a pool whose GPUs are not NVIDIA's, where the only GPU DRA driver
    this library installs is NVIDIA's (chart nvidia-dra-driver-gpu, DeviceClass
    ``gpu.nvidia.com``).

    Its kubelet plugin publishes no device on an AMD node, so every claim of class
    ``gpu.nvidia.com`` would stay Pending while ``pulumi up`` reports success. AMD's
    driver (ROCm/k8s-gpu-dra-driver, class ``gpu.amd.com``) is not wired up on these
    clouds: no pinned chart and values are verified here, and it needs the amdgpu
    driver and ROCm on the node, which the images used here do not promise.
    """
    vendor = pool.machine.gpu.vendor
    if vendor is GpuVendor.NVIDIA:
        return
    refuse(
        "fabric.mode",
        f"pool '{pool.name}' ({pool.machine_type}) has {vendor.name} {pool.machine.gpu.model} "
        f"GPUs; GPU DRA on {cluster_kind} is the NVIDIA DRA driver (DeviceClass "
        f"{NVIDIA_GPU_CLASS}), which publishes no {vendor.name} GPU, and AMD's driver "
        f"(DeviceClass {AMD_GPU_CLASS}) is not installed on {cluster_kind}; valid for this "
        f"pool: fabric.mode {valid_modes}",
        spec.fabric.mode.value,
    )


def dra_api_version(spec: ClusterSpec) -> str:
    if spec.fabric.dra_api == "v1beta1":
        return DRA_V1BETA1
    if spec.fabric.dra_api == "v1":
        return DRA_V1
    return DRA_V1 if spec.kubernetes.parsed >= KubeVersion(1, 34) else DRA_V1BETA1


def dra_classes(
    spec: ClusterSpec,
    *,
    managed_nics: bool = False,
    managed_class: str | None = None,
    managed_driver: str | None = None,
    rails_by_ifname: bool = False,
) -> DraClasses:
    """DeviceClass names for claims. Names are spec arguments: job runners disagree on them.

    ``rails_by_ifname``: the cloud knows the node's NIC names are DraNet's ifNames in
    rail order (see :attr:`DraClasses.rails_by_ifname`); never for managed NIC drivers,
    whose attributes are not the self-installed DraNet's.
    """
    nic_class = spec.fabric.nic_device_class or (
        managed_class if managed_nics and managed_class else DEFAULT_NIC_CLASS
    )
    return DraClasses(
        api_version=dra_api_version(spec),
        gpu_class=spec.fabric.gpu_device_class,
        nic_class=nic_class,
        nic_driver=(managed_driver or DRANET_DRIVER) if managed_nics else DRANET_DRIVER,
        managed_nics=managed_nics,
        rails_by_ifname=rails_by_ifname and not managed_nics,
    )


# Kubelet Topology Manager policy for pools whose pods take a share of the node's VFs
# (SR-IOV, one VF per GPU). Without one, the kubelet picks VFs with no regard to the GPUs
# the pod holds: a 4-GPU pod on ND H100 v5 / BM.GPU.H100.8 can get GPUs on one NUMA node
# and VFs on the other, and NCCL then crosses the inter-socket link. "restricted"
# (kubernetes.io/docs/tasks/administer-cluster/topology-manager: "Topology Manager
# policies") admits a pod only with the narrowest NUMA alignment its device plugins'
# hints allow: partial-node pods get GPUs and VFs of the same NUMA node(s), whole-node
# pods (all NUMA nodes are the narrowest fit) are admitted as before. A pod that cannot
# be aligned is rejected (TopologyAffinityError) instead of running misaligned.
VF_TOPOLOGY_POLICY = "restricted"


def vf_topology_policy(fabric: FabricDescription) -> str | None:
    """The Topology Manager policy a pool needs: :data:`VF_TOPOLOGY_POLICY` when pods
    take VFs per GPU, else None (the kubelet's default, ``none``)."""
    if fabric.device_plugin is DevicePlugin.SRIOV and fabric.pooled_scaling == "per_gpu" \
            and fabric.pooled_resources:
        return VF_TOPOLOGY_POLICY
    return None
