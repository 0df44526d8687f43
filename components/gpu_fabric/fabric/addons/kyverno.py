"""Kyverno and the fabric injection policies (pods get their NICs without editing).

On wherever a machine has a fabric.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from gpu_fabric import versions
from gpu_fabric.fabric.addons.model import Addon

if TYPE_CHECKING:
    from gpu_fabric.fabric.description import FabricDescription


def _any_fabric(fabrics: Sequence[FabricDescription]) -> bool:
    return any(f.machine.has_fabric for f in fabrics)


KYVERNO = Addon(
    key="kyverno",
    artifact=versions.KYVERNO,
    namespace="kyverno",
    summary="Kyverno + fabric injection policies",
    built_by="gpu_fabric.fabric.injection:injection_part",
    part="kyverno",
    default=_any_fabric,
    # kyverno/kyverno charts/kyverno/values.yaml at kyverno-chart-3.6.1 (67f7f8c3):
    # admissionController.webhookServer.port 9443 (line 903) and cleanupController.server.port
    # 9443 (line 1663), both with hostNetwork: false.
    webhook_ports=(9443,),
)
