"""The health layer as a contributor to the fabric layer (see :mod:`gpu_fabric.fabric.plugins`).

Listed by :mod:`gpu_fabric.layers` after the platform. With ``health.enabled`` it turns
NVSentinel on (and cert-manager, which NVSentinel's quarantine datastore needs), the GPU
Operator's standalone DCGM, the kube-state-metrics node labels its alerts read, and
labels NVIDIA pools ``nvidia.com/gpu.present=true`` (where NVSentinel's labeler and
quarantine look for GPU nodes; the GPU Operator's feature discovery sets the same label
where it runs, DOKS pools have it from nowhere else).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from gpu_fabric.catalog import GpuVendor, get_machine
from gpu_fabric.fabric.addons import CERT_MANAGER, GPU_OPERATOR, NVSENTINEL, PROMETHEUS

if TYPE_CHECKING:
    from gpu_fabric.clouds.contract import ChartValues
    from gpu_fabric.fabric.addons import ResolvedAddons
    from gpu_fabric.fabric.description import FabricDescription
    from gpu_fabric.fabric.layer import Part
    from gpu_fabric.spec import ClusterSpec, GpuNodePoolSpec

GPU_PRESENT = "nvidia.com/gpu.present"


@dataclass(frozen=True)
class HealthLayer:
    """NVSentinel and the active fabric check, on ``health.enabled``."""

    def node_labels(self, spec: ClusterSpec, pool: GpuNodePoolSpec) -> Mapping[str, str]:
        if not spec.health.enabled:
            return {}
        machine = get_machine(pool.machine_type, spec.cloud)
        return {GPU_PRESENT: "true"} if machine.gpu.vendor is GpuVendor.NVIDIA else {}

    def addon_defaults(
        self, spec: ClusterSpec, fabrics: Mapping[str, FabricDescription]
    ) -> Mapping[str, bool]:
        if not spec.health.enabled:
            return {}
        from gpu_fabric.health.nvsentinel import quarantines

        nvsentinel = spec.addons.choice(NVSENTINEL).enabled is not False
        return {NVSENTINEL.key: True, CERT_MANAGER.key: nvsentinel and quarantines(spec)}

    def chart_values(
        self, addon: str, spec: ClusterSpec, fabrics: Mapping[str, FabricDescription]
    ) -> Mapping[str, Any]:
        if not spec.health.enabled:
            return {}
        if addon == GPU_OPERATOR.key:
            from gpu_fabric.health.nvsentinel import gpu_operator_values

            return gpu_operator_values(spec)
        if addon == PROMETHEUS.key:
            from gpu_fabric.health.manifests import kube_state_metrics_allowlist

            return {
                "kube-state-metrics": {"metricLabelsAllowlist": kube_state_metrics_allowlist()},
                # Rules of every release, like the ServiceMonitors (platform.monitoring).
                "prometheus": {"prometheusSpec": {"ruleSelectorNilUsesHelmValues": False}},
            }
        return {}

    def parts(
        self,
        spec: ClusterSpec,
        fabrics: Mapping[str, FabricDescription],
        addons: ResolvedAddons,
        values: ChartValues,
    ) -> Sequence[Part]:
        from gpu_fabric import health

        return health.parts(spec, fabrics, addons, values)
