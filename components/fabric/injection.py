"""Workload injection: Kyverno policies that give training pods their pool's fabric.

Built from :func:`components.fabric.workload.pod_fragment`, so the counts are the
machine catalog's, never typed twice. Per fabric pool there is one mutate
policy with a rule per allowed GPU count (a pod's first container asking for
``n`` GPUs gets exactly the fragment for ``n``) and one validate policy that
rejects training pods asking for a GPU count the fabric has no shape for
(failing loudly instead of running NCCL over TCP).

Which pods: those created for a Job, JobSet, MPIJob or PyTorchJob (their
controllers' pod labels) or annotated the way NVIDIA NeMo marks multi-node
pods; ``gpufabric.dev/inject: "false"`` opts a pod out. With several fabric
pools, a pod picks one with the node selector ``gpufabric.dev/pool``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from components.fabric.addons import ResolvedAddons
from components.fabric.description import POOL_LABEL, FabricDescription
from components.fabric.manifests.common import meta, namespace
from components.fabric.model import HelmRelease, Manifest, Part
from components.fabric.naming import claim_gpu_counts
from components.fabric.workload import PodFragment, pod_fragment

if TYPE_CHECKING:
    from components.spec import ClusterSpec

API = "kyverno.io/v1"
TRAINING_POD_LABELS = (
    "batch.kubernetes.io/job-name",  # Job (and JobSet's Jobs)
    "jobset.sigs.k8s.io/jobset-name",  # JobSet
    "training.kubeflow.org/job-name",  # MPIJob, PyTorchJob (Kubeflow training operator)
)
NEMO_ANNOTATION = "nmp.nvidia.com/enable-multi-node-networking"
OPT_OUT_ANNOTATION = "gpufabric.dev/inject"
FIRST = "request.object.spec.containers[0]"


def allowed_counts(spec: ClusterSpec, fabric: FabricDescription) -> list[int]:
    """GPU counts a pod on this fabric may use: the claim sizes (DRA) or 1..GPUs per node."""
    if fabric.uses_dra:
        counts = claim_gpu_counts(fabric, spec.fabric.claim_gpu_counts)
    else:
        counts = list(range(1, fabric.machine.gpus + 1))
    if fabric.pod_gpu_counts is not None:  # the cloud's pod shape rule (see pod_fragment)
        counts = [n for n in counts if n in fabric.pod_gpu_counts]
    return counts


def _match() -> dict[str, Any]:
    pods = {"kinds": ["Pod"], "operations": ["CREATE"]}
    any_of: list[dict[str, Any]] = [
        {"resources": pods | {"selector": {"matchExpressions": [
            {"key": label, "operator": "Exists"}]}}}
        for label in TRAINING_POD_LABELS
    ]
    any_of.append({"resources": pods | {"annotations": {NEMO_ANNOTATION: "true"}}})
    return {"any": any_of}


def _exclude() -> dict[str, Any]:
    return {"any": [{"resources": {"annotations": {OPT_OUT_ANNOTATION: "false"}}}]}


def _gpu_limit(resource: str) -> str:
    return f"{{{{ {FIRST}.resources.limits.\"{resource}\" || '' }}}}"


def _pool_condition(fabric: FabricDescription, several: bool) -> list[dict[str, Any]]:
    if not several:
        return []
    return [{
        "key": f"{{{{ request.object.spec.nodeSelector.\"{POOL_LABEL}\" || '' }}}}",
        "operator": "Equals",
        "value": fabric.pool,
    }]


def _strategic_patch(fragment: PodFragment) -> dict[str, Any]:
    container = {"name": f"{{{{ {FIRST}.name }}}}", **fragment.container_patch()}
    requests = container.get("resources", {}).get("requests")
    if requests and fragment.requests:
        # Requests-only entries (memory beside hugepages) use Kyverno's add-if-absent
        # anchor: a request the pod already sets is the user's sizing.
        container["resources"]["requests"] = {
            (f"+({k})" if k in fragment.requests and k not in fragment.limits else k): v
            for k, v in requests.items()
        }
    if fragment.container_claims:
        # Claims are added by the JSON patch rule (it also removes the GPU count).
        resources = dict(container.get("resources", {}))
        resources.pop("claims", None)
        if resources:
            container["resources"] = resources
        else:
            container.pop("resources", None)
    pod = fragment.pod_patch()
    spec = dict(pod["spec"])
    spec.pop("resourceClaims", None)
    spec["containers"] = [container]
    patch: dict[str, Any] = {"spec": spec}
    if "metadata" in pod:
        patch["metadata"] = pod["metadata"]
    return patch


def _claim_patch(fragment: PodFragment, gpu_resource: str) -> list[dict[str, Any]]:
    escaped = gpu_resource.replace("/", "~1")
    return [
        {"op": "remove", "path": f"/spec/containers/0/resources/limits/{escaped}"},
        {"op": "remove", "path": f"/spec/containers/0/resources/requests/{escaped}"},
        {"op": "add", "path": "/spec/resourceClaims", "value": fragment.resource_claims},
        {"op": "add", "path": "/spec/containers/0/resources/claims",
         "value": [{"name": c} for c in fragment.container_claims]},
    ]


def mutate_policy(spec: ClusterSpec, fabric: FabricDescription, several: bool) -> Manifest:
    rules: list[dict[str, Any]] = []
    for n in allowed_counts(spec, fabric):
        fragment = pod_fragment(fabric, n)
        conditions = [
            {"key": _gpu_limit(fabric.gpu_resource), "operator": "Equals", "value": str(n)},
            *_pool_condition(fabric, several),
        ]
        base = {"match": _match(), "exclude": _exclude(),
                "preconditions": {"all": conditions}}
        rules.append({
            "name": f"fabric-{n}-gpu",
            **base,
            "mutate": {"patchStrategicMerge": _strategic_patch(fragment)},
        })
        if fragment.resource_claims:
            import json

            rules.append({
                "name": f"claims-{n}-gpu",
                **base,
                "mutate": {"patchesJson6902": json.dumps(
                    _claim_patch(fragment, fabric.gpu_resource), indent=1)},
            })
    return {
        "apiVersion": API,
        "kind": "ClusterPolicy",
        "metadata": meta(
            f"gpufabric-inject-{fabric.pool}",
            annotations={
                "policies.kyverno.io/title": f"Fabric injection for pool {fabric.pool}",
                "policies.kyverno.io/description": (
                    f"Gives training pods on {fabric.machine.name} the {fabric.fabric.value} "
                    "fabric (device resources, networks, NCCL env) for their GPU count."
                ),
            },
        ),
        "spec": {"background": False, "rules": rules},
    }


def guard_policy(spec: ClusterSpec, fabric: FabricDescription, several: bool) -> Manifest:
    counts = allowed_counts(spec, fabric)
    values = [str(n) for n in counts]
    return {
        "apiVersion": API,
        "kind": "ClusterPolicy",
        "metadata": meta(f"gpufabric-guard-{fabric.pool}"),
        "spec": {
            "validationFailureAction": "Enforce",
            "background": False,
            "rules": [{
                "name": "fabric-gpu-shape",
                "match": _match(),
                "exclude": _exclude(),
                "preconditions": {"all": [
                    {"key": _gpu_limit(fabric.gpu_resource), "operator": "NotEquals",
                     "value": ""},
                    *_pool_condition(fabric, several),
                ]},
                "validate": {
                    "message": (
                        f"Pool {fabric.pool} ({fabric.machine.name}) gives the fabric to pods "
                        f"asking for {', '.join(values)} GPUs; another count would run NCCL "
                        "without the fabric. "
                        + (f"{fabric.pod_gpu_counts_reason}. " if fabric.pod_gpu_counts_reason
                           else "")
                        + "Change the GPU count or set annotation "
                        f'{OPT_OUT_ANNOTATION}: "false".'
                    ),
                    "deny": {"conditions": {"all": [{
                        "key": _gpu_limit(fabric.gpu_resource),
                        "operator": "AnyNotIn",
                        "value": values,
                    }]}},
                },
            }],
        },
    }


def kyverno_values() -> dict[str, Any]:
    return {"admissionController": {"replicas": 1}}


def injection_part(
    spec: ClusterSpec, fabrics: Mapping[str, FabricDescription], addons: ResolvedAddons
) -> list[Part]:
    addon = addons["kyverno"]
    chart = addon.chart()
    from components.fabric.manifests.values import deep_merge

    release = HelmRelease("kyverno", chart, addon.namespace,
                          deep_merge(kyverno_values(), addon.values))
    with_fabric = [f for f in fabrics.values() if f.machine.has_fabric]
    several = len(with_fabric) > 1
    policies: list[Manifest] = []
    for fabric in with_fabric:
        policies.append(mutate_policy(spec, fabric, several))
        policies.append(guard_policy(spec, fabric, several))
    return [
        Part("kyverno", (namespace(addon.namespace),), (release,),
             description="Kyverno admission controller"),
        Part("injection", tuple(policies), after=("kyverno",),
             description="Fabric injection policies (from the pod fragment helper)"),
    ]
