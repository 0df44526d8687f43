"""How GKE GPU pools hand their NICs to pods (pure; no SDK).

* A3 Ultra / A4 / A4X (RoCE, CX-7 ``gpuNrdma0``): DRA by default on 1.34+ (NVIDIA
  DRA driver + DraNet, or GKE-managed DRANet from 1.34.1-gke.1829001), else GKE
  multi-networking with one ``Network`` (deviceMode RDMA) per NIC.
* A3 High / A3 Mega (GPUDirect-TCPX/TCPXO over gVNIC): GKE multi-networking with
  one ``Network`` per GPU NIC, the RxDM sidecar in every workload pod (see
  ``rxdm``), the NRI device injector and the installer DaemonSets.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from gpu_fabric.catalog import FabricKind, Machine
from gpu_fabric.clouds.gcp.gke import ACCELERATOR_LABEL as ACCELERATOR_LABEL  # re-exported
from gpu_fabric.clouds.gcp.gke import GKE_NVIDIA_DIR
from gpu_fabric.clouds.gcp.provider import PROVIDER
from gpu_fabric.clouds.gcp.rxdm import rxdm_setup
from gpu_fabric.fabric.addons import GPU_OPERATOR, NCCL_INSTALLER
from gpu_fabric.fabric.derive import (
    dra_classes,
    fabric_mtu,
    nccl_env,
    pool_labels,
    pool_taints,
)
from gpu_fabric.fabric.description import (
    Attach,
    DevicePlugin,
    FabricDescription,
    PodInterface,
    PodInterfaces,
    Rail,
    Taint,
)
from gpu_fabric.fabric.problems import refuse
from gpu_fabric.kube_version import KubeVersion

if TYPE_CHECKING:
    from gpu_fabric.spec import ClusterSpec, GpuNodePoolSpec

MANAGED_DRANET_MIN = KubeVersion.parse("1.34.1-gke.1829001")
MANAGED_NIC_CLASS = "mrdma.google.com"
GKE_GIB_DIR = "/home/kubernetes/bin/gib"
GVNIC_NETWORK = "gvnic-1"
# GPUDirect over gVNIC (A3 High / A3 Mega): one VPC per GPU NIC and the RxDM sidecar.
TCP_FABRICS = (FabricKind.TCPX, FabricKind.TCPXO)
MULTINETWORK_ANNOTATION = "networking.gke.io/interfaces"
DEFAULT_INTERFACE_ANNOTATION = "networking.gke.io/default-interface"
# DraNet's provider plug-in for this cloud (``args.cloudProviderHint``; dranet v1.4.0
# cmd/dranet/app.go and values.schema.json).
DRANET_PROVIDER_HINT = "GCE"
# GKE-managed DRANet runs on node pools that carry this label (GKE docs, managed DRANet).
MANAGED_DRANET_LABEL = "cloud.google.com/gke-networking-dra-driver"
# Turns off GKE's own NVIDIA device plugin where GPUs are DRA devices (GKE set-up-dra).
NO_DEVICE_PLUGIN_LABEL = "gke-no-default-nvidia-gpu-device-plugin"
# GKE taints the nodes of an Arm pool itself (container API TaintConfig.
# ArchitectureTaintBehavior: unspecified "defaults to ARM", which "taints all the nodes in
# the node pool with the default ARM taint"); cluster-toolkit 1047080375af
# examples/gke-a4x/gke-a4x.yaml lines 302-306 give A4X pods this toleration.
ARM_TAINT = Taint("kubernetes.io/arch", "arm64", "NoSchedule")

# A4X pools carry a workload policy with accelerator topology 1x72 (gcp/nodepool.py), so a
# pool is one NVLink domain; cluster-toolkit 1047080375af examples/gke-a4x/
# kueue-configuration.yaml.tftpl lines 20-25 use cloud.google.com/gke-nodepool as the level
# between the sub-block and the host, and no GKE reference labels nodes with GPU feature
# discovery's nvidia.com/gpu.clique (GKE runs its own device plugin, without GFD).
NVLINK_DOMAIN_LABEL = "cloud.google.com/gke-nodepool"

def uses_managed_dranet(spec: ClusterSpec) -> bool:
    """GKE-managed DRANet: chosen by the spec, or by default where the version allows it."""
    if spec.fabric.dranet != "auto":
        return spec.fabric.dranet == "managed"
    return spec.kubernetes.parsed.at_least(MANAGED_DRANET_MIN)


def resolve_attach(spec: ClusterSpec, machine: Machine) -> Attach:
    mode = spec.fabric.mode.value
    if not machine.has_fabric:
        return Attach.NONE
    if mode == "host-network":
        refuse("fabric.mode", "GKE pods cannot take the GPU NICs with hostNetwork; use "
               "device-plugin or dra", mode)
    if machine.fabric in TCP_FABRICS:
        return Attach.GKE_MULTINETWORK
    if mode == "dra":
        return Attach.DRA
    if mode == "device-plugin":
        return Attach.GKE_MULTINETWORK
    return Attach.DRA if spec.kubernetes.parsed >= KubeVersion(1, 34) else Attach.GKE_MULTINETWORK


def rdma_network_name(index: int) -> str:
    return f"rdma-{index}"


def gpu_network_name(index: int) -> str:
    """TCPX/TCPXO GPU NIC networks, named as in Google's examples (vpc1..vpcN)."""
    return f"vpc{index + 1}"


