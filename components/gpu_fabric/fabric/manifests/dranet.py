"""DraNet (kubernetes-sigs/dranet, driver ``dra.net``) chart values."""

from __future__ import annotations

from typing import Any

from gpu_fabric.fabric.taints import daemonset_tolerations

# The chart's ``args.cloudProviderHint`` picks the provider plugin that adds cloud
# attributes (e.g. ``dra.net/cloudNetwork``) to NIC devices; unset, DraNet probes
# for one. Allowed values (dranet v1.4.0 cmd/dranet/app.go and values.schema.json);
# each cloud's describer says which is its own
# (:attr:`~gpu_fabric.fabric.description.FabricDescription.dranet_provider_hint`).
PROVIDER_HINTS: tuple[str, ...] = ("AWS", "GCE", "AZURE", "OKE", "ALIBABA", "webhook", "NONE")


def values(provider_hint: str) -> dict[str, Any]:
    """The chart's values for a cluster whose cloud's DraNet plug-in is ``provider_hint``."""
    if provider_hint not in PROVIDER_HINTS:
        raise ValueError(
            f"dranet_provider_hint: {provider_hint!r} is not a DraNet cloudProviderHint; "
            f"valid: {', '.join(PROVIDER_HINTS)}"
        )
    return {
        "tolerations": daemonset_tolerations(),
        "args": {"cloudProviderHint": provider_hint},
    }
