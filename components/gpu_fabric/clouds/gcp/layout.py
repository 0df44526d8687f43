"""The GKE network and node pool layout as plain data (pure; no SDK).

Which VPCs, subnets and firewall rules a cluster needs, their names and
address ranges, and which of them each GPU pool attaches as additional node
networks. :mod:`gpu_fabric.clouds.gcp.cluster` turns this into resources and
:mod:`gpu_fabric.clouds.gcp.kubernetes` into ``GKENetworkParamSet`` /
``Network`` objects, so both agree on names. Every check that can refuse a
spec runs here, from the fabric describer, before any resource exists.

Address plan: ``network.fabric_cidr`` is cut into ``/fabric_subnet_prefix``
slots in order: the gVNIC subnet (RDMA machines), one subnet per RDMA NIC,
then one per GPUDirect-TCPX/TCPXO NIC. Unless the spec sets the prefix, slots are
/21 (2,044 nodes per rail), the size cluster-toolkit's gke-a4 / gke-a3-ultragpu
blueprints give each RDMA subnet (a /18 ``ip_range`` split into 8 by
modules/network/gpu-rdma-vpc/main.tf line 23, ``new_bits = ceil(log(count, 2))``, at
1047080375af): gVNIC 192.168.0.0/21, RDMA 192.168.8.0/21 ... 192.168.64.0/21. The
seed's /24s (252 nodes) are what ``gcp-a4`` sets explicitly.

MTU: the RDMA machines' primary and gVNIC VPCs use 8896, cluster-toolkit
modules/network/vpc/variables.tf ``mtu`` default (1047080375af line 82), which the
gke-a4 / gke-a3-ultragpu / gke-a4x blueprints' net-0 and net-1 keep.
"""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass
from typing import TYPE_CHECKING

from gpu_fabric.catalog import FabricKind, Machine
from gpu_fabric.clouds.gcp.fabric import TCP_FABRICS
from gpu_fabric.fabric.addons import GPU_OPERATOR
from gpu_fabric.fabric.problems import refuse

if TYPE_CHECKING:
    from gpu_fabric.clouds.gcp.options import GcpMaintenanceExclusion, GcpOptions
    from gpu_fabric.spec import ClusterSpec, GpuNodePoolSpec

# GKE accepts node pool names of at most 40 characters (unique within the cluster).
POOL_NAME_MAX = 40
SYSTEM_POOL_NAME = "system"
DEFAULT_IMAGE = "COS_CONTAINERD"
# GPU pools upgrade one node at a time without a surge node: reserved (and DWS) capacity
# has no spare VM to surge into. cluster-toolkit modules/compute/gke-node-pool/main.tf
# (1047080375af) lines 23-26: max_surge = coalesce(var, 0), max_unavailable = coalesce(var, 1).
GPU_POOL_MAX_SURGE = 0
GPU_POOL_MAX_UNAVAILABLE = 1
# Inputs of a GPU pool that Pulumi must not diff after create (cluster-toolkit
# gke-node-pool lifecycle.ignore_changes): the autoscaler owns the size after the
# initial one (initial_node_count forces a replacement), and the local SSD layout is
# fixed by the machine type. Labels stay managed: the fabric layer selects nodes by them
# and GKE updates them in place. The offline diff reads the same option from the plan.
GPU_POOL_IGNORE_CHANGES = ("initialNodeCount", "nodeConfig.ephemeralStorageLocalSsdConfig")
RDMA_PROFILE_SUFFIX = "vpc-roce"
# Fabric subnet prefix when the spec names none (see the module docstring).
DEFAULT_FABRIC_PREFIX = 21
# Jumbo frames on the gVNIC VPCs of RDMA machines (cluster-toolkit vpc module default).
GVNIC_JUMBO_MTU = 8896


@dataclass(frozen=True)
class Subnet:
    key: str  # stable key: Pulumi child name suffix ("gvnic-sub", "rdma-sub-3", "gpu-sub-0")
    name: str  # GCP name
    cidr: str | None  # None for an existing subnet


