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
    gpu_nodes=True,
    arm64=(
        "prometheus/node_exporter a7dcc3a Makefile line 18 (DOCKER_ARCHS includes arm64; the "
        "node exporter is the chart's only pod on GPU nodes; its tag follows the chart's "
        "appVersion, not checked)"
    ),
    # prometheus-community/helm-charts charts/kube-prometheus-stack/values.yaml at
    # kube-prometheus-stack-79.7.1 (7dcdc8b3) line 2620: prometheusOperator.tls.internalPort
    # 10250 ("in order to work out-of-the-box in GKE private clusters").
    webhook_ports=(10250,),
)
