"""Which add-ons a cluster gets, at which pinned version.

Three layers decide, last one wins: each add-on's generic rule (its
:attr:`~gpu_fabric.fabric.addons.model.Addon.default`, from the fabric
descriptions), the ``addon_defaults`` of the cloud and of the layers above the
fabric (:mod:`gpu_fabric.fabric.plugins`; the platform turns on Kueue for teams)
and what the spec says explicitly (``addons.<name>.enabled``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from gpu_fabric.fabric.addons.model import Addon
from gpu_fabric.fabric.addons.registry import ADDONS
from gpu_fabric.versions import Chart, Image

if TYPE_CHECKING:
    from gpu_fabric.fabric.description import FabricDescription
    from gpu_fabric.fabric.plugins import LayerPlugins
    from gpu_fabric.spec import ClusterSpec


@dataclass(frozen=True)
class ResolvedAddon:
    key: str
    enabled: bool
    version: str | None
    values: Mapping[str, Any] = field(default_factory=dict)
    namespace: str = ""

    def chart(self) -> Chart:
        """The pinned chart, at the spec's version if it overrides the default."""
        artifact = ADDONS[self.key].artifact
        if not isinstance(artifact, Chart):
            raise TypeError(f"add-on {self.key} is not a Helm chart")
        return Chart(artifact.repo, artifact.name, self.version or artifact.version)

    def image(self, default: Image | None = None) -> Image:
        artifact = default or ADDONS[self.key].artifact
        if not isinstance(artifact, Image):
            raise TypeError(f"add-on {self.key} is not an image")
        return artifact.with_tag(self.version) if self.version else artifact


class ResolvedAddons(dict[str, ResolvedAddon]):
    """The resolved add-ons by key (the spec's names, as ``render`` and the plan show them)."""

    def on(self, addon: Addon | str) -> bool:
        """Whether ``addon`` is on: its definition (the library's code) or its key."""
        return self[addon if isinstance(addon, str) else addon.key].enabled


def generic_defaults(fabrics: Mapping[str, FabricDescription]) -> dict[str, bool]:
    """What the fabric descriptions alone imply (clouds refine this)."""
    fabs = list(fabrics.values())
    return {key: addon.default(fabs) for key, addon in ADDONS.items()}


def layer_defaults(
    spec: ClusterSpec,
    fabrics: Mapping[str, FabricDescription],
    plugins: LayerPlugins | None = None,
) -> dict[str, bool]:
    """Each add-on on or off before the spec's ``enabled`` (the generic rule, then the
    cloud's and the layers' defaults): what the cluster needs unless told otherwise."""
    from gpu_fabric.fabric.plugins import installed

    enabled = generic_defaults(fabrics)
    for contributor in installed(plugins).contributors(spec.cloud):
        enabled.update(contributor.addon_defaults(spec, fabrics))
    return enabled


def resolve_addons(
    spec: ClusterSpec,
    fabrics: Mapping[str, FabricDescription],
    plugins: LayerPlugins | None = None,
) -> ResolvedAddons:
    enabled = layer_defaults(spec, fabrics, plugins)
    resolved = ResolvedAddons()
    for key, addon in ADDONS.items():
        choice = spec.addons.choice(addon)
        # generic_defaults has every key: a contributor only overrides some.
        on = choice.enabled if choice.enabled is not None else enabled[key]
        resolved[key] = ResolvedAddon(
            key=key,
            enabled=on,
            version=choice.version,
            values=dict(choice.values),
            namespace=addon.namespace,
        )
    return resolved