def node_labels(
    spec: ClusterSpec, pool: GpuNodePoolSpec, *, dra: bool, managed: bool
) -> dict[str, str]:
    """The pool's Kubernetes node labels: generic ones plus the GKE switches DRA needs."""
    labels = pool_labels(pool, dra=dra)
    if dra or spec.addons.choice(GPU_OPERATOR).enabled:
        # DRA (GKE set-up-dra) or the GPU Operator's device plugin (NVIDIA's GKE guide:
        # --node-labels=gke-no-default-nvidia-gpu-device-plugin=true): one advertiser only.
        labels.setdefault(NO_DEVICE_PLUGIN_LABEL, "true")
    if managed:
        labels.setdefault(MANAGED_DRANET_LABEL, "true")
    return labels


def describe(spec: ClusterSpec, pool: GpuNodePoolSpec) -> FabricDescription:
    machine = pool.machine
    attach = resolve_attach(spec, machine)
    dra = attach is Attach.DRA
    managed = dra and machine.fabric is FabricKind.ROCE and uses_managed_dranet(spec)
    tcp = machine.fabric in TCP_FABRICS
    rails = []
    for i, netdev in enumerate(machine.nic_names):
        network: str | None
        pod_if: str | None
        if attach is Attach.GKE_MULTINETWORK:
            network = gpu_network_name(i) if tcp else rdma_network_name(i)
            # eth0 is the pod network; RDMA machines put gvnic-1 on eth1.
            pod_if = f"eth{i + 1}" if tcp else f"eth{i + 2}"
        else:
            network, pod_if = None, (netdev if dra else None)
        rails.append(Rail(i, netdev, None, None, network, pod_if))
    host_paths = {GKE_NVIDIA_DIR: "/usr/local/nvidia"}
    if machine.fabric is FabricKind.ROCE:
        host_paths[GKE_GIB_DIR] = "/usr/local/gib"
    rxdm = rxdm_setup(machine)
    if rxdm is not None:
        host_paths.update(rxdm.main_host_paths)
    return FabricDescription(
        cloud=spec.cloud,
        pool=pool.name,
        machine=machine,
        attach=attach,
        device_plugin=DevicePlugin.NONE,
        rails=tuple(rails),
        gpu_resource=machine.gpu_resource,
        network_annotation_key=MULTINETWORK_ANNOTATION
        if attach is Attach.GKE_MULTINETWORK
        else None,
        nccl_env=nccl_env(machine, installer_env(spec, machine)),
        node_labels=node_labels(spec, pool, dra=dra, managed=managed),
        taints=pool_taints(spec, pool, PROVIDER.gpu_taint(pool.machine.gpu.vendor)),
        node_taints=(ARM_TAINT,) if machine.cpu_arch == "arm64" else (),
        mtu=fabric_mtu(spec, machine),
        dra=dra_classes(spec, managed_nics=managed, managed_class=MANAGED_NIC_CLASS,
                        managed_driver=MANAGED_NIC_CLASS,
                        # Self-installed DraNet publishes the CX-7 NICs by their node
                        # names gpuNrdma0 (catalog nic_names; seed lines 404-409).
                        rails_by_ifname=machine.fabric is FabricKind.ROCE) if dra else None,
        gpu_dra=dra,
        host_paths=host_paths if machine.has_fabric else {},
        needs_nccl_installer=machine.has_fabric,
        pod_annotations=rxdm.annotations if rxdm else {},
        sidecars=(rxdm.sidecar,) if rxdm else (),
        sidecar_volumes=rxdm.volumes if rxdm else (),
        pod_interfaces=_pod_interfaces(machine) if attach is Attach.GKE_MULTINETWORK else None,
        dranet_provider_hint=DRANET_PROVIDER_HINT,
        nvlink_domain_label=NVLINK_DOMAIN_LABEL,
        **pod_shapes(machine, attach),
    )


