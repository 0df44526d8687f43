"""The fabric layer's data: manifests, pinned Helm releases and the parts that hold them.

Plain values with no behaviour, so the modules that build parts
(:mod:`gpu_fabric.fabric.parts`, :mod:`gpu_fabric.fabric.injection`, the clouds,
the platform) and the one that orders them (:mod:`gpu_fabric.fabric.layer`)
depend on this module, not on each other.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from gpu_fabric.versions import Chart

Manifest = dict[str, Any]


@dataclass(frozen=True)
class HelmRelease:
    """A pinned chart installed as a Helm release (values are plain data).

    ``user_values``: the values include the spec's ``addons.<key>.values``, which may
    come from secure stack config; Pulumi keeps them secret when that config is.
    """

    release: str
    chart: Chart
    namespace: str
    values: Mapping[str, Any] = field(default_factory=dict)
    user_values: bool = False


@dataclass(frozen=True)
class Part:
    """One installable piece of the layer (e.g. ``multus``, ``gpu-operator``, ``nads``).

    ``name`` is part of every child's Pulumi name: renaming a part replaces its
    resources, so names are a compatibility surface.
    """

    name: str
    manifests: tuple[Manifest, ...] = ()
    charts: tuple[HelmRelease, ...] = ()
    after: tuple[str, ...] = ()
    description: str = ""
    # Non-empty: the part is no Kubernetes object but a resource of the cloud component
    # (an OKE add-on that must come after other parts); the component hands FabricStack
    # an installer under the part's name (FabricStackArgs.installers). Says what it is.
    installed_by: str = ""
