"""DOKS's checks before the first resource: the Kubernetes version and managed components."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from gpu_fabric.clouds.digitalocean.doks_version import doks_version
from gpu_fabric.clouds.digitalocean.managed import managed_components

if TYPE_CHECKING:
    from gpu_fabric.fabric.description import FabricDescription
    from gpu_fabric.spec import ClusterSpec


def check_infrastructure(spec: ClusterSpec, fabrics: Mapping[str, FabricDescription]) -> None:
    doks_version(spec)
    managed_components(spec)
