"""Workload injection: Kyverno policies that give GPU pods their pool's fabric.

Built from :func:`gpu_fabric.fabric.workload.pod_fragment`, so the counts are the
machine catalog's, never typed twice. Per fabric pool there is one mutate policy
and one guard (validate) policy.

Which pods: every Pod that asks for the pool's GPU resource, whatever created it
(Job, JobSet, MPIJob, plain Pod, StatefulSet...), in the namespaces that hold what
the fragment refers to (NetworkAttachmentDefinitions, ResourceClaimTemplates,
ComputeDomains, ConfigMaps: the spec's ``fabric.namespaces`` and the teams'
namespaces), or in every workload namespace when the fragment refers to nothing
namespaced (EFA, GKE networks). The GPU container is found by its GPU request, not
by position, so a sidecar-first pod works. ``gpufabric.dev/inject: "false"``
opts a pod out (it then runs without the fabric, knowingly).

A GPU pod that would land on the pool's nodes is either given the fabric or
refused, never left on TCP: the guard refuses GPU counts the fabric does not serve
(:mod:`gpu_fabric.fabric.shapes` says why), several GPU containers in one pod,
GPU pods in namespaces that lack the fabric's objects and, with several GPU
pools, GPU pods that name no pool. Kyverno's auto-generated rules for pod
controllers are off: pods are what get the fabric, so Job templates stay as
written (what Kueue quotas count, :mod:`gpu_fabric.platform.kueue`).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from gpu_fabric.fabric.addons import ADDONS, KYVERNO, ResolvedAddons
from gpu_fabric.fabric.description import FabricDescription
from gpu_fabric.fabric.manifests.common import meta, namespace
from gpu_fabric.fabric.model import HelmRelease, Manifest, Part
from gpu_fabric.fabric.naming import pinned_rail_sets, rails_value
from gpu_fabric.fabric.shapes import OPT_OUT, pod_shapes, served_counts
from gpu_fabric.fabric.workload import CHANNEL_CLAIM, PodFragment, pod_fragment

if TYPE_CHECKING:
    from gpu_fabric.spec import ClusterSpec

API = "kyverno.io/v1"
OPT_OUT_ANNOTATION = "gpufabric.dev/inject"
# A partial-node pod on a pool with rail claim templates names its rail set here
# (``2,3``); every pod of one job names the same set, so their cross-node traffic stays
# on the same rails (NCCL_CROSS_NIC=0) and their NICs and GPUs share a PCIe root.
RAILS_ANNOTATION = "gpufabric.dev/rails"
AUTOGEN_ANNOTATION = "pod-policies.kyverno.io/autogen-controllers"
CONTAINERS = "request.object.spec.containers"
# Namespaces of the cluster itself and of the add-ons: their GPU pods (validators,
# device plugins) are node agents, not workloads.
SYSTEM = ("kube-system", "kube-public", "kube-node-lease")


def allowed_counts(spec: ClusterSpec, fabric: FabricDescription) -> list[int]:
    """GPU counts a pod on this fabric gets the fabric for (the rest are refused)."""
    return served_counts(fabric, _claim_counts(spec, fabric))


def _claim_counts(spec: ClusterSpec, fabric: FabricDescription) -> list[int] | None:
    from gpu_fabric.fabric.naming import claim_gpu_counts

    if not fabric.uses_dra:
        return None
    return claim_gpu_counts(fabric, spec.fabric.claim_gpu_counts)


def holds_objects(fabric: FabricDescription) -> bool:
    """True when the fragment names namespaced objects (NADs, claims, ConfigMaps, the
    ComputeDomain channel claim of NVLink-domain machines)."""
    return bool(fabric.nad_type or fabric.uses_dra or fabric.config_map_mounts
                or fabric.machine.nvlink_domain)


def fabric_namespaces(spec: ClusterSpec, fabric: FabricDescription) -> list[str]:
    """Namespaces that hold the pool's fabric objects: ``fabric.namespaces`` and the
    namespace of every team that may use the pool (they get them automatically)."""
    out = list(spec.fabric.namespaces)
    for team in spec.tenancy.teams:
        # A team without node_pools may use every pool (TeamSpec.node_pools).
        uses = not team.node_pools or fabric.pool in team.node_pools
        if uses and team.name not in out:
            out.append(team.name)
    return out


def system_namespaces() -> list[str]:
    return sorted({*SYSTEM, *(a.namespace for a in ADDONS.values())})


def _pods(namespaces: list[str] | None = None) -> dict[str, Any]:
    resources: dict[str, Any] = {"kinds": ["Pod"], "operations": ["CREATE"]}
    if namespaces:
        resources["namespaces"] = list(namespaces)
    return {"any": [{"resources": resources}]}


def _exclude(namespaces: list[str]) -> dict[str, Any]:
    out: list[dict[str, Any]] = [{"resources": {"annotations": {OPT_OUT_ANNOTATION: "false"}}}]
    if namespaces:
        out.append({"resources": {"namespaces": sorted(set(namespaces))}})
    return {"any": out}


def _gpu_containers(resource: str) -> str:
    return f'{CONTAINERS}[?resources.limits."{resource}"]'


def pod_gpus(resource: str) -> str:
    """The GPU count of the pod's GPU container (whatever its position), '' if none."""
    return f"{{{{ {_gpu_containers(resource)} | [0].resources.limits.\"{resource}\" || '' }}}}"


