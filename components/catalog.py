"""The machine catalog: every GPU machine this project knows, on every cloud.

This module is the one place where hardware numbers live. Node pool validation,
NetworkAttachmentDefinition counts, device-plugin configs, EFA interface counts,
NCCL environment and the NCCL acceptance verdict all derive from a
:class:`Machine` entry; no cloud module repeats these numbers.

Sources are the fact sheets in ``shared/reference`` (each entry lists the ones it
uses). Values marked *unconfirmed* there are kept, and the entry's ``notes`` say so.

Bandwidth floors
----------------
``busbw_floor`` is the lowest acceptable nccl-tests bus bandwidth (GB/s) for a
2-node run using every GPU and every fabric NIC of a node, judged on the peak of
the rows >= 1 GiB (never on the "Avg bus bandwidth" line, which small messages
drag down). It is set by one of three rules, recorded in ``floor_basis``:

* ``published threshold``: the cloud publishes a pass/fail number; use it.
* ``measured``: a published 2-node large-message measurement exists; the floor
  is 85% of it (headroom for run-to-run variance).
* ``derived``: no measurement; the floor is a fixed share of the line rate:
  70% for RDMA fabrics (NVIDIA's rule of thumb is 46-48 GB/s per 400 Gb/s NIC,
  i.e. 92-96%) and 60% for the TCP-based GPUDirect-TCPX/TCPXO fabrics.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from types import MappingProxyType

from components import versions as _versions
from components.clouds.gcp import nccl_env as _gcp_nccl


class Cloud(StrEnum):
    GCP = "gcp"
    AWS = "aws"
    AZURE = "azure"
    DIGITALOCEAN = "digitalocean"
    OCI = "oci"

    @property
    def display(self) -> str:
        return _CLOUD_TITLES[self]


_CLOUD_TITLES = {
    Cloud.GCP: "GCP",
    Cloud.AWS: "AWS",
    Cloud.AZURE: "Azure",
    Cloud.DIGITALOCEAN: "DigitalOcean",
    Cloud.OCI: "OCI",
}


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
class Machine:
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
    nvlink_domain: int | None = None
    # GPUs that share one PCIe root with their NICs (DRA alignment groups); 1 = unknown.
    gpus_per_pcie_root: int = 1
    notes: str = ""

    # -- derived facts -----------------------------------------------------
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
        """Fabric NICs the ranks of ``gpus`` GPUs of one node use (the GPU <-> NIC pairing)."""
        if not 1 <= gpus <= self.gpus:
            raise ValueError(
                f"{self.name} has {self.gpus} GPUs; gpus must be 1..{self.gpus}, got {gpus}"
            )
        pairing = GPU_NIC_PAIRING.get(self.name)
        if pairing is not None:
            return pairing.nics_for(gpus)
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


# -- GPU models --------------------------------------------------------------
# MIG profiles: NVIDIA MIG user guide, "Supported MIG profiles" (A100/H100/H200/B200).
A100_40 = Gpu(
    "A100 40GB", GpuVendor.NVIDIA, 40,
    ("1g.5gb", "1g.5gb+me", "1g.10gb", "2g.10gb", "3g.20gb", "4g.20gb", "7g.40gb"),
)
A100_80 = Gpu(
    "A100 80GB", GpuVendor.NVIDIA, 80,
    ("1g.10gb", "1g.10gb+me", "1g.20gb", "2g.20gb", "3g.40gb", "4g.40gb", "7g.80gb"),
)
H100_80 = Gpu(
    "H100 80GB", GpuVendor.NVIDIA, 80,
    ("1g.10gb", "1g.10gb+me", "1g.20gb", "2g.20gb", "3g.40gb", "4g.40gb", "7g.80gb"),
)
H200_141 = Gpu(
    "H200 141GB", GpuVendor.NVIDIA, 141,
    ("1g.18gb", "1g.18gb+me", "1g.35gb", "2g.35gb", "3g.71gb", "4g.71gb", "7g.141gb"),
)
B200 = Gpu(
    "B200 180GB", GpuVendor.NVIDIA, 180,
    ("1g.23gb", "1g.23gb+me", "1g.45gb", "2g.45gb", "3g.90gb", "4g.90gb", "7g.180gb"),
)
GB200 = Gpu("GB200", GpuVendor.NVIDIA, 186)
B300 = Gpu("B300 288GB", GpuVendor.NVIDIA, 288)
GB300 = Gpu("GB300 288GB", GpuVendor.NVIDIA, 288)
L4 = Gpu("L4 24GB", GpuVendor.NVIDIA, 24)
A10 = Gpu("A10 24GB", GpuVendor.NVIDIA, 24)
L40S = Gpu("L40S 48GB", GpuVendor.NVIDIA, 48)
MI300X = Gpu("MI300X 192GB", GpuVendor.AMD, 192)
MI325X = Gpu("MI325X 256GB", GpuVendor.AMD, 256)


# -- NCCL profiles shared by machines with the same fabric stack --------------
def _env(**values: str) -> Mapping[str, str]:
    return MappingProxyType(dict(values))


# GKE RDMA (A3 Ultra, A4, A4X): the gIB plugin, installed by nccl-rdma-installer, with
# Google's set_nccl_env.sh tuning; GKE A3 Mega: GPUDirect-TCPXO ("FasTrak") plugin +
# RxDM sidecar. Both envs come from components/clouds/gcp/nccl_env.py at the pinned
# installer versions (one table per plugin).
def _gke_gib(
    machine: str, installer: str = _versions.GKE_NCCL_RDMA_INSTALLER.tag
) -> NcclProfile:
    return NcclProfile(
        transport="NET/gIB",
        net="gIB",
        plugin="nccl-plugin-gib",
        env=_gcp_nccl.gib_env(installer, machine),
    )


GKE_TCPXO = NcclProfile(
    transport="NET/FasTrak",
    net="FasTrak",
    plugin="nccl-plugin-gpudirecttcpx (TCPXO)",
    env=_gcp_nccl.tcpxo_env(_versions.GKE_TCPXO_INSTALLER.tag),
)
GKE_TCPX = NcclProfile(
    transport="NET/GPUDirectTCPX",
    net="GPUDirectTCPX_v7",
    plugin="nccl-plugin-gpudirecttcpx",
    env=_env(
        LD_LIBRARY_PATH="/usr/local/nvidia/lib64",
        NCCL_SOCKET_IFNAME="eth0",
        NCCL_GPUDIRECTTCPX_SOCKET_IFNAME="eth1,eth2,eth3,eth4",
        NCCL_GPUDIRECTTCPX_CTRL_DEV="eth0",
        NCCL_GPUDIRECTTCPX_TX_BINDINGS="eth1:8-21,112-125;eth2:8-21,112-125;"
        "eth3:60-73,164-177;eth4:60-73,164-177",
        NCCL_GPUDIRECTTCPX_RX_BINDINGS="eth1:22-35,126-139;eth2:22-35,126-139;"
        "eth3:74-87,178-191;eth4:74-87,178-191",
        NCCL_GPUDIRECTTCPX_PROGRAM_FLOW_STEERING_WAIT_MICROS="500000",
        NCCL_GPUDIRECTTCPX_UNIX_CLIENT_PREFIX="/run/tcpx",
        NCCL_CROSS_NIC="0",
        NCCL_ALGO="Ring",
        NCCL_PROTO="Simple",
        NCCL_NSOCKS_PERTHREAD="4",
        NCCL_SOCKET_NTHREADS="1",
        NCCL_DYNAMIC_CHUNK_SIZE="524288",
        NCCL_P2P_NET_CHUNKSIZE="524288",
        NCCL_P2P_PCI_CHUNKSIZE="524288",
        NCCL_P2P_NVL_CHUNKSIZE="1048576",
        NCCL_BUFFSIZE="4194304",
        NCCL_MAX_NCHANNELS="8",
        NCCL_MIN_NCHANNELS="8",
        NCCL_NET_GDR_LEVEL="PIX",
        NCCL_P2P_PXN_LEVEL="0",
    ),
)
# AWS EFA through aws-ofi-nccl. Current guidance (aws-ofi-nccl efa-env-var.md):
# do not set FI_EFA_USE_DEVICE_RDMA (libfabric >= 1.18), FI_EFA_FORK_SAFE or
# RDMAV_FORK_SAFE; leave NCCL_BUFFSIZE / NCCL_MIN_CHANNELS at defaults.
# FI_PROVIDER=efa is kept: it makes libfabric refuse to start without EFA.
AWS_EFA = NcclProfile(
    transport="NET/OFI",
    net="AWS Libfabric",
    plugin="aws-ofi-nccl",
    env=_env(FI_PROVIDER="efa", NCCL_SOCKET_IFNAME="^lo,docker,veth"),
)
# Azure ND-series InfiniBand (NCCL's built-in IB transport).
AZURE_IB = NcclProfile(
    transport="NET/IB",
    net="IB",
    plugin=None,
    env=_env(
        NCCL_IB_HCA="mlx5",
        NCCL_IB_PCI_RELAXED_ORDERING="1",
        NCCL_SOCKET_IFNAME="eth0",
        NCCL_NET_GDR_LEVEL="SYS",
        NCCL_IGNORE_CPU_AFFINITY="1",
        CUDA_DEVICE_ORDER="PCI_BUS_ID",
    ),
)
AZURE_IB_GB = NcclProfile(
    transport="NET/IB",
    net="IB",
    plugin=None,
    env=_env(
        NCCL_IB_HCA="mlx5",
        NCCL_SOCKET_IFNAME="eth0",
        NCCL_MNNVL_ENABLE="1",
        NCCL_NVLS_ENABLE="1",
        NCCL_IB_SL="1",
        NCCL_NET_GDR_C2C="1",
        NCCL_DMABUF_ENABLE="1",
    ),
)
# DigitalOcean fabric NICs (RoCE over fabric0..N), env from DO-Solutions/slinky-on-doks.
def _do_roce(hcas: Iterable[str]) -> NcclProfile:
    return NcclProfile(
        transport="NET/IB",
        net="IB",
        plugin=None,
        env=_env(
            NCCL_SOCKET_IFNAME="eth0",
            NCCL_IB_HCA=",".join(hcas),
            NCCL_IB_GID_INDEX="3",
            NCCL_NET_GDR_LEVEL="5",
        ),
    )


# OCI RoCE (oci-hpc-oke recommended NCCL parameters). NCCL_IB_HCA starts with "="
# (exact match) in the host-network lists; SR-IOV VFs use the "mlx5" prefix instead.
_OCI_COMMON = {
    "NCCL_IB_GID_INDEX": "3",
    "NCCL_IB_TC": "41",
    "NCCL_IB_SL": "0",
    "NCCL_IB_TIMEOUT": "22",
    "NCCL_IB_SPLIT_DATA_ON_QPS": "0",
}


def _oci_roce(hcas: Iterable[str], **extra: str) -> NcclProfile:
    return NcclProfile(
        transport="NET/IB",
        net="IB",
        plugin=None,
        env=_env(**_OCI_COMMON, NCCL_IB_HCA="=" + ",".join(hcas), **extra),
    )


def _names(prefix: str, count: int, suffix: str = "") -> tuple[str, ...]:
    return tuple(f"{prefix}{i}{suffix}" for i in range(count))


def _mlx(*indices: int) -> tuple[str, ...]:
    return tuple(f"mlx5_{i}" for i in indices)


# The RDMA devices of each fabric machine, in rail order, typed once: the same list
# is the machine's ``hca_names`` and its NCCL_IB_HCA. DO: mlx5_0.. on fabric0..
# (DO-Solutions/slinky-on-doks); OCI: the order of oci-hpc-oke's NCCL_IB_HCA lists.
_DO_HCAS_8 = _mlx(*range(8))
_DO_HCAS_16 = _mlx(*range(16))
_OCI_HCAS_GPU4 = _mlx(0, 2, 6, 8, 10, 12, 14, 16, 1, 3, 7, 9, 11, 13, 15, 17)
_OCI_HCAS_A100 = _mlx(1, 2, 3, 4, 5, 6, 7, 8, 14, 15, 16, 17, 9, 10, 11, 12)
_OCI_HCAS_H100 = _mlx(0, 1, 3, 4, 5, 6, 7, 8, 9, 10, 12, 13, 14, 15, 16, 17)
_OCI_HCAS_H200_B200 = _mlx(0, 3, 4, 5, 6, 9, 10, 11)
_OCI_HCAS_MI300X = _mlx(0, 2, 3, 4, 5, 7, 8, 9)
_OCI_HCAS_GB200 = _mlx(0, 1, 2, 3, 5, 6, 7, 8)


_GCP = ("shared/reference/gcp.md", "cloud.google.com/compute/docs/gpus/gpu-network-bandwidth")
_AWS = ("shared/reference/aws.md", "karpenter-provider-aws instance-types.md",
        "docs.aws.amazon.com/AWSEC2/latest/UserGuide/using-eni.html#network-cards")
_AZURE = ("shared/reference/azure.md", "learn.microsoft.com ND-series size pages")
_DO = ("shared/reference/digitalocean.md", "docs.digitalocean.com configure-multinode-gpus")
_OCI = ("shared/reference/oci.md", "oracle-quickstart/oci-hpc-oke recommended NCCL parameters")

DERIVED_RDMA = "derived: 70% of line rate (no published 2-node measurement)"
DERIVED_TCP = "derived: 60% of line rate (TCP-based GPUDirect, no published 2-node peak)"
NO_FABRIC = "no scale-out fabric: not for multi-node NCCL"


def _derived(nics: int, gbps: int, share: float) -> float:
    return round(nics * gbps / 8 * share, 1)


MACHINES: tuple[Machine, ...] = (
    # ----------------------------------------------------------------- GCP --
    Machine(
        Cloud.GCP, "a3-highgpu-8g", "A3 High", H100_80, 8,
        FabricKind.TCPX, 4, 200, 800, 8244, GKE_TCPX,
        _derived(4, 200, 0.6), DERIVED_TCP, _GCP,
        nic_names=tuple(f"eth{i}" for i in range(1, 5)),
        accelerator="nvidia-h100-80gb", general_nics=1,
        notes="cluster-toolkit CI floor 25 GB/s is on the Avg line, not comparable.",
    ),
    Machine(
        Cloud.GCP, "a3-megagpu-8g", "A3 Mega", H100_80, 8,
        FabricKind.TCPXO, 8, 200, 1600, 8244, GKE_TCPXO,
        _derived(8, 200, 0.6), DERIVED_TCP, _GCP,
        nic_names=tuple(f"eth{i}" for i in range(1, 9)),
        accelerator="nvidia-h100-mega-80gb", general_nics=1,
        notes="cluster-toolkit CI floor 30 GB/s is on the Avg line, not comparable.",
    ),
    Machine(
        Cloud.GCP, "a3-ultragpu-8g", "A3 Ultra", H200_141, 8,
        FabricKind.ROCE, 8, 400, 3200, 8896, _gke_gib("a3-ultragpu-8g"),
        _derived(8, 400, 0.7), DERIVED_RDMA, _GCP,
        nic_names=_names("gpu", 8, "rdma0"),
        accelerator="nvidia-h200-141gb", general_nics=2,
    ),
    Machine(
        Cloud.GCP, "a4-highgpu-8g", "A4", B200, 8,
        FabricKind.ROCE, 8, 400, 3200, 8896, _gke_gib("a4-highgpu-8g"),
        _derived(8, 400, 0.7), DERIVED_RDMA,
        (*_GCP, "shared/seeds/gke-nvidia-dra-dranet.md"),
        nic_names=_names("gpu", 8, "rdma0"),
        accelerator="nvidia-b200", general_nics=2, gpus_per_pcie_root=2,
        notes="Seed: GPU0/GPU1 + 2 NICs share a PCIe root (2-gpu-nic-aligned). "
        "1 GPU + 1 NIC per node, all_gather 1 GiB = 36.67 / 45.14 GB/s "
        "(73% / 90% of the 50 GB/s one NIC gives).",
    ),
    Machine(
        Cloud.GCP, "a4x-highgpu-4g", "A4X", GB200, 4,
        FabricKind.ROCE, 4, 400, 1600, 8896, _gke_gib("a4x-highgpu-4g"),
        _derived(4, 400, 0.7), DERIVED_RDMA, _GCP,
        cpu_arch="arm64", nic_names=_names("gpu", 4, "rdma0"),
        accelerator="nvidia-gb200", general_nics=2, nvlink_domain=72,
        notes="Multi-node NVLink (NVL72) needs a DRA ComputeDomain (IMEX).",
    ),
    Machine(
        Cloud.GCP, "a2-highgpu-8g", "A2", A100_40, 8,
        FabricKind.NONE, 0, 0, 0, None, None, None, NO_FABRIC, _GCP,
        accelerator="nvidia-tesla-a100",
    ),
    Machine(
        Cloud.GCP, "g2-standard-48", "G2", L4, 4,
        FabricKind.NONE, 0, 0, 0, None, None, None, NO_FABRIC, _GCP,
        accelerator="nvidia-l4",
    ),
    # ----------------------------------------------------------------- AWS --
    Machine(
        Cloud.AWS, "p4d.24xlarge", "P4d", A100_40, 8,
        FabricKind.EFA, 4, 100, 400, 9001, AWS_EFA,
        round(78.33 * 0.85, 1), "measured: 85% of 78.33 GB/s (2x p4de, same 4x100G EFA)",
        _AWS, network_cards=4,
    ),
    Machine(
        Cloud.AWS, "p4de.24xlarge", "P4de", A100_80, 8,
        FabricKind.EFA, 4, 100, 400, 9001, AWS_EFA,
        round(78.33 * 0.85, 1), "measured: 85% of 78.33 GB/s all_reduce at 2 GiB (awsome)",
        _AWS, network_cards=4,
    ),
    Machine(
        Cloud.AWS, "p5.48xlarge", "P5", H100_80, 8,
        FabricKind.EFA, 32, 100, 3200, 9001, AWS_EFA,
        round(443.72 * 0.85, 1), "measured: 85% of 443.72 GB/s all_reduce at 2 GiB (awsome)",
        _AWS, network_cards=32,
        notes="all_reduce busbw exceeds the 400 GB/s line rate (NVLink reduces in-node).",
    ),
    Machine(
        Cloud.AWS, "p5e.48xlarge", "P5e", H200_141, 8,
        FabricKind.EFA, 32, 100, 3200, 9001, AWS_EFA,
        round(443.72 * 0.85, 1), "measured on p5 (same 32x100G EFA fabric): 85% of 443.72",
        _AWS, network_cards=32,
    ),
    Machine(
        Cloud.AWS, "p5en.48xlarge", "P5en", H200_141, 8,
        FabricKind.EFA, 16, 200, 3200, 9001, AWS_EFA,
        _derived(16, 200, 0.7), DERIVED_RDMA, _AWS, network_cards=16,
    ),
    Machine(
        Cloud.AWS, "p6-b200.48xlarge", "P6-B200", B200, 8,
        FabricKind.EFA, 8, 400, 3200, 9001, AWS_EFA,
        _derived(8, 400, 0.7), DERIVED_RDMA, _AWS, network_cards=8,
    ),
    Machine(
        Cloud.AWS, "p6-b300.48xlarge", "P6-B300", B300, 8,
        FabricKind.EFA, 16, 400, 6400, 9001, AWS_EFA,
        _derived(16, 400, 0.7), DERIVED_RDMA, _AWS, network_cards=17,
        notes="17 network cards, 16 with EFA: card 0 carries only the primary ENA.",
    ),
    Machine(
        Cloud.AWS, "p6e-gb200.36xlarge", "P6e-GB200", GB200, 4,
        FabricKind.EFA, 4, 400, 1600, 9001, AWS_EFA,
        _derived(4, 400, 0.7), DERIVED_RDMA, _AWS,
        cpu_arch="arm64", nvlink_domain=72,
        notes="Sources disagree (ENI: 17 cards; awsome: 4 EFA). 4 EFA x 400 Gb/s used; "
        "network-card layout unconfirmed.",
    ),
    Machine(
        Cloud.AWS, "g6e.48xlarge", "G6e", L40S, 8,
        FabricKind.NONE, 0, 0, 0, None, None, None, NO_FABRIC, _AWS,
        notes="Has 4 EFA at 100 Gb/s but no GPUDirect RDMA; not a training fabric here.",
    ),
    Machine(
        Cloud.AWS, "g5.48xlarge", "G5", A10, 8,
        FabricKind.NONE, 0, 0, 0, None, None, None, NO_FABRIC, _AWS,
    ),
    # --------------------------------------------------------------- Azure --
    Machine(
        Cloud.AZURE, "Standard_ND96asr_v4", "ND A100 v4", A100_40, 8,
        FabricKind.INFINIBAND, 8, 200, 1600, None, AZURE_IB,
        180.0, "published threshold: aks-rdma-infiniband flags < 180 GB/s all_reduce",
        _AZURE, nic_names=_names("ib", 8), topology="ndv4",
    ),
    Machine(
        Cloud.AZURE, "Standard_ND96amsr_A100_v4", "NDm A100 v4", A100_80, 8,
        FabricKind.INFINIBAND, 8, 200, 1600, None, AZURE_IB,
        180.0, "published threshold: aks-rdma-infiniband flags < 180 GB/s all_reduce",
        _AZURE, nic_names=_names("ib", 8), topology="ndv4",
    ),
    Machine(
        Cloud.AZURE, "Standard_ND96isr_H100_v5", "ND H100 v5", H100_80, 8,
        FabricKind.INFINIBAND, 8, 400, 3200, None, AZURE_IB,
        _derived(8, 400, 0.7), DERIVED_RDMA, _AZURE,
        nic_names=_names("ib", 8), topology="ndv5",
        notes="Azure's 8-node SHARP baseline is ~450 GB/s (fail < 300); no 2-node figure.",
    ),
    Machine(
        Cloud.AZURE, "Standard_ND96isr_H200_v5", "ND H200 v5", H200_141, 8,
        FabricKind.INFINIBAND, 8, 400, 3200, None, AZURE_IB,
        _derived(8, 400, 0.7), DERIVED_RDMA, _AZURE,
        nic_names=_names("ib", 8), topology="ndv5",
    ),
    Machine(
        Cloud.AZURE, "Standard_ND96isr_MI300X_v5", "ND MI300X v5", MI300X, 8,
        FabricKind.INFINIBAND, 8, 400, 3200, None, AZURE_IB,
        _derived(8, 400, 0.7), DERIVED_RDMA, _AZURE, nic_names=_names("ib", 8),
    ),
    Machine(
        Cloud.AZURE, "Standard_ND128isr_NDR_GB200_v6", "ND GB200 v6", GB200, 4,
        FabricKind.INFINIBAND, 4, 400, 1600, None, AZURE_IB_GB,
        _derived(4, 400, 0.7), DERIVED_RDMA, _AZURE,
        cpu_arch="arm64", nic_names=_names("ib", 4), nvlink_domain=72,
        notes="AKSInfinibandSupport must NOT be registered; pool needs os_sku Ubuntu2404.",
    ),
    Machine(
        Cloud.AZURE, "Standard_ND128isr_GB300_v6", "ND GB300 v6", GB300, 4,
        FabricKind.INFINIBAND, 4, 800, 3200, None, AZURE_IB_GB,
        round(200 * 0.85, 1),
        "measured: 85% of ~200 GB/s inter-rack IB-only all_reduce (ai-infrastructure-on-azure)",
        _AZURE, cpu_arch="arm64", nic_names=_names("ib", 4), nvlink_domain=72,
        notes="AKSInfinibandSupport must NOT be registered; pool needs os_sku Ubuntu2404.",
    ),
    Machine(
        Cloud.AZURE, "Standard_NC24ads_A100_v4", "NC A100 v4", A100_80, 1,
        FabricKind.NONE, 0, 0, 0, None, None, None, NO_FABRIC, _AZURE,
    ),
    Machine(
        Cloud.AZURE, "Standard_NC40ads_H100_v5", "NC H100 v5", H100_80, 1,
        FabricKind.NONE, 0, 0, 0, None, None, None, NO_FABRIC, _AZURE,
    ),
    # -------------------------------------------------------- DigitalOcean --
    Machine(
        Cloud.DIGITALOCEAN, "gpu-h200x8-1128gb-fabric-contracted", "H200 fabric", H200_141, 8,
        FabricKind.ROCE, 8, 400, 3200, None, _do_roce(_DO_HCAS_8),
        _derived(8, 400, 0.7), DERIVED_RDMA,
        (*_DO, "shared/seeds/digitalocean-doks-multinode-gpu.md"),
        nic_names=_names("fabric", 8), hca_names=_DO_HCAS_8,
        notes="Per-NIC speed (400 Gb/s) is not stated by DO (unconfirmed).",
    ),
    Machine(
        Cloud.DIGITALOCEAN, "gpu-mi300x8-1536gb-fabric-contracted", "MI300X fabric", MI300X, 8,
        FabricKind.ROCE, 8, 400, 3200, None, _do_roce(_DO_HCAS_8),
        300.0, "measured: ~85% of the ~350 GB/s 2-node RCCL figure slinky-on-doks expects",
        (*_DO, "DO-Solutions/slinky-on-doks"),
        nic_names=_names("fabric", 8), hca_names=_DO_HCAS_8,
    ),
    Machine(
        Cloud.DIGITALOCEAN, "gpu-mi325x8-2048gb-fabric-contracted", "MI325X fabric", MI325X, 8,
        FabricKind.ROCE, 8, 400, 3200, None, _do_roce(_DO_HCAS_8),
        _derived(8, 400, 0.7), DERIVED_RDMA, _DO,
        nic_names=_names("fabric", 8), hca_names=_DO_HCAS_8,
        notes="Per-NIC speed unconfirmed.",
    ),
    Machine(
        Cloud.DIGITALOCEAN, "gpu-b300x8-2304gb-fabric-contracted", "B300 fabric", B300, 8,
        FabricKind.ROCE, 16, 400, 6400, None, _do_roce(_DO_HCAS_16),
        _derived(16, 400, 0.7), DERIVED_RDMA, (*_DO, "DO-Solutions/slinky-on-doks"),
        nic_names=_names("fabric", 16), hca_names=_DO_HCAS_16,
        notes="2 fabric NICs per GPU; per-NIC speed unconfirmed.",
    ),
    Machine(
        Cloud.DIGITALOCEAN, "gpu-h100x8-640gb", "H100x8", H100_80, 8,
        FabricKind.NONE, 0, 0, 0, None, None, None, NO_FABRIC, _DO,
    ),
    Machine(
        Cloud.DIGITALOCEAN, "gpu-h200x8-1128gb", "H200x8", H200_141, 8,
        FabricKind.NONE, 0, 0, 0, None, None, None, NO_FABRIC, _DO,
    ),
    Machine(
        Cloud.DIGITALOCEAN, "gpu-h100x1-80gb", "H100x1", H100_80, 1,
        FabricKind.NONE, 0, 0, 0, None, None, None, NO_FABRIC, _DO,
    ),
    # ----------------------------------------------------------------- OCI --
    Machine(
        Cloud.OCI, "BM.GPU4.8", "GPU4", A100_40, 8,
        FabricKind.ROCE, 16, 100, 1600, 4220,
        _oci_roce(_OCI_HCAS_GPU4,
                  NCCL_IB_QPS_PER_CONNECTION="4"),
        round(189.6 * 0.85, 1), "measured on BM.GPU.B4.8 (same 16x100G class): 85% of 189.6",
        _OCI, nic_names=_names("rdma", 16),
        hca_names=_OCI_HCAS_GPU4,
        notes="Per-port speed 100 Gb/s inferred from measured busbw.",
    ),
    Machine(
        Cloud.OCI, "BM.GPU.B4.8", "B4", A100_40, 8,
        FabricKind.ROCE, 16, 100, 1600, 4220,
        _oci_roce(_OCI_HCAS_A100,
                  NCCL_IB_QPS_PER_CONNECTION="4"),
        round(189.6 * 0.85, 1), "measured: 85% of 189.6 GB/s all_reduce at 8 GiB (oci-hpc-oke)",
        _OCI, nic_names=_names("rdma", 16),
        hca_names=_OCI_HCAS_A100,
    ),
    Machine(
        Cloud.OCI, "BM.GPU.A100-v2.8", "A100-v2", A100_80, 8,
        FabricKind.ROCE, 16, 100, 1600, 4220,
        _oci_roce(_OCI_HCAS_A100,
                  NCCL_IB_QPS_PER_CONNECTION="4"),
        round(189.6 * 0.85, 1), "measured on BM.GPU.B4.8 (same 16x100G class): 85% of 189.6",
        _OCI, nic_names=_names("rdma", 16),
        hca_names=_OCI_HCAS_A100,
    ),
    Machine(
        Cloud.OCI, "BM.GPU.H100.8", "H100", H100_80, 8,
        FabricKind.ROCE, 16, 200, 3200, 4220,
        _oci_roce(_OCI_HCAS_H100,
                  NCCL_SOCKET_IFNAME="eth0", NCCL_IGNORE_CPU_AFFINITY="1",
                  NCCL_CUMEM_ENABLE="0"),
        _derived(16, 200, 0.7), DERIVED_RDMA, (*_OCI, "kubernetes-sigs/dranet oci_oke_examples"),
        nic_names=_names("rdma", 16),
        hca_names=_OCI_HCAS_H100,
    ),
    Machine(
        Cloud.OCI, "BM.GPU.H200.8", "H200", H200_141, 8,
        FabricKind.ROCE, 8, 400, 3200, 4220,
        _oci_roce(_OCI_HCAS_H200_B200, NCCL_SOCKET_IFNAME="eth0",
                  NCCL_IGNORE_CPU_AFFINITY="1", NCCL_CUMEM_ENABLE="0"),
        _derived(8, 400, 0.7), DERIVED_RDMA, _OCI,
        nic_names=_names("rdma", 8), hca_names=_OCI_HCAS_H200_B200,
        notes="Per-port speed unconfirmed.",
    ),
    Machine(
        Cloud.OCI, "BM.GPU.B200.8", "B200", B200, 8,
        FabricKind.ROCE, 8, 400, 3200, 4220,
        _oci_roce(_OCI_HCAS_H200_B200, NCCL_SOCKET_IFNAME="eth0",
                  NCCL_IGNORE_CPU_AFFINITY="1", NCCL_CUMEM_ENABLE="0"),
        _derived(8, 400, 0.7), DERIVED_RDMA, _OCI,
        nic_names=_names("rdma", 8), hca_names=_OCI_HCAS_H200_B200,
        notes="Per-port speed unconfirmed.",
    ),
    Machine(
        Cloud.OCI, "BM.GPU.MI300X.8", "MI300X", MI300X, 8,
        FabricKind.ROCE, 8, 400, 3200, 4220,
        _oci_roce(_OCI_HCAS_MI300X, NCCL_CUMEM_ENABLE="0",
                  NCCL_PXN_DISABLE="0", NCCL_NET_PLUGIN="none",
                  NCCL_IB_QPS_PER_CONNECTION="1"),
        round(357 * 0.85, 1), "measured: 85% of ~357 GB/s RCCL all_reduce at 8 GiB (oci-hpc-oke)",
        _OCI, nic_names=_names("rdma", 8), hca_names=_OCI_HCAS_MI300X,
    ),
    Machine(
        Cloud.OCI, "BM.GPU.GB200-v3.4", "GB200-v3", GB200, 4,
        FabricKind.ROCE, 8, 400, 3200, 4220,
        _oci_roce(_OCI_HCAS_GB200, NCCL_CUMEM_ENABLE="1",
                  NCCL_MNNVL_ENABLE="1", NCCL_NET_GDR_C2C="1", NCCL_NET_PLUGIN="none",
                  NCCL_IB_QPS_PER_CONNECTION="1"),
        _derived(8, 400, 0.7), DERIVED_RDMA, (*_OCI, "kubernetes-sigs/dranet oci_oke_examples"),
        cpu_arch="arm64", nic_names=_names("rdma", 8),
        hca_names=_OCI_HCAS_GB200, nvlink_domain=72,
    ),
    Machine(
        Cloud.OCI, "VM.GPU.A10.2", "A10", A10, 2,
        FabricKind.NONE, 0, 0, 0, None, None, None, NO_FABRIC, _OCI,
    ),
    Machine(
        Cloud.OCI, "BM.GPU.A10.4", "A10", A10, 4,
        FabricKind.NONE, 0, 0, 0, None, None, None, NO_FABRIC, _OCI,
    ),
)


# -- Azure ND PCI topologies (NCCL_TOPO_FILE) ---------------------------------
# AKS node images do not ship the NCCL topology files of the HPC images, so the
# Azure layer renders them (components.clouds.azure.topology) from these facts:
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

    @property
    def gpu_busids(self) -> tuple[str, ...]:
        return tuple(g for n in self.numa_nodes for s in n.switches for g, _ in s.pairs)

    @property
    def hca_busids(self) -> tuple[str, ...]:
        return tuple(h for n in self.numa_nodes for s in n.switches for _, h in s.pairs)


def _sw(busid: str, *pairs: tuple[str, str]) -> PciSwitch:
    return PciSwitch(busid, tuple(pairs))


AZURE_TOPOLOGIES: Mapping[str, PciTopology] = MappingProxyType({
    "ndv4": PciTopology(
        "ndv4", "AuthenticAMD", 23, 49, "16 GT/s", 16, (
            NumaNode(0, "00000000,00000000,00ffffff", (
                _sw("ffff:ff:01.0", ("0003:00:00.0", "0103:00:00.0"),
                    ("0004:00:00.0", "0104:00:00.0")),
            )),
            NumaNode(1, "00000000,0000ffff,ff000000", (
                _sw("ffff:ff:02.0", ("0001:00:00.0", "0101:00:00.0"),
                    ("0002:00:00.0", "0102:00:00.0")),
            )),
            NumaNode(2, "000000ff,ffff0000,00000000", (
                _sw("ffff:ff:03.0", ("000d:00:00.0", "0107:00:00.0"),
                    ("000e:00:00.0", "0108:00:00.0")),
            )),
            NumaNode(3, "ffffff00,00000000,00000000", (
                _sw("ffff:ff:04.0", ("000b:00:00.0", "0105:00:00.0"),
                    ("000c:00:00.0", "0106:00:00.0")),
            )),
        ),
    ),
    "ndv5": PciTopology(
        "ndv5", "GenuineIntel", 6, 143, "32.0 GT/s PCIe", 16, (
            NumaNode(0, "00000000,0000ffff,ffffffff", (
                _sw("ffff:ff:01.0", ("0001:00:00.0", "0101:00:00.0")),
                _sw("ffff:ff:02.0", ("0002:00:00.0", "0102:00:00.0")),
                _sw("ffff:ff:03.0", ("0003:00:00.0", "0103:00:00.0")),
                _sw("ffff:ff:04.0", ("0008:00:00.0", "0104:00:00.0")),
            )),
            NumaNode(1, "ffffffff,ffff0000,00000000", (
                _sw("ffff:ff:05.0", ("0009:00:00.0", "0105:00:00.0")),
                _sw("ffff:ff:06.0", ("000a:00:00.0", "0106:00:00.0")),
                _sw("ffff:ff:07.0", ("000b:00:00.0", "0107:00:00.0")),
                _sw("ffff:ff:08.0", ("000c:00:00.0", "0108:00:00.0")),
            )),
        ),
    ),
})


# -- GPU <-> NIC pairing ---------------------------------------------------------
# Which fabric NICs serve which GPUs, per machine: the one table partial-node pods
# (1, 2, 4 GPUs), DRA claim templates and NIC counts per pod derive from.
@dataclass(frozen=True)
class GpuNicPairing:
    """How one machine's GPUs and fabric NICs pair.

    The node is made of identical groups (a PCIe switch or root port): group ``k``
    holds GPUs ``k*gpus_per_group .. (k+1)*gpus_per_group - 1`` and NICs
    ``k*nics_per_group ..`` in rail order (the order of ``nic_names`` /
    ``hca_names``). ``nics_per_group < gpus_per_group`` means GPUs share a NIC
    (p4d: 2 GPUs, 1 EFA). ``source`` names the layout's evidence; ``confirmed`` is
    False where only the GPU and NIC counts are known and the grouping is inferred.
    """

    gpus_per_group: int
    nics_per_group: int
    source: str
    confirmed: bool = True

    def groups(self, gpus: int) -> int:
        """Groups a node with ``gpus`` GPUs is made of."""
        return gpus // self.gpus_per_group

    @property
    def shares_nics(self) -> bool:
        """True when several GPUs use one NIC (a pod with part of a group shares a NIC)."""
        return self.nics_per_group < self.gpus_per_group

    def nics_of_gpu(self, gpu: int) -> tuple[int, ...]:
        """Rail indices of the NICs GPU ``gpu`` uses."""
        group, offset = divmod(gpu, self.gpus_per_group)
        if self.shares_nics:
            return (group * self.nics_per_group + offset * self.nics_per_group
                    // self.gpus_per_group,)
        per_gpu = self.nics_per_group // self.gpus_per_group
        first = group * self.nics_per_group + offset * per_gpu
        return tuple(range(first, first + per_gpu))

    def nics_for(self, gpus: int) -> int:
        """NICs of ``gpus`` GPUs packed from GPU 0 (what an aligned pod gets)."""
        return len({n for g in range(gpus) for n in self.nics_of_gpu(g)})

    def aligned(self, gpus: int) -> bool:
        """True when ``gpus`` GPUs packed from a group boundary own their NICs alone."""
        return not self.shares_nics or gpus % self.gpus_per_group == 0


_AWS_TOPO = "aws/aws-ofi-nccl topology/{}-topo.xml"
_COUNTS = "inferred from GPU and NIC counts (per-GPU share)"
_PAIRING_ROWS: tuple[tuple[str, int, int, str, bool], ...] = (
    # GCP (shared/reference/gcp.md machine families; A4 seed: GPU0/GPU1 + 2 NICs per root)
    ("a3-highgpu-8g", 2, 1, "shared/reference/gcp.md: 4 gVNIC for 8 GPUs; " + _COUNTS, False),
    ("a3-megagpu-8g", 1, 1, "shared/reference/gcp.md: 8 gVNIC for 8 GPUs, 1:1", True),
    ("a3-ultragpu-8g", 1, 1, "shared/reference/gcp.md: 8 CX-7 for 8 GPUs, 1:1", True),
    ("a4-highgpu-8g", 2, 2, "shared/seeds/gke-nvidia-dra-dranet.md: 2 GPUs + 2 NICs per "
     "PCIe root (2-gpu-nic-aligned)", True),
    ("a4x-highgpu-4g", 1, 1, "shared/reference/gcp.md: 4 CX-7 for 4 GPUs, 1:1", True),
    # AWS
    ("p4d.24xlarge", 2, 1, _AWS_TOPO.format("p4d-24xl") + ": 2 GPUs + 1 NIC per PCIe "
     "switch", True),
    ("p4de.24xlarge", 2, 1, _AWS_TOPO.format("p4de-24xl") + ": 2 GPUs + 1 NIC per PCIe "
     "switch", True),
    ("p5.48xlarge", 1, 4, _AWS_TOPO.format("p5.48xl") + ": 1 GPU + 4 EFA per PCIe "
     "bridge", True),
    ("p5e.48xlarge", 1, 4, "as p5.48xlarge (same 32 x 100G EFA); " + _COUNTS, False),
    ("p5en.48xlarge", 1, 2, "16 EFA for 8 GPUs; " + _COUNTS, False),
    ("p6-b200.48xlarge", 1, 1, "8 EFA for 8 GPUs; " + _COUNTS, False),
    ("p6-b300.48xlarge", 1, 2, "16 EFA for 8 GPUs; " + _COUNTS, False),
    ("p6e-gb200.36xlarge", 1, 1, "4 EFA for 4 GPUs; " + _COUNTS, False),
    # Azure (AZURE_TOPOLOGIES above, from Azure/azhpc-images topology/ndv4|ndv5-topo.xml)
    ("Standard_ND96asr_v4", 2, 2, "Azure/azhpc-images topology/ndv4-topo.xml: 2 GPUs + "
     "2 HCAs per PCIe switch", True),
    ("Standard_ND96amsr_A100_v4", 2, 2, "Azure/azhpc-images topology/ndv4-topo.xml: 2 GPUs "
     "+ 2 HCAs per PCIe switch", True),
    ("Standard_ND96isr_H100_v5", 1, 1, "Azure/azhpc-images topology/ndv5-topo.xml: 1 GPU + "
     "1 HCA per PCIe switch", True),
    ("Standard_ND96isr_H200_v5", 1, 1, "ndv5 layout (Azure/azhpc-images "
     "topology/ndv5-topo.xml)", True),
    ("Standard_ND96isr_MI300X_v5", 1, 1, "8 IB for 8 GPUs; " + _COUNTS, False),
    ("Standard_ND128isr_NDR_GB200_v6", 1, 1, "4 IB for 4 GPUs; " + _COUNTS, False),
    ("Standard_ND128isr_GB300_v6", 1, 1, "4 IB for 4 GPUs; " + _COUNTS, False),
    # DigitalOcean (shared/reference/digitalocean.md NICs)
    ("gpu-h200x8-1128gb-fabric-contracted", 1, 1, "shared/reference/digitalocean.md: "
     "fabric0..7 for 8 GPUs", False),
    ("gpu-mi300x8-1536gb-fabric-contracted", 1, 1, "shared/reference/digitalocean.md: "
     "fabric0..7 for 8 GPUs", False),
    ("gpu-mi325x8-2048gb-fabric-contracted", 1, 1, "shared/reference/digitalocean.md: "
     "fabric0..7 for 8 GPUs", False),
    ("gpu-b300x8-2304gb-fabric-contracted", 1, 2, "shared/reference/digitalocean.md: "
     "\"2 fabric NICs per GPU\" (slinky-on-doks)", True),
    # OCI (shared/reference/oci.md: 16 dual-port RoCE ports = 2 per GPU, or 8 = 1 per GPU)
    ("BM.GPU4.8", 1, 2, "shared/reference/oci.md: 16 RoCE ports, 2 per GPU", True),
    ("BM.GPU.B4.8", 1, 2, "shared/reference/oci.md: 16 RoCE ports, 2 per GPU", True),
    ("BM.GPU.A100-v2.8", 1, 2, "shared/reference/oci.md: 16 RoCE ports, 2 per GPU", True),
    ("BM.GPU.H100.8", 1, 2, "shared/reference/oci.md: 16 RoCE ports, 2 per GPU", True),
    ("BM.GPU.H200.8", 1, 1, "shared/reference/oci.md: 8 single-port NICs, 1 per GPU", True),
    ("BM.GPU.B200.8", 1, 1, "shared/reference/oci.md: 8 single-port NICs, 1 per GPU", True),
    ("BM.GPU.MI300X.8", 1, 1, "shared/reference/oci.md: 8 single-port NICs, 1 per GPU", True),
    ("BM.GPU.GB200-v3.4", 1, 2, "8 RoCE NICs for 4 GPUs; " + _COUNTS, False),
)
GPU_NIC_PAIRING: Mapping[str, GpuNicPairing] = MappingProxyType({
    name: GpuNicPairing(gpus, nics, source, confirmed)
    for name, gpus, nics, source, confirmed in _PAIRING_ROWS
})


def gpu_nic_pairing(machine: Machine) -> GpuNicPairing | None:
    """The machine's GPU <-> NIC pairing (None for machines without a fabric)."""
    return GPU_NIC_PAIRING.get(machine.name)


