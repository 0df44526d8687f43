"""SR-IOV network device plugin: hands out a pool's RDMA VFs, one per request.

Off unless the spec or a cloud turns it on (where the Network Operator runs the
plugin itself, a second copy is refused).
"""

from __future__ import annotations

from gpu_fabric import versions
from gpu_fabric.fabric.addons.model import Addon

SRIOV_DEVICE_PLUGIN = Addon(
    key="sriov_device_plugin",
    artifact=versions.SRIOV_DEVICE_PLUGIN,
    namespace="kube-system",
    summary="SR-IOV network device plugin (VFs)",
    built_by="gpu_fabric.fabric.parts:generic_parts",
    part="sriov-device-plugin",
    gpu_nodes=True,
    arm64=(
        "k8snetworkplumbingwg/sriov-network-device-plugin v3.9.0 .github/workflows/image-"
        "push-release.yml lines 46-87, 157-161 (arm64 image in the release manifest)"
    ),
)
