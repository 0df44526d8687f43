"""The cloud's NCCL plugin installer DaemonSets (network plugin libraries on the nodes).

On wherever a pool's fabric description asks for an installer; the cloud that has
them picks the images (hence no pinned artefact here) and builds the part.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from gpu_fabric.fabric.addons.model import BY_THE_CLOUD, Addon

if TYPE_CHECKING:
    from gpu_fabric.fabric.description import FabricDescription


def _installer_needed(fabrics: Sequence[FabricDescription]) -> bool:
    return any(f.needs_nccl_installer for f in fabrics)


NCCL_INSTALLER = Addon(
    key="nccl_installer",
    artifact=None,
    namespace="kube-system",
    summary="Cloud NCCL plugin installer DaemonSets (+ the NRI device injector their "
            "RxDM needs)",
    built_by=BY_THE_CLOUD,
    default=_installer_needed,
    gpu_nodes=True,
    arm64=(
        "GoogleCloudPlatform/cluster-toolkit 1047080375af examples/gke-a4x/gke-a4x.yaml (gib "
        "installer image nccl-plugin-gib-arm64 v1.1.0, the arm64 image A4X pools get)"
    ),
)
