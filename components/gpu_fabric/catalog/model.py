"""The catalog's model: clouds, fabric kinds, GPUs, NCCL profiles, machines and
PCI topologies (types only; the data is in the cloud modules)."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from types import MappingProxyType

from gpu_fabric.catalog.pairing import GpuNicPairing


class Cloud(StrEnum):
    GCP = "gcp"
    AWS = "aws"
    AZURE = "azure"
    DIGITALOCEAN = "digitalocean"
    OCI = "oci"

    @property
    def display(self) -> str:
        return _CLOUD_TITLES[self]

    @property
    def a_display(self) -> str:
        """The title with its article, as read aloud: "an AWS", "a GCP", "an OCI"."""
        return f"{_article(_CLOUD_TITLES[self])} {_CLOUD_TITLES[self]}"


_CLOUD_TITLES = {
    Cloud.GCP: "GCP",
    Cloud.AWS: "AWS",
    Cloud.AZURE: "Azure",
    Cloud.DIGITALOCEAN: "DigitalOcean",
    Cloud.OCI: "OCI",
}
# Letters whose names start with a vowel sound ("ay", "eff", "oh"...): an acronym read
# letter by letter takes "an" when it starts with one (an AWS, an OCI, a GCP).
_VOWEL_SOUND_LETTERS = frozenset("AEFHILMNORSX")


def _article(title: str) -> str:
    """"a" or "an" by sound: acronyms by their first letter's name, words by their vowel."""
    first = title[0]
    if title.isupper():
        return "an" if first in _VOWEL_SOUND_LETTERS else "a"
    return "an" if first.upper() in "AEIOU" else "a"


class FabricKind(StrEnum):
    """How GPUs of different nodes talk to each other."""

    ROCE = "roce"
    INFINIBAND = "infiniband"
    EFA = "efa"
    TCPX = "gpudirect-tcpx"
    TCPXO = "gpudirect-tcpxo"
    NONE = "none"

    @property
    def is_rdma(self) -> bool:
        """True when NCCL moves data with RDMA verbs (IB, RoCE, EFA's SRD)."""
        return self in (FabricKind.ROCE, FabricKind.INFINIBAND, FabricKind.EFA)

    @property
    def has_fabric(self) -> bool:
        return self is not FabricKind.NONE


class GpuVendor(StrEnum):
    NVIDIA = "nvidia"
    AMD = "amd"

    @property
    def resource(self) -> str:
        """The device-plugin extended resource for one GPU."""
        return f"{self.value}.com/gpu"


@dataclass(frozen=True)
class Gpu:
    """One GPU model. ``mig_profiles`` empty means MIG is not supported (or not confirmed)."""

    model: str
    vendor: GpuVendor
    memory_gib: int
    mig_profiles: tuple[str, ...] = ()


@dataclass(frozen=True)
class NcclProfile:
    """How NCCL reaches the fabric on a machine.

    ``transport`` is the tag NCCL prints in its INFO lines when it uses the fabric
    (``NET/IB``, ``NET/OFI``, ``NET/gIB``...). ``net`` is the value of ``NCCL_NET``
    that pins that transport, so a missing fabric is an error instead of a silent
    fallback to ``NET/Socket``. ``env`` is the machine's recommended environment.
    """

    transport: str
    net: str | None
    plugin: str | None
    env: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class NvlinkDomain:
    """GPUs of several nodes joined by NVLink (a GB200/GB300 NVL72 rack): its size in GPUs
    and the NVLink bandwidth of one GPU in one direction, in GB/s (what nccl-tests' busbw
    is compared with: its bandwidths are unidirectional, NVIDIA/nccl-tests
    doc/PERFORMANCE.md), with the vendor pages that say so."""

    gpus: int
    gb_per_s_per_gpu: float
    sources: tuple[str, ...]

    # nccl-report's NVLink floor: the share of the per-GPU NVLink bandwidth a run inside
    # one domain must reach (derived, as the network floors without a measurement).
    FLOOR_SHARE = 0.7

    @property
    def floor(self) -> float:
        """busbw floor (GB/s) of a run whose ranks all sit in one NVLink domain."""
        return round(self.gb_per_s_per_gpu * self.FLOOR_SHARE, 1)

    def nodes(self, gpus_per_node: int) -> int:
        """Nodes of ``gpus_per_node`` GPUs one domain holds (72 / 4 = 18)."""
        return self.gpus // gpus_per_node


