"""The day-2 operations of the matrix test, as edits of a committed stack's spec.

Each operation takes a copy of the stack's ``gpu-fabric:cluster`` mapping and
changes it the way an operator would in the stack file; ``None`` means the
operation cannot be written for that stack's spec (the matrix says why).
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

Spec = dict[str, Any]

# Per cloud: a node image the cloud's validator accepts other than the stack's default
# (GCP image_type, Azure os_sku, OCI image OCID); AWS and DigitalOcean take none.
NODE_IMAGE = {
    "gcp": "UBUNTU_CONTAINERD",
    "azure": "Ubuntu2404",
    "oci": "ocid1.image.oc1.iad.aaaaaaaanewrdmaimage",
}
# Per cloud: a reservation id of the cloud's form (spec/pools.py CapacitySpec).
RESERVATION = {
    "gcp": "new-reservation",
    "aws": "cr-0fedcba9876543210",
    "oci": "ocid1.capacityreservation.oc1.iad.aaaaaaaanewreservation",
}
CHART = ("kyverno", "3.6.2")
TEAM = {"name": "team-new", "group": "team-new-group", "gpus": 8}


def _pool(spec: Spec) -> dict[str, Any]:
    pools: list[dict[str, Any]] = spec["node_pools"]
    return pools[0]


def resize(spec: Spec) -> Spec | None:
    pool = _pool(spec)
    if pool.get("max_nodes") is not None:
        pool["max_nodes"] += 1
    else:
        pool["node_count"] = pool.get("node_count", 2) + 1
    return spec


def k8s_minor(spec: Spec) -> Spec | None:
    version = spec.get("kubernetes", {}).get("version", "1.34")
    major, minor = version.split(".")[:2]
    spec.setdefault("kubernetes", {})["version"] = f"{major}.{int(minor) + 1}"
    return spec


def node_image(spec: Spec) -> Spec | None:
    image = NODE_IMAGE.get(spec["cloud"])
    if image is None:
        return None
    _pool(spec)["os_image"] = image
    return spec


def chart_bump(spec: Spec) -> Spec | None:
    key, version = CHART
    spec.setdefault("addons", {}).setdefault(key, {})["version"] = version
    return spec


def dra_toggle(spec: Spec) -> Spec | None:
    fabric = spec.setdefault("fabric", {})
    fabric["mode"] = "device-plugin" if fabric.get("mode") == "dra" else "dra"
    return spec


def onto_reservation(spec: Spec) -> Spec | None:
    reservation = RESERVATION.get(spec["cloud"])
    pool = _pool(spec)
    if reservation is None or pool.get("capacity", {}).get("type") == "reservation":
        return None
    pool["capacity"] = {"type": "reservation", "reservation": reservation}
    return spec


def add_team(spec: Spec) -> Spec | None:
    spec.setdefault("tenancy", {}).setdefault("teams", []).append(dict(TEAM))
    return spec


def add_pool(spec: Spec) -> Spec | None:
    pool = copy.deepcopy(_pool(spec))
    pool["name"] = "extra"
    spec["node_pools"].append(pool)
    return spec


OPERATIONS: dict[str, Callable[[Spec], Spec | None]] = {
    "resize": resize,
    "k8s_minor": k8s_minor,
    "node_image": node_image,
    "chart_bump": chart_bump,
    "dra_toggle": dra_toggle,
    "onto_reservation": onto_reservation,
    "add_team": add_team,
    "add_pool": add_pool,
}


def apply(name: str, spec: Spec) -> Spec | None:
    return OPERATIONS[name](copy.deepcopy(spec))