def gpu_container_count(resource: str) -> str:
    return f"{{{{ length({_gpu_containers(resource)}) }}}}"


def element_gpus(resource: str) -> str:
    return f"{{{{ element.resources.limits.\"{resource}\" || '' }}}}"


def pool_conditions(fabric: FabricDescription, several: bool) -> list[dict[str, Any]]:
    """With several GPU pools, a pod picks this one by the pool's node labels."""
    if not several:
        return []
    return [{
        "key": f"{{{{ request.object.spec.nodeSelector.\"{key}\" || '' }}}}",
        "operator": "Equals",
        "value": value,
    } for key, value in sorted(fabric.node_selector.items())]


def _one_gpu_container(fabric: FabricDescription) -> dict[str, Any]:
    return {"key": gpu_container_count(fabric.gpu_resource), "operator": "Equals", "value": 1}


def _pod_patch(fragment: PodFragment) -> dict[str, Any]:
    pod = fragment.pod_patch()
    patch: dict[str, Any] = {"spec": dict(pod["spec"])}
    if "tolerations" in patch["spec"]:
        # Strategic merge replaces lists without a merge key (PodSpec.tolerations), which
        # would drop the pod's own tolerations: append ours to them instead.
        ours = json.dumps(patch["spec"]["tolerations"], separators=(",", ":"))
        patch["spec"]["tolerations"] = (
            f"{{{{ [request.object.spec.tolerations || `[]`, `{ours}`][] }}}}"
        )
    if "resourceClaims" in patch["spec"]:
        # A pod that already names its job's own ComputeDomain channel (built with
        # fragment_for(..., compute_domain=...)) keeps it: Kyverno's add-if-absent anchor
        # sets the pool's default template only where the pod names none.
        patch["spec"]["resourceClaims"] = [
            {"name": c["name"], "+(resourceClaimTemplateName)": c["resourceClaimTemplateName"]}
            if c["name"] == CHANNEL_CLAIM else c
            for c in patch["spec"]["resourceClaims"]
        ]
    if "metadata" in pod:
        patch["metadata"] = pod["metadata"]
    return patch


def _container_patch(fragment: PodFragment) -> dict[str, Any]:
    container = {"name": "{{ element.name }}", **fragment.container_patch()}
    requests = container.get("resources", {}).get("requests")
    if requests and fragment.requests:
        # Requests-only entries (memory beside hugepages) use Kyverno's add-if-absent
        # anchor: a request the pod already sets is the user's sizing.
        container["resources"]["requests"] = {
            (f"+({k})" if k in fragment.requests and k not in fragment.limits else k): v
            for k, v in requests.items()
        }
    return {"spec": {"containers": [container]}}


def _claim_patch(gpu_resource: str) -> list[dict[str, Any]]:
    escaped = gpu_resource.replace("/", "~1")
    where = "/spec/containers/{{elementIndex}}/resources"
    return [
        {"op": "remove", "path": f"{where}/limits/{escaped}"},
        {"op": "remove", "path": f"{where}/requests/{escaped}"},
    ]