NVLINK_FLOOR_BASIS = "derived: 70% of the NVLink bandwidth per GPU (one direction)"


@dataclass(frozen=True, kw_only=True)
class Machine:
    """One machine type: every hardware fact the library derives from, in one row.

    Keyword-only, so each row names its fields (fourteen positional numbers and
    strings read alike and swap silently). ``pairing`` says which fabric NICs serve
    which GPUs; the catalog refuses a row with fabric NICs and no pairing
    (:func:`gpu_fabric.catalog.lookup.check_rows`). ``sources`` are https URLs or
    paths in this repository (tests/catalog/test_catalog_rows.py).
    """

    cloud: Cloud
    name: str
    family: str
    gpu: Gpu
    gpus: int
    fabric: FabricKind
    fabric_nics: int
    gbps_per_nic: int
    total_fabric_gbps: int
    mtu: int | None
    nccl: NcclProfile | None
    busbw_floor: float | None
    floor_basis: str
    sources: tuple[str, ...]
    cpu_arch: str = "amd64"
    nic_names: tuple[str, ...] = ()
    hca_names: tuple[str, ...] = ()
    accelerator: str | None = None
    general_nics: int = 1
    network_cards: int | None = None
    topology: str | None = None
    # The multi-node NVLink domain the machine's nodes join (GB200/GB300 NVL72), None
    # where NVLink stays inside the node.
    nvlink: NvlinkDomain | None = None
    # GPUs that share one PCIe root with their NICs (DRA alignment groups); 1 = unknown.
    gpus_per_pcie_root: int = 1
    # Local SSDs that back the node's ephemeral storage (images, emptyDir): GCP machines
    # with bundled local SSD (cluster-toolkit modules/compute/gke-node-pool/
    # disk_definitions.tf, local_ssd_count_ephemeral_storage). None: no local SSD.
    local_ssd_count: int | None = None
    # The host's vCPUs (Kubernetes cpu capacity) and memory in GiB as the provider documents
    # them: its size page, or its own machine table (each cloud module cites the source beside
    # every value). None: not verified from the provider; the scheduling simulation then
    # skips the cpu/memory fit.
    host_vcpus: int | None = None
    host_memory_gib: int | None = None
    # Which GPUs share which fabric NIC (None: no fabric NICs, or a machine built outside
    # the catalog, which then gets the per-GPU share of the NICs).
    pairing: GpuNicPairing | None = None
    # How the provider sells the machine, as the spec's ``capacity.type`` values; () = every
    # type the cloud offers. ``capacity_source`` is the page that says so (the cloud's
    # checks refuse other types before any resource).
    capacity_types: tuple[str, ...] = ()
    capacity_source: str | None = None
    notes: str = ""

    # -- derived facts -----------------------------------------------------
    @property
    def nvlink_domain(self) -> int | None:
        """GPUs in the machine's multi-node NVLink domain (None: none)."""
        return self.nvlink.gpus if self.nvlink else None

    @property
    def nvlink_domain_nodes(self) -> int | None:
        """Nodes of this machine in one NVLink domain (18 for 4-GPU NVL72 nodes)."""
        return self.nvlink.nodes(self.gpus) if self.nvlink else None

    @property
    def has_fabric(self) -> bool:
        return self.fabric.has_fabric and self.fabric_nics > 0

    @property
    def gpu_resource(self) -> str:
        return self.gpu.vendor.resource

    @property
    def line_rate(self) -> float:
        """Line rate of the node's fabric in GB/s (NICs x Gbps / 8)."""
        return self.fabric_nics * self.gbps_per_nic / 8

    @property
    def nics_per_gpu(self) -> float:
        return self.fabric_nics / self.gpus

    def nics_for(self, gpus: int) -> int:
        """Fabric NICs the ranks of ``gpus`` GPUs of one node use (the GPU <-> NIC pairing).

        0 on a machine without fabric NICs: "at least one NIC" only holds where there
        are NICs to share; a no-fabric machine must not report a NIC it lacks (pod NIC
        counts, line rate and floor shares are read from this).
        """
        if not 1 <= gpus <= self.gpus:
            raise ValueError(
                f"{self.name} has {self.gpus} GPUs; gpus must be 1..{self.gpus}, got {gpus}"
            )
        if self.fabric_nics == 0:
            return 0
        if self.pairing is not None:
            return self.pairing.nics_for(gpus)
        return max(1, math.ceil(self.fabric_nics * gpus / self.gpus))

    def line_rate_for(self, gpus: int) -> float:
        """Line rate (GB/s) available to ``gpus`` GPUs of one node."""
        return self.nics_for(gpus) * self.gbps_per_nic / 8

    def floor_for(self, gpus: int) -> float | None:
        """Acceptance floor for ``gpus`` GPUs per node: the full-node floor scaled by NIC share."""
        if self.busbw_floor is None:
            return None
        return self.busbw_floor * self.nics_for(gpus) / self.fabric_nics

    @property
    def is_multi_node_capable(self) -> bool:
        return self.has_fabric and self.busbw_floor is not None


