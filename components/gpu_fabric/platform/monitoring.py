"""GPU and fabric monitoring on kube-prometheus-stack.

DCGM exporter metrics come from the GPU Operator, whose ServiceMonitor is on
whenever the ``prometheus`` add-on is (see the fabric layer); RDMA/InfiniBand
port counters come from node-exporter's ``infiniband`` collector (on by
default), which must therefore run on the tainted GPU nodes too. The dashboard
is a ConfigMap labelled ``grafana_dashboard`` that Grafana's sidecar loads.
"""

from __future__ import annotations

import json
from typing import Any

from gpu_fabric.fabric.layer import Manifest
from gpu_fabric.fabric.manifests.common import meta
from gpu_fabric.fabric.taints import daemonset_tolerations

DASHBOARD_LABEL = "grafana_dashboard"
DASHBOARD = "gpu-fabric-dashboard"


def chart_values() -> dict[str, Any]:
    return {
        "prometheus": {"prometheusSpec": {
            # Pick up ServiceMonitors of every release (GPU Operator's DCGM exporter).
            "serviceMonitorSelectorNilUsesHelmValues": False,
            "podMonitorSelectorNilUsesHelmValues": False,
        }},
        "prometheus-node-exporter": {"tolerations": daemonset_tolerations()},
        "grafana": {"sidecar": {"dashboards": {
            "enabled": True, "label": DASHBOARD_LABEL, "labelValue": "1", "searchNamespace": "ALL",
        }}},
    }


PANELS: tuple[tuple[str, str, str], ...] = (
    ("GPU utilisation (%)", "avg by (Hostname, gpu) (DCGM_FI_DEV_GPU_UTIL)", "percent"),
    ("Tensor pipe active", "avg by (Hostname) (DCGM_FI_PROF_PIPE_TENSOR_ACTIVE)", "percentunit"),
    ("NVLink TX bytes/s", "sum by (Hostname) (rate(DCGM_FI_PROF_NVLINK_TX_BYTES[1m]))", "Bps"),
    ("NVLink RX bytes/s", "sum by (Hostname) (rate(DCGM_FI_PROF_NVLINK_RX_BYTES[1m]))", "Bps"),
    ("PCIe TX bytes/s", "sum by (Hostname) (rate(DCGM_FI_PROF_PCIE_TX_BYTES[1m]))", "Bps"),
    ("PCIe RX bytes/s", "sum by (Hostname) (rate(DCGM_FI_PROF_PCIE_RX_BYTES[1m]))", "Bps"),
    ("GPU memory used (MiB)", "sum by (Hostname) (DCGM_FI_DEV_FB_USED)", "decmbytes"),
    ("RDMA port TX bytes/s",
     "sum by (instance, device, port) "
     "(rate(node_infiniband_port_data_transmitted_bytes_total[1m]))", "Bps"),
    ("RDMA port RX bytes/s",
     "sum by (instance, device, port) "
     "(rate(node_infiniband_port_data_received_bytes_total[1m]))", "Bps"),
    ("RDMA port errors/s",
     "sum by (instance, device) (rate(node_infiniband_port_receive_errors_total[5m]))", "short"),
)


def dashboard() -> dict[str, Any]:
    panels = []
    for i, (title, expr, unit) in enumerate(PANELS):
        panels.append({
            "id": i + 1,
            "type": "timeseries",
            "title": title,
            "datasource": {"type": "prometheus", "uid": "${datasource}"},
            "gridPos": {"h": 8, "w": 12, "x": 12 * (i % 2), "y": 8 * (i // 2)},
            "fieldConfig": {"defaults": {"unit": unit}, "overrides": []},
            "targets": [{"expr": expr, "refId": "A", "legendFormat": "__auto"}],
        })
    return {
        "title": "gpu-fabric: GPUs and RDMA fabric",
        "uid": "gpu-fabric",
        "schemaVersion": 39,
        "time": {"from": "now-1h", "to": "now"},
        "templating": {"list": [{
            "name": "datasource", "type": "datasource", "query": "prometheus",
        }]},
        "panels": panels,
    }


def dashboard_config_map(namespace: str) -> Manifest:
    return {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": meta(DASHBOARD, namespace, labels={DASHBOARD_LABEL: "1"}),
        "data": {"gpu-fabric.json": json.dumps(dashboard(), indent=1)},
    }