def mutate_policy(
    spec: ClusterSpec, fabric: FabricDescription, several: bool
) -> Manifest:
    scope = fabric_namespaces(spec, fabric) if holds_objects(fabric) else None
    excluded = [] if scope else system_namespaces()
    rules: list[dict[str, Any]] = []
    for n in allowed_counts(spec, fabric):
        pinned = pinned_rail_sets(fabric, n)
        # Partial-node pods on pools with rail templates get the rail claim their
        # annotation names (the guard refuses one that names none); others the aligned one.
        variants: list[tuple[str, tuple[int, ...] | None]] = (
            [(f"-rails-{rails_value(r).replace(',', '-')}", r) for r in pinned]
            if pinned else [("", None)]
        )
        for suffix, rails in variants:
            fragment = pod_fragment(fabric, n, rails=rails)
            conditions = [
                {"key": pod_gpus(fabric.gpu_resource), "operator": "Equals", "value": str(n)},
                _one_gpu_container(fabric),
                *pool_conditions(fabric, several),
            ]
            if rails is not None:
                conditions.append({"key": rails_annotation(), "operator": "Equals",
                                   "value": rails_value(rails)})
            pod_level = {"all": conditions}
            element = {"all": [
                {"key": element_gpus(fabric.gpu_resource), "operator": "Equals",
                 "value": str(n)},
            ]}
            base = {"match": _pods(scope), "exclude": _exclude(excluded),
                    "preconditions": pod_level}
            rules.append({"name": f"fabric-{n}-gpu{suffix}", **base,
                          "mutate": {"patchStrategicMerge": _pod_patch(fragment)}})
            rules.append({"name": f"fabric-{n}-gpu{suffix}-container", **base,
                          "mutate": {"foreach": [{
                              "list": CONTAINERS,
                              "preconditions": element,
                              "patchStrategicMerge": _container_patch(fragment),
                          }]}})
            if fabric.uses_dra:
                # Last: the GPU count moves from the device plugin resource to the claim
                # (a device-plugin pool's channel claim leaves the GPU resource in place).
                rules.append({"name": f"claims-{n}-gpu{suffix}", **base,
                              "mutate": {"foreach": [{
                                  "list": CONTAINERS,
                                  "preconditions": element,
                                  "patchesJson6902": json.dumps(
                                      _claim_patch(fabric.gpu_resource), indent=1),
                              }]}})
    where = ", ".join(scope) if scope else "every workload namespace"
    return {
        "apiVersion": API,
        "kind": "ClusterPolicy",
        "metadata": meta(
            f"gpufabric-inject-{fabric.pool}",
            annotations={
                "policies.kyverno.io/title": f"Fabric injection for pool {fabric.pool}",
                "policies.kyverno.io/description": (
                    f"Gives GPU pods on {fabric.machine.name} the {fabric.fabric.value} "
                    f"fabric (device resources, networks, NCCL env) for their GPU count, "
                    f"in {where}."
                ),
                AUTOGEN_ANNOTATION: "none",
            },
        ),
        "spec": {"background": False, "rules": rules},
    }


def rails_annotation() -> str:
    return f"{{{{ request.object.metadata.annotations.\"{RAILS_ANNOTATION}\" || '' }}}}"


