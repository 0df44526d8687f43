"""The pod fragment a workload needs to get the fabric: the one source of truth.

``pod_fragment(fabric, gpus)`` returns exactly what a pod using ``gpus`` GPUs of
a pool needs: device resources (``rdma/fabricN``, ``vpc.amazonaws.com/efa``,
``nvidia.com/rdma-vf``...), or DRA resource claims; the Multus / GKE network
annotation; the NCCL environment with the transport pinned; IPC_LOCK; /dev/shm;
host paths; tolerations and a node selector. Users who do not run Kyverno apply
it themselves; the Kyverno policies and the NCCL acceptance test are built from
it, so counts cannot drift from the machine catalog.
"""

from __future__ import annotations

import copy
import json
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from gpu_fabric.catalog import Cloud, get_machine
from gpu_fabric.fabric.description import Attach, FabricDescription, PodInterface
from gpu_fabric.fabric.naming import (
    claim_template_name,
    compute_domain_channel,
    rail_claim_template_name,
    rail_sets,
)

CLAIM_NAME = "gpu"  # the GKE seed's pod-level claim name
# The NVIDIA DRA driver's IMEX channel claim (multi-node NVLink on GB200 pools).
CHANNEL_CLAIM = "compute-domain-channel"
SHM_VOLUME = "shared-memory"


class FragmentError(ValueError):
    pass


