"""The fabric description: plain Python facts about how one GPU pool's NICs reach pods.

A :class:`GpuCluster` produces one :class:`FabricDescription` per GPU node pool;
the Kubernetes layer (device plugins, NADs, DRA claims, injection policies) and
the pod-fragment helper consume it. It holds no Pulumi objects, so it is equal on
preview and apply and can be built (and tested) without any cloud SDK.

Each cloud contributes a describer through its cloud layer
(:mod:`gpu_fabric.fabric.plugins`, :mod:`gpu_fabric.clouds.contract`); the
numbers come from the machine catalog.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from enum import StrEnum
from typing import TYPE_CHECKING, Any

from gpu_fabric.catalog import Cloud, FabricKind, Machine
from gpu_fabric.spec.pools import DEFAULT_SHM_SIZE

if TYPE_CHECKING:
    from gpu_fabric.fabric.plugins import LayerPlugins
    from gpu_fabric.spec import ClusterSpec

POOL_LABEL = "gpufabric.dev/pool"
FABRIC_LABEL = "gpufabric.dev/fabric"
GPU_PRESENT_LABEL = "nvidia.com/gpu.present"
# GPU feature discovery labels every node of one NVLink partition with the same clique
# ("<clusterUUID>.<cliqueID>", NVIDIA/k8s-dra-driver-gpu v25.12.0
# demo/specs/imex/README.sh); awsome-distributed-training 7217859
# nccl-tests-gb200.yaml lines 95-104 keeps a job's pods in one with it as topologyKey.
GPU_CLIQUE_LABEL = "nvidia.com/gpu.clique"


class Attach(StrEnum):
    """How the NICs are handed to pods, after the spec's ``auto`` is resolved."""

    DEVICE_PLUGIN = "device-plugin"  # device plugin resource (+ Multus NAD where NICs move)
    GKE_MULTINETWORK = "gke-multinetwork"  # GKE Network objects + networking.gke.io annotation
    DRA = "dra"  # ResourceClaims: GPU + NIC devices aligned on pcieRoot
    HOST_NETWORK = "host-network"  # pods share the node's network namespace
    NONE = "none"  # no scale-out fabric


class DevicePlugin(StrEnum):
    RDMA_SHARED = "rdma-shared"  # Mellanox k8s-rdma-shared-dev-plugin
    SRIOV = "sriov"  # SR-IOV network device plugin (VFs)
    EFA = "efa"  # aws-efa-k8s-device-plugin
    NONE = "none"


@dataclass(frozen=True)
class Toleration:
    key: str
    operator: str = "Exists"
    value: str | None = None
    effect: str | None = None

    def to_dict(self) -> dict[str, str]:
        out = {"key": self.key, "operator": self.operator}
        if self.value is not None and self.operator == "Equal":
            out["value"] = self.value
        if self.effect:
            out["effect"] = self.effect
        return out


@dataclass(frozen=True)
class Taint:
    key: str
    value: str
    effect: str = "NoSchedule"

    def toleration(self) -> Toleration:
        """Tolerate any value (node agents; NVIDIA's plugin deadlocked on value mismatches)."""
        return Toleration(self.key, "Exists", None, self.effect)

    def exact_toleration(self) -> Toleration:
        """Tolerate exactly this taint (workloads)."""
        if self.value:
            return Toleration(self.key, "Equal", self.value, self.effect)
        return Toleration(self.key, "Exists", None, self.effect)


@dataclass(frozen=True)
class Rail:
    """One fabric NIC of a node, in rail order (GPU i uses rail i on rail-optimized fabrics)."""

    index: int
    netdev: str | None  # interface name on the node: fabric0, gpu0rdma0, eth1, ib0, rdma0
    hca: str | None  # RDMA device: mlx5_0...
    resource: str | None  # per-rail extended resource (rdma/fabric0), None if pooled
    network: str | None  # NAD / GKE Network name attached for this rail
    pod_interface: str | None  # interface name inside the pod


@dataclass(frozen=True)
class DraClasses:
    """DRA DeviceClass names and API version used by claims on this fabric."""

    api_version: str  # resource.k8s.io/v1 or resource.k8s.io/v1beta1
    gpu_class: str
    nic_class: str
    nic_driver: str  # device.driver of NIC devices ("dra.net", GKE managed: "mrdma.google.com")
    managed_nics: bool  # the cloud installs the NIC driver + class (GKE managed DRANet)
    pcie_root_attribute: str = "resource.kubernetes.io/pcieRoot"
    # True where the rails' netdev names (catalog nic_names, in GPU-pairing order) are
    # the names the NIC driver publishes as ``<nic_driver>/ifName``: partial claims
    # then also get per-rail templates (``2-gpu-nic-rails-0-1``) that keep every pod
    # of a job on the same rails on every node.
    rails_by_ifname: bool = False


