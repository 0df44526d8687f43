"""What one add-on is, as one value: :class:`Addon`.

Every fact the library needs about an add-on (its spec key, pinned artefact,
namespace, generic default, the layer part that installs it, who builds that part)
sits in one :class:`Addon`, defined once in its own module of this package and
listed in :mod:`gpu_fabric.fabric.addons.registry`. Everything else (the spec's
``addons:`` section, the resolver, the builders, the clouds) refers to that value,
so an add-on's key is spelled in exactly one module.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from gpu_fabric.versions import Chart, Image

if TYPE_CHECKING:
    from gpu_fabric.fabric.description import FabricDescription

BY_THE_CLOUD = "the cloud's parts"
"""``built_by`` of an add-on each cloud that runs it builds in its own ``parts``
(:class:`~gpu_fabric.clouds.contract.CloudProvider`): the fabric layer never names
a cloud package."""

DefaultRule = Callable[[Sequence["FabricDescription"]], bool]
"""The pools' fabric descriptions -> whether the add-on is on before any cloud,
layer above the fabric or spec says otherwise."""


def never(fabrics: Sequence[FabricDescription]) -> bool:
    """The default of add-ons the fabric descriptions alone never ask for."""
    return False


@dataclass(frozen=True)
class Addon:
    """One optional component of the Kubernetes layer.

    ``key`` is the name under the spec's ``addons:`` (user-facing YAML, the
    ``render`` output and the plan); code names the add-on by this value instead.
    """

    key: str
    # The pinned chart or image (gpu_fabric.versions, the one place pins live); None
    # for an artefact the cloud picks (the NCCL installers).
    artifact: Chart | Image | None
    namespace: str
    summary: str
    # Where its parts are built, as ``module:qualname`` (checked to import by the
    # tests), or BY_THE_CLOUD, so a reader goes from the add-on to the code that
    # renders it.
    built_by: str
    # The layer part that installs it (other parts order themselves ``after`` it);
    # "" where it is no part of the Kubernetes layer or the part is a cloud's own.
    part: str = ""
    # Its namespace runs node agents that need privileged pods (Pod Security
    # "privileged" on the Namespace the layer creates).
    privileged: bool = False
    # The generic rule: on when the pools' fabric descriptions need it.
    default: DefaultRule = never
    # It runs pods on the GPU nodes (node agents, operands), and where upstream says its
    # pinned build has an arm64 image (a repository file at the pinned tag, with lines);
    # "" = none recorded. A GB200/GB300 pool (arm64 hosts) refuses an add-on that runs
    # on its nodes without one (gpu_fabric.fabric.arm64).
    gpu_nodes: bool = False
    arm64: str = ""
    # TCP ports its admission webhooks listen on in their pods (the webhook Service's
    # targetPort, as the pinned chart serves them): the API server must reach these on
    # the nodes, which some clouds' control planes do only after a firewall rule
    # (gpu_fabric.clouds.<cloud>.control_plane).
    webhook_ports: tuple[int, ...] = ()
