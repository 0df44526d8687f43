"""Dynamic Resource Allocation objects: DeviceClasses, aligned ResourceClaimTemplates,
and the NVIDIA DRA driver's ComputeDomain for multi-node NVLink (GB200).

``resource.k8s.io/v1`` (Kubernetes >= 1.34) wraps each request's fields in
``exactly:``; ``v1beta1`` (1.32/1.33, opt-in) has them flat. GPUs and NICs are
aligned on the KEP-4381 attribute ``resource.kubernetes.io/pcieRoot``: every
device in a constraint's ``requests`` must share one value, so a claim asks for
groups of ``gpus_per_root`` GPUs plus as many NICs, one constraint per group
(the GKE seed's ``2-gpu-nic-aligned`` is one group of 2 + 2 on an A4).

pcieRoot alone keeps a pod's GPUs next to its NICs but not on the same *rails* as
the job's pods on other nodes: a claim for 2 GPUs may get root 0 on node A and root
2 on node B, and their traffic crosses rails. The seed pinned GPU0/GPU1 with an
``index`` attribute (shared/seeds/gke-nvidia-dra-dranet.md lines 135 and 306) that
the pinned NVIDIA DRA driver no longer publishes (NVIDIA/k8s-dra-driver-gpu v25.12.0
cmd/gpu-kubelet-plugin/partitions.go PartDevAttributes: type, uuid, productName,
brand, architecture, cudaComputeCapability, driverVersion, cudaDriverVersion,
resource.kubernetes.io/pciBusID; deviceinfo.go adds resource.kubernetes.io/pcieRoot
and addressingMode). Rail claims therefore pin the NICs instead, by the interface
name DraNet publishes (``dra.net/ifName``, kubernetes-sigs/dranet v1.4.0
pkg/apis/attributes.go, as in its examples/demo_gke_rdma/nccl-gib-test.yaml), and
the pcieRoot constraint brings the GPUs of that root along.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from gpu_fabric.fabric.manifests.common import Manifest, meta

V1 = "resource.k8s.io/v1"
V1BETA1 = "resource.k8s.io/v1beta1"
PCIE_ROOT = "resource.kubernetes.io/pcieRoot"
COMPUTE_DOMAIN_API = "resource.nvidia.com/v1beta1"


# DraNet's interface-name attribute, read as device.attributes["dra.net"].ifName
# (kubernetes-sigs/dranet v1.4.0 pkg/apis/attributes.go AttrInterfaceName).
IFNAME = "ifName"


def driver_selector(driver: str) -> str:
    return f'device.driver == "{driver}"'


def ifname_selector(domain: str, names: Sequence[str]) -> str:
    """CEL that matches the NICs named ``names`` (their ``<domain>/ifName``).

    Guarded with ``in``: reading an attribute a device lacks is an evaluation error
    that aborts the whole allocation (resource.k8s.io/v1 CELDeviceSelector), and a
    DraNet device without a netdev (IB-only) has no ifName.
    """
    if not names:
        raise ValueError("ifname_selector needs at least one interface name")
    attrs = f'device.attributes["{domain}"]'
    if len(names) == 1:
        match = f'{attrs}.{IFNAME} == "{names[0]}"'
    else:
        listed = ", ".join(f'"{n}"' for n in names)
        match = f"{attrs}.{IFNAME} in [{listed}]"
    return f'"{IFNAME}" in {attrs} && {match}'


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
    nic_names: Sequence[str] | None = None,
    nic_domain: str = "dra.net",
) -> dict[str, Any]:
    """Requests for ``gpus`` GPUs, each group aligned with its NICs on one PCIe root.

    A group is ``gpus_per_root`` GPUs (1 unless the catalog knows GPUs share a root)
    plus the NICs of that root: ``nics_per_root`` when given (p4d: 2 GPUs share 1
    EFA), else ``nics_per_gpu`` per GPU. A group smaller than a root (a 1-GPU claim
    on a 2-GPU root) still gets at least one NIC. ``nic_class`` None gives a GPU-only
    claim (NICs come from a device plugin).

    ``nic_names`` pins the NICs by interface name, in rail order (group ``g`` gets
    the ``g``-th run of its NIC count): a rail claim. The GPUs of each group follow
    their NICs through the pcieRoot constraint.
    """
    per_group = gpus_per_root if gpus % gpus_per_root == 0 else 1
    groups = gpus // per_group
    if nics_per_root is not None:
        nics_per_group = max(1, math.ceil(nics_per_root * per_group / gpus_per_root))
    else:
        nics_per_group = per_group * nics_per_gpu
    if nic_names is not None and (nic_class is None
                                  or len(nic_names) != groups * nics_per_group):
        raise ValueError(
            f"nic_names: a {gpus}-GPU claim has {groups} group(s) of {nics_per_group} "
            f"NIC(s), got {list(nic_names)}"
            + ("" if nic_class else " for a claim without a NIC class")
        )
    requests: list[dict[str, Any]] = []
    constraints: list[dict[str, Any]] = []
    for g in range(groups):
        suffix = "" if groups == 1 else f"-{g}"
        gpu_req, nic_req = f"gpu{suffix}", f"nic{suffix}"
        requests.append(_request(api_version, gpu_req, gpu_class, per_group, ()))
        if nic_class:
            selectors = list(nic_selectors)
            if nic_names is not None:
                own = nic_names[g * nics_per_group:(g + 1) * nics_per_group]
                selectors.append(ifname_selector(nic_domain, own))
            requests.append(
                _request(api_version, nic_req, nic_class, nics_per_group, selectors)
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
