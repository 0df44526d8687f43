"""Where the fabric layer plugs in what it does not know: the cloud and the layers above it.

The fabric layer is cloud-agnostic and sits under the platform layer, so it
imports neither. It reaches them only through a :class:`LayerPlugins` value:
the cloud's provider (describer, Kubernetes parts) and the contributors above
the fabric (the platform layer: teams, quotas, MIG) which add node labels,
add-on defaults, chart values and parts through the same shape. Both shapes are
the cloud contract, :mod:`gpu_fabric.clouds.contract` (types only: imported for
type checking, never at run time); the registry that fills this value is
:mod:`gpu_fabric.clouds.registry`.

Callers pass the value explicitly (``build_layer(spec, fabrics, plugins)``);
when they do not, the default installed at ``import gpu_fabric`` is used, the
way dranet's cloud providers register themselves, so ``describe_cluster(spec)``
keeps working in scripts and tests. ``import gpu_fabric`` installs a loader,
not the value: the registry (and through it a cloud) is imported the first
time a default is needed, never at import.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from gpu_fabric.catalog import Cloud
from gpu_fabric.fabric.manifests.values import deep_merge

if TYPE_CHECKING:
    from gpu_fabric.clouds.contract import ChartValues, CloudLayer, LayerContributor
    from gpu_fabric.fabric.description import FabricDescription
    from gpu_fabric.spec import ClusterSpec


@dataclass(frozen=True)
class MergedValues:
    """Chart values of several contributors, later ones winning (the cloud is last)."""

    sources: tuple[ChartValues, ...]

    def chart_values(
        self, addon: str, spec: ClusterSpec, fabrics: Mapping[str, FabricDescription]
    ) -> Mapping[str, Any]:
        return deep_merge({}, *(s.chart_values(addon, spec, fabrics) for s in self.sources))


@dataclass(frozen=True)
class LayerPlugins:
    """The cloud layers by cloud, and the contributors above the fabric, in order."""

    clouds: Mapping[Cloud, CloudLayer]
    above: tuple[LayerContributor, ...] = ()

    def cloud(self, cloud: Cloud) -> CloudLayer:
        found = self.clouds.get(cloud)
        if found is None:
            known = ", ".join(sorted(c.value for c in self.clouds)) or "none"
            raise LookupError(f"no cloud layer registered for '{cloud.value}'; registered: {known}")
        return found

    def contributors(self, cloud: Cloud) -> tuple[LayerContributor, ...]:
        """Every contributor for a cluster on ``cloud``: the cloud first, then the layers above."""
        return (self.cloud(cloud), *self.above)

    def values(self, cloud: Cloud) -> MergedValues:
        """Chart values: the layers above first, the cloud's own values last (they win)."""
        return MergedValues((*self.above, self.cloud(cloud)))


_installed: list[LayerPlugins | Callable[[], LayerPlugins]] = []


def install(plugins: LayerPlugins | Callable[[], LayerPlugins]) -> None:
    """Make ``plugins`` the default, or a function that makes it when first needed
    (``import gpu_fabric`` installs the registry's that way)."""
    _installed[:] = [plugins]


def installed(plugins: LayerPlugins | None = None) -> LayerPlugins:
    """``plugins`` if given, else the installed default; fails loudly when there is none."""
    if plugins is not None:
        return plugins
    if not _installed:
        raise LookupError(
            "no cloud layers installed: `import gpu_fabric` installs the cloud registry; "
            "or pass a LayerPlugins value"
        )
    found = _installed[0]
    if not isinstance(found, LayerPlugins):
        found = found()
        _installed[:] = [found]
    return found
