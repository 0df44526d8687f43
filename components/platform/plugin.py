"""The platform layer as a contributor to the fabric layer (see :mod:`components.fabric.plugins`).

The platform is built on the fabric: the fabric layer never imports it. What the
platform adds to a cluster reaches the layer through this object, registered by
:mod:`components.clouds.registry` after the cloud: its parts (teams, queues,
dashboards, MIG configuration), Kueue on by default when teams share the
cluster, MIG's node label on MIG pools and MIG's GPU Operator values.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from components.platform import mig

if TYPE_CHECKING:
    from components.clouds.contract import ChartValues
    from components.fabric.addons import ResolvedAddons
    from components.fabric.description import FabricDescription
    from components.fabric.layer import Part
    from components.spec import ClusterSpec, GpuNodePoolSpec


class PlatformLayer:
    """Teams, quotas, gang scheduling, GPU sharing and monitoring on top of the fabric."""

    def node_labels(self, spec: ClusterSpec, pool: GpuNodePoolSpec) -> Mapping[str, str]:
        # The GPU Operator's MIG manager partitions a node by this label.
        return mig.node_labels(pool)

    def addon_defaults(
        self, spec: ClusterSpec, fabrics: Mapping[str, FabricDescription]
    ) -> Mapping[str, bool]:
        if spec.tenancy.teams and spec.tenancy.gang_scheduling in ("auto", "kueue"):
            return {"kueue": True}
        return {}

    def chart_values(
        self, addon: str, spec: ClusterSpec, fabrics: Mapping[str, FabricDescription]
    ) -> Mapping[str, Any]:
        if addon != "gpu_operator":
            return {}
        strategy = next((p.mig.strategy for p in spec.node_pools if p.mig), None)
        if strategy is None:
            return {}
        # Our mig-parted ConfigMap (components.platform.mig), not the chart's default:
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
        from components import platform

        return platform.parts(spec, fabrics, addons, values)


PLATFORM = PlatformLayer()
