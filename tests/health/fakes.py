"""Fake API objects for the health check tests: nodes and pods as the API server returns
them (core/v1 Node and Pod JSON: metadata.labels, spec.unschedulable, spec.taints,
status.conditions[type=Ready]; spec.nodeName, status.phase, containers[].resources)."""

from __future__ import annotations

from typing import Any

POOL = {"gpufabric.dev/pool": "gpu"}


def node(name: str, *, labels: dict[str, str] | None = None, ready: bool = True,
         cordoned: bool = False, taints: list[dict[str, str]] | None = None,
         version: str = "1") -> dict[str, Any]:
    spec: dict[str, Any] = {"taints": taints if taints is not None else [
        {"key": "nvidia.com/gpu", "value": "true", "effect": "NoSchedule"}]}
    if cordoned:
        spec["unschedulable"] = True
    return {
        "metadata": {"name": name, "labels": {**POOL, **(labels or {})},
                     "resourceVersion": version},
        "spec": spec,
        "status": {"conditions": [
            {"type": "MemoryPressure", "status": "False"},
            {"type": "Ready", "status": "True" if ready else "False"}]},
    }


def pod(node_name: str, *, gpus: int = 8, phase: str = "Running", daemonset: bool = False,
        claims: bool = False, init: bool = False) -> dict[str, Any]:
    container = {"name": "main", "resources": {"limits": {"nvidia.com/gpu": str(gpus)}}}
    spec: dict[str, Any] = {"nodeName": node_name, "containers": [{"name": "side"}]}
    spec.setdefault("initContainers" if init else "containers", []).append(container)
    if claims:
        spec = {"nodeName": node_name, "containers": [{"name": "main"}],
                "resourceClaims": [{"name": "gpus", "resourceClaimTemplateName": "gpu-8"}]}
    meta: dict[str, Any] = {"name": f"work-{node_name}"}
    if daemonset:
        meta["ownerReferences"] = [{"kind": "DaemonSet", "name": "agent"}]
    return {"metadata": meta, "spec": spec, "status": {"phase": phase}}


POOL_CONFIG: dict[str, Any] = {
    "pool": "gpu",
    "gpu_resource": "nvidia.com/gpu",
    "node_selector": POOL,
    "tolerated_taints": ["nvidia.com/gpu"],
}