@dataclass(frozen=True)
class PodFragment:
    """What to merge into a pod (template) and its main container."""

    machine: str
    gpus: int
    annotations: dict[str, str] = field(default_factory=dict)
    node_selector: dict[str, str] = field(default_factory=dict)
    tolerations: list[dict[str, str]] = field(default_factory=list)
    limits: dict[str, str] = field(default_factory=dict)
    env: dict[str, str] = field(default_factory=dict)
    volumes: list[dict[str, Any]] = field(default_factory=list)
    volume_mounts: list[dict[str, Any]] = field(default_factory=list)
    capabilities: list[str] = field(default_factory=list)
    privileged: bool = False
    # Requests without a matching limit (memory for hugepages: a limit would cap the
    # training process's host memory).
    requests: dict[str, str] = field(default_factory=dict)
    resource_claims: list[dict[str, str]] = field(default_factory=list)
    container_claims: list[str] = field(default_factory=list)
    sidecars: list[dict[str, Any]] = field(default_factory=list)
    host_network: bool = False

    # -- views -------------------------------------------------------------
    def container_patch(self) -> dict[str, Any]:
        """Fields for the main container (requests equal limits for extended resources)."""
        patch: dict[str, Any] = {}
        if self.limits:
            patch["resources"] = {"limits": dict(self.limits), "requests": dict(self.limits)}
        if self.requests:
            resources = patch.setdefault("resources", {})
            resources["requests"] = {**self.requests, **resources.get("requests", {})}
        if self.container_claims:
            patch.setdefault("resources", {})["claims"] = [
                {"name": c} for c in self.container_claims
            ]
        if self.env:
            patch["env"] = [{"name": k, "value": v} for k, v in self.env.items()]
        if self.volume_mounts:
            patch["volumeMounts"] = list(self.volume_mounts)
        security: dict[str, Any] = {}
        if self.capabilities:
            security["capabilities"] = {"add": list(self.capabilities)}
        if self.privileged:
            security["privileged"] = True
        if security:
            patch["securityContext"] = security
        return patch

    def pod_patch(self) -> dict[str, Any]:
        """Fields for the pod template: ``metadata`` and ``spec`` (without containers)."""
        spec: dict[str, Any] = {}
        if self.node_selector:
            spec["nodeSelector"] = dict(self.node_selector)
        if self.tolerations:
            spec["tolerations"] = list(self.tolerations)
        if self.volumes:
            spec["volumes"] = list(self.volumes)
        if self.resource_claims:
            spec["resourceClaims"] = list(self.resource_claims)
        if self.sidecars:
            spec["initContainers"] = list(self.sidecars)
        if self.host_network:
            spec["hostNetwork"] = True
            spec["dnsPolicy"] = "ClusterFirstWithHostNet"
        out: dict[str, Any] = {"spec": spec}
        if self.annotations:
            out["metadata"] = {"annotations": dict(self.annotations)}
        return out

    def apply(self, template: Mapping[str, Any], container: str | None = None) -> dict[str, Any]:
        """A copy of a pod template (``{metadata, spec}``) with this fragment merged in.

        ``container`` names the main container (default: the first). Lists are merged
        by name; existing resource values for the same keys are replaced.
        """
        pod = copy.deepcopy(dict(template))
        meta = pod.setdefault("metadata", {})
        if self.annotations:
            meta.setdefault("annotations", {}).update(self.annotations)
        spec = pod.setdefault("spec", {})
        containers = spec.get("containers") or []
        if not containers:
            raise FragmentError("the pod template has no containers")
        target = next((c for c in containers if c.get("name") == container), None)
        if target is None and container is not None:
            raise FragmentError(f"no container named '{container}'")
        target = target or containers[0]
        patch = self.container_patch()
        res = target.setdefault("resources", {})
        # A request the container already sets for a requests-only entry (its memory)
        # is the user's sizing: keep it.
        kept = {k: v for k, v in res.get("requests", {}).items() if k in self.requests}
        for key in ("limits", "requests"):
            if key in patch.get("resources", {}):
                res.setdefault(key, {}).update(patch["resources"][key])
        res.get("requests", {}).update(kept)
        if "claims" in patch.get("resources", {}):
            _merge_named(res.setdefault("claims", []), patch["resources"]["claims"])
        _merge_named(target.setdefault("env", []), patch.get("env", []))
        _merge_named(target.setdefault("volumeMounts", []), patch.get("volumeMounts", []))
        if "securityContext" in patch:
            sc = target.setdefault("securityContext", {})
            caps = patch["securityContext"].get("capabilities", {}).get("add", [])
            if caps:
                add = sc.setdefault("capabilities", {}).setdefault("add", [])
                add.extend(c for c in caps if c not in add)
            if patch["securityContext"].get("privileged"):
                sc["privileged"] = True
        pod_spec = self.pod_patch()["spec"]
        if "nodeSelector" in pod_spec:
            spec.setdefault("nodeSelector", {}).update(pod_spec["nodeSelector"])
        for key in ("tolerations",):
            existing = spec.setdefault(key, [])
            existing.extend(t for t in pod_spec.get(key, []) if t not in existing)
        _merge_named(spec.setdefault("volumes", []), pod_spec.get("volumes", []))
        _merge_named(spec.setdefault("resourceClaims", []), pod_spec.get("resourceClaims", []))
        _merge_named(spec.setdefault("initContainers", []), pod_spec.get("initContainers", []))
        if self.host_network:
            spec["hostNetwork"] = True
            spec["dnsPolicy"] = "ClusterFirstWithHostNet"
        for key in ("env", "volumeMounts"):
            if not target.get(key):
                target.pop(key, None)
        for key in ("volumes", "resourceClaims", "tolerations", "initContainers"):
            if not spec.get(key):
                spec.pop(key, None)
        return pod

    def to_dict(self) -> dict[str, Any]:
        return {
            "machine": self.machine,
            "gpus": self.gpus,
            "pod": self.pod_patch(),
            "container": self.container_patch(),
            "sidecars": list(self.sidecars),
        }


def _merge_named(into: list[dict[str, Any]], items: list[dict[str, Any]]) -> None:
    """Merge ``items`` into ``into`` by their ``name`` (replace same-name entries)."""
    for item in items:
        for i, existing in enumerate(into):
            if existing.get("name") == item.get("name"):
                into[i] = copy.deepcopy(item)
                break
        else:
            into.append(copy.deepcopy(item))


