"""DraNet: the fabric NICs as DRA devices (driver ``dra.net``).

On wherever NICs attach through DRA and the cloud does not run the NIC driver
itself (a managed DraNet installs its own).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from gpu_fabric import versions
from gpu_fabric.fabric.addons.model import Addon

if TYPE_CHECKING:
    from gpu_fabric.fabric.description import FabricDescription


def _unmanaged_dra_nics(fabrics: Sequence[FabricDescription]) -> bool:
    from gpu_fabric.fabric.description import Attach

    return any(f.attach is Attach.DRA and f.dra and not f.dra.managed_nics for f in fabrics)


DRANET = Addon(
    key="dranet",
    artifact=versions.DRANET,
    namespace="kube-system",
    summary="DraNet (NICs as DRA devices)",
    built_by="gpu_fabric.fabric.parts:dra_parts",
    part="dranet",
    default=_unmanaged_dra_nics,
    gpu_nodes=True,
    arm64=(
        "kubernetes-sigs/dranet v1.4.0 Makefile line 74 (PLATFORMS?=linux/amd64,linux/arm64)"
    ),
)
