"""NVSentinel's and cert-manager's Helm values, from the spec and what else runs.

Every key below exists in the chart at the pin (``tests/health`` checks them against
``tests/data/upstream/values/nvsentinel/v1.19.0``). The choices:

* **DCGM**: NVSentinel's GPU health monitor talks to a standalone DCGM hostengine
  (``global.dcgm.mode: operator-service``, the GPU Operator's ``nvidia-dcgm`` Service on
  port 5555). Where the GPU Operator runs, the health layer turns its standalone DCGM
  on (``dcgm.enabled``; the operator's default embeds DCGM in the exporter instead).
  Where the cloud manages the driver and the operator is off (GKE, EKS, DOKS by
  default, AKS with a managed GPU driver), there is no DCGM endpoint and no ``nvidia``
  RuntimeClass: the GPU health monitor and the metadata collector are off, the syslog
  (XID/SXID) and NIC monitors still run, and the labeler assumes the driver present.
* **Remediation**: ``health.remediation`` (default ``cordon``) turns on fault
  quarantine (cordon only: its default rule sets cordon and never taint) and its
  datastore; ``drain`` adds the node drainer; fault remediation (reboot, GPU reset)
  stays off: it needs a cloud-specific janitor the user configures through
  ``addons.nvsentinel.values``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from gpu_fabric.fabric.addons import GPU_OPERATOR, NVSENTINEL, PROMETHEUS
from gpu_fabric.fabric.manifests.values import deep_merge

if TYPE_CHECKING:
    from gpu_fabric.clouds.contract import ChartValues
    from gpu_fabric.fabric.addons import ResolvedAddons
    from gpu_fabric.fabric.description import FabricDescription
    from gpu_fabric.spec import ClusterSpec

# The GPU Operator's standalone DCGM: Service nvidia-dcgm, port 5555, internalTrafficPolicy
# Local (NVIDIA/gpu-operator v26.7.0 assets/state-dcgm/0500_service.yaml, 10ee5b36);
# NVSentinel's default endpoint is the same name in "gpu-operator" (values.yaml
# global.dcgm.service).
DCGM_SERVICE = "nvidia-dcgm"
DCGM_PORT = 5555


def quarantines(spec: ClusterSpec) -> bool:
    """Whether NVSentinel cordons (and so needs its datastore and cert-manager)."""
    return spec.health.enabled and spec.health.remediation != "off"


def operator_installs_driver(
    spec: ClusterSpec, fabrics: Mapping[str, FabricDescription], addons: ResolvedAddons,
    values: ChartValues,
) -> bool:
    """The GPU Operator's driver DaemonSet runs: its release's ``driver.enabled`` after the
    layer's default (on), the contributed values and the spec's, in chart_release order."""
    if not addons.on(GPU_OPERATOR):
        return False
    merged = deep_merge({"driver": {"enabled": True}},
                       values.chart_values(GPU_OPERATOR.key, spec, fabrics),
                       addons[GPU_OPERATOR.key].values)
    return bool(merged["driver"].get("enabled", True))


def values(
    spec: ClusterSpec, fabrics: Mapping[str, FabricDescription], addons: ResolvedAddons,
    chart_values: ChartValues,
) -> dict[str, Any]:
    """NVSentinel's computed values (the spec's ``addons.nvsentinel.values`` go on top)."""
    dcgm = addons.on(GPU_OPERATOR)
    quarantine = quarantines(spec)
    rdma = any(f.machine.fabric.is_rdma for f in fabrics.values())
    glob: dict[str, Any] = {
        "gpuHealthMonitor": {"enabled": dcgm},
        "metadataCollector": {"enabled": dcgm},
        "syslogHealthMonitor": {"enabled": True},
        "nicHealthMonitor": {"enabled": rdma},
        "faultQuarantine": {"enabled": quarantine},
        "nodeDrainer": {"enabled": quarantine and spec.health.remediation == "drain"},
        "faultRemediation": {"enabled": False},
        "mongodbStore": {"enabled": quarantine},
    }
    if dcgm:
        glob["dcgm"] = {"mode": "operator-service", "service": {
            "endpoint": f"{DCGM_SERVICE}.{addons[GPU_OPERATOR.key].namespace}.svc",
            "port": DCGM_PORT,
        }}
    return {
        "global": glob,
        # The chart's PodMonitor needs the Prometheus Operator's CRDs.
        "podMonitor": {"enabled": addons.on(PROMETHEUS)},
        "labeler": {"assumeDriverInstalled": not operator_installs_driver(
            spec, fabrics, addons, chart_values)},
    }


def gpu_operator_values(spec: ClusterSpec) -> dict[str, Any]:
    """The GPU Operator's standalone DCGM, which NVSentinel's GPU monitor connects to."""
    if not spec.health.enabled or spec.addons.choice(NVSENTINEL).enabled is False:
        return {}
    return {"dcgm": {"enabled": True}}


def cert_manager_values() -> dict[str, Any]:
    # The chart installs its CRDs only when asked (values.yaml crds.enabled: false).
    return {"crds": {"enabled": True}}
