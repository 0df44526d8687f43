"""JobSet controller (multi-pod training jobs), on request."""

from __future__ import annotations

from gpu_fabric import versions
from gpu_fabric.fabric.addons.model import Addon

JOBSET = Addon(
    key="jobset",
    artifact=versions.JOBSET,
    namespace="jobset-system",
    summary="JobSet",
    built_by="gpu_fabric.platform:parts",
    part="jobset",
)