# -- building a fragment ------------------------------------------------------------
def pod_fragment(fabric: FabricDescription, gpus: int, *, strict: bool = True,
                 rails: tuple[int, ...] | None = None,
                 compute_domain: str | None = None) -> PodFragment:
    """The fragment for a pod using ``gpus`` GPUs of ``fabric``'s pool.

    A GPU count the fabric does not serve (:func:`gpu_fabric.fabric.shapes.pod_shape`)
    raises :class:`FragmentError` with the reason; ``strict=False`` skips that rule,
    for callers that only read per-GPU amounts, never for a pod.

    ``rails`` (DRA pools with rail claims, e.g. ``(2, 3)``) claims through the rail
    template ``2-gpu-nic-rails-2-3`` instead of ``2-gpu-nic-aligned``: give every pod
    of one job the same rails so their cross-node traffic stays on those rails.

    On a machine whose GPUs share an NVLink domain across nodes (GB200/GB300 NVL72) every
    pod, whatever the fabric mode, gets the IMEX channel claim of a ComputeDomain: NCCL
    runs multi-node NVLink only with a channel (NVIDIA/nccl src/mnnvl.cc: without one
    ncclSystemError, "Check the IMEX channel configuration"), and a device plugin serves the
    GPUs beside it as in awsome-distributed-training 7217859
    micro-benchmarks/nccl-tests/kubernetes/nccl-tests-gb200.yaml lines 112-125.
    ``compute_domain`` names the job's own ComputeDomain (its channel template is
    ``<name>-channel``, :func:`job_compute_domain`); without it the pod joins the pool's
    per-namespace default (what the admission policies inject).
    """
    from gpu_fabric.fabric.shapes import pod_shape

    machine = fabric.machine
    if not 1 <= gpus <= machine.gpus:
        raise FragmentError(
            f"gpus must be 1..{machine.gpus} on {machine.name} (pool {fabric.pool}), got {gpus}"
        )
    shape = pod_shape(fabric, gpus)
    if strict and machine.has_fabric and shape.refusal:
        raise FragmentError(shape.refusal)
    limits: dict[str, str] = {}
    annotations = dict(fabric.pod_annotations)
    claims: list[dict[str, str]] = []
    container_claims: list[str] = []
    template = claim_template_name(fabric, gpus)
    if rails is not None:
        template = _rail_template(fabric, gpus, rails)
    if fabric.uses_dra:
        claims = [{"name": CLAIM_NAME, "resourceClaimTemplateName": template}]
        container_claims = [CLAIM_NAME]
    else:
        limits[fabric.gpu_resource] = str(gpus)
    if machine.nvlink_domain:
        # Pods join a ComputeDomain (IMEX) through its channel claim, in every mode.
        channel = (channel_template(compute_domain) if compute_domain
                   else compute_domain_channel(fabric))
        claims.append({"name": CHANNEL_CLAIM, "resourceClaimTemplateName": channel})
        container_claims.append(CHANNEL_CLAIM)
    elif compute_domain:
        raise FragmentError(
            f"compute_domain: {machine.name} (pool {fabric.pool}) has no multi-node NVLink "
            f"domain, so its pods join no ComputeDomain; got {compute_domain!r}"
        )
    share = gpus / machine.gpus
    if fabric.attach is Attach.DEVICE_PLUGIN:
        limits.update({res: str(n) for res, n in fabric.rail_resources.items()})
        for res, full in fabric.pooled_resources.items():
            count = math.ceil(full * share) if fabric.pooled_scaling == "per_gpu" else full
            limits[res] = str(count)
    requests: dict[str, str] = {}
    if fabric.hugepages_2mi:
        limits["hugepages-2Mi"] = scaled_mebibytes(fabric.hugepages_2mi, gpus, machine.gpus)
    if fabric.memory_request:
        requests["memory"] = scaled_mebibytes(fabric.memory_request, gpus, machine.gpus)
    annotations.update(_network_annotations(fabric, gpus))
    env = dict(fabric.nccl_env)
    volumes: list[dict[str, Any]] = [
        {"name": SHM_VOLUME, "emptyDir": {"medium": "Memory", "sizeLimit": fabric.shm_size}}
    ]
    mounts: list[dict[str, Any]] = [{"name": SHM_VOLUME, "mountPath": "/dev/shm"}]
    for i, (host, path) in enumerate(sorted(fabric.host_paths.items())):
        name = f"fabric-host-{i}"
        volumes.append({"name": name, "hostPath": {"path": host}})
        mount: dict[str, Any] = {"name": name, "mountPath": path}
        if not host.startswith("/dev/"):
            # Libraries (NVIDIA driver, gIB, TCPX/TCPXO plugins) are read, never written;
            # device directories (/dev/aperture_devices) stay writable, as upstream mounts them.
            mount["readOnly"] = True
        mounts.append(mount)
    for i, (config_map, path) in enumerate(sorted(fabric.config_map_mounts.items())):
        name = f"fabric-config-{i}"
        volumes.append({"name": name, "configMap": {"name": config_map}})
        mounts.append({"name": name, "mountPath": path, "readOnly": True})
    volumes += [copy.deepcopy(dict(v)) for v in fabric.sidecar_volumes]
    return PodFragment(
        machine=machine.name,
        gpus=gpus,
        annotations=annotations,
        node_selector=dict(fabric.node_selector),
        tolerations=[t.exact_toleration().to_dict() for t in fabric.workload_taints],
        limits=limits,
        env=env,
        volumes=volumes,
        volume_mounts=mounts,
        capabilities=["IPC_LOCK"] if machine.fabric.is_rdma else [],
        privileged=fabric.privileged,
        requests=requests,
        resource_claims=claims,
        container_claims=container_claims,
        sidecars=[copy.deepcopy(dict(s)) for s in fabric.sidecars],
        host_network=fabric.attach is Attach.HOST_NETWORK,
    )