@dataclass(frozen=True)
class Vpc:
    """One VPC with its subnets. ``existing`` VPCs are referenced by name, not created."""

    key: str  # "net", "gvnic-net", "rdma-net", "gpu-net-0"
    name: str
    subnets: tuple[Subnet, ...]
    mtu: int | None = None
    rdma_profile: str | None = None  # network profile name ("us-west8-c-vpc-roce")
    firewall: bool = False  # internal allow rule for the subnet ranges only
    existing: bool = False

    @property
    def source_ranges(self) -> list[str]:
        return [s.cidr for s in self.subnets if s.cidr]


@dataclass(frozen=True)
class NodeNetwork:
    """One ``additional_node_network_configs`` entry: (VPC key, subnet index)."""

    vpc: str
    subnet: int


@dataclass(frozen=True)
class GcpLayout:
    primary: Vpc
    gvnic: Vpc | None
    rdma: Vpc | None
    gpu_vpcs: tuple[Vpc, ...]

    @property
    def fabric_vpcs(self) -> list[Vpc]:
        return [v for v in (self.gvnic, self.rdma, *self.gpu_vpcs) if v is not None]

    def vpc(self, key: str) -> Vpc:
        for vpc in (self.primary, *self.fabric_vpcs):
            if vpc.key == key:
                return vpc
        raise KeyError(key)

    def node_networks(self, machine: Machine, managed_dranet: bool) -> list[NodeNetwork]:
        """Additional node networks of a pool: gVNIC + one per RDMA NIC, or one per TCP NIC.

        GKE-managed DRANet creates the RDMA networks itself (``accelerator_network_profile
        = auto``), so such pools name none.
        """
        if not machine.has_fabric:
            return []
        if machine.fabric in TCP_FABRICS:
            return [NodeNetwork(self.gpu_vpcs[i].key, 0) for i in range(machine.fabric_nics)]
        if managed_dranet:
            return []
        assert self.gvnic is not None and self.rdma is not None
        return [NodeNetwork(self.gvnic.key, 0)] + [
            NodeNetwork(self.rdma.key, i) for i in range(machine.fabric_nics)
        ]


def options_of(spec: ClusterSpec) -> GcpOptions:
    opts: GcpOptions | None = spec.options
    if opts is None:  # the spec requires it for GCP clusters; kept for type narrowing
        refuse("gcp", "the gcp: section (project...) is required to create a GKE cluster", None)
    return opts


def uses_managed(spec: ClusterSpec, pool: GpuNodePoolSpec) -> bool:
    from gpu_fabric.clouds.gcp.fabric import resolve_attach, uses_managed_dranet
    from gpu_fabric.fabric.description import Attach

    return (
        pool.machine.fabric is FabricKind.ROCE
        and resolve_attach(spec, pool.machine) is Attach.DRA
        and uses_managed_dranet(spec)
    )


def build_layout(spec: ClusterSpec) -> GcpLayout:
    """The cluster's VPCs and subnets; refuses specs that cannot be laid out."""
    opts = options_of(spec)
    check_cluster(spec, opts)
    rdma_pools = [p for p in spec.fabric_pools if p.machine.fabric is FabricKind.ROCE]
    self_rdma = [p for p in rdma_pools if not uses_managed(spec, p)]
    tcp_pools = [p for p in spec.fabric_pools if p.machine.fabric in TCP_FABRICS]
    rdma_nics = max((p.machine.fabric_nics for p in self_rdma), default=0)
    tcp_nics = max((p.machine.fabric_nics for p in tcp_pools), default=0)
    tcp_mtu = next((p.machine.mtu for p in tcp_pools if p.machine.mtu), None)
    rdma_mtu = next((p.machine.mtu for p in self_rdma if p.machine.mtu), None)
    name = spec.name
    existing = opts.existing_networks
    if existing is not None:
        return _existing_layout(spec, opts, rdma_nics, tcp_nics)
    ranges = iter(_fabric_ranges(spec, (1 if rdma_nics else 0) + rdma_nics + tcp_nics))
    roce = any(p.machine.fabric is FabricKind.ROCE for p in spec.fabric_pools)
    primary = Vpc("net", f"{name}-net", (Subnet("sub", f"{name}-sub", str(spec.network.cidr)),),
                  mtu=tcp_mtu if tcp_nics else (GVNIC_JUMBO_MTU if roce else None))
    gvnic = rdma = None
    if rdma_nics:
        gvnic = Vpc("gvnic-net", f"{name}-gvnic-net",
                    (Subnet("gvnic-sub", f"{name}-gvnic-sub", next(ranges)),),
                    mtu=GVNIC_JUMBO_MTU, firewall=True)
        rdma = Vpc(
            "rdma-net", f"{name}-rdma-net",
            tuple(Subnet(f"rdma-sub-{i}", f"{name}-rdma-sub-{i}", next(ranges))
                  for i in range(rdma_nics)),
            mtu=spec.fabric.mtu or rdma_mtu,
            rdma_profile=f"{spec.location.zone}-{RDMA_PROFILE_SUFFIX}",
        )
    gpu_vpcs = tuple(
        Vpc(f"gpu-net-{i}", f"{name}-gpu-net-{i}",
            (Subnet(f"gpu-sub-{i}", f"{name}-gpu-sub-{i}", next(ranges)),),
            mtu=spec.fabric.mtu or tcp_mtu, firewall=True)
        for i in range(tcp_nics)
    )
    return GcpLayout(primary, gvnic, rdma, gpu_vpcs)


