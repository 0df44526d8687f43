"""Mellanox RDMA shared device plugin: one extended resource per rail, shared by pods.

Off unless a cloud turns it on (DOKS runs its own copy unless the spec turns that off).
"""

from __future__ import annotations

from gpu_fabric import versions
from gpu_fabric.fabric.addons.model import Addon

RDMA_SHARED_DEVICE_PLUGIN = Addon(
    key="rdma_shared_device_plugin",
    artifact=versions.RDMA_SHARED_DEVICE_PLUGIN,
    namespace="kube-system",
    summary="Mellanox RDMA shared device plugin (one resource per rail)",
    built_by="gpu_fabric.fabric.parts:generic_parts",
    part="rdma-shared-device-plugin",
    gpu_nodes=True,
    arm64=(
        "Mellanox/k8s-rdma-shared-dev-plugin v1.5.3 .github/workflows/release.yaml lines "
        "54-92, 164-168 (arm64 image in the release manifest)"
    ),
)