@dataclass(frozen=True)
class SriovVfNetwork:
    """The SR-IOV network of a device-plugin pool whose NICs reach pods as VFs
    (``nad_type == "sriov"``): what its NetworkAttachmentDefinition's CNI chain sets.

    The describer of a VF cloud fills it (OKE: oci-hpc-oke
    ``terraform/files/nvidia-network-operator/sriov-network.yaml``); without it the
    NAD takes addresses from an nv-ipam pool named after the network and sets no
    ``spoofchk`` and no sysctls.
    """

    # The nv-ipam IPPool the VFs take their addresses from (also the pool's name
    # in the cloud's IPPool object).
    ipam_pool: str
    # The sriov CNI's ``spoofchk`` ("off": oci-hpc-oke's ``spoofChk: "off"``); None
    # leaves the CNI's default.
    spoofchk: str | None = None
    # Sysctls the ``tuning`` plugin sets in the pod (name -> value).
    sysctl: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class PodInterface:
    """One pod interface requested by network name: an entry of a multi-network annotation."""

    interface: str  # interface name inside the pod (eth0, eth1...)
    network: str  # the network object the interface attaches to

    def to_dict(self) -> dict[str, str]:
        return {"interfaceName": self.interface, "network": self.network}


@dataclass(frozen=True)
class PodInterfaces:
    """How pods of an annotation-attached fabric (``Attach.GKE_MULTINETWORK``) list their
    interfaces: the JSON list under ``network_annotation_key`` holds ``leading``, then one
    entry per rail the pod uses; ``default_key`` names the pod's default interface.

    GKE multi-networking (the describer of GKE fills it): ``eth0`` on the ``default``
    network, and on RDMA machines ``eth1`` on the second gVNIC network before the
    RDMA rails (``networking.gke.io/default-interface: eth0``).
    """

    default_key: str  # annotation naming the default interface
    default_interface: str  # its value, e.g. "eth0"
    leading: tuple[PodInterface, ...]  # interfaces before the rails, in order


