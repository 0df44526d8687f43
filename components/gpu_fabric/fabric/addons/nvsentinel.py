"""NVIDIA NVSentinel: GPU (DCGM, XID), NIC and syslog health monitors that report node
conditions and, with fault quarantine on, cordon a failing node.

Off by default; ``health.enabled`` turns it on (:mod:`gpu_fabric.health`), which also
builds its release and decides its remediation (cordon only, unless the spec says).
"""

from __future__ import annotations

from gpu_fabric import versions
from gpu_fabric.fabric.addons.model import Addon

NVSENTINEL = Addon(
    key="nvsentinel",
    artifact=versions.NVSENTINEL,
    namespace="nvsentinel",
    summary="NVIDIA NVSentinel (GPU/NIC fault detection and quarantine)",
    built_by="gpu_fabric.health:parts",
    part="nvsentinel",
    privileged=True,
)
