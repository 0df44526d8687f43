"""Per-team tenancy objects: Namespace, ResourceQuota, LimitRange, Role/RoleBinding,
and the cluster-wide PriorityClasses teams choose from.

Priority is enforced, not advisory: a team may use the PriorityClasses up to its
``priority``; a scoped ResourceQuota allows zero pods in the classes above it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from gpu_fabric.fabric.layer import Manifest
from gpu_fabric.fabric.manifests.common import meta, namespace, rule
from gpu_fabric.platform.quotas import PoolQuota, total

if TYPE_CHECKING:
    from gpu_fabric.fabric.description import FabricDescription
    from gpu_fabric.spec import ClusterSpec, TeamSpec

PRIORITIES: dict[str, int] = {"low": 1000, "normal": 10000, "high": 100000}
TEAM_LABEL = "gpufabric.dev/team"
ROLE = "gpu-team-member"


def priority_class_name(level: str) -> str:
    return f"gpu-fabric-{level}"


def priority_classes() -> list[Manifest]:
    """Three cluster-wide classes; ``low`` never preempts (opportunistic work)."""
    out = []
    for level, value in PRIORITIES.items():
        out.append({
            "apiVersion": "scheduling.k8s.io/v1",
            "kind": "PriorityClass",
            "metadata": meta(priority_class_name(level)),
            "value": value,
            "globalDefault": False,
            "preemptionPolicy": "Never" if level == "low" else "PreemptLowerPriority",
            "description": f"gpu-fabric team workloads, {level} priority",
        })
    return out


def team_namespace(team: TeamSpec) -> Manifest:
    ns = namespace(team.name)
    ns["metadata"]["labels"][TEAM_LABEL] = team.name
    return ns


def resource_quota(team: TeamSpec, quotas: list[PoolQuota]) -> Manifest:
    """GPUs and every fabric resource of the team's pools (extended resources are
    quota'd as ``requests.<name>``; DRA devices by their DeviceClass key)."""
    hard = {
        (k if k.endswith("deviceclass.resource.k8s.io/devices") else f"requests.{k}"): v
        for k, v in total(quotas).items()
    }
    return {
        "apiVersion": "v1",
        "kind": "ResourceQuota",
        "metadata": meta("gpu-fabric", team.name, labels={TEAM_LABEL: team.name}),
        "spec": {"hard": hard},
    }


def priority_ceiling(team: TeamSpec) -> Manifest | None:
    """Zero pods in the PriorityClasses above the team's priority."""
    levels = list(PRIORITIES)
    above = levels[levels.index(team.priority) + 1:]
    if not above:
        return None
    return {
        "apiVersion": "v1",
        "kind": "ResourceQuota",
        "metadata": meta("gpu-fabric-priority-ceiling", team.name,
                         labels={TEAM_LABEL: team.name}),
        "spec": {
            "hard": {"pods": "0"},
            "scopeSelector": {"matchExpressions": [{
                "scopeName": "PriorityClass",
                "operator": "In",
                "values": [priority_class_name(level) for level in above],
            }]},
        },
    }


def limit_range(
    team: TeamSpec, quotas: list[PoolQuota], fabrics: Mapping[str, FabricDescription]
) -> Manifest:
    """Per container: at most one full node of each device resource, and default
    CPU/memory requests so pods without requests still count against the node."""
    from gpu_fabric.fabric.workload import pod_fragment

    maximum: dict[str, str] = {}
    for quota in quotas:
        full = pod_fragment(fabrics[quota.pool], fabrics[quota.pool].machine.gpus).limits
        for resource, value in full.items():
            if resource not in maximum or _bigger(value, maximum[resource]):
                maximum[resource] = value
    limit: dict[str, object] = {
        "type": "Container",
        "defaultRequest": {"cpu": "100m", "memory": "256Mi"},
    }
    if maximum:
        limit["max"] = maximum
    return {
        "apiVersion": "v1",
        "kind": "LimitRange",
        "metadata": meta("gpu-fabric", team.name, labels={TEAM_LABEL: team.name}),
        "spec": {"limits": [limit]},
    }


def _bigger(a: str, b: str) -> bool:
    from gpu_fabric.platform.quotas import quantity_bytes

    return quantity_bytes(a) > quantity_bytes(b)


def role(team: TeamSpec, dra: bool) -> Manifest:
    """Least privilege for running training jobs: workloads and their logs, read-only
    views of what the platform manages, no Secrets, no RBAC, no exec."""
    write = ["get", "list", "watch", "create", "update", "patch", "delete"]
    read = ["get", "list", "watch"]
    rules = [
        rule(["batch"], ["jobs", "cronjobs"], write),
        rule(["jobset.x-k8s.io"], ["jobsets"], write),
        rule(["kubeflow.org"], ["mpijobs", "pytorchjobs"], write),
        rule([""], ["configmaps", "persistentvolumeclaims"], write),
        rule([""], ["pods"], ["get", "list", "watch", "delete"]),
        rule([""], ["pods/log"], read),
        rule([""], ["events", "services", "resourcequotas", "limitranges"], read),
        rule(["kueue.x-k8s.io"], ["workloads", "localqueues"], read),
        rule(["k8s.cni.cncf.io"], ["network-attachment-definitions"], read),
    ]
    if dra:
        rules.append(rule(["resource.k8s.io"], ["resourceclaims", "resourceclaimtemplates"],
                          read))
    return {
        "apiVersion": "rbac.authorization.k8s.io/v1",
        "kind": "Role",
        "metadata": meta(ROLE, team.name, labels={TEAM_LABEL: team.name}),
        "rules": rules,
    }


def role_binding(team: TeamSpec) -> Manifest:
    return {
        "apiVersion": "rbac.authorization.k8s.io/v1",
        "kind": "RoleBinding",
        "metadata": meta(ROLE, team.name, labels={TEAM_LABEL: team.name}),
        "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": ROLE},
        "subjects": [
            {"apiGroup": "rbac.authorization.k8s.io", "kind": "Group", "name": team.group}
        ],
    }


def team_manifests(
    spec: ClusterSpec,
    fabrics: Mapping[str, FabricDescription],
    team: TeamSpec,
    quotas: list[PoolQuota],
    *,
    with_namespace: bool,
) -> list[Manifest]:
    dra = any(fabrics[q.pool].uses_dra for q in quotas)
    out: list[Manifest] = [team_namespace(team)] if with_namespace else []
    out += [resource_quota(team, quotas), limit_range(team, quotas, fabrics)]
    ceiling = priority_ceiling(team)
    if ceiling:
        out.append(ceiling)
    out += [role(team, dra), role_binding(team)]
    return out