class UnknownMachineError(LookupError):
    """Raised for a machine type the catalog does not list for a cloud."""


_BY_CLOUD: dict[Cloud, dict[str, Machine]] = {}
for _m in MACHINES:
    _BY_CLOUD.setdefault(_m.cloud, {})[_m.name] = _m


def machines(cloud: Cloud | str | None = None, *, fabric_only: bool = False) -> list[Machine]:
    """All machines (of one cloud), in catalog order."""
    found = [
        m for m in MACHINES
        if (cloud is None or m.cloud == Cloud(cloud)) and (m.has_fabric or not fabric_only)
    ]
    return found


def machine_names(cloud: Cloud | str, *, fabric_only: bool = False) -> list[str]:
    return [m.name for m in machines(cloud, fabric_only=fabric_only)]


def get_machine(name: str, cloud: Cloud | str | None = None) -> Machine:
    """Look a machine up by type name, optionally within one cloud.

    Raises :class:`UnknownMachineError` whose message lists the valid names.
    """
    if cloud is not None:
        by_name = _BY_CLOUD.get(Cloud(cloud), {})
        if name in by_name:
            return by_name[name]
        raise UnknownMachineError(
            f"'{name}' is not a {Cloud(cloud).display} machine type in the catalog; "
            f"valid: {', '.join(by_name)}"
        )
    for by_name in _BY_CLOUD.values():
        if name in by_name:
            return by_name[name]
    raise UnknownMachineError(
        f"'{name}' is not in the machine catalog; valid: {', '.join(m.name for m in MACHINES)}"
    )
