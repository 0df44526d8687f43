"""DigitalOcean's GPU droplets and their fabric NCCL profile (mlx5_N on fabricN)."""

from __future__ import annotations

from collections.abc import Iterable

from gpu_fabric.catalog.gpus import B300, H100_80, H200_141, MI300X, MI325X
from gpu_fabric.catalog.model import (
    DERIVED_RDMA,
    NO_FABRIC,
    Cloud,
    FabricKind,
    Machine,
    NcclProfile,
    _derived,
    _env,
    _mlx,
    _names,
)
from gpu_fabric.catalog.pairing import GpuNicPairing


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


# The RDMA devices in rail order, typed once: the machine's ``hca_names`` and its
# NCCL_IB_HCA (mlx5_0.. on fabric0.., DO-Solutions/slinky-on-doks).
_DO_HCAS_8 = _mlx(*range(8))
_DO_HCAS_16 = _mlx(*range(16))
# Where the rows' facts come from: DigitalOcean's pages (the multi-node page is the one this
# project's seed copies), and DO-Solutions/slinky-on-doks at the commit read.
_DO_MULTINODE = "https://docs.digitalocean.com/products/kubernetes/how-to/configure-multinode-gpus/"
_DO_SLUGS = "https://docs.digitalocean.com/products/droplets/details/features/"
_SLINKY = (
    "https://github.com/DO-Solutions/slinky-on-doks/blob/a3c409c4032376649c32ab391469002e910b17b0/"
)
_SLINKY_README = _SLINKY + "README.md"  # ~350 GB/s average busbw, 2-node MI300X RCCL
_SLINKY_GUIDE = _SLINKY + "MANUAL-INSTALL-GUIDE.md"  # B300: 2 fabric NICs per GPU, 16 total
_DO = (_DO_MULTINODE, _DO_SLUGS)

# Host vCPUs and memory: None on every plan. The GPU Droplet plan tables (vCPUs, RAM) of
# docs.digitalocean.com were not readable here, and the per-contract "-fabric-contracted" slugs
# are not in the public GET /v2/sizes (docs.digitalocean.com/products/droplets/details/pricing).
# A slug's "640gb" / "1128gb" is GPU memory, not host RAM.


MACHINES: tuple[Machine, ...] = (
    # -------------------------------------------------------- DigitalOcean --
    Machine(
        cloud=Cloud.DIGITALOCEAN,
        name="gpu-h200x8-1128gb-fabric-contracted",
        family="H200 fabric",
        gpu=H200_141,
        gpus=8,
        fabric=FabricKind.ROCE, fabric_nics=8, gbps_per_nic=400, total_fabric_gbps=3200,
        mtu=None, nccl=_do_roce(_DO_HCAS_8),
        busbw_floor=_derived(8, 400, 0.7), floor_basis=DERIVED_RDMA,
        sources=_DO,
        nic_names=_names("fabric", 8), hca_names=_DO_HCAS_8,
        notes="Per-NIC speed (400 Gb/s) is not stated by DO (unconfirmed).",
        pairing=GpuNicPairing(
            gpus_per_group=1, nics_per_group=1, confirmed=False,
            evidence="fabric0..7 for 8 GPUs",
            source=_DO_MULTINODE,
        ),
    ),
    Machine(
        cloud=Cloud.DIGITALOCEAN,
        name="gpu-mi300x8-1536gb-fabric-contracted",
        family="MI300X fabric",
        gpu=MI300X,
        gpus=8,
        fabric=FabricKind.ROCE, fabric_nics=8, gbps_per_nic=400, total_fabric_gbps=3200,
        mtu=None, nccl=_do_roce(_DO_HCAS_8),
        busbw_floor=300.0,
        floor_basis="measured: ~85% of the ~350 GB/s 2-node RCCL figure slinky-on-doks expects",
        sources=(*_DO, _SLINKY_README),
        nic_names=_names("fabric", 8), hca_names=_DO_HCAS_8,
        pairing=GpuNicPairing(
            gpus_per_group=1, nics_per_group=1, confirmed=False,
            evidence="fabric0..7 for 8 GPUs",
            source=_DO_MULTINODE,
        ),
    ),
    Machine(
        cloud=Cloud.DIGITALOCEAN,
        name="gpu-mi325x8-2048gb-fabric-contracted",
        family="MI325X fabric",
        gpu=MI325X,
        gpus=8,
        fabric=FabricKind.ROCE, fabric_nics=8, gbps_per_nic=400, total_fabric_gbps=3200,
        mtu=None, nccl=_do_roce(_DO_HCAS_8),
        busbw_floor=_derived(8, 400, 0.7), floor_basis=DERIVED_RDMA,
        sources=_DO,
        nic_names=_names("fabric", 8), hca_names=_DO_HCAS_8,
        notes="Per-NIC speed unconfirmed.",
        pairing=GpuNicPairing(
            gpus_per_group=1, nics_per_group=1, confirmed=False,
            evidence="fabric0..7 for 8 GPUs",
            source=_DO_MULTINODE,
        ),
    ),
    Machine(
        cloud=Cloud.DIGITALOCEAN,
        name="gpu-b300x8-2304gb-fabric-contracted",
        family="B300 fabric",
        gpu=B300,
        gpus=8,
        fabric=FabricKind.ROCE, fabric_nics=16, gbps_per_nic=400, total_fabric_gbps=6400,
        mtu=None, nccl=_do_roce(_DO_HCAS_16),
        busbw_floor=_derived(16, 400, 0.7), floor_basis=DERIVED_RDMA,
        sources=(*_DO, _SLINKY_GUIDE),
        nic_names=_names("fabric", 16), hca_names=_DO_HCAS_16,
        notes="2 fabric NICs per GPU; per-NIC speed unconfirmed.",
        pairing=GpuNicPairing(
            gpus_per_group=1, nics_per_group=2,
            evidence="2 fabric NICs per GPU",
            source=_SLINKY_GUIDE,
        ),
    ),
    Machine(
        cloud=Cloud.DIGITALOCEAN, name="gpu-h100x8-640gb", family="H100x8", gpu=H100_80, gpus=8,
        fabric=FabricKind.NONE, fabric_nics=0, gbps_per_nic=0, total_fabric_gbps=0,
        mtu=None, nccl=None,
        busbw_floor=None, floor_basis=NO_FABRIC,
        sources=_DO,
    ),
    Machine(
        cloud=Cloud.DIGITALOCEAN, name="gpu-h200x8-1128gb", family="H200x8", gpu=H200_141, gpus=8,
        fabric=FabricKind.NONE, fabric_nics=0, gbps_per_nic=0, total_fabric_gbps=0,
        mtu=None, nccl=None,
        busbw_floor=None, floor_basis=NO_FABRIC,
        sources=_DO,
    ),
    Machine(
        cloud=Cloud.DIGITALOCEAN, name="gpu-h100x1-80gb", family="H100x1", gpu=H100_80, gpus=1,
        fabric=FabricKind.NONE, fabric_nics=0, gbps_per_nic=0, total_fabric_gbps=0,
        mtu=None, nccl=None,
        busbw_floor=None, floor_basis=NO_FABRIC,
        sources=_DO,
    ),
)
