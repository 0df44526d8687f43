"""DraNet (kubernetes-sigs/dranet, driver ``dra.net``) chart values."""

from __future__ import annotations

from typing import Any

from components.fabric.taints import daemonset_tolerations


def values(*, cloud_hint: str | None = None) -> dict[str, Any]:
    out: dict[str, Any] = {"tolerations": daemonset_tolerations()}
    if cloud_hint:
        out["cloudProviderHint"] = cloud_hint
    return out