def _pod_interfaces(machine: Machine) -> PodInterfaces:
    """Multi-network pods: eth0 on the pod network; RDMA machines put the second gVNIC
    (``gvnic-1``) on eth1, before the RDMA rails (eth2..; see ``describe``)."""
    leading = [PodInterface("eth0", "default")]
    if machine.fabric is FabricKind.ROCE:
        leading.append(PodInterface("eth1", GVNIC_NETWORK))
    return PodInterfaces(DEFAULT_INTERFACE_ANNOTATION, "eth0", tuple(leading))


# Why pods with fewer GPUs than the node get no working fabric, per case.
TCPXO_FULL_NODE = (
    "GPUDirect-TCPXO's configuration for the pinned installer (container-engine-accelerators "
    "gpudirect-tcpxo/README.md) names all 8 GPU NICs and GPUs (NCCL_FASTRAK_IFNAME=eth1..eth8, "
    "CUDA_VISIBLE_DEVICES=0..7) and its guest config checker enforces it; run one 8-GPU pod "
    "per node"
)
TCPX_FULL_NODE = (
    "GPUDirect-TCPX's configuration names all 4 GPU NICs with their CPU bindings "
    "(NCCL_GPUDIRECTTCPX_SOCKET_IFNAME=eth1..eth4); run one 8-GPU pod per node"
)
MULTINETWORK_FULL_NODE = (
    "GKE multi-networking hands RDMA NICs to pods by Network (rdma-0..N) without knowing "
    "which GPUs the device plugin picked, and a NIC moved into one pod is gone for the next "
    "pod on the node; use fabric.mode: dra for partial-node pods (claims keep GPUs and NICs "
    "on one PCIe root), or one full-node pod per node"
)


def pod_shapes(machine: Machine, attach: Attach) -> dict[str, Any]:
    """``pod_gpu_counts`` / reason for pools where only full-node pods get the fabric."""
    reason = None
    if machine.fabric is FabricKind.TCPXO:
        reason = TCPXO_FULL_NODE
    elif machine.fabric is FabricKind.TCPX:
        reason = TCPX_FULL_NODE
    elif attach is Attach.GKE_MULTINETWORK and machine.fabric is FabricKind.ROCE:
        reason = MULTINETWORK_FULL_NODE
    if reason is None:
        return {}
    return {"pod_gpu_counts": (machine.gpus,), "pod_gpu_counts_reason": reason}


def installer_env(spec: ClusterSpec, machine: Machine) -> dict[str, str]:
    """The NCCL env of the installer version the spec overrides (default: the pinned one)."""
    from gpu_fabric.catalog import gcp_nccl as tables

    version = spec.addons.choice(NCCL_INSTALLER).version
    if not version or machine.fabric not in (FabricKind.TCPXO, FabricKind.ROCE):
        return {}
    known = tables.known_versions(machine.fabric is FabricKind.TCPXO)
    if version not in known:
        refuse("addons.nccl_installer.version",
               f"no NCCL tuning table for {machine.fabric.value} installer {version} "
               f"(components/gpu_fabric/catalog/gcp_nccl.py); known: {', '.join(known)}", version)
    if machine.fabric is FabricKind.TCPXO:
        return dict(tables.tcpxo_env(version))
    return dict(tables.gib_env(version, machine.name))
