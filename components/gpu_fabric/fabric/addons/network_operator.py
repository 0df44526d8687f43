"""NVIDIA Network Operator and its NicClusterPolicy (drivers, device plugins, IPAM).

Only the clouds whose fabric needs it (InfiniBand, SR-IOV VFs) turn it on, and they
build its parts in their own ``parts`` (the policy is cloud-specific).
"""

from __future__ import annotations

from gpu_fabric import versions
from gpu_fabric.fabric.addons.model import BY_THE_CLOUD, Addon

NETWORK_OPERATOR = Addon(
    key="network_operator",
    artifact=versions.NETWORK_OPERATOR,
    namespace="network-operator",
    summary="NVIDIA Network Operator + NicClusterPolicy",
    built_by=BY_THE_CLOUD,
    part="network-operator",
    privileged=True,
    gpu_nodes=True,
    arm64=(
        "Mellanox/network-operator v26.4.1 .github/workflows/ci.yaml line 80 (platforms: "
        "linux/amd64,linux/arm64); Makefile line 56 (BUILD_ARCH= amd64 arm64)"
    ),
)
