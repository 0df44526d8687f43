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
_DO = ("shared/reference/digitalocean.md", "docs.digitalocean.com configure-multinode-gpus")

# Host vCPUs and memory: None on every plan. The GPU Droplet plan tables (vCPUs, RAM) of
# docs.digitalocean.com were not readable here, and the per-contract "-fabric-contracted" slugs
# are not in the public GET /v2/sizes (docs.digitalocean.com/products/droplets/details/pricing).
# A slug's "640gb" / "1128gb" is GPU memory, not host RAM.


MACHINES: tuple[Machine, ...] = (
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
)
