"""The cloud contract: everything a cloud provides, in one place.

A cloud is one package, ``components/clouds/<cloud>/``, plus one entry in each
of three tables. Adding a cloud is this checklist (each line is checked by a
test named in brackets):

1. ``catalog``: the :class:`~components.catalog.Cloud` value and the cloud's
   machines with their fabric facts (``tests/test_catalog.py``).
2. ``<cloud>/options.py``: the spec's ``<cloud>:`` section (a
   :class:`~components.clouds.options_base.CloudOptions`, SDK-free).
3. ``<cloud>/provider.py``: ``PROVIDER``, an object satisfying
   :class:`CloudProvider` below: spec checks, the fabric description of a pool,
   the cloud's node labels, add-on defaults, Helm values and Kubernetes parts.
   Pure Python: it must not import the cloud SDK. Register it in
   :data:`components.clouds.registry.PROVIDERS` (``tests/test_architecture.py``).
4. ``<cloud>/cluster.py``: a :class:`~components.cluster.GpuCluster` subclass
   (``module = "<cloud>"``, ``cloud = Cloud.<CLOUD>``) that creates the network,
   the cluster and the GPU node pools from the descriptions; the only module
   that imports the SDK (lazily). Register it in
   :data:`components.clouds.factory.CLUSTER_CLASSES`
   (``tests/test_cluster_interface.py``).
5. ``components/plan/fakes/<cloud>.py``: ``FAKES``, a :class:`CloudFakes` with
   plausible computed outputs of the SDK's resources and invokes, so the
   planner can run the program offline. Register it in
   :data:`components.plan.fakes.FAKES` (``tests/test_architecture.py``). The
   fakes belong to the planner, never to the production package.

Nothing under ``components/fabric``, ``components/platform`` or
``components/nccl`` may import a cloud package: they see a cloud only through
the :class:`CloudProvider` value the registry hands them
(``tests/test_architecture.py`` checks the import graph). The model is dranet's
cloud-provider plug-in and pulumi-eks's exported interfaces: one typed surface
per concern, implementations registered by name.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Protocol

from components.catalog import Cloud

if TYPE_CHECKING:
    from components.fabric.addons import ResolvedAddons
    from components.fabric.description import FabricDescription
    from components.fabric.layer import Part
    from components.fabric.plugins import ChartValues
    from components.spec import ClusterSpec, GpuNodePoolSpec

ResourceFake = Callable[[str, dict[str, Any]], dict[str, Any]]
"""(resource name, inputs) -> computed outputs added to the echoed inputs (``__id``: the id)."""
CallFake = Callable[[dict[str, Any]], dict[str, Any]]
"""(invoke arguments) -> the invoke's result."""


class CloudProvider(Protocol):
    """What a cloud provides to the library (structurally a
    :class:`~components.fabric.plugins.CloudLayer`, which is all the fabric layer sees).

    Every method is pure: a function of the validated spec (and the pools' fabric
    descriptions), with no SDK and no Pulumi resource, so planning, rendering and
    the tests need no cloud account.
    """

    @property
    def cloud(self) -> Cloud:
        """The catalog's cloud this provider serves."""
        ...

    def check(self, spec: ClusterSpec) -> None:
        """Refuse what the cloud cannot build, before any resource exists.

        Raise :class:`~components.errors.SpecError` (``components.fabric.problems.refuse``)
        naming the field, the bad value and what would be valid.
        """
        ...

    def describe(self, spec: ClusterSpec, pool: GpuNodePoolSpec) -> FabricDescription:
        """How the pool's NICs reach pods: rails, resources, attach mode, NCCL env, labels."""
        ...

    def node_labels(self, spec: ClusterSpec, pool: GpuNodePoolSpec) -> Mapping[str, str]:
        """Extra node labels for the pool, beyond those ``describe`` already sets."""
        ...

    def addon_defaults(
        self, spec: ClusterSpec, fabrics: Mapping[str, FabricDescription]
    ) -> Mapping[str, bool]:
        """The cloud's add-on defaults over the generic ones (the spec still wins)."""
        ...

    def chart_values(
        self, addon: str, spec: ClusterSpec, fabrics: Mapping[str, FabricDescription]
    ) -> Mapping[str, Any]:
        """The cloud's Helm values for an add-on's release (``{}`` when none)."""
        ...

    def parts(
        self,
        spec: ClusterSpec,
        fabrics: Mapping[str, FabricDescription],
        addons: ResolvedAddons,
        values: ChartValues,
    ) -> Sequence[Part]:
        """The cloud's own Kubernetes parts (e.g. its device plugin, networks, installers)."""
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
