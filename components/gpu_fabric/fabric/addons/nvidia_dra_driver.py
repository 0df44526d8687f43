"""NVIDIA DRA driver for GPUs (``gpu.nvidia.com`` devices, ComputeDomains for IMEX).

On wherever a pool's GPUs come from DRA claims.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from gpu_fabric import versions
from gpu_fabric.fabric.addons.model import Addon

if TYPE_CHECKING:
    from gpu_fabric.fabric.description import FabricDescription


def _dra_gpus(fabrics: Sequence[FabricDescription]) -> bool:
    return any(f.uses_dra for f in fabrics)


NVIDIA_DRA_DRIVER = Addon(
    key="nvidia_dra_driver",
    artifact=versions.NVIDIA_DRA_DRIVER,
    namespace="nvidia-dra-driver-gpu",
    summary="NVIDIA DRA driver for GPUs (gpu.nvidia.com, ComputeDomains)",
    built_by="gpu_fabric.fabric.parts:dra_parts",
    part="nvidia-dra-driver",
    privileged=True,
    default=_dra_gpus,
)
