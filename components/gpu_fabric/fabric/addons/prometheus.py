"""kube-prometheus-stack (Prometheus Operator, Prometheus, Grafana) and the GPU
dashboards, on request; with it the GPU Operator also creates its ServiceMonitor."""

from __future__ import annotations

from gpu_fabric import versions
from gpu_fabric.fabric.addons.model import Addon

PROMETHEUS = Addon(
    key="prometheus",
    artifact=versions.KUBE_PROMETHEUS_STACK,
    namespace="monitoring",
    summary="kube-prometheus-stack (Prometheus Operator, Grafana)",
    built_by="gpu_fabric.platform:parts",
    part="prometheus",
)
