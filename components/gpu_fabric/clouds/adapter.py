"""What the providers share: :class:`ProviderBase`, a cloud's provider by convention.

A cloud's folder keeps its pure Kubernetes-layer side in two modules,
``fabric.py`` (``describe``) and ``kubernetes.py`` (``addon_defaults``,
``chart_values``, ``parts``), and its component class in ``cluster.py``;
:class:`ProviderBase` imports them from the provider's own package the first
time a member is called, so importing a provider (the registry and the spec do)
loads neither them nor the SDK. A cloud's ``provider.py`` subclasses it, sets
the cloud's facts as class attributes and overrides the hooks whose answer
differs from the common one here.
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Mapping, Sequence
from types import ModuleType
from typing import TYPE_CHECKING, Any, ClassVar

from gpu_fabric.catalog import Cloud, GpuVendor
from gpu_fabric.clouds.contract import CloudDocs
from gpu_fabric.errors import Problem

if TYPE_CHECKING:
    from gpu_fabric.clouds.contract import ChartValues
    from gpu_fabric.cluster import GpuCluster
    from gpu_fabric.fabric.addons import ResolvedAddons
    from gpu_fabric.fabric.description import FabricDescription, Taint
    from gpu_fabric.fabric.model import Part
    from gpu_fabric.security import ApiAccessSpec, SecretsEncryptionSpec
    from gpu_fabric.spec import CapacitySpec, ClusterSpec, GpuNodePoolSpec
    from gpu_fabric.spec.values import MachineNaming, TagRules

Fabrics = Mapping[str, "FabricDescription"]
HOSTNAME = "kubernetes.io/hostname"


class ProviderBase:
    """A cloud's provider: facts as class attributes, hooks with the common answer."""

    cloud: ClassVar[Cloud]
    options_model: ClassVar[type[Any]]
    sdk: ClassVar[str]
    cluster_class_name: ClassVar[str]
    docs: ClassVar[CloudDocs]
    example_location: ClassVar[tuple[str, str | None]]
    """A region and (where the cloud needs one) a zone of it, valid in a spec."""
    options_required: ClassVar[bool] = True
    infrastructure_needs_fabrics: ClassVar[bool] = False
    capacity_types: ClassVar[tuple[str, ...]] = ("on_demand",)
    topology_levels: ClassVar[tuple[str, ...]] = (HOSTNAME,)
    gpu_taint_value: ClassVar[str] = "present"
    zone_example: ClassVar[str | None] = None
    """Set when the GPU nodes' zone must be given (``location.zone``): an example of one."""
    has_zones: ClassVar[bool] = True
    managed_dranet: ClassVar[bool] = False
    critical_pods_need_quota: ClassVar[bool] = False
    """GKE's rule (see :class:`~gpu_fabric.clouds.contract.CloudLayer`); other services
    admit the system-*-critical priority classes in any namespace."""
    own_device_plugins: ClassVar[tuple[str, ...]] = ()
    """``fabric.device_plugin`` values that exist on this cloud only."""
    key_format: ClassVar[tuple[re.Pattern[str], str] | None] = None
    """The customer key a ``secrets_encryption.kms_key`` must be (pattern, shape); None: none."""
    accepts_key_vault_id: ClassVar[bool] = False

    def system_machines(self) -> MachineNaming:
        """How the cloud names its CPU machine types (``system_pool.machine_type``)."""
        raise NotImplementedError(f"{type(self).__name__} states no system_machines")

    def managed_gpu_plugin(self) -> tuple[str, str] | None:
        """The cloud's own NVIDIA device plugin on GPU nodes, as (what it is, the node
        label whose value "true" turns it off); None where the cloud runs none (or its
        own code refuses a second one: DOKS)."""
        return None

    def _slice(self, module: str) -> ModuleType:
        """A module of this cloud's folder (``fabric``, ``kubernetes``...), imported now."""
        package = type(self).__module__.rpartition(".")[0]
        return importlib.import_module(f"{package}.{module}")

    def __repr__(self) -> str:
        return f"<{self.cloud.value} provider>"

    # -- the component ---------------------------------------------------------------
    def cluster_class(self) -> type[GpuCluster]:
        """``cluster.<cluster_class_name>`` of this cloud's folder (imports the SDK)."""
        found: type[GpuCluster] = getattr(self._slice("cluster"), self.cluster_class_name)
        return found

    def check_infrastructure(self, spec: ClusterSpec, fabrics: Fabrics) -> None:
        """``checks.check_infrastructure`` of this cloud's folder."""
        self._slice("checks").check_infrastructure(spec, fabrics)

    # -- the Kubernetes layer (clouds/<cloud>/fabric.py and kubernetes.py) ----------------
    def check(self, spec: ClusterSpec) -> None:
        """No spec check beyond the describer's (override when there is)."""

    def describe(self, spec: ClusterSpec, pool: GpuNodePoolSpec) -> FabricDescription:
        description: FabricDescription = self._slice("fabric").describe(spec, pool)
        return description

    def node_labels(self, spec: ClusterSpec, pool: GpuNodePoolSpec) -> Mapping[str, str]:
        return {}  # the describer sets the cloud's labels on the description

    def addon_defaults(self, spec: ClusterSpec, fabrics: Fabrics) -> Mapping[str, bool]:
        defaults: Mapping[str, bool] = self._slice("kubernetes").addon_defaults(spec, fabrics)
        return defaults

    def chart_values(self, addon: str, spec: ClusterSpec, fabrics: Fabrics) -> Mapping[str, Any]:
        values: Mapping[str, Any] = self._slice("kubernetes").chart_values(addon, spec, fabrics)
        return values

    def parts(
        self, spec: ClusterSpec, fabrics: Fabrics, addons: ResolvedAddons, values: ChartValues
    ) -> Sequence[Part]:
        # The cloud's own releases take the cloud's values only (they are its add-ons).
        found: Sequence[Part] = self._slice("kubernetes").parts(spec, fabrics, addons)
        return found

    # -- the spec's cloud rules -----------------------------------------------------------
    def zone_example_in(self, region: str) -> str | None:
        """When a zone's name starts with its region: an example zone of ``region``."""
        return None

    def location_problems(self, region: str, zone: str | None) -> list[Problem]:
        """Nothing known to check against (override with the cloud's regions)."""
        return []

    def legacy_api_cidrs(self, options: Any) -> list[str]:
        """The cloud section's own authorized ranges, from before ``api_access``."""
        return []

    def public_endpoint(self, options: Any, requested: bool) -> bool:
        """Whether the API server gets a public endpoint (``requested``: ``api_access``'s)."""
        return requested

    def api_access_problems(self, spec: ClusterSpec, access: ApiAccessSpec) -> list[Problem]:
        """What the cloud's API server cannot do of ``api_access``."""
        return []

    def encryption_problems(self, spec: ClusterSpec, enc: SecretsEncryptionSpec) -> list[Problem]:
        """``secrets_encryption`` against :attr:`key_format` (and :meth:`key_problems`)."""
        if self.key_format is None:
            return [Problem("secrets_encryption", f"{self.cloud.display} offers no "
                            "customer-managed key for Kubernetes Secrets; remove "
                            "secrets_encryption")]
        out: list[Problem] = []
        pattern, shape = self.key_format
        if not pattern.match(enc.kms_key):
            out.append(Problem("secrets_encryption.kms_key",
                               f"is not {self.cloud.a_display} key reference; expected {shape}",
                               enc.kms_key, True))
        else:
            out += self.key_problems(spec, enc.kms_key)
        if enc.azure_key_vault_id is not None and not self.accepts_key_vault_id:
            from gpu_fabric.clouds.registry import providers

            where = " and ".join(p.cloud.display for p in providers() if p.accepts_key_vault_id)
            out.append(Problem("secrets_encryption.azure_key_vault_id", f"only applies on {where}",
                               enc.azure_key_vault_id, True))
        return out

    def key_problems(self, spec: ClusterSpec, kms_key: str) -> list[Problem]:
        """Rules of a well-formed key beyond its format (e.g. its region)."""
        return []

    def check_capacity(self, capacity: CapacitySpec) -> None:
        """No rule beyond the capacity type (raise a pydantic custom error otherwise)."""

    def check_pool_name(self, name: str) -> None:
        """No rule beyond a DNS label (raise a pydantic custom error otherwise)."""

    def reserved_cidrs(self) -> Mapping[str, tuple[str, ...]]:
        """Ranges the cloud keeps for itself, per ``network.<field>`` (none by default)."""
        return {}

    def tag_rules(self) -> TagRules | None:
        """What the cloud accepts as ``tags`` (None: this project rewrites them to fit)."""
        return None

    def gpu_taint(self, vendor: GpuVendor) -> Taint:
        """The taint this project puts on (or expects on) the cloud's GPU nodes."""
        from gpu_fabric.fabric.description import Taint

        return Taint(vendor.resource, self.gpu_taint_value)