def fabric_prefix(spec: ClusterSpec) -> int:
    """``network.fabric_subnet_prefix`` when the spec sets it, else /21 (docstring)."""
    if "fabric_subnet_prefix" in spec.network.model_fields_set:
        return spec.network.fabric_subnet_prefix
    return DEFAULT_FABRIC_PREFIX


def _fabric_ranges(spec: ClusterSpec, count: int) -> list[str]:
    base = spec.network.fabric_cidr
    prefix = fabric_prefix(spec)
    available = 2 ** (prefix - base.prefixlen)
    if count > available:
        refuse(
            "network.fabric_subnet_prefix",
            f"{count} fabric subnets (gVNIC + one per GPU NIC) do not fit in network.fabric_cidr "
            f"{base} as /{prefix} subnets (room for {available}); use a longer prefix or a "
            "larger fabric_cidr",
            prefix,
        )
    subnets = base.subnets(new_prefix=prefix)
    return [str(next(subnets)) for _ in range(count)]


def _existing_layout(
    spec: ClusterSpec, opts: GcpOptions, rdma_nics: int, tcp_nics: int
) -> GcpLayout:
    ex = opts.existing_networks
    assert ex is not None
    path = "gcp.existing_networks"
    primary = Vpc("net", ex.network, (Subnet("sub", ex.subnetwork, None),), existing=True)
    gvnic = rdma = None
    if rdma_nics:
        if not ex.gvnic_network or not ex.gvnic_subnetwork:
            refuse(f"{path}.gvnic_network",
                   "RDMA machines need a second gVNIC VPC: set gvnic_network and "
                   "gvnic_subnetwork", ex.gvnic_network)
        if not ex.rdma_network:
            refuse(f"{path}.rdma_network",
                   "RDMA machines need the RoCE VPC (network profile vpc-roce) by name", None)
        if len(ex.rdma_subnetworks) < rdma_nics:
            refuse(f"{path}.rdma_subnetworks",
                   f"needs one subnet per RDMA NIC: {rdma_nics}, got "
                   f"{len(ex.rdma_subnetworks)}", ex.rdma_subnetworks)
        gvnic = Vpc("gvnic-net", ex.gvnic_network,
                    (Subnet("gvnic-sub", ex.gvnic_subnetwork, None),), existing=True)
        rdma = Vpc("rdma-net", ex.rdma_network,
                   tuple(Subnet(f"rdma-sub-{i}", s, None)
                         for i, s in enumerate(ex.rdma_subnetworks[:rdma_nics])),
                   existing=True)
    if tcp_nics and (len(ex.gpu_networks) < tcp_nics or len(ex.gpu_subnetworks) < tcp_nics):
        refuse(f"{path}.gpu_networks",
               f"GPUDirect-TCPX/TCPXO machines need one VPC and one subnet per GPU NIC "
               f"({tcp_nics}); got {len(ex.gpu_networks)} networks and "
               f"{len(ex.gpu_subnetworks)} subnetworks", ex.gpu_networks)
    gpu_vpcs = tuple(
        Vpc(f"gpu-net-{i}", ex.gpu_networks[i],
            (Subnet(f"gpu-sub-{i}", ex.gpu_subnetworks[i], None),), existing=True)
        for i in range(tcp_nics)
    )
    return GcpLayout(primary, gvnic, rdma, gpu_vpcs)