def _rail_template(fabric: FabricDescription, gpus: int, rails: tuple[int, ...]) -> str:
    """The rail claim template for ``rails``, or a FragmentError naming the valid sets."""
    classes = fabric.dra
    if classes is None or not classes.rails_by_ifname or fabric.attach is not Attach.DRA:
        raise FragmentError(
            f"rails: pool {fabric.pool} has no rail claim templates (only DRA pools whose "
            "NIC names are known as DraNet ifNames: GKE RoCE pools with self-installed "
            f"DraNet); got {list(rails)}"
        )
    valid = rail_sets(fabric, gpus) if gpus < fabric.machine.gpus else []
    if tuple(rails) not in valid:
        listed = ", ".join(str(list(r)) for r in valid) or "none (a full node holds every rail)"
        raise FragmentError(
            f"rails: a {gpus}-GPU pod of pool {fabric.pool} takes one of the rail sets "
            f"{listed}; got {list(rails)}"
        )
    return rail_claim_template_name(fabric, gpus, tuple(rails))


def scaled_mebibytes(full_node: str, gpus: int, node_gpus: int) -> str:
    """A full-node ``NNNMi`` amount for ``gpus`` of ``node_gpus`` GPUs, rounded up to a
    whole 2 MiB page (hugepage quantities must be multiples of the page size)."""
    if not full_node.endswith("Mi") or not full_node[:-2].isdigit():
        raise FragmentError(f"expected a quantity in Mi, got {full_node!r}")
    mib = math.ceil(int(full_node[:-2]) * gpus / node_gpus)
    return f"{mib + mib % 2}Mi"