def _rail_rules(spec: ClusterSpec, fabric: FabricDescription, scope: list[str] | None,
                system: list[str], pool: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Partial-node pods on pools with rail templates must name one of the rail sets."""
    label = f"Pool {fabric.pool} ({fabric.machine.name})"
    out = []
    for n in allowed_counts(spec, fabric):
        pinned = pinned_rail_sets(fabric, n)
        if not pinned:
            continue
        valid = [rails_value(r) for r in pinned]
        out.append(_deny(
            f"fabric-{n}-gpu-rails", _pods(scope), _exclude([] if scope else system),
            [{"key": pod_gpus(fabric.gpu_resource), "operator": "Equals", "value": str(n)},
             *pool,
             {"key": rails_annotation(), "operator": "AnyNotIn", "value": valid}],
            f"{label}: a {n}-GPU pod takes one NIC rail set so every pod of a job uses the "
            f"same rails on every node; annotate it {RAILS_ANNOTATION}: one of "
            f"{' | '.join(valid)} (the same value on all pods of the job), or set {OPT_OUT} "
            "to run without the fabric.",
        ))
    return out


def _deny(name: str, match: dict[str, Any], exclude: dict[str, Any],
          conditions: list[dict[str, Any]], message: str) -> dict[str, Any]:
    return {
        "name": name,
        "match": match,
        "exclude": exclude,
        "validate": {
            "failureAction": "Enforce",
            "message": message,
            "deny": {"conditions": {"all": conditions}},
        },
    }


def refusals(spec: ClusterSpec, fabric: FabricDescription) -> str:
    """Why the counts the fabric does not serve are refused (one sentence per reason)."""
    by_reason: dict[str, list[int]] = {}
    for shape in pod_shapes(fabric, _claim_counts(spec, fabric)):
        if shape.refusal:
            by_reason.setdefault(shape.refusal, []).append(shape.gpus)
    return " ".join(
        f"{', '.join(str(n) for n in counts)} GPUs: {reason}."
        for reason, counts in by_reason.items()
    )


def guard_policy(
    spec: ClusterSpec, fabric: FabricDescription, several: bool, pool_choice: bool = False
) -> Manifest:
    counts = [str(n) for n in allowed_counts(spec, fabric)]
    scope = fabric_namespaces(spec, fabric) if holds_objects(fabric) else None
    system = system_namespaces()
    gpus = pod_gpus(fabric.gpu_resource)
    asks = {"key": gpus, "operator": "NotEquals", "value": ""}
    pool = pool_conditions(fabric, several)
    label = f"Pool {fabric.pool} ({fabric.machine.name})"
    rules = [
        _deny("fabric-gpu-shape", _pods(scope), _exclude([] if scope else system),
              [asks, *pool, {"key": gpus, "operator": "AnyNotIn", "value": counts}],
              f"{label} gives the fabric to pods asking for {', '.join(counts)} GPUs; "
              + " ".join(filter(None, [
                  "another count would run NCCL without it.", refusals(spec, fabric),
                  f"Change the GPU count, or set {OPT_OUT} to run without the fabric."]))),
        _deny("fabric-one-gpu-container", _pods(scope), _exclude([] if scope else system),
              [asks, *pool, {"key": gpu_container_count(fabric.gpu_resource),
                             "operator": "GreaterThan", "value": 1}],
              f"{label}: the fabric is given to one container per pod; put every GPU of the "
              f"pod in one container, or set {OPT_OUT} to run without the fabric."),
    ]
    rules += _rail_rules(spec, fabric, scope, system, pool)
    if scope:
        rules.append(_deny(
            "fabric-namespace", _pods(), _exclude([*scope, *system]), [asks, *pool],
            f"{label}: namespace {{{{ request.namespace }}}} does not hold the fabric's "
            f"objects (NetworkAttachmentDefinitions, ResourceClaimTemplates); they exist in "
            f"{', '.join(scope)} (fabric.namespaces and team namespaces). Run the pod there, "
            f"add the namespace to fabric.namespaces, or set {OPT_OUT} to run without the "
            "fabric.",
        ))
    if pool_choice:
        rules.append(_pool_choice_rule(spec, fabric, system))
    return {
        "apiVersion": API,
        "kind": "ClusterPolicy",
        "metadata": meta(f"gpufabric-guard-{fabric.pool}",
                         annotations={AUTOGEN_ANNOTATION: "none"}),
        "spec": {"background": False, "rules": rules},
    }


def _pool_choice_rule(
    spec: ClusterSpec, fabric: FabricDescription, system: list[str]
) -> dict[str, Any]:
    from gpu_fabric.fabric.description import POOL_LABEL

    pools = [p.name for p in spec.node_pools]
    return _deny(
        "fabric-pool-choice", _pods(), _exclude(system),
        [{"key": pod_gpus(fabric.gpu_resource), "operator": "NotEquals", "value": ""},
         {"key": f"{{{{ request.object.spec.nodeSelector.\"{POOL_LABEL}\" || '' }}}}",
          "operator": "AnyNotIn", "value": pools}],
        f"This cluster has several GPU pools ({', '.join(pools)}); a GPU pod names one with "
        f"nodeSelector {POOL_LABEL}: <pool> so it gets that pool's fabric (Kueue sets it from "
        "the team's flavor).",
    )


def kyverno_values() -> dict[str, Any]:
    return {"admissionController": {"replicas": 1}}


def injection_part(
    spec: ClusterSpec, fabrics: Mapping[str, FabricDescription], addons: ResolvedAddons
) -> list[Part]:
    addon = addons[KYVERNO.key]
    chart = addon.chart()
    from gpu_fabric.fabric.manifests.values import deep_merge

    release = HelmRelease(chart.name, chart, addon.namespace,
                          deep_merge(kyverno_values(), addon.values),
                          user_values=bool(addon.values))
    with_fabric = [f for f in fabrics.values() if f.machine.has_fabric]
    several = len(fabrics) > 1
    # The pool-choice rule needs one label key naming every pool (ours, on clusters we
    # create); existing clusters select pools by their own labels.
    choice = several and spec.existing is None
    policies: list[Manifest] = []
    for i, fabric in enumerate(with_fabric):
        policies.append(mutate_policy(spec, fabric, several))
        policies.append(guard_policy(spec, fabric, several, pool_choice=choice and i == 0))
    return [
        Part(KYVERNO.part, (namespace(addon.namespace),), (release,),
             description="Kyverno admission controller"),
        Part("injection", tuple(policies), after=(KYVERNO.part,),
             description="Fabric injection policies (from the pod fragment helper)"),
    ]
