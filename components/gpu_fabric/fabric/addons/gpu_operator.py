"""NVIDIA GPU Operator: driver, container toolkit, nvidia-peermem, DCGM, MIG manager.

Off by default: clouds whose nodes lack the driver turn it on; the platform's MIG
needs it; clouds contribute its chart values (which parts their images already ship).
"""

from __future__ import annotations

from gpu_fabric import versions
from gpu_fabric.fabric.addons.model import Addon

GPU_OPERATOR = Addon(
    key="gpu_operator",
    artifact=versions.GPU_OPERATOR,
    namespace="gpu-operator",
    summary="NVIDIA GPU Operator",
    built_by="gpu_fabric.fabric.parts:generic_parts",
    part="gpu-operator",
    privileged=True,
    gpu_nodes=True,
    arm64=(
        "NVIDIA/gpu-operator v26.7.0 .github/workflows/image-builds.yaml lines 78-171 (arm64 "
        "build, multi-arch manifest)"
    ),
)
