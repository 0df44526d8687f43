"""GKE's spec checks for the cloud contract: what cannot be laid out is refused first.

Building the network layout runs every GKE rule (multi-networking, pool names,
capacity types, address plans); a cluster this library creates is refused
before any resource is registered. An existing cluster's networks are the
team's, so only what the layer itself needs is checked (in ``kubernetes``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from gpu_fabric.clouds.gcp.layout import build_layout

if TYPE_CHECKING:
    from gpu_fabric.spec import ClusterSpec


def check_spec(spec: ClusterSpec) -> None:
    if spec.existing is None:
        build_layout(spec)
