"""The cloud contract: everything a cloud provides, in one place.

A cloud is one package, ``components/gpu_fabric/clouds/<cloud>/``, plus one entry in each
of three tables. Adding a cloud is this checklist (the test in brackets fails
until the step is done):

1. ``components/gpu_fabric/catalog/``: the :class:`~gpu_fabric.catalog.Cloud` value
   (``model.py``) and ``<cloud>.py`` with the cloud's machines, their fabric
   facts and NCCL profiles, added to ``lookup.py`` (``tests/test_catalog.py``).
2. ``<cloud>/options.py``: the spec's ``<cloud>:`` section, a
   :class:`~gpu_fabric.clouds.options_base.CloudOptions` (SDK-free).
3. A :class:`CloudProvider` (below): spec checks, the fabric description of a
   pool, add-on defaults, Helm values and the cloud's Kubernetes parts. Pure
   Python, no cloud SDK. Today every cloud writes it as module functions,
   ``<cloud>/fabric.py`` (``describe``) and ``<cloud>/kubernetes.py``
   (``addon_defaults``, ``chart_values``, ``parts``), named in one line of
   :data:`gpu_fabric.clouds.registry.PROVIDERS` (``tests/test_architecture.py``).
4. ``<cloud>/cluster.py``: a :class:`~gpu_fabric.cluster.GpuCluster` subclass
   (``module = "<cloud>"``, ``cloud = Cloud.<CLOUD>``) that creates the network,
   the cluster and the GPU node pools from the descriptions; the only modules
   that import the SDK. Register it in
   :data:`gpu_fabric.clouds.factory.CLUSTER_CLASSES`
   (``tests/test_cluster_interface.py``).
5. ``components/gpu_fabric/plan/fakes/<cloud>.py``: ``RESOURCE_OUTPUTS`` and ``CALLS``,
   plausible computed outputs of the SDK's resources and invokes (a
   :class:`CloudFakes`), so the planner runs the program offline. Register it in
   :data:`gpu_fabric.plan.fakes.FAKES` (``tests/test_architecture.py``). Fakes
   belong to the planner, never to the production package.

The fabric, platform and NCCL layers never import a cloud package: they see a
cloud only through the :class:`CloudProvider` value they are handed
(:class:`~gpu_fabric.fabric.plugins.LayerPlugins`); the platform layer
contributes to the fabric layer through the same :class:`LayerContributor`
shape. The models: dranet's cloud-provider plug-in, pulumi-eks's exported
interfaces (one typed surface, implementations registered by name).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from gpu_fabric.catalog import Cloud
    from gpu_fabric.fabric.addons import ResolvedAddons
    from gpu_fabric.fabric.description import FabricDescription
    from gpu_fabric.fabric.model import Part
    from gpu_fabric.spec import ClusterSpec, GpuNodePoolSpec

ResourceFake = Callable[[str, dict[str, Any]], dict[str, Any]]
"""(resource name, inputs) -> computed outputs added to the echoed inputs (``__id``: the id)."""
CallFake = Callable[[dict[str, Any]], dict[str, Any]]
"""(invoke arguments) -> the invoke's result."""


class ChartValues(Protocol):
    """Helm values for an add-on's release (``{}`` when there are none)."""

    def chart_values(
        self, addon: str, spec: ClusterSpec, fabrics: Mapping[str, FabricDescription]
    ) -> Mapping[str, Any]: ...


class LayerContributor(ChartValues, Protocol):
    """Anything that adds to the Kubernetes layer: a cloud, or a layer above the fabric.

    Every method is pure: a function of the validated spec (and the pools' fabric
    descriptions), with no SDK and no Pulumi resource, so planning, rendering and
    the tests need no cloud account.
    """

    def node_labels(self, spec: ClusterSpec, pool: GpuNodePoolSpec) -> Mapping[str, str]:
        """Extra labels for the pool's nodes (the spec's own pool labels still win)."""
        ...

    def addon_defaults(
        self, spec: ClusterSpec, fabrics: Mapping[str, FabricDescription]
    ) -> Mapping[str, bool]:
        """Add-ons switched on or off by default (the spec's ``enabled`` still wins)."""
        ...

    def parts(
        self,
        spec: ClusterSpec,
        fabrics: Mapping[str, FabricDescription],
        addons: ResolvedAddons,
        values: ChartValues,
    ) -> Sequence[Part]:
        """Layer parts; ``values`` merges every contributor's chart values for a release."""
        ...


class CloudProvider(LayerContributor, Protocol):
    """What a cloud provides: the members of :class:`LayerContributor` and these."""

    @property
    def cloud(self) -> Cloud:
        """The catalog's cloud this provider serves."""
        ...

    def check(self, spec: ClusterSpec) -> None:
        """Refuse what the cloud cannot build, before any resource exists: raise
        :class:`~gpu_fabric.errors.SpecError` (``gpu_fabric.fabric.problems.refuse``)
        naming the field, the bad value and what would be valid."""
        ...

    def describe(self, spec: ClusterSpec, pool: GpuNodePoolSpec) -> FabricDescription:
        """How the pool's NICs reach pods: rails, resources, attach mode, NCCL env, labels."""
        ...


class CloudFakes(Protocol):
    """Offline answers for the cloud SDK's resources and invokes (the planner's mocks).

    In preview mode computed outputs are left out, as on a first ``pulumi preview``.
    """

    @property
    def resource_outputs(self) -> Mapping[str, ResourceFake]:
        """Resource type token -> computed outputs."""
        ...

    @property
    def calls(self) -> Mapping[str, CallFake]:
        """Invoke token -> result."""
        ...
