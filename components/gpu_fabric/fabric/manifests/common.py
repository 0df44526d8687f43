"""Small builders every manifest module shares."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from gpu_fabric.fabric.description import Toleration
from gpu_fabric.fabric.taints import daemonset_tolerations

Manifest = dict[str, Any]
MANAGED_BY = {"app.kubernetes.io/managed-by": "gpu-fabric"}


def meta(
    name: str,
    namespace: str | None = None,
    labels: Mapping[str, str] | None = None,
    annotations: Mapping[str, str] | None = None,
) -> dict[str, Any]:
    out: dict[str, Any] = {"name": name}
    if namespace:
        out["namespace"] = namespace
    out["labels"] = {**MANAGED_BY, **(labels or {})}
    if annotations:
        out["annotations"] = dict(annotations)
    return out


def namespace(name: str, *, privileged: bool = False) -> Manifest:
    """A namespace; ``privileged`` sets Pod Security ``enforce=privileged`` (node agents)."""
    labels = {"kubernetes.io/metadata.name": name}
    if privileged:
        labels |= {
            "pod-security.kubernetes.io/enforce": "privileged",
            "pod-security.kubernetes.io/audit": "privileged",
            "pod-security.kubernetes.io/warn": "privileged",
        }
    return {"apiVersion": "v1", "kind": "Namespace", "metadata": meta(name, labels=labels)}


def service_account(name: str, ns: str, *, automount: bool = True) -> Manifest:
    return {
        "apiVersion": "v1",
        "kind": "ServiceAccount",
        "metadata": meta(name, ns),
        "automountServiceAccountToken": automount,
    }


def rule(groups: Sequence[str], resources: Sequence[str], verbs: Sequence[str],
         names: Sequence[str] = ()) -> dict[str, Any]:
    out: dict[str, Any] = {
        "apiGroups": list(groups), "resources": list(resources), "verbs": list(verbs),
    }
    if names:
        out["resourceNames"] = list(names)
    return out


def cluster_role(name: str, rules: Iterable[dict[str, Any]]) -> Manifest:
    return {
        "apiVersion": "rbac.authorization.k8s.io/v1",
        "kind": "ClusterRole",
        "metadata": meta(name),
        "rules": list(rules),
    }


def cluster_role_binding(name: str, role: str, account: str, ns: str) -> Manifest:
    return {
        "apiVersion": "rbac.authorization.k8s.io/v1",
        "kind": "ClusterRoleBinding",
        "metadata": meta(name),
        "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": role},
        "subjects": [{"kind": "ServiceAccount", "name": account, "namespace": ns}],
    }


def role(name: str, ns: str, rules: Iterable[dict[str, Any]]) -> Manifest:
    return {
        "apiVersion": "rbac.authorization.k8s.io/v1",
        "kind": "Role",
        "metadata": meta(name, ns),
        "rules": list(rules),
    }


def role_binding(name: str, ns: str, role_name: str, account: str, account_ns: str) -> Manifest:
    """Binds Role ``role_name`` in ``ns`` to a ServiceAccount (possibly of another namespace)."""
    return {
        "apiVersion": "rbac.authorization.k8s.io/v1",
        "kind": "RoleBinding",
        "metadata": meta(name, ns),
        "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": role_name},
        "subjects": [{"kind": "ServiceAccount", "name": account, "namespace": account_ns}],
    }


def config_map(name: str, ns: str, data: Mapping[str, str]) -> Manifest:
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": meta(name, ns), "data": dict(data)}


def resources(cpu: str, memory: str, *, cpu_limit: str | None = None,
              memory_limit: str | None = None) -> dict[str, dict[str, str]]:
    """Requests, and limits (memory limit defaults to the request; no CPU limit unless asked)."""
    limits = {"memory": memory_limit or memory}
    if cpu_limit:
        limits["cpu"] = cpu_limit
    return {"requests": {"cpu": cpu, "memory": memory}, "limits": limits}


def host_path(name: str, path: str, type_: str | None = None) -> dict[str, Any]:
    src: dict[str, Any] = {"path": path}
    if type_:
        src["type"] = type_
    return {"name": name, "hostPath": src}


def mount(name: str, path: str, *, read_only: bool = False,
          propagation: str | None = None) -> dict[str, Any]:
    out: dict[str, Any] = {"name": name, "mountPath": path}
    if read_only:
        out["readOnly"] = True
    if propagation:
        out["mountPropagation"] = propagation
    return out


def node_agent(
    name: str,
    ns: str,
    *,
    containers: list[dict[str, Any]],
    service_account: str,
    volumes: Sequence[dict[str, Any]] = (),
    init_containers: Sequence[dict[str, Any]] = (),
    host_network: bool = False,
    host_pid: bool = False,
    node_selector: Mapping[str, str] | None = None,
    affinity: dict[str, Any] | None = None,
    extra_tolerations: tuple[Toleration, ...] = (),
    priority_class: str | None = "system-node-critical",
    labels: Mapping[str, str] | None = None,
    termination_grace: int | None = None,
) -> Manifest:
    """A node-agent DaemonSet: tolerates every cloud's GPU taints, rolls one node at a time.

    The selector label always wins over ``labels``: a caller's ``app.kubernetes.io/name``
    would make the template's labels miss the selector, which the API server refuses
    (apps/v1 validation: "selector does not match template labels").
    """
    selector = {"app.kubernetes.io/name": name}
    labelled = selector | {k: v for k, v in (labels or {}).items() if k not in selector}
    pod_spec: dict[str, Any] = {
        "serviceAccountName": service_account,
        "tolerations": daemonset_tolerations(extra_tolerations),
        "containers": containers,
    }
    if init_containers:
        pod_spec["initContainers"] = list(init_containers)
    if volumes:
        pod_spec["volumes"] = list(volumes)
    if host_network:
        pod_spec["hostNetwork"] = True
        pod_spec["dnsPolicy"] = "ClusterFirstWithHostNet"
    if host_pid:
        pod_spec["hostPID"] = True
    if node_selector:
        pod_spec["nodeSelector"] = dict(node_selector)
    if affinity:
        pod_spec["affinity"] = affinity
    if priority_class:
        pod_spec["priorityClassName"] = priority_class
    if termination_grace is not None:
        pod_spec["terminationGracePeriodSeconds"] = termination_grace
    return {
        "apiVersion": "apps/v1",
        "kind": "DaemonSet",
        "metadata": meta(name, ns, labels=labelled),
        "spec": {
            "selector": {"matchLabels": selector},
            "updateStrategy": {"type": "RollingUpdate", "rollingUpdate": {"maxUnavailable": 1}},
            "template": {
                "metadata": {"labels": labelled},
                "spec": pod_spec,
            },
        },
    }


def node_affinity_in(key: str, values: Sequence[str]) -> dict[str, Any]:
    """Required node affinity: ``key`` In ``values``."""
    return {
        "nodeAffinity": {
            "requiredDuringSchedulingIgnoredDuringExecution": {
                "nodeSelectorTerms": [
                    {"matchExpressions": [{"key": key, "operator": "In", "values": list(values)}]}
                ]
            }
        }
    }