@dataclass(frozen=True)
class FabricDescription:
    """Everything the Kubernetes layer needs to know about one pool's fabric."""

    cloud: Cloud
    pool: str
    machine: Machine
    attach: Attach
    device_plugin: DevicePlugin
    rails: tuple[Rail, ...]
    gpu_resource: str
    # Extended resources that count NICs/VFs rather than naming a rail, for a full
    # node, e.g. {"vpc.amazonaws.com/efa": 32} or {"nvidia.com/rdma-vf": 16}.
    pooled_resources: Mapping[str, int] = field(default_factory=dict)
    # "per_gpu": pooled resources scale with the GPUs a pod uses (EFA, VFs);
    # "per_pod": a pod asks for the pooled amount once (shared HCA slots).
    pooled_scaling: str = "per_gpu"
    network_annotation_key: str | None = None
    nccl_env: Mapping[str, str] = field(default_factory=dict)
    node_labels: Mapping[str, str] = field(default_factory=dict)
    taints: tuple[Taint, ...] = ()
    # Taints the cloud puts on the pool's nodes by itself (GKE's Arm taint on arm64
    # pools): workloads tolerate them, the pool does not set them again.
    node_taints: tuple[Taint, ...] = ()
    mtu: int | None = None
    dra: DraClasses | None = None
    # GPUs requested through DRA claims (the GPU DeviceClass) instead of the device
    # plugin resource; true whenever attach is DRA, and on clouds whose managed DRA
    # GPU driver is used while NICs still come from a device plugin (DOKS).
    gpu_dra: bool = False
    nad_type: str | None = None  # host-device | sriov (device-plugin mode)
    ipam: str | None = None
    host_paths: Mapping[str, str] = field(default_factory=dict)  # host path -> pod mount path
    needs_nccl_installer: bool = False
    # The memory-backed /dev/shm of every fabric pod (emptyDir sizeLimit): the pool's
    # ``shm_size`` (:func:`describe_cluster`).
    shm_size: str = DEFAULT_SHM_SIZE
    # Full-node amounts, scaled with the pod's GPU share by the pod fragment:
    # 2 MiB hugepages (requests == limits), and a memory *request* (no limit) that
    # hugepages need (the API server refuses hugepages without a cpu or memory entry).
    hugepages_2mi: str | None = None
    memory_request: str | None = None
    # ConfigMaps workloads mount (name -> mount path), e.g. Azure NCCL topology files.
    config_map_mounts: Mapping[str, str] = field(default_factory=dict)
    # Static pod annotations and native sidecars (init containers with restartPolicy
    # Always) a workload needs, and the pod volumes only those sidecars mount (GKE
    # TCPX/TCPXO RxDM).
    pod_annotations: Mapping[str, str] = field(default_factory=dict)
    sidecars: tuple[Mapping[str, Any], ...] = ()
    sidecar_volumes: tuple[Mapping[str, Any], ...] = ()
    privileged: bool = False
    # Labels a workload selects this pool's nodes by (our pool label on clusters we
    # create; the spec's pool labels on existing clusters).
    node_selector: Mapping[str, str] = field(default_factory=dict)
    # Prefix of claim template names: "" for the first DRA pool in spec order, "<pool>-"
    # for every later one (:func:`describe_cluster`).
    claim_prefix: str = ""
    # GPU counts a pod may use when not every count gets a working fabric (None: any
    # 1..GPUs per node, or the DRA claim sizes), and why: the fragment helper and the
    # admission guard refuse other counts with this reason (set by the cloud describer).
    pod_gpu_counts: tuple[int, ...] | None = None
    pod_gpu_counts_reason: str = ""
    # The VF network's CNI settings (SR-IOV device-plugin pools; None: the defaults
    # described on :class:`SriovVfNetwork`).
    sriov_network: SriovVfNetwork | None = None
    # The interfaces pods list in the network annotation (annotation-attached pools).
    pod_interfaces: PodInterfaces | None = None
    # DraNet's ``args.cloudProviderHint``: the provider plug-in that adds cloud
    # attributes (e.g. ``dra.net/cloudNetwork``) to NIC devices. Allowed values
    # (dranet v1.4.0 cmd/dranet/app.go and values.schema.json): AWS, GCE, AZURE,
    # OKE, ALIBABA, webhook, NONE; "NONE" where the cloud has no plug-in.
    dranet_provider_hint: str = "NONE"
    # The node label whose value is one multi-node NVLink domain (GB200/GB300): GPU
    # feature discovery's clique, or what the cloud labels instead (GKE: the node pool,
    # whose workload policy puts it in one domain). Kueue's NVLink level and the NCCL
    # acceptance test's podAffinity use it.
    nvlink_domain_label: str = GPU_CLIQUE_LABEL

    @property
    def uses_dra(self) -> bool:
        return self.attach is Attach.DRA or self.gpu_dra

    @property
    def fabric(self) -> FabricKind:
        return self.machine.fabric

    @property
    def tolerations(self) -> tuple[Toleration, ...]:
        return tuple(t.toleration() for t in self.taints)

    @property
    def workload_taints(self) -> tuple[Taint, ...]:
        """Every taint a fabric pod must tolerate: the pool's and the cloud's own."""
        return self.taints + self.node_taints

    @property
    def rail_resources(self) -> dict[str, int]:
        return {r.resource: 1 for r in self.rails if r.resource}

    @property
    def networks(self) -> list[str]:
        return [r.network for r in self.rails if r.network]


def describe_cluster(
    spec: ClusterSpec, plugins: LayerPlugins | None = None
) -> dict[str, FabricDescription]:
    """One description per GPU pool, keyed by pool name, in spec order.

    The cloud checks the spec and describes each pool; the layers above the
    fabric add node labels (MIG) that the spec's own pool labels still override; the
    pool's ``shm_size`` sizes its pods' /dev/shm.
    """
    from gpu_fabric.fabric.plugins import installed

    plugins = installed(plugins)
    cloud = plugins.cloud(spec.cloud)
    cloud.check(spec)
    found = {pool.name: cloud.describe(spec, pool) for pool in spec.node_pools}
    # The first DRA pool keeps the unprefixed names (``2-gpu-nic-aligned``, GKE seed
    # naming) and every later DRA pool is prefixed by its own name: adding a pool then
    # renames nothing (a claim template's name is its identity, so a rename would delete
    # and re-create every template of the existing pool; issue 32), and a one-pool
    # cluster keeps the names workloads already use.
    dra_pools = [name for name, f in found.items() if f.uses_dra]
    unprefixed = dra_pools[0] if dra_pools else None
    out = {}
    for pool in spec.node_pools:
        fabric = found[pool.name]
        labels = dict(fabric.node_labels)
        for above in plugins.above:
            added = above.node_labels(spec, pool)
            labels.update({k: v for k, v in added.items() if k not in pool.labels})
        selector = dict(pool.labels) if spec.existing is not None else {POOL_LABEL: pool.name}
        out[pool.name] = replace(
            fabric,
            node_labels=labels,
            node_selector=selector,
            shm_size=pool.shm_size,
            claim_prefix=(f"{pool.name}-" if fabric.uses_dra and pool.name != unprefixed
                          else ""),
        )
    return out
