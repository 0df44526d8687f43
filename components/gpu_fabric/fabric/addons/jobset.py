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
    # kubernetes-sigs/jobset charts/jobset/templates/controller/deployment.yaml at v0.10.1
    # (da72d32b) line 75: the "webhook" containerPort 9443 the webhook Service targets.
    webhook_ports=(9443,),
)
