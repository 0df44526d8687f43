"""Kueue: quotas, gang admission and topology-aware scheduling for teams.

Off by default; the platform turns it on when teams share the cluster.
"""

from __future__ import annotations

from gpu_fabric import versions
from gpu_fabric.fabric.addons.model import Addon

KUEUE = Addon(
    key="kueue",
    artifact=versions.KUEUE,
    namespace="kueue-system",
    summary="Kueue gang scheduling",
    built_by="gpu_fabric.platform:parts",
    part="kueue",
)
