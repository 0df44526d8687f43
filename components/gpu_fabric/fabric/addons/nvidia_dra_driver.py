"""NVIDIA DRA driver for GPUs (``gpu.nvidia.com`` devices, ComputeDomains for IMEX).

On wherever a pool's GPUs come from DRA claims, and on every GB200/GB300 pool (compute
domains only, ``resources.gpus.enabled: false``, beside the device plugin that serves
its GPUs in the other modes).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from gpu_fabric import versions
from gpu_fabric.fabric.addons.model import Addon

if TYPE_CHECKING:
    from gpu_fabric.fabric.description import FabricDescription


def _dra_gpus(fabrics: Sequence[FabricDescription]) -> bool:
    """On for DRA GPUs, and for every multi-node NVLink pool whatever its mode: its pods
    need a ComputeDomain's IMEX channel, which only this driver gives."""
    return any(f.uses_dra or f.machine.nvlink_domain for f in fabrics)


NVIDIA_DRA_DRIVER = Addon(
    key="nvidia_dra_driver",
    artifact=versions.NVIDIA_DRA_DRIVER,
    namespace="nvidia-dra-driver-gpu",
    summary="NVIDIA DRA driver for GPUs (gpu.nvidia.com, ComputeDomains)",
    built_by="gpu_fabric.fabric.parts:dra_parts",
    part="nvidia-dra-driver",
    privileged=True,
    default=_dra_gpus,
    gpu_nodes=True,
    arm64=(
        "NVIDIA/k8s-dra-driver-gpu v25.12.0 deployments/container/Makefile line 46 (multi-"
        "arch images: --platform=linux/amd64,linux/arm64)"
    ),
)
