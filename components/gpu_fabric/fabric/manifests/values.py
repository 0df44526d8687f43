"""Helm values as data: deep merge (computed <- cloud <- spec) and shared fragments."""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any


def deep_merge(base: Mapping[str, Any], *overlays: Mapping[str, Any]) -> dict[str, Any]:
    """Merge mappings left to right; nested mappings merge, everything else is replaced."""
    out: dict[str, Any] = copy.deepcopy(dict(base))
    for overlay in overlays:
        for key, value in overlay.items():
            if isinstance(value, Mapping) and isinstance(out.get(key), Mapping):
                out[key] = deep_merge(out[key], value)
            else:
                out[key] = copy.deepcopy(value)
    return out
