"""Multus CNI (thick plugin): moves a pool's host-device fabric NICs into pods.

On by default where a fabric's NADs are host-device (the DigitalOcean seed); clouds
whose NICs reach pods another way turn it off, SR-IOV clouds turn it on.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from gpu_fabric import versions
from gpu_fabric.fabric.addons.model import Addon

if TYPE_CHECKING:
    from gpu_fabric.fabric.description import FabricDescription


def _host_device_nads(fabrics: Sequence[FabricDescription]) -> bool:
    return any(f.nad_type == "host-device" for f in fabrics)


MULTUS = Addon(
    key="multus",
    artifact=versions.MULTUS_THICK,
    namespace="kube-system",
    summary="Multus CNI (thick plugin)",
    built_by="gpu_fabric.fabric.parts:generic_parts",
    part="multus",
    default=_host_device_nads,
    gpu_nodes=True,
    arm64=(
        "k8snetworkplumbingwg/multus-cni v4.3.0 .github/workflows/image-push-release.yml "
        "lines 35-45 (thick image, platforms include linux/arm64)"
    ),
)