def check_cluster(spec: ClusterSpec, opts: GcpOptions) -> None:
    """Cluster-wide GKE rules that the generic spec cannot know."""
    if spec.fabric_pools and not opts.multi_networking:
        pools = ", ".join(p.name for p in spec.fabric_pools)
        refuse("gcp.multi_networking",
               f"GPU fabric pools ({pools}) attach extra node networks, which needs GKE "
               "multi-networking; set multi_networking: true (or use machines without a "
               "fabric)", False)
    for i, exclusion in enumerate(opts.maintenance_exclusions):
        path = f"gcp.maintenance_exclusions[{i}]"
        if exclusion.scope != "NO_UPGRADES" and opts.release_channel == "UNSPECIFIED":
            # GKE "Maintenance windows and exclusions": scoped exclusions (no minor / no
            # minor or node upgrades) need a cluster enrolled in a release channel.
            refuse(f"{path}.scope",
                   f"{exclusion.scope} exclusions need a release channel; set "
                   "gcp.release_channel (REGULAR, STABLE...) or use scope NO_UPGRADES with an "
                   "end_time", exclusion.scope)
        if exclusion.scope == "NO_UPGRADES" and exclusion.end_time is None:
            refuse(f"{path}.end_time",
                   "NO_UPGRADES exclusions end at a date (at most 30 days); only the "
                   "NO_MINOR* scopes can last until the end of support", None)
    for i, pool in enumerate(spec.node_pools):
        check_pool(spec, opts, pool, f"node_pools[{i}]")


def check_pool(spec: ClusterSpec, opts: GcpOptions, pool: GpuNodePoolSpec, path: str) -> None:
    if pool.name == SYSTEM_POOL_NAME:
        refuse(f"{path}.name", f"'{SYSTEM_POOL_NAME}' is the name of the system node pool; "
               "choose another GPU pool name", pool.name)
    if len(pool.name) > POOL_NAME_MAX:
        refuse(f"{path}.name", f"GKE node pool names have at most {POOL_NAME_MAX} characters",
               pool.name)
    capacity = pool.capacity.type
    repair, upgrade = auto_repair(pool), auto_upgrade(opts, pool)
    sold = pool.machine.capacity_types
    if sold and capacity not in sold:
        refuse(f"{path}.capacity.type",
               f"{pool.machine.name} is not sold as '{capacity}' capacity; valid: "
               f"{', '.join(sold)} ({pool.machine.capacity_source})", capacity)
    if capacity == "flex_start" and repair:
        refuse(f"{path}.auto_repair", "flex-start node pools need auto_repair: false", True)
    if capacity == "queued" and pool.placement == "compact":
        refuse(f"{path}.placement", "queued provisioning (DWS) cannot use a COMPACT placement "
               "policy; use placement: auto or none", pool.placement)
    check_driver(spec, opts, pool, path)
    if spec.addons.choice(GPU_OPERATOR).enabled and not (pool.os_image or DEFAULT_IMAGE
                                                          ).startswith("COS"):
        # NVIDIA's GKE guide: Google's driver installer (the one this library runs) on COS;
        # Ubuntu needs per-GPU Ubuntu installer manifests this library does not ship.
        refuse(f"{path}.os_image",
               "the GPU Operator on GKE uses Google's COS driver installer (NVIDIA's GKE "
               "guide); use COS_CONTAINERD, or leave addons.gpu_operator off",
               pool.os_image)
    if opts.release_channel != "UNSPECIFIED" and not upgrade:
        refuse(f"{path}.auto_upgrade",
               f"GKE release channel {opts.release_channel} requires node auto-upgrade; set "
               "auto_upgrade: true or gcp.release_channel: UNSPECIFIED", False)


