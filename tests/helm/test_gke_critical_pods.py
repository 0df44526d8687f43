"""On GKE, every pod the layer runs with a system-*-critical priority class outside
kube-system has a ResourceQuota that admits it.

GKE admits pods of ``system-node-critical`` / ``system-cluster-critical`` outside
kube-system only in a namespace whose ResourceQuota scopes those classes (cluster-toolkit
GoogleCloudPlatform/cluster-toolkit 1047080375af examples/gke-a4x/nvidia-dra-driver.yaml
lines 19-33 add one for the NVIDIA DRA driver; NVIDIA's GKE guide one for the GPU
Operator). A chart that keeps its default classes (nvidia-dra-driver-gpu 25.12.0
values.yaml lines 188 and 214: controller and kubelet plugin ``system-node-critical``)
and no quota leaves its pods refused at admission. Every release is rendered by the real
helm with the vendored chart, so the classes are the chart's own, not our reading of them.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from gpu_fabric.fabric.description import describe_cluster
from gpu_fabric.fabric.layer import build_layer
from gpu_fabric.plan import helm_render
from gpu_fabric.spec import load_spec
from tests.specs import with_pool
from tests.support import helm, variants

CRITICAL = {"system-node-critical", "system-cluster-critical"}
# The GKE specs that install charts: the committed stack with a DRA driver and the GB200
# (A4X) pool, whose driver also runs its ComputeDomain controller.
# And the GPU Operator on GKE (NVIDIA's GKE guide), whose quota rides in extraObjects.
OPERATOR = "gcp:a3-mega-gpu-operator"
GKE_VARIANTS = ["stack:gcp-a4", "gcp:gb200", OPERATOR]


def _pod_specs(obj: dict[str, Any]) -> list[dict[str, Any]]:
    spec = obj.get("spec") or {}
    if obj.get("kind") == "CronJob":
        spec = spec.get("jobTemplate", {}).get("spec", {})
    template = spec.get("template")
    return [template.get("spec", {})] if isinstance(template, dict) else []


def _objects(variant: str) -> list[dict[str, Any]]:
    if variant == OPERATOR:
        spec = load_spec(with_pool("gcp", machine_type="a3-megagpu-8g")
                         | {"addons": {"gpu_operator": {"enabled": True}}})
        layer = build_layer(spec, describe_cluster(spec))
    else:
        found = variants.spec_of(variant)
        assert found is not None
        spec, layer = found, variants.layer_of(variant)
    objects = [dict(m) for m in layer.manifests()]
    for chart in layer.charts():
        inputs = {"name": chart.release, "namespace": chart.namespace,
                  "chart": chart.chart.name, "version": chart.chart.version,
                  "values": json.loads(json.dumps(dict(chart.values)))}
        archive = helm.CHARTS / helm_render.chart_ref(inputs).archive
        for obj in helm_render.template(helm.helm(), archive, inputs,
                                        str(spec.kubernetes.version)):
            obj.setdefault("metadata", {}).setdefault("namespace", chart.namespace)
            objects.append(obj)
    return objects


def _admitted(objects: list[dict[str, Any]], namespace: str, priority: str) -> bool:
    for quota in objects:
        if quota.get("kind") != "ResourceQuota" or \
                quota["metadata"].get("namespace") != namespace:
            continue
        for expr in quota.get("spec", {}).get("scopeSelector", {}).get("matchExpressions", []):
            if expr.get("scopeName") == "PriorityClass" and expr.get("operator") == "In" \
                    and priority in expr.get("values", []):
                return True
    return False


@pytest.mark.parametrize("variant", GKE_VARIANTS)
def test_critical_pods_outside_kube_system_have_a_quota(variant: str) -> None:
    objects = _objects(variant)
    critical = [(o["kind"], o["metadata"]["name"], o["metadata"]["namespace"],
                 p["priorityClassName"])
                for o in objects for p in _pod_specs(o)
                if p.get("priorityClassName") in CRITICAL
                and o["metadata"]["namespace"] != "kube-system"]
    # The DRA driver's kubelet plugin keeps the chart's class; the GPU Operator's own.
    assert ("DaemonSet", "nvidia-dra-driver-gpu-kubelet-plugin", "nvidia-dra-driver-gpu",
            "system-node-critical") in critical or ("Deployment", "gpu-operator",
                                                    "gpu-operator", "system-node-critical") \
        in critical, critical
    missing = [c for c in critical if not _admitted(objects, c[2], c[3])]
    assert not missing, f"no ResourceQuota admits these on GKE: {missing}"