def _network_annotations(fabric: FabricDescription, gpus: int) -> dict[str, str]:
    key = fabric.network_annotation_key
    if key is None:
        return {}
    machine = fabric.machine
    listed = fabric.pod_interfaces
    if listed is not None:
        # The leading interfaces, then one per rail the pod's GPUs use.
        rails = fabric.rails[: machine.nics_for(gpus)]
        interfaces = [*listed.leading, *(
            PodInterface(str(r.pod_interface), str(r.network)) for r in rails
        )]
        return {listed.default_key: listed.default_interface,
                key: json.dumps([i.to_dict() for i in interfaces])}
    if fabric.pooled_resources and fabric.pooled_scaling == "per_gpu":
        # SR-IOV: one network entry per VF the pod gets.
        network = next(r.network for r in fabric.rails if r.network)
        count = math.ceil(machine.fabric_nics * gpus / machine.gpus)
        return {key: ",".join([network] * count)}
    # Per-rail NADs (DO seed): every rail, keeping its interface name.
    return {key: ", ".join(f"{r.network}@{r.pod_interface}" for r in fabric.rails if r.network)}


def fragment_for(
    machine_type: str, gpus: int, *, cloud: Cloud | str | None = None,
    compute_domain: str | None = None, **fabric: Any
) -> PodFragment:
    """Convenience: the fragment for a machine type with the cloud's default fabric.

    ``fabric`` takes the spec's ``fabric:`` fields (e.g. ``mode="dra"``).
    ``compute_domain`` (GB200/GB300) names the job's ComputeDomain, whose manifest
    :func:`job_compute_domain` builds; without it the pod's channel claim names the
    pool's per-namespace default ComputeDomain.
    """
    from gpu_fabric.fabric.description import describe_cluster
    from gpu_fabric.spec import ClusterSpec

    machine = get_machine(machine_type, cloud)
    spec = ClusterSpec(**_default_spec(machine.cloud, machine_type, fabric))
    return pod_fragment(describe_cluster(spec)["gpu"], gpus, compute_domain=compute_domain)


def channel_template(compute_domain: str) -> str:
    """The ResourceClaimTemplate the DRA driver creates for a ComputeDomain's channel (the
    name its ``spec.channel.resourceClaimTemplate.name`` gives, ``<name>-channel`` as in
    awsome-distributed-training 7217859 nccl-tests-gb200.yaml lines 5 and 10)."""
    return f"{compute_domain}-channel"


def job_compute_domain(name: str, namespace: str) -> dict[str, Any]:
    """The ComputeDomain of one job: create it with the job, delete it with the job.

    One per job, as upstream does (awsome-distributed-training 7217859
    nccl-tests-gb200.yaml lines 1-10; NVIDIA/k8s-dra-driver-gpu v25.12.0
    demo/specs/imex/nvbandwidth-test-job.yaml lines 1-10). A ComputeDomain "guarantees
    MNNVL-reachability between pods that are in the domain" and "secure isolation from
    other pods that are not in the domain" (NVIDIA, DRA Driver for GPUs,
    https://docs.nvidia.com/datacenter/cloud-native/gpu-operator/latest/dra-cds.html,
    "Guarantees"): a per-namespace default puts every job of a team in one domain, a
    per-job one keeps jobs apart. ``numNodes`` is 0: the pinned driver runs with
    ``IMEXDaemonsWithDNSNames`` (its default), for which the CRD recommends 0
    (:func:`gpu_fabric.fabric.parts.compute_domain_nodes`). Pods get its channel with
    ``fragment_for(..., compute_domain=name)``.
    """
    from gpu_fabric.fabric.manifests.dra import compute_domain

    return compute_domain(name, namespace, 0)


def _default_spec(cloud: Cloud, machine_type: str, fabric: Mapping[str, Any]) -> dict[str, Any]:
    # The cloud's example location (its provider's): OCI availability domains carry the
    # tenancy prefix (``Uocm:US-ASHBURN-AD-1``); a bare ``AD-1`` failed validation, so
    # fragment_for raised for every OCI machine.
    from gpu_fabric.spec import example_location

    location = example_location(cloud)
    return {
        "name": "fragment",
        "cloud": cloud.value,
        "location": location,
        "existing": {"kubeconfig": {"path": "/dev/null"}},
        "node_pools": [{"name": "gpu", "machine_type": machine_type, "node_count": 1}],
        "fabric": dict(fabric),
    }
