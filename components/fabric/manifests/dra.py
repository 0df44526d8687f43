"""Dynamic Resource Allocation objects: DeviceClasses, aligned ResourceClaimTemplates,
and the NVIDIA DRA driver's ComputeDomain for multi-node NVLink (GB200).

``resource.k8s.io/v1`` (Kubernetes >= 1.34) wraps each request's fields in
``exactly:``; ``v1beta1`` (1.32/1.33, opt-in) has them flat. GPUs and NICs are
aligned on the KEP-4381 attribute ``resource.kubernetes.io/pcieRoot``: every
device in a constraint's ``requests`` must share one value, so a claim asks for
groups of ``gpus_per_root`` GPUs plus as many NICs, one constraint per group
(the GKE seed's ``2-gpu-nic-aligned`` is one group of 2 + 2 on an A4).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from components.fabric.manifests.common import Manifest, meta

V1 = "resource.k8s.io/v1"
V1BETA1 = "resource.k8s.io/v1beta1"
PCIE_ROOT = "resource.kubernetes.io/pcieRoot"
COMPUTE_DOMAIN_API = "resource.nvidia.com/v1beta1"


def driver_selector(driver: str) -> str:
    return f'device.driver == "{driver}"'


def device_class(
    name: str,
    api_version: str,
    expressions: Sequence[str],
    *,
    extended_resource_name: str | None = None,
) -> Manifest:
    spec: dict[str, Any] = {"selectors": [{"cel": {"expression": e}} for e in expressions]}
    if extended_resource_name and api_version == V1:
        # KEP-5004: pods that still request e.g. nvidia.com/gpu get devices of this class.
        spec["extendedResourceName"] = extended_resource_name
    return {
        "apiVersion": api_version,
        "kind": "DeviceClass",
        "metadata": meta(name),
        "spec": spec,
    }


def _request(api_version: str, name: str, device_class: str, count: int,
             selectors: Sequence[str]) -> dict[str, Any]:
    fields: dict[str, Any] = {
        "deviceClassName": device_class,
        "allocationMode": "ExactCount",
        "count": count,
    }
    if selectors:
        fields["selectors"] = [{"cel": {"expression": e}} for e in selectors]
    if api_version == V1:
        return {"name": name, "exactly": fields}
    return {"name": name, **fields}


def aligned_claim_spec(
    api_version: str,
    *,
    gpus: int,
    gpu_class: str,
    nic_class: str | None,
    nic_selectors: Sequence[str] = (),
    gpus_per_root: int = 1,
    nics_per_gpu: int = 1,
    nics_per_root: int | None = None,
) -> dict[str, Any]:
    """Requests for ``gpus`` GPUs, each group aligned with its NICs on one PCIe root.

    A group is ``gpus_per_root`` GPUs (1 unless the catalog knows GPUs share a root)
    plus the NICs of that root: ``nics_per_root`` when given (p4d: 2 GPUs share 1
    EFA), else ``nics_per_gpu`` per GPU. A group smaller than a root (a 1-GPU claim
    on a 2-GPU root) still gets at least one NIC. ``nic_class`` None gives a GPU-only
    claim (NICs come from a device plugin).
    """
    per_group = gpus_per_root if gpus % gpus_per_root == 0 else 1
    groups = gpus // per_group
    if nics_per_root is not None:
        nics_per_group = max(1, math.ceil(nics_per_root * per_group / gpus_per_root))
    else:
        nics_per_group = per_group * nics_per_gpu
    requests: list[dict[str, Any]] = []
    constraints: list[dict[str, Any]] = []
    for g in range(groups):
        suffix = "" if groups == 1 else f"-{g}"
        gpu_req, nic_req = f"gpu{suffix}", f"nic{suffix}"
        requests.append(_request(api_version, gpu_req, gpu_class, per_group, ()))
        if nic_class:
            requests.append(
                _request(api_version, nic_req, nic_class, nics_per_group, nic_selectors)
            )
            constraints.append({"requests": [gpu_req, nic_req], "matchAttribute": PCIE_ROOT})
    devices: dict[str, Any] = {"requests": requests}
    if constraints:
        devices["constraints"] = constraints
    return {"devices": devices}


def claim_template(name: str, namespace: str, api_version: str, claim_spec: dict[str, Any],
                   labels: dict[str, str] | None = None) -> Manifest:
    return {
        "apiVersion": api_version,
        "kind": "ResourceClaimTemplate",
        "metadata": meta(name, namespace, labels=labels),
        "spec": {"spec": claim_spec},
    }


def compute_domain(name: str, namespace: str, nodes: int) -> Manifest:
    """A ComputeDomain (IMEX) so pods on several GB200 nodes share one NVLink domain."""
    return {
        "apiVersion": COMPUTE_DOMAIN_API,
        "kind": "ComputeDomain",
        "metadata": meta(name, namespace),
        "spec": {
            "numNodes": nodes,
            "channel": {"resourceClaimTemplate": {"name": f"{name}-channel"}},
        },
    }
