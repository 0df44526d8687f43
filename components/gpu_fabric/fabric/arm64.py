"""arm64 hosts (GB200/GB300: Grace CPUs) run only images built for arm64.

Every add-on that runs pods on GPU nodes records where upstream says its pinned build
has an arm64 image (``Addon.arm64``: a repository file at the pinned tag, with lines). A
pool of arm64 machines refuses, before any resource, an add-on that runs on its nodes
without such a record, or at a version other than the pinned one (the record is for the
pin only): the DaemonSet would land and crash-loop on "exec format error".
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from gpu_fabric.fabric.addons import ADDONS, ResolvedAddons
from gpu_fabric.fabric.problems import refuse

if TYPE_CHECKING:
    from gpu_fabric.fabric.description import FabricDescription

ARM64 = "arm64"


def arm64_pools(fabrics: Mapping[str, FabricDescription]) -> list[str]:
    return [f"{f.pool} ({f.machine.name})" for f in fabrics.values()
            if f.machine.cpu_arch == ARM64]


def check_arm64(fabrics: Mapping[str, FabricDescription], addons: ResolvedAddons) -> None:
    """Refuse an add-on on arm64 GPU nodes without a recorded arm64 build."""
    pools = arm64_pools(fabrics)
    if not pools:
        return
    where = ", ".join(pools)
    for key, addon in ADDONS.items():
        chosen = addons[key]
        if not (chosen.enabled and addon.gpu_nodes):
            continue
        if not addon.arm64:
            refuse(f"addons.{key}.enabled",
                   f"pool(s) {where} run arm64 hosts and {key} runs pods on them, but no "
                   "arm64 build of its pinned version is recorded; turn it off on this "
                   "cluster", True)
        pinned = getattr(addon.artifact, "version", None) or getattr(addon.artifact, "tag", None)
        if chosen.version and pinned and chosen.version != pinned:
            refuse(f"addons.{key}.version",
                   f"pool(s) {where} run arm64 hosts; {key}'s arm64 build is recorded for "
                   f"its pinned {pinned} ({addon.arm64}), not for {chosen.version}; use "
                   f"{pinned}", chosen.version)