def check_driver(spec: ClusterSpec, opts: GcpOptions, pool: GpuNodePoolSpec, path: str) -> None:
    """DRA GPU pools: no GKE-installed driver, and an image GKE's driver DaemonSet serves.

    GKE set-up-dra (cloud.google.com/kubernetes-engine/docs/how-to/set-up-dra, GKE 1.34+):
    "Automatic GPU driver installation isn't supported with DRA"; pools use
    ``gpu-driver-version=disabled`` and the driver comes from
    container-engine-accelerators ``nvidia-driver-installer/cos/daemonset-preloaded.yaml``.
    """
    from gpu_fabric.clouds.gcp.fabric import resolve_attach
    from gpu_fabric.fabric.description import Attach

    if resolve_attach(spec, pool.machine) is not Attach.DRA:
        return
    if opts.gpu_driver_version in ("DEFAULT", "LATEST"):
        refuse("gcp.gpu_driver_version",
               f"pool {pool.name} gets its GPUs through DRA, and GKE does not support "
               "automatic GPU driver installation with DRA (GKE docs, set-up-dra); use "
               "INSTALLATION_DISABLED or leave it unset (the layer installs the driver with "
               "GKE's driver DaemonSet), or fabric.mode: device-plugin",
               opts.gpu_driver_version)
    image = pool.os_image or DEFAULT_IMAGE
    if not image.startswith("COS"):
        refuse(f"{path}.os_image",
               "DRA pools get the NVIDIA driver from GKE's COS driver installer "
               "(nvidia-driver-installer/cos/daemonset-preloaded.yaml); use COS_CONTAINERD "
               "or fabric.mode: device-plugin", pool.os_image)


def auto_repair(pool: GpuNodePoolSpec) -> bool:
    """The pool's ``auto_repair``, or GKE's and cluster-toolkit's default when unset: on
    (modules/compute/gke-node-pool/variables.tf at 1047080375af line 185), except on
    flex-start capacity, which GKE requires without it (main.tf line 416)."""
    if "auto_repair" in pool.model_fields_set:
        return pool.auto_repair
    return pool.capacity.type != "flex_start"


def auto_upgrade(opts: GcpOptions, pool: GpuNodePoolSpec) -> bool:
    """The pool's ``auto_upgrade``, or, when unset, on exactly where the cluster is on a
    release channel (GKE requires node auto-upgrade there; examples/gke-a4 sets
    ``auto_upgrade: true`` with release_channel REGULAR)."""
    if "auto_upgrade" in pool.model_fields_set:
        return pool.auto_upgrade
    return opts.release_channel != "UNSPECIFIED"


def with_management(opts: GcpOptions, pool: GpuNodePoolSpec) -> GpuNodePoolSpec:
    """``pool`` with its effective auto-repair / auto-upgrade written in."""
    return pool.model_copy(update={"auto_repair": auto_repair(pool),
                                   "auto_upgrade": auto_upgrade(opts, pool)})


def default_exclusions(opts: GcpOptions) -> list[GcpMaintenanceExclusion]:
    """``gcp.maintenance_exclusions``, or, when unset on a release channel, the one
    cluster-toolkit's examples/gke-a4 (1047080375af lines 211-215) sets: no minor or node
    upgrades until the minor version's end of support, so GPU nodes are not drained for
    upgrades while jobs run (control-plane patches still apply)."""
    from gpu_fabric.clouds.gcp.options import GcpMaintenanceExclusion

    if "maintenance_exclusions" in opts.model_fields_set or opts.release_channel == "UNSPECIFIED":
        return list(opts.maintenance_exclusions)
    return [GcpMaintenanceExclusion(name="no-minor-or-node-upgrades-indefinite",
                                    start_time="2025-12-01T00:00:00Z",
                                    scope="NO_MINOR_OR_NODE_UPGRADES")]


def workload_policy_name(cluster: str, pool: str) -> str:
    """GCE resource policy names: lowercase, at most 63 characters."""
    return f"{cluster}-{pool}-workload"[:63].rstrip("-")


def compact_placement(pool: GpuNodePoolSpec) -> bool:
    """COMPACT unless asked otherwise, or capacity (reservation, DWS) already fixes placement."""
    if pool.placement == "compact":
        return True
    return pool.placement == "auto" and pool.capacity.type in ("on_demand", "spot")


def subnet_cidrs(layout: GcpLayout) -> list[ipaddress.IPv4Network]:
    """Every fabric range the layout creates (tests check they do not overlap)."""
    return [ipaddress.IPv4Network(c) for v in layout.fabric_vpcs for c in v.source_ranges]
