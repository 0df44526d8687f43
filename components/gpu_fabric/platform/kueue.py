"""Gang scheduling with Kueue: a job's pods are admitted all together or not at all.

Per GPU pool a ResourceFlavor (the pool's node labels, the GPU taint tolerated,
and a Topology so Kueue's topology-aware scheduling keeps a job under one fabric
block where the cloud labels one); per team a ClusterQueue (quota from
:mod:`gpu_fabric.platform.quotas`, all teams in one cohort so idle quota is
borrowed and reclaimed) and a LocalQueue in the team's namespace. API versions
are those Kueue 0.14 serves (Topology graduated to v1beta1 in 0.14).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from gpu_fabric.fabric.description import GPU_CLIQUE_LABEL
from gpu_fabric.fabric.layer import Manifest
from gpu_fabric.fabric.manifests.common import meta
from gpu_fabric.platform.quotas import DRA_DEVICES, PoolQuota

if TYPE_CHECKING:
    from gpu_fabric.fabric.description import FabricDescription
    from gpu_fabric.spec import ClusterSpec, GpuNodePoolSpec, TeamSpec

API = "kueue.x-k8s.io/v1beta1"
COHORT = "gpu-fabric"
LOCAL_QUEUE = "gpu"
HOSTNAME = "kubernetes.io/hostname"
# Cloud levels finer than an NVLink domain (one physical host: GKE's
# cloud.google.com/gce-topology-host), which the clique level goes above.
PER_HOST_LEVELS = ("cloud.google.com/gce-topology-host",)
# The cloud's node labels that describe the network hierarchy, outermost first
# (hostname last, as Kueue requires), come from its provider (``topology_levels``)
# through :class:`~gpu_fabric.platform.plugin.PlatformLayer`: ``levels`` below. A
# cloud whose nodes carry no fabric-block label has the hostname alone, so
# placement falls back to the node.
# Requests without a team-level CPU/memory budget: Kueue must cover every resource a
# pod requests, so CPU and memory are covered with a bound nodes reach first.
UNBOUNDED_CPU = "100000"
UNBOUNDED_MEMORY = "1000Ti"


def topology_name(spec: ClusterSpec, pool: GpuNodePoolSpec, levels: tuple[str, ...]) -> str:
    hostname_only = _hostname_only(pool, levels)
    if pool.machine.nvlink_domain:
        return "gpu-fabric-nvlink" if hostname_only else f"gpu-fabric-{spec.cloud}-nvlink"
    return "gpu-fabric-hostname" if hostname_only else f"gpu-fabric-{spec.cloud}"


def pool_levels(pool: GpuNodePoolSpec, levels: tuple[str, ...],
                nvlink_label: str = GPU_CLIQUE_LABEL) -> tuple[str, ...]:
    """The pool's topology levels, widest first: the cloud's block levels (where the pool
    has them), then, on a multi-node NVLink machine, the NVLink domain's label (GPU feature
    discovery's ``nvidia.com/gpu.clique``, or the cloud's: ``nvlink_label``), then the
    host. A job that asks for that level (``kueue.x-k8s.io/podset-required-topology``)
    gets one NVLink domain."""
    outer = () if _hostname_only(pool, levels) else levels[:-1]
    if not pool.machine.nvlink_domain:
        return (*outer, HOSTNAME)
    blocks = tuple(lvl for lvl in outer if lvl not in PER_HOST_LEVELS)
    return (*blocks, nvlink_label, *(lvl for lvl in outer if lvl in PER_HOST_LEVELS),
            HOSTNAME)


def _hostname_only(pool: GpuNodePoolSpec, levels: tuple[str, ...]) -> bool:
    # Block labels exist only on nodes placed compactly; a pool without placement has none.
    return len(levels) == 1 or pool.placement == "none"


def topology(name: str, levels: tuple[str, ...]) -> Manifest:
    return {
        "apiVersion": API,
        "kind": "Topology",
        "metadata": meta(name),
        "spec": {"levels": [{"nodeLabel": label} for label in levels]},
    }


def flavor_name(pool: str) -> str:
    return f"pool-{pool}"


def resource_flavor(spec: ClusterSpec, pool: GpuNodePoolSpec,
                    fabric: FabricDescription, levels: tuple[str, ...]) -> Manifest:
    labels = dict(fabric.node_selector)
    body: dict[str, Any] = {}
    if labels:
        body["nodeLabels"] = labels
        body["topologyName"] = topology_name(spec, pool, levels)  # nodeLabels for TAS
    tolerations = [t.exact_toleration().to_dict() for t in fabric.workload_taints]
    if tolerations:
        body["tolerations"] = tolerations
    return {"apiVersion": API, "kind": "ResourceFlavor", "metadata": meta(flavor_name(pool.name)),
            "spec": body}


def job_amounts(quota: PoolQuota, fabric: FabricDescription) -> dict[str, str]:
    """What the team's Jobs request of a pool, as Kueue sees it.

    Kueue counts the Job's pod template; Kyverno rewrites pods, not Jobs (its
    autogen is off, :mod:`gpu_fabric.fabric.injection`). On DRA pools a Job
    template still asks for ``nvidia.com/gpu`` (the pod becomes a claim at
    admission), so the queue's GPU quota is on that resource, and the DRA device
    count stays with the namespace ResourceQuota, which sees the claims. Without
    this Kueue never admits such a Job (a resource no flavor covers).
    """
    out = {}
    for resource, amount in quota.amounts.items():
        if resource.endswith(DRA_DEVICES):
            out[fabric.gpu_resource] = str(quota.gpus)
        else:
            out[resource] = amount
    return out


def cluster_queue(
    team: TeamSpec, quotas: list[PoolQuota], fabrics: Mapping[str, FabricDescription]
) -> Manifest:
    requested = [job_amounts(q, fabrics[q.pool]) for q in quotas]
    covered = ["cpu", "memory"]
    for amounts in requested:
        covered += [r for r in amounts if r not in covered]
    flavors = []
    for quota, amounts in zip(quotas, requested, strict=True):
        nominal = {"cpu": UNBOUNDED_CPU, "memory": UNBOUNDED_MEMORY, **amounts}
        flavors.append({
            "name": flavor_name(quota.pool),
            "resources": [{"name": r, "nominalQuota": nominal.get(r, "0")} for r in covered],
        })
    return {
        "apiVersion": API,
        "kind": "ClusterQueue",
        "metadata": meta(team.name),
        "spec": {
            "cohort": COHORT,
            "namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": team.name}},
            "queueingStrategy": "BestEffortFIFO",
            "resourceGroups": [{"coveredResources": covered, "flavors": flavors}],
            "preemption": {
                "reclaimWithinCohort": "Any",
                "withinClusterQueue": "LowerPriority",
            },
        },
    }


def local_queue(team: TeamSpec) -> Manifest:
    return {
        "apiVersion": API,
        "kind": "LocalQueue",
        "metadata": meta(LOCAL_QUEUE, team.name),
        "spec": {"clusterQueue": team.name},
    }


def workload_priority_classes(priorities: Mapping[str, int]) -> list[Manifest]:
    return [{
        "apiVersion": API,
        "kind": "WorkloadPriorityClass",
        "metadata": meta(f"gpu-fabric-{level}"),
        "value": value,
        "description": f"gpu-fabric team workloads, {level} priority",
    } for level, value in priorities.items()]


def cluster_manifests(
    spec: ClusterSpec, fabrics: Mapping[str, FabricDescription], levels: tuple[str, ...]
) -> list[Manifest]:
    """Topologies and ResourceFlavors (cluster-scoped, shared by every team); ``levels``:
    the cloud's topology levels."""
    names = {topology_name(spec, p, levels):
             pool_levels(p, levels, fabrics[p.name].nvlink_domain_label)
             for p in spec.node_pools if fabrics[p.name].node_selector}
    out = []
    for name in sorted(names):
        out.append(topology(name, names[name]))
    out += [resource_flavor(spec, p, fabrics[p.name], levels) for p in spec.node_pools]
    return out
