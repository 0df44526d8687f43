"""The Kubernetes fabric layer as data: ordered parts of manifests and Helm releases.

:func:`build_layer` is a pure function of the spec and the fabric descriptions.
:class:`~gpu_fabric.fabric.stack.FabricStack` turns its parts into Pulumi
resources; ``python -m gpu_fabric render`` writes the same parts as YAML. One
source, two outputs.

A part's ``after`` names the parts it must wait for; that is how a first
``pulumi up`` applies CRDs (shipped by a chart or a manifest) before the
custom resources that need them. Parts without ``after`` install in parallel.
The part types live in :mod:`gpu_fabric.fabric.model` (importable from here too).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING

from gpu_fabric.fabric.model import HelmRelease, Manifest, Part

__all__ = ["HelmRelease", "Layer", "Manifest", "Part", "build_layer", "reusing_layers"]

if TYPE_CHECKING:
    from gpu_fabric.fabric.addons import ResolvedAddons
    from gpu_fabric.fabric.description import FabricDescription
    from gpu_fabric.fabric.plugins import LayerPlugins
    from gpu_fabric.spec import ClusterSpec

@dataclass(frozen=True)
class Layer:
    parts: tuple[Part, ...]
    addons: ResolvedAddons

    def part(self, name: str) -> Part:
        for part in self.parts:
            if part.name == name:
                return part
        raise KeyError(f"no part '{name}'; parts: {', '.join(p.name for p in self.parts)}")

    @property
    def names(self) -> list[str]:
        return [p.name for p in self.parts]

    def manifests(self) -> list[Manifest]:
        return [m for p in self.parts for m in p.manifests]

    def charts(self) -> list[HelmRelease]:
        return [c for p in self.parts for c in p.charts]


# The layers built inside :func:`reusing_layers` (None outside it): a plan checks the spec
# (preflight, twice: the runner and the cloud factory) and then builds the same layer in
# FabricStack; render checks, then writes. One build each (issue 36).
_reused: list[tuple[ClusterSpec, Mapping[str, FabricDescription], LayerPlugins | None, Layer]] \
    | None = None


@contextmanager
def reusing_layers() -> Iterator[None]:
    """Within this block, :func:`build_layer` builds each (spec, fabrics, plugins) once.

    Scoped to one command (a plan, a render) so that nothing outlives it; the layer is
    a pure function of its inputs, and its users only read it."""
    global _reused
    outer = _reused
    _reused = [] if outer is None else outer
    try:
        yield
    finally:
        _reused = outer


def build_layer(
    spec: ClusterSpec,
    fabrics: Mapping[str, FabricDescription],
    plugins: LayerPlugins | None = None,
) -> Layer:
    """Every part the spec asks for, in a stable order: generic, the cloud's, injection,
    then the layers above the fabric (``plugins``: the cloud and those layers)."""
    if _reused is None:
        return _build(spec, fabrics, plugins)
    for seen_spec, seen_fabrics, seen_plugins, layer in _reused:
        if seen_plugins is plugins and seen_spec == spec and seen_fabrics == fabrics:
            return layer
    layer = _build(spec, fabrics, plugins)
    _reused.append((spec, fabrics, plugins, layer))
    return layer


def _build(
    spec: ClusterSpec,
    fabrics: Mapping[str, FabricDescription],
    plugins: LayerPlugins | None,
) -> Layer:
    from gpu_fabric.fabric import parts as generic
    from gpu_fabric.fabric.addons import resolve_addons
    from gpu_fabric.fabric.addons.resolve import layer_defaults
    from gpu_fabric.fabric.gpu_sources import (
        check_dra_drivers,
        check_dra_nic_settings,
        check_gpu_sources,
    )
    from gpu_fabric.fabric.plugins import installed

    plugins = installed(plugins)
    addons = resolve_addons(spec, fabrics, plugins)
    from gpu_fabric.fabric.arm64 import check_arm64

    check_arm64(fabrics, addons)
    check_dra_nic_settings(spec, fabrics)
    check_dra_drivers(spec, fabrics, addons, layer_defaults(spec, fabrics, plugins))
    cloud = plugins.cloud(spec.cloud)
    values = plugins.values(spec.cloud)
    found: list[Part] = []
    found += generic.namespaces(spec, fabrics, addons)
    found += generic.generic_parts(spec, fabrics, addons, values,
                                   critical_pods_need_quota=cloud.critical_pods_need_quota)
    found += cloud.parts(spec, fabrics, addons, values)
    found += generic.injection_parts(spec, fabrics, addons)
    for above in plugins.above:
        found += above.parts(spec, fabrics, addons, values)
    check_gpu_sources(spec, fabrics, addons, found, cloud)
    _check(found)
    return Layer(tuple(_ordered(found)), addons)


def _check(parts: Sequence[Part]) -> None:
    names = [p.name for p in parts]
    dupes = {n for n in names if names.count(n) > 1}
    if dupes:
        raise ValueError(f"duplicate layer parts: {sorted(dupes)}")
    known = set(names)
    for part in parts:
        missing = [a for a in part.after if a not in known]
        if missing:
            raise ValueError(f"part '{part.name}' waits for unknown parts {missing}")


def _ordered(parts: Sequence[Part]) -> list[Part]:
    """Parts in an order where each comes after the parts it waits for.

    Parts are contributed by several modules (generic, cloud, platform), so a part
    may wait for one added later (the GPU Operator waits for the platform's
    ``prometheus`` for its ServiceMonitor CRD). The stable order: the earliest
    contributed part whose waits are all placed goes next, so an already valid
    order is kept as is.
    """
    placed: list[Part] = []
    done: set[str] = set()
    pending = list(parts)
    while pending:
        ready = next((p for p in pending if all(a in done for a in p.after)), None)
        if ready is None:
            cycle = ", ".join(f"{p.name} -> {list(p.after)}" for p in pending)
            raise ValueError(f"layer parts wait for each other in a cycle: {cycle}")
        placed.append(ready)
        done.add(ready.name)
        pending.remove(ready)
    return placed
