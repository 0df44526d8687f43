"""NVIDIA device plugin: ``nvidia.com/gpu`` where nothing else advertises the GPUs.

Off by default; clouds turn it on where exactly one source of ``nvidia.com/gpu`` is
missing (no GPU Operator, no DRA driver, no managed plugin).
"""

from __future__ import annotations

from gpu_fabric import versions
from gpu_fabric.fabric.addons.model import Addon

NVIDIA_DEVICE_PLUGIN = Addon(
    key="nvidia_device_plugin",
    artifact=versions.NVIDIA_DEVICE_PLUGIN,
    namespace="nvidia-device-plugin",
    summary="NVIDIA device plugin (nvidia.com/gpu)",
    built_by="gpu_fabric.fabric.parts:generic_parts",
    part="nvidia-device-plugin",
    privileged=True,
    gpu_nodes=True,
    arm64=(
        "NVIDIA/k8s-device-plugin v0.18.2 deployments/container/multi-arch.mk line 17 "
        "(--platform=linux/amd64,linux/arm64)"
    ),
)
