"""The cloud contract: everything a cloud provides, in one place.

A cloud is one folder, ``components/gpu_fabric/clouds/<cloud>/``, behind one
provider object (``<cloud>/provider.py``, ``PROVIDER``), named by one line of
:data:`gpu_fabric.clouds.registry.PROVIDER_MODULES`. Code outside the folder
never names the cloud: it asks :func:`gpu_fabric.clouds.registry.provider_for`
for the provider of ``spec.cloud``, or loops over the registry. Adding a cloud
is this checklist (the test in brackets fails until the step is done):

1. ``catalog/model.py``: the :class:`~gpu_fabric.catalog.Cloud` value, and
   ``catalog/<cloud>.py`` with the cloud's machines, their fabric facts and
   NCCL profiles, added to ``catalog/lookup.py`` (``tests/catalog/test_catalog.py``).
2. ``clouds/<cloud>/options.py``: the spec's ``<cloud>:`` section, a
   :class:`~gpu_fabric.clouds.options_base.CloudOptions` (SDK-free; the spec's
   field is named after the cloud's value).
3. ``clouds/<cloud>/fabric.py`` (``describe``), ``clouds/<cloud>/kubernetes.py``
   (``addon_defaults``, ``chart_values``, ``parts``) and ``clouds/<cloud>/checks.py``
   (``check_infrastructure``: layout and address plan before the first resource):
   the pure side, no SDK; the provider imports them by these names when first used.
4. ``clouds/<cloud>/cluster.py``: a :class:`~gpu_fabric.cluster.GpuCluster`
   subclass (``module = "<cloud>"``, ``cloud = Cloud.<CLOUD>``) that creates the
   network, the cluster and the GPU node pools; the only modules that import
   the SDK.
5. ``clouds/<cloud>/provider.py``: ``PROVIDER``, a :class:`CloudProvider`
   (usually a :class:`~gpu_fabric.clouds.adapter.ProviderBase` subclass) with
   the cloud's facts: options model, SDK, cluster class, spec and address
   checks, regions and zones, API-access and key rules, capacity types, GPU
   taint, Kueue topology levels, docs row (``tests/test_architecture.py``).
6. ``clouds/<cloud>/fakes.py`` (``RESOURCE_OUTPUTS``, ``CALLS``: plausible computed
   outputs of the SDK's resources and invokes, so the planner runs the program
   offline) and ``clouds/<cloud>/plan_facts.py`` (``PLAN_FACTS``: replacing inputs,
   credential keys), both loaded by name by the planner (``tests/test_architecture.py``).
7. One line in :data:`gpu_fabric.clouds.registry.PROVIDER_MODULES`, and the
   SDK as an optional extra in ``pyproject.toml`` (``tests/test_extras.py``).

``tests/clouds/test_toy_cloud.py`` builds a sixth cloud this way in a copy of the
package, and ``tests/test_cloud_names.py`` fails when code outside a cloud's
folder names a cloud.

The fabric, platform and NCCL layers never import a cloud package: they see a
cloud only through the :class:`CloudLayer` value they are handed
(:class:`~gpu_fabric.fabric.plugins.LayerPlugins`); the platform layer
contributes to the fabric layer through the same :class:`LayerContributor`
shape. The models: dranet's cloud-provider plug-in, pulumi-eks's exported
interfaces (one typed surface, implementations registered by name).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, NamedTuple, Protocol

if TYPE_CHECKING:
    from gpu_fabric.catalog import Cloud, GpuVendor
    from gpu_fabric.cluster import GpuCluster
    from gpu_fabric.errors import Problem
    from gpu_fabric.fabric.addons import ResolvedAddons
    from gpu_fabric.fabric.description import FabricDescription, Taint
    from gpu_fabric.fabric.model import Part
    from gpu_fabric.security import ApiAccessSpec, SecretsEncryptionSpec
    from gpu_fabric.spec import CapacitySpec, ClusterSpec, GpuNodePoolSpec
    from gpu_fabric.spec.values import MachineNaming, TagRules

ResourceFake = Callable[[str, dict[str, Any]], dict[str, Any]]
"""(resource name, inputs) -> computed outputs added to the echoed inputs (``__id``: the id)."""
CallFake = Callable[[dict[str, Any]], dict[str, Any]]
"""(invoke arguments) -> the invoke's result."""
Fabrics = Mapping[str, "FabricDescription"]


class CloudDocs(NamedTuple):
    """What the generated docs say of a cloud (``python -m gpu_fabric docs``)."""

    service: str
    """The managed Kubernetes service, e.g. GKE."""
    control_plane_prices: str
    """URL of the service's price page."""
    node_prices: str
    """URL of the GPU machines' price page."""
    login: str
    """The login (and spec fields) the cloud's Pulumi provider reads."""


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


class CloudLayer(LayerContributor, Protocol):
    """What the fabric layer needs of a cloud: the members of :class:`LayerContributor`
    and these (a test can build a layer from its own)."""

    @property
    def cloud(self) -> Cloud:
        """The catalog's cloud this provider serves."""
        ...

    @property
    def critical_pods_need_quota(self) -> bool:
        """The managed Kubernetes admits pods of the ``system-node-critical`` and
        ``system-cluster-critical`` priority classes outside ``kube-system`` only in a
        namespace whose ResourceQuota scopes those classes (GKE); the layer then adds
        that quota beside a chart whose pods use them."""
        ...

    def check(self, spec: ClusterSpec) -> None:
        """Refuse what the cloud cannot build, before any resource exists: raise
        :class:`~gpu_fabric.errors.SpecError` (``gpu_fabric.fabric.problems.refuse``)
        naming the field, the bad value and what would be valid."""
        ...

    def describe(self, spec: ClusterSpec, pool: GpuNodePoolSpec) -> FabricDescription:
        """How the pool's NICs reach pods: rails, resources, attach mode, NCCL env, labels."""
        ...


