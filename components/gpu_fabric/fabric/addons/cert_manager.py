"""cert-manager: the TLS certificates of NVSentinel's datastore (MongoDB), which its
fault quarantine (cordon) and node drainer read health events from.

Off by default; the health layer (:mod:`gpu_fabric.health`) turns it on when NVSentinel
quarantines nodes. ``enabled: false`` when the cluster already runs cert-manager.
"""

from __future__ import annotations

from gpu_fabric import versions
from gpu_fabric.fabric.addons.model import Addon

CERT_MANAGER = Addon(
    key="cert_manager",
    artifact=versions.CERT_MANAGER,
    namespace="cert-manager",
    summary="cert-manager (TLS for NVSentinel's datastore)",
    built_by="gpu_fabric.health:parts",
    part="cert-manager",
)
