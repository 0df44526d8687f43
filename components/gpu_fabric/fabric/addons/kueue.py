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
    # kubernetes-sigs/kueue charts/kueue/values.yaml at v0.14.4 (28700e89):
    # webhookService.ports[0].targetPort 9443.
    webhook_ports=(9443,),
)
