"""Location checks every cloud shares: an unknown region or zone refused with the choices.

A typo in ``location.region`` or ``location.zone`` (``us-west8X-c``, an OCI
availability domain of another region, a region that does not exist) used to
be accepted and fail minutes into ``pulumi up``. Each cloud's folder holds the
regions and zones it really has (``clouds/<cloud>/regions.py``, with sources);
its provider's ``location_problems`` refuses anything else through
:func:`unknown_region` and :func:`unknown_zone`, which name the valid choices.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable

from gpu_fabric.catalog import Cloud
from gpu_fabric.errors import Problem


def _closest(value: str, choices: list[str]) -> str:
    near = difflib.get_close_matches(value, choices, n=3, cutoff=0.6)
    return f"; did you mean {' or '.join(near)}?" if near else ""


def unknown_region(cloud: Cloud, region: str, known: Iterable[str]) -> list[Problem]:
    """The problem of a ``location.region`` not in ``known`` (nothing when it is)."""
    regions = sorted(known)
    if region in regions:
        return []
    return [Problem(
        "location.region",
        f"'{region}' is not {cloud.a_display} region{_closest(region, regions)} "
        f"(known: {', '.join(regions)}; a region opened since is added to "
        f"components/gpu_fabric/clouds/{cloud.value}/regions.py with its source)",
        region, True,
    )]


def unknown_zone(cloud: Cloud, region: str, zone: str, valid: list[str]) -> list[Problem]:
    """The problem of a ``location.zone`` that is not a zone of ``region``."""
    return [Problem(
        "location.zone",
        f"'{zone}' is not a zone of {cloud.display} region {region}{_closest(zone, valid)} "
        f"(valid: {', '.join(valid)})",
        zone, True,
    )]