# -- NCCL profiles shared by machines with the same fabric stack --------------
def _env(**values: str) -> Mapping[str, str]:
    return MappingProxyType(dict(values))


def _names(prefix: str, count: int, suffix: str = "") -> tuple[str, ...]:
    return tuple(f"{prefix}{i}{suffix}" for i in range(count))


def _mlx(*indices: int) -> tuple[str, ...]:
    return tuple(f"mlx5_{i}" for i in indices)

DERIVED_RDMA = "derived: 70% of line rate (no published 2-node measurement)"
DERIVED_TCP = "derived: 60% of line rate (TCP-based GPUDirect, no published 2-node peak)"
NO_FABRIC = "no scale-out fabric: not for multi-node NCCL"


def _derived(nics: int, gbps: int, share: float) -> float:
    return round(nics * gbps / 8 * share, 1)


# -- Azure ND PCI topologies (NCCL_TOPO_FILE) ---------------------------------
# AKS node images do not ship the NCCL topology files of the HPC images, so the
# Azure layer renders them (gpu_fabric.clouds.azure.topology) from these facts:
# which GPU and which IB HCA sit behind each PCIe switch of each NUMA node.
# Source: Azure/azhpc-images topology/ndv4-topo.xml and ndv5-topo.xml (bus ids,
# NUMA affinities, CPU identification, link speed); a Machine names its layout
# in ``topology``.
@dataclass(frozen=True)
class PciSwitch:
    """One (virtual) PCIe switch: the GPU/HCA pairs behind it, as PCI bus ids."""

    busid: str
    pairs: tuple[tuple[str, str], ...]  # (GPU bus id, IB HCA bus id)


@dataclass(frozen=True)
class NumaNode:
    numa_id: int
    affinity: str  # CPU mask as the kernel prints it
    switches: tuple[PciSwitch, ...]


@dataclass(frozen=True)
class PciTopology:
    name: str
    cpu_vendor: str
    cpu_family: int
    cpu_model: int
    link_speed: str
    link_width: int
    numa_nodes: tuple[NumaNode, ...]
    # The vendor's file gives its virtual bridges placeholder PCI ids (0x0000).
    bridge_ids: bool = False

    @property
    def gpu_busids(self) -> tuple[str, ...]:
        return tuple(g for n in self.numa_nodes for s in n.switches for g, _ in s.pairs)

    @property
    def hca_busids(self) -> tuple[str, ...]:
        return tuple(h for n in self.numa_nodes for s in n.switches for _, h in s.pairs)


class UnknownMachineError(LookupError):
    """Raised for a machine type the catalog does not list for a cloud."""