class CloudProvider(CloudLayer, Protocol):
    """Everything the rest of the library asks of a cloud: the layer and the cloud's facts.

    The data members are plain values the spec's validators read; the methods
    import the cloud's heavier modules (and its SDK, for :meth:`cluster_class`)
    only when called.
    """

    # -- the spec section, the SDK, the component ----------------------------------------
    @property
    def options_model(self) -> type[Any]:
        """The spec's ``<cloud>:`` section, a
        :class:`~gpu_fabric.clouds.options_base.CloudOptions`."""
        ...

    @property
    def options_required(self) -> bool:
        """A cluster this stack creates needs the ``<cloud>:`` section."""
        ...

    @property
    def sdk(self) -> str:
        """Import name of the cloud's Pulumi SDK (the pip extra is named after the cloud)."""
        ...

    @property
    def cluster_class_name(self) -> str:
        """The component class's public name (``gpu_fabric.<name>``)."""
        ...

    def cluster_class(self) -> type[GpuCluster]:
        """The cloud's component class (imports its SDK)."""
        ...

    def check_infrastructure(self, spec: ClusterSpec, fabrics: Fabrics) -> None:
        """What the component derives before its first resource (layouts, address plans):
        raise :class:`~gpu_fabric.errors.SpecError` with every problem."""
        ...

    @property
    def infrastructure_needs_fabrics(self) -> bool:
        """:meth:`check_infrastructure` needs every pool described (it sizes from them)."""
        ...

    @property
    def docs(self) -> CloudDocs:
        """What the generated docs say of the cloud."""
        ...

    # -- location --------------------------------------------------------------------------
    @property
    def zone_example(self) -> str | None:
        """Set when ``location.zone`` is required: an example zone."""
        ...

    @property
    def has_zones(self) -> bool:
        """False when the cloud has no zones (a ``location.zone`` is refused)."""
        ...

    @property
    def example_location(self) -> tuple[str, str | None]:
        """A region and (where the cloud needs one) a zone of it, valid in a spec."""
        ...

    def zone_example_in(self, region: str) -> str | None:
        """When zone names start with their region: an example zone of ``region``."""
        ...

    def location_problems(self, region: str, zone: str | None) -> list[Problem]:
        """``location.region`` / ``location.zone`` against the regions the cloud has."""
        ...

    # -- API access and Secrets encryption ---------------------------------------------------
    def legacy_api_cidrs(self, options: Any) -> list[str]:
        """The cloud section's own authorized ranges, from before ``api_access``."""
        ...

    def public_endpoint(self, options: Any, requested: bool) -> bool:
        """Whether the API server gets a public endpoint (``requested``: ``api_access``'s)."""
        ...

    def api_access_problems(self, spec: ClusterSpec, access: ApiAccessSpec) -> list[Problem]:
        """What the cloud's API server cannot do of ``api_access``."""
        ...

    def encryption_problems(self, spec: ClusterSpec, enc: SecretsEncryptionSpec) -> list[Problem]:
        """``secrets_encryption`` against the keys the cloud accepts."""
        ...

    @property
    def accepts_key_vault_id(self) -> bool:
        """``secrets_encryption.azure_key_vault_id`` applies on this cloud."""
        ...

    # -- pools and the fabric ----------------------------------------------------------------
    @property
    def capacity_types(self) -> tuple[str, ...]:
        """The ``capacity.type`` values the cloud offers."""
        ...

    def check_capacity(self, capacity: CapacitySpec) -> None:
        """Cloud rules of ``capacity`` beyond its type (raise a pydantic custom error)."""
        ...

    def check_pool_name(self, name: str) -> None:
        """Cloud rules of a pool name beyond a DNS label (raise a pydantic custom error)."""
        ...

    def gpu_taint(self, vendor: GpuVendor) -> Taint:
        """The taint this project puts on (or expects on) the cloud's GPU nodes."""
        ...

    def reserved_cidrs(self) -> Mapping[str, tuple[str, ...]]:
        """Ranges the cloud reserves, per ``network.<field>`` (refused there)."""
        ...

    def tag_rules(self) -> TagRules | None:
        """What the cloud accepts as ``tags`` (count, lengths, characters, reserved
        prefixes); None when this project rewrites them to fit (DOKS)."""
        ...

    @property
    def topology_levels(self) -> tuple[str, ...]:
        """Kueue topology levels, widest first; ``kubernetes.io/hostname`` alone when the
        cloud's nodes carry no fabric-block label."""
        ...

    @property
    def managed_dranet(self) -> bool:
        """The cloud runs DRANet for the cluster (``fabric.dranet: managed``)."""
        ...

    @property
    def own_device_plugins(self) -> tuple[str, ...]:
        """``fabric.device_plugin`` values that exist on this cloud only."""
        ...

    def system_machines(self) -> MachineNaming:
        """How the cloud names its CPU machine types and its GPU machines (the system pool
        takes a CPU machine of the cloud: ``system_pool.machine_type``)."""
        ...

    def managed_gpu_plugin(self) -> tuple[str, str] | None:
        """The cloud's own NVIDIA device plugin: (what it is, the node label that turns it
        off with "true"), or None (gpu_fabric.fabric.gpu_sources)."""
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
