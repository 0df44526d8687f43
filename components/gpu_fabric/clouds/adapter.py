"""A :class:`~gpu_fabric.clouds.contract.CloudProvider` made of a cloud's module functions.

Every cloud today keeps its contract in two pure modules, ``<cloud>/fabric.py``
(``describe``) and ``<cloud>/kubernetes.py`` (``addon_defaults``,
``chart_values``, ``parts``). :meth:`FunctionProvider.of` takes the two modules
(mypy checks them against :class:`FabricModule` and :class:`KubernetesModule`)
so the registry names each cloud in one line.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from gpu_fabric.catalog import Cloud

if TYPE_CHECKING:
    from gpu_fabric.clouds.contract import ChartValues
    from gpu_fabric.fabric.addons import ResolvedAddons
    from gpu_fabric.fabric.description import FabricDescription
    from gpu_fabric.fabric.model import Part
    from gpu_fabric.spec import ClusterSpec, GpuNodePoolSpec

Fabrics = Mapping[str, "FabricDescription"]


class FabricModule(Protocol):
    """``<cloud>/fabric.py``: the pool's fabric description."""

    def describe(self, spec: ClusterSpec, pool: GpuNodePoolSpec) -> FabricDescription: ...


class KubernetesModule(Protocol):
    """``<cloud>/kubernetes.py``: the cloud's side of the Kubernetes layer."""

    def addon_defaults(self, spec: ClusterSpec, fabrics: Fabrics) -> Mapping[str, bool]: ...

    def chart_values(
        self, addon: str, spec: ClusterSpec, fabrics: Fabrics
    ) -> Mapping[str, Any]: ...

    def parts(
        self, spec: ClusterSpec, fabrics: Fabrics, addons: ResolvedAddons
    ) -> Sequence[Part]: ...


@dataclass(frozen=True)
class FunctionProvider:
    """The cloud's contract, one function per member (``spec_check`` optional)."""

    cloud: Cloud
    describe_pool: Callable[[ClusterSpec, GpuNodePoolSpec], FabricDescription]
    defaults: Callable[[ClusterSpec, Fabrics], Mapping[str, bool]]
    values_for: Callable[[str, ClusterSpec, Fabrics], Mapping[str, Any]]
    cloud_parts: Callable[[ClusterSpec, Fabrics, ResolvedAddons], Sequence[Part]]
    spec_check: Callable[[ClusterSpec], None] | None = None

    @classmethod
    def of(
        cls,
        cloud: Cloud,
        fabric: FabricModule,
        kubernetes: KubernetesModule,
        check: Callable[[ClusterSpec], None] | None = None,
    ) -> FunctionProvider:
        """The provider of a cloud whose contract is its ``fabric`` and ``kubernetes`` modules."""
        return cls(cloud, fabric.describe, kubernetes.addon_defaults, kubernetes.chart_values,
                   kubernetes.parts, check)

    def check(self, spec: ClusterSpec) -> None:
        if self.spec_check is not None:
            self.spec_check(spec)

    def describe(self, spec: ClusterSpec, pool: GpuNodePoolSpec) -> FabricDescription:
        return self.describe_pool(spec, pool)

    def node_labels(self, spec: ClusterSpec, pool: GpuNodePoolSpec) -> Mapping[str, str]:
        return {}  # the describer sets the cloud's labels on the description

    def addon_defaults(self, spec: ClusterSpec, fabrics: Fabrics) -> Mapping[str, bool]:
        return self.defaults(spec, fabrics)

    def chart_values(self, addon: str, spec: ClusterSpec, fabrics: Fabrics) -> Mapping[str, Any]:
        return self.values_for(addon, spec, fabrics)

    def parts(
        self, spec: ClusterSpec, fabrics: Fabrics, addons: ResolvedAddons, values: ChartValues
    ) -> Sequence[Part]:
        # The cloud's own releases take the cloud's values only (they are its add-ons).
        return self.cloud_parts(spec, fabrics, addons)
