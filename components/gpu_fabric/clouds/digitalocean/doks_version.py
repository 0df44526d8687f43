"""How ``kubernetes.version`` maps onto a DOKS version slug (pure; no SDK).

DOKS versions are slugs like ``1.34.1-do.0``. A full slug in the spec is used as
is (pinned). ``1.34`` or ``1.34.1`` selects the newest DOKS slug starting with
``1.34.`` / ``1.34.1-do.`` at deploy time (``getKubernetesVersions`` with a
``version_prefix``); when DO publishes a newer patch the next ``pulumi up``
upgrades the cluster in place, so pin the full slug to freeze it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from gpu_fabric.fabric.problems import refuse

if TYPE_CHECKING:
    from gpu_fabric.spec import ClusterSpec

DO_SUFFIX = "do."


@dataclass(frozen=True)
class DoksVersion:
    """Either an exact slug or a prefix to resolve with ``getKubernetesVersions``."""

    exact: str | None
    prefix: str | None


def doks_version(spec: ClusterSpec) -> DoksVersion:
    parsed = spec.kubernetes.parsed
    if parsed.suffix:
        if not parsed.suffix.startswith(DO_SUFFIX) or parsed.patch is None:
            refuse("kubernetes.version",
                   "is not a DOKS version; write 1.34, 1.34.1 or a DOKS slug like 1.34.1-do.0 "
                   "(doctl kubernetes options versions)", spec.kubernetes.version)
        return DoksVersion(str(parsed), None)
    if parsed.patch is not None:
        return DoksVersion(None, f"{parsed.minor_version}.{parsed.patch}-{DO_SUFFIX}")
    return DoksVersion(None, f"{parsed.minor_version}.")


def pick(prefix: str, latest: str | None, valid: list[str] | None) -> str:
    """The resolved slug, or a clear error naming the versions DOKS offers."""
    if latest:
        return latest
    offered = ", ".join(valid or []) or "none returned"
    raise ValueError(
        f"kubernetes.version: DOKS offers no version starting with '{prefix}'; "
        f"offered: {offered}"
    )
