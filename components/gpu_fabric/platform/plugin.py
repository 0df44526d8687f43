"""The platform layer as a contributor to the fabric layer (see :mod:`gpu_fabric.fabric.plugins`).

The platform is built on the fabric: the fabric layer never imports it. What the
platform adds to a cluster reaches the layer through this object, made by
:mod:`gpu_fabric.layers` and listed after the cloud: its parts (teams, queues,
dashboards, MIG configuration), Kueue on by default when teams share the
cluster, MIG's node label on MIG pools and MIG's GPU Operator values.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from gpu_fabric.fabric.addons import GPU_OPERATOR, KUEUE
from gpu_fabric.platform import mig

if TYPE_CHECKING:
    from gpu_fabric.catalog import Cloud
    from gpu_fabric.clouds.contract import ChartValues
    from gpu_fabric.fabric.addons import ResolvedAddons
    from gpu_fabric.fabric.description import FabricDescription
    from gpu_fabric.fabric.layer import Part
    from gpu_fabric.spec import ClusterSpec, GpuNodePoolSpec


@dataclass(frozen=True)
class PlatformLayer:
    """Teams, quotas, gang scheduling, GPU sharing and monitoring on top of the fabric.

    ``topology_levels`` answers a cloud's Kueue topology levels (its provider's, given
    by the registry: the platform imports no cloud).
    """

    topology_levels: Callable[[Cloud], tuple[str, ...]]

    def node_labels(self, spec: ClusterSpec, pool: GpuNodePoolSpec) -> Mapping[str, str]:
        # The GPU Operator's MIG manager partitions a node by this label.
        return mig.node_labels(pool)

    def addon_defaults(
        self, spec: ClusterSpec, fabrics: Mapping[str, FabricDescription]
    ) -> Mapping[str, bool]:
        if spec.tenancy.teams and spec.tenancy.gang_scheduling in ("auto", "kueue"):
            return {KUEUE.key: True}
        return {}

    def chart_values(
        self, addon: str, spec: ClusterSpec, fabrics: Mapping[str, FabricDescription]
    ) -> Mapping[str, Any]:
        if addon != GPU_OPERATOR.key:
            return {}
        strategy = next((p.mig.strategy for p in spec.node_pools if p.mig), None)
        if strategy is None:
            return {}
        # Our mig-parted ConfigMap (gpu_fabric.platform.mig), not the chart's default:
        # its entries are built from the catalog's profiles for the pools' GPUs.
        return {
            "mig": {"strategy": strategy},
            "migManager": {
                "enabled": True,
                "config": {"name": mig.MIG_PARTED_CONFIG, "default": mig.MIG_DISABLED},
            },
        }

    def parts(
        self,
        spec: ClusterSpec,
        fabrics: Mapping[str, FabricDescription],
        addons: ResolvedAddons,
        values: ChartValues,
    ) -> Sequence[Part]:
        from gpu_fabric import platform

        return platform.parts(spec, fabrics, addons, values, self.topology_levels(spec.cloud))
