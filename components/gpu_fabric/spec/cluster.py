"""The cluster: location, Kubernetes, networks, an existing cluster, and
``ClusterSpec`` with the cross-section rules."""

from __future__ import annotations

import contextlib
import ipaddress
import re
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self

from pydantic import (
    Field,
    ValidationInfo,
    create_model,
    field_validator,
    model_validator,
)

from gpu_fabric.catalog import Cloud, FabricKind
from gpu_fabric.clouds.registry import clouds, provider_for
from gpu_fabric.errors import Problem
from gpu_fabric.kube_version import KubeVersion
from gpu_fabric.security import ApiAccessSpec, SecretsEncryptionSpec, security_problems
from gpu_fabric.spec import values
from gpu_fabric.spec.addons import AddonsSpec
from gpu_fabric.spec.base import Cidr, SpecModel, _ctx_cloud, _dns_label, _fail
from gpu_fabric.spec.fabric import AttachMode, FabricSpec
from gpu_fabric.spec.health import HealthSpec
from gpu_fabric.spec.pools import GpuNodePoolSpec, SystemPoolSpec
from gpu_fabric.spec.tenancy import AcceptanceSpec, TenancySpec


# -- location and Kubernetes ---------------------------------------------------
class LocationSpec(SpecModel):
    """Where the cluster lives.

    ``zone`` is the single zone that holds the GPU nodes: a GCP zone, an AWS
    availability zone or an OCI availability domain. Fabric traffic cannot leave
    it, and it is an explicit input so that a provider adding capacity elsewhere
    never moves (replaces) a node pool.
    """

    region: str = Field(min_length=1, description="Cloud region, e.g. us-west8, us-east-1, eastus")
    zone: str | None = Field(
        default=None, description="Zone / AZ / availability domain of the GPU nodes"
    )

    @model_validator(mode="after")
    def _zone_fits_cloud(self, info: ValidationInfo) -> Self:
        _check_location(self, _ctx_cloud(info))
        return self


def example_location(cloud: Cloud) -> dict[str, str]:
    """A valid ``location`` for ``cloud`` (its provider's example), for specs built in code."""
    region, zone = provider_for(cloud).example_location
    return {"region": region, **({"zone": zone} if zone else {})}


def _check_location(location: LocationSpec, cloud: Cloud | None) -> None:
    """The zone is given where the cloud needs one, lies in the region, and absent where
    the cloud has none (the provider says which)."""
    if cloud is None:
        return
    provider = provider_for(cloud)
    zone, region = location.zone, location.region
    if provider.zone_example is not None and not zone:
        raise _fail(
            "zone_required",
            "location.zone is required on {cloud}: the GPU nodes and their fabric live in "
            "one zone (e.g. {example})",
            cloud=cloud.display,
            example=provider.zone_example,
            at="zone",
        )
    example = provider.zone_example_in(region)
    if example is not None and zone and not zone.startswith(region):
        raise _fail(
            "zone_region",
            "zone '{zone}' is not in region '{region}'; use a zone of that region "
            "(e.g. {example})",
            zone=zone,
            region=region,
            example=example,
            at="zone", got=zone,
        )
    if not provider.has_zones and zone:
        raise _fail(
            "zone_unsupported", f"{cloud.display} has no zones; remove location.zone", at="zone"
        )


_RFC3339_UTC = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$")


class FreezeSpec(SpecModel):
    """Freeze the cluster during a long run: no automatic minor or node upgrade.

    Why a switch: a multi-week training run must not lose nodes to a cloud's
    automatic upgrade. Each cloud wires it into its own maintenance settings
    (docs/day2.md "Freeze during a run"): GKE a NO_MINOR_OR_NODE_UPGRADES maintenance
    exclusion from ``start`` to ``end``; AKS both auto-upgrade channels off; DOKS
    auto-upgrade off; EKS and OKE never upgrade a cluster or its managed nodes by
    themselves, so nothing changes there. Remove it after the run.
    """

    start: str = Field(description="RFC 3339 UTC start, e.g. 2026-12-01T00:00:00Z")
    end: str | None = Field(
        default=None,
        description="RFC 3339 UTC end (GKE: unset means until the minor version's end of "
        "support); the other clouds stay frozen while the field is set",
    )

    @field_validator("start", "end")
    @classmethod
    def _time(cls, value: str | None) -> str | None:
        if value is not None and not _RFC3339_UTC.match(value):
            raise _fail("freeze_time", "'{value}' is not an RFC 3339 UTC time like "
                        "2026-12-01T00:00:00Z", value=value)
        return value

    @model_validator(mode="after")
    def _ordered(self) -> Self:
        if self.end is not None and self.end <= self.start:
            raise _fail("freeze_order", "freeze.end {end} is not after freeze.start {start}",
                        end=self.end, start=self.start, at="end", got=self.end)
        return self


class KubernetesSpec(SpecModel):
    version: str = Field(
        default="1.34",
        description="Kubernetes version: 'major.minor' or the cloud's full version string "
        "(e.g. 1.34.1-gke.1829001). DRA uses resource.k8s.io/v1 from 1.34.",
    )
    auto_upgrade: bool = Field(
        default=False,
        description="Let the cloud upgrade control plane/nodes automatically (off: a GPU pool "
        "upgrade drains running jobs)",
    )
    freeze: FreezeSpec | None = Field(
        default=None,
        description="Freeze the cluster during a long run: no automatic minor or node "
        "upgrade on any cloud (docs/day2.md)",
    )

    @field_validator("version")
    @classmethod
    def _version(cls, value: str) -> str:
        return _supported_version(value)

    @property
    def parsed(self) -> KubeVersion:
        return KubeVersion.parse(self.version)

    @property
    def upgrades_automatically(self) -> bool:
        """``auto_upgrade`` unless the cluster is frozen (``freeze``): what every cloud's
        auto-upgrade settings follow."""
        return self.auto_upgrade and self.freeze is None


def _supported_version(value: str) -> str:
    """A Kubernetes version this library supports (1.30 and later)."""
    try:
        parsed = KubeVersion.parse(value)
    except ValueError as exc:
        raise _fail("k8s_version", str(exc)) from None
    if parsed < KubeVersion(1, 30):
        raise _fail(
            "k8s_version_old",
            "Kubernetes {version} is too old; this library supports 1.30 and later "
            "(1.34+ for DRA resource.k8s.io/v1)",
            version=value,
        )
    return value


# -- networks ----------------------------------------------------------------
class NetworkSpec(SpecModel):
    """Address plan. Ranges must not overlap; fabric subnets are carved from ``fabric_cidr``."""

    cidr: Cidr = Field(
        default=ipaddress.IPv4Network("10.0.0.0/16"),
        description="Primary network (VPC/VNet/VCN) range for nodes",
    )
    pod_cidr: Cidr | None = Field(default=None, description="Pod range where the cloud needs one")
    service_cidr: Cidr | None = Field(default=None, description="Service range")
    fabric_cidr: Cidr = Field(
        default=ipaddress.IPv4Network("192.168.0.0/16"),
        description="Base range for fabric subnets (one non-overlapping subnet per rail)",
    )
    fabric_subnet_prefix: int = Field(
        default=24, ge=16, le=29, description="Prefix length of each per-rail fabric subnet"
    )

    @field_validator("cidr", "pod_cidr", "service_cidr", "fabric_cidr", mode="before")
    @classmethod
    def _strict_cidr(cls, value: Any) -> Any:
        return _checked_cidr(value)

    @model_validator(mode="after")
    def _no_overlaps(self) -> Self:
        _check_network(self)
        return self


def _checked_cidr(value: Any) -> Any:
    """A CIDR string with its host bits zero (pydantic alone would accept 10.0.0.1/16)."""
    if isinstance(value, str):
        try:
            ipaddress.IPv4Network(value, strict=True)
        except ValueError as exc:
            raise _fail(
                "cidr",
                "'{value}' is not a valid IPv4 CIDR ({reason}); write it like 10.0.0.0/16",
                value=value,
                reason=str(exc),
            ) from None
    return value


# Special-purpose IPv4 ranges no cloud network, pod or service range may use (IANA
# IPv4 Special-Purpose Address Registry, RFC 6890: "this network", loopback,
# link-local, multicast, reserved; RFC 5737 documentation TEST-NETs).
SPECIAL_RANGES = {
    "0.0.0.0/8": "'this network'", "127.0.0.0/8": "loopback",
    "169.254.0.0/16": "link-local", "224.0.0.0/4": "multicast", "240.0.0.0/4": "reserved",
    "192.0.2.0/24": "documentation (TEST-NET-1)", "198.51.100.0/24": "documentation "
    "(TEST-NET-2)", "203.0.113.0/24": "documentation (TEST-NET-3)",
}


def _special_range(net: ipaddress.IPv4Network) -> str | None:
    for cidr, what in SPECIAL_RANGES.items():
        if net.overlaps(ipaddress.IPv4Network(cidr)):
            return f"{cidr} ({what})"
    return None


def _check_network(network: NetworkSpec) -> None:
    """The ranges are disjoint, none special-purpose, and the per-rail prefix fits
    inside fabric_cidr."""
    named = [
        (n, getattr(network, n))
        for n in ("cidr", "pod_cidr", "service_cidr", "fabric_cidr")
        if getattr(network, n) is not None
    ]
    for name, net in named:
        special = _special_range(net)
        if special:
            raise _fail(
                "cidr_special",
                "network.{n} {v} overlaps the special-purpose range {s}, which no cloud "
                "routes as a network; use private ranges (10.0.0.0/8, 172.16.0.0/12, "
                "192.168.0.0/16) or 100.64.0.0/10",
                n=name, v=str(net), s=special, at=name, got=str(net),
            )
    for i, (name_a, a) in enumerate(named):
        for name_b, b in named[i + 1 :]:
            if a.overlaps(b):
                raise _fail(
                    "cidr_overlap",
                    "network.{a} {va} overlaps network.{b} {vb}; choose disjoint ranges",
                    a=name_a, va=str(a), b=name_b, vb=str(b),
                    at=name_b, got=str(b),
                )
    if network.fabric_subnet_prefix < network.fabric_cidr.prefixlen:
        raise _fail(
            "fabric_prefix",
            "fabric_subnet_prefix /{p} is larger than fabric_cidr {c}; use a prefix of at "
            "least /{min}",
            p=network.fabric_subnet_prefix, c=str(network.fabric_cidr),
            min=network.fabric_cidr.prefixlen,
            at="fabric_subnet_prefix", got=network.fabric_subnet_prefix,
        )


class KubeconfigSource(SpecModel):
    """Where an existing cluster's kubeconfig comes from (exactly one)."""

    config_key: str | None = Field(
        default=None,
        description="Pulumi config key holding the kubeconfig as a secret "
        "(pulumi config set --secret <key> ...)",
    )
    path: str | None = Field(default=None, description="Path of a kubeconfig file")
    context: str | None = Field(default=None, description="Context to use (default: current)")

    @model_validator(mode="after")
    def _one(self) -> Self:
        _check_kubeconfig_source(self)
        return self


def _check_kubeconfig_source(source: KubeconfigSource) -> None:
    if (source.config_key is None) == (source.path is None):
        raise _fail(
            "kubeconfig_source", "set exactly one of kubeconfig.config_key or kubeconfig.path"
        )


class ExistingClusterSpec(SpecModel):
    """Install only the fabric layer on a cluster that already runs."""

    kubeconfig: KubeconfigSource


# -- the whole cluster -------------------------------------------------------------
# One section per registered cloud, named after its value (``gcp:``...), typed by the
# cloud's provider (``options_model``); the cluster model is made with them below.
_SECTIONS = tuple(c.value for c in clouds())


class ClusterSpecBase(SpecModel):
    """Everything a stack declares about one GPU cluster."""

    name: str = Field(description="Cluster name (lowercase DNS label, <= 40 chars)")
    cloud: Cloud
    location: LocationSpec
    kubernetes: KubernetesSpec = KubernetesSpec()
    network: NetworkSpec = NetworkSpec()
    system_pool: SystemPoolSpec = SystemPoolSpec()
    node_pools: list[GpuNodePoolSpec] = Field(description="GPU node pools (at least one)")
    fabric: FabricSpec = FabricSpec()
    addons: AddonsSpec = AddonsSpec()
    tenancy: TenancySpec = TenancySpec()
    acceptance: AcceptanceSpec = AcceptanceSpec()
    health: HealthSpec = HealthSpec()
    existing: ExistingClusterSpec | None = Field(
        default=None, description="Use a running cluster instead of creating one"
    )
    tags: dict[str, str] = Field(
        default_factory=dict, description="Labels/tags for every cloud resource that takes them"
    )
    api_access: ApiAccessSpec | None = Field(
        default=None,
        description="Who may reach the API server (required for clusters this stack creates; "
        "see gpu_fabric.security)",
    )
    secrets_encryption: SecretsEncryptionSpec | None = Field(
        default=None, description="Encrypt Kubernetes Secrets at rest with your own KMS key"
    )

    def __init__(self, /, **data: Any) -> None:
        # Fill the validation context from the raw input so that nested models can
        # check cloud- and version-specific rules in the same pass.
        self.__pydantic_validator__.validate_python(
            data, self_instance=self, context=_context_from(data)
        )

    @field_validator("name")
    @classmethod
    def _name(cls, value: str) -> str:
        return _dns_label(value, 40)

    @field_validator("node_pools")
    @classmethod
    def _pools(cls, value: list[GpuNodePoolSpec]) -> list[GpuNodePoolSpec]:
        return _unique_pools(value)

    # "before": a section of another cloud is refused as such, not checked against its
    # own schema first (a `gcp:` block on an AWS cluster used to say gcp.project missing).
    @field_validator(*_SECTIONS, mode="before", check_fields=False)
    @classmethod
    def _section_matches_cloud(cls, value: Any, info: ValidationInfo) -> Any:
        return _section_of_cloud(value, info.field_name, _ctx_cloud(info))

    @model_validator(mode="after")
    def _cross_checks(self) -> Self:
        _check_cross_fields(self)
        return self

    # -- conveniences ----------------------------------------------------
    @property
    def options(self) -> Any:
        """The cloud section (``spec.gcp`` for a GCP cluster...), or None."""
        return getattr(self, self.cloud.value)

    def pool(self, name: str) -> GpuNodePoolSpec:
        for p in self.node_pools:
            if p.name == name:
                return p
        pools = ", ".join(p.name for p in self.node_pools)
        raise KeyError(f"no node pool '{name}'; pools: {pools}")

    @property
    def fabric_pools(self) -> list[GpuNodePoolSpec]:
        return [p for p in self.node_pools if p.machine.has_fabric]


def _with_cloud_sections() -> type[ClusterSpecBase]:
    """:class:`ClusterSpecBase` and one optional section per registered cloud, last."""
    sections: dict[str, Any] = {
        cloud.value: (provider_for(cloud).options_model | None, None) for cloud in clouds()
    }
    return create_model(
        "ClusterSpec", __base__=ClusterSpecBase, __module__=__name__,
        __doc__=ClusterSpecBase.__doc__, **sections,
    )


# The type checker sees the base: code outside a cloud's folder never reads a cloud
# section, and a cloud's own code reads ``spec.options`` into its options type.
if TYPE_CHECKING:
    ClusterSpec = ClusterSpecBase
else:
    ClusterSpec = _with_cloud_sections()


def _unique_pools(pools: list[GpuNodePoolSpec]) -> list[GpuNodePoolSpec]:
    """At least one pool, and pool names that name one pool each."""
    if not pools:
        raise _fail("empty_pools", "node_pools is empty; declare at least one GPU node pool")
    names = [p.name for p in pools]
    dupes = sorted({n for n in names if names.count(n) > 1})
    if dupes:
        raise _fail(
            "duplicate_pool", "pool names must be unique; repeated: {d}", d=", ".join(dupes)
        )
    return pools


def _section_of_cloud(value: Any, section: str | None, cloud: Cloud | None) -> Any:
    """A cloud section (``gcp:``, ``aws:``...) is only given for the cluster's own cloud."""
    if value is not None and cloud is not None and section != cloud.value:
        raise _fail(
            "wrong_section",
            "section '{s}' is for another cloud: this cluster's cloud is '{c}'; move its "
            "settings to '{c}:' or remove it",
            s=section, c=cloud.value,
        )
    return value


def _check_cross_fields(spec: ClusterSpec) -> None:
    """One error carrying every cross-section problem (loading unpacks them, one per path)."""
    problems = _cross_field_problems(spec)
    if problems:
        raise _fail(
            "cross_field",
            "{summary}",
            summary="; ".join(str(p) for p in problems),
            problems=[p.as_dict() for p in problems],
        )


def _cross_field_problems(spec: ClusterSpec) -> list[Problem]:
    """Checks that need several sections at once (run after every field is valid)."""
    out: list[Problem] = security_problems(spec)
    out += provider_for(spec.cloud).location_problems(spec.location.region, spec.location.zone)
    pool_names = {p.name for p in spec.node_pools}
    if spec.existing is None and spec.options is None and provider_for(spec.cloud).options_required:
        out.append(Problem(
            spec.cloud.value,
            f"section '{spec.cloud.value}:' is required to create {spec.cloud.a_display} cluster "
            "(or set 'existing:' to use a running one)",
        ))
    if spec.acceptance.enabled:
        target = spec.acceptance.pool or spec.node_pools[0].name
        if target not in pool_names:
            out.append(Problem("acceptance.pool", f"no node pool named '{target}'", target, True))
        else:
            pool = spec.pool(target)
            nodes = max(pool.node_count, pool.max_nodes or 0)
            if spec.acceptance.nodes > nodes:
                out.append(Problem(
                    "acceptance.nodes",
                    f"pool '{target}' has at most {nodes} nodes", spec.acceptance.nodes, True,
                ))
            gpn = spec.acceptance.gpus_per_node
            if gpn is not None and gpn > pool.machine.gpus:
                out.append(Problem(
                    "acceptance.gpus_per_node",
                    f"{pool.machine_type} has {pool.machine.gpus} GPUs per node", gpn, True,
                ))
    for i, team in enumerate(spec.tenancy.teams):
        # A quota no pool can fill is a promise Kueue cannot keep (a million-GPU team).
        usable = [p for p in spec.node_pools if not team.node_pools or p.name in team.node_pools]
        most = sum(max(p.node_count, p.max_nodes or 0) * p.machine.gpus for p in usable)
        if usable and team.gpus > most:
            out.append(Problem(
                f"tenancy.teams[{i}].gpus",
                f"team '{team.name}' is given {team.gpus} GPUs, but its pools hold at most "
                f"{most} ({', '.join(p.name for p in usable)} at their largest size)",
                team.gpus, True,
            ))
        for pool_name in team.node_pools:
            if pool_name not in pool_names:
                out.append(Problem(
                    f"tenancy.teams[{i}].node_pools",
                    f"no node pool named '{pool_name}'; pools: {', '.join(sorted(pool_names))}",
                    pool_name, True,
                ))
    for name, reserved in provider_for(spec.cloud).reserved_cidrs().items():
        net = getattr(spec.network, name, None)
        for cidr in reserved:
            if net is not None and net.overlaps(ipaddress.IPv4Network(cidr)):
                out.append(Problem(f"network.{name}", f"overlaps {cidr}, which "
                                   f"{spec.cloud.display} reserves", str(net), True))
    rules = provider_for(spec.cloud).tag_rules()
    if rules is not None and spec.existing is None:
        for key, problem in values.tag_problems(spec.tags, rules):
            out.append(Problem(f"tags.{key}" if key else "tags",
                               f"{spec.cloud.display} {problem}",
                               spec.tags.get(key, len(spec.tags)), True))
    if spec.existing is None:  # created pools: the labels become the kubelet's --node-labels
        for i, pool in enumerate(spec.node_pools):
            for key in pool.labels:
                refused = values.node_label_key(key)
                if refused:
                    out.append(Problem(f"node_pools[{i}].labels.{key}", f"node label {refused}",
                                       key, True))
    out += _quota_total_problems(spec)
    team_names = [t.name for t in spec.tenancy.teams]
    if len(set(team_names)) != len(team_names):
        out.append(Problem("tenancy.teams", "team names must be unique"))
    out += _nvlink_problems(spec)
    out += _mode_problems(spec)
    machines = {p.machine.fabric for p in spec.fabric_pools}
    if spec.fabric.mode is AttachMode.DRA and any(
        f in (FabricKind.TCPX, FabricKind.TCPXO) for f in machines
    ):
        out.append(Problem(
            "fabric.mode",
            "GPUDirect-TCPX/TCPXO machines (A3 High / A3 Mega) use GKE multi-networking, not "
            "DRA; use mode device-plugin or auto",
            "dra", True,
        ))
    return out


def _quota_total_problems(spec: ClusterSpec) -> list[Problem]:
    """The teams' quotas together fit the cluster (issue 34): every team is in one Kueue
    cohort (gpu_fabric.platform.kueue), whose nominal quotas add up to what Kueue admits,
    so quotas beyond the nodes' GPUs admit jobs no node can run."""
    teams = spec.tenancy.teams
    if len(teams) < 2:
        return []  # one team: its own check above says the same
    total = sum(t.gpus for t in teams)
    most = sum(max(p.node_count, p.max_nodes or 0) * p.machine.gpus for p in spec.node_pools)
    if total <= most:
        return []
    each = ", ".join(f"{t.name}: {t.gpus}" for t in teams)
    return [Problem(
        "tenancy.teams",
        f"the teams' GPU quotas add up to {total} ({each}), but the cluster's node pools "
        f"hold at most {most} GPUs at their largest size; lower the quotas or add nodes",
        total, True,
    )]


# nvidia-dra-driver-gpu 25.12.0 Chart.yaml: kubeVersion ">=1.32.0-0" (DRA).
DRA_DRIVER_MIN_VERSION = KubeVersion(1, 32)


def _nvlink_problems(spec: ClusterSpec) -> list[Problem]:
    """A multi-node NVLink pool (GB200/GB300) gets its pods' IMEX channels from the NVIDIA
    DRA driver's ComputeDomains in every fabric mode: refuse what leaves them without."""
    from gpu_fabric.fabric.addons import NVIDIA_DRA_DRIVER

    out: list[Problem] = []
    for i, pool in enumerate(spec.node_pools):
        if not pool.machine.nvlink_domain:
            continue
        if spec.kubernetes.parsed < DRA_DRIVER_MIN_VERSION:
            out.append(Problem(
                "kubernetes.version",
                f"pool '{pool.name}' ({pool.machine_type}) runs NCCL over multi-node NVLink, "
                "which needs an IMEX channel from a ComputeDomain of the NVIDIA DRA driver "
                "(nvidia-dra-driver-gpu 25.12.0 needs Kubernetes 1.32 or later); every "
                "fabric mode (auto, device-plugin, dra) gives it from 1.32",
                spec.kubernetes.version, True,
            ))
        if spec.addons.choice(NVIDIA_DRA_DRIVER).enabled is False and spec.existing is None:
            out.append(Problem(
                f"addons.{NVIDIA_DRA_DRIVER.key}.enabled",
                f"pool '{pool.name}' ({pool.machine_type}) runs NCCL over multi-node NVLink "
                f"(node_pools[{i}]): its pods need an IMEX channel, which only the NVIDIA DRA "
                "driver's ComputeDomains give on a cluster this library creates; leave the "
                "add-on on (it serves compute domains only, beside the device plugin, in "
                "device-plugin mode)",
                False, True,
            ))
    return out


def _mode_problems(spec: ClusterSpec) -> list[Problem]:
    """Settings the attach mode would silently ignore (issue 34): a ResourceClaimTemplate
    for more GPUs than any machine has is skipped, so the claim a job asks for is not
    there. Only counts the spec gives are judged (the default 1, 2, 4, 8 is trimmed to
    the machines by the layer)."""
    out: list[Problem] = []
    fabric = spec.fabric
    if "claim_gpu_counts" in fabric.model_fields_set and spec.node_pools:
        most = max(p.machine.gpus for p in spec.node_pools)
        big = [n for n in fabric.claim_gpu_counts if n > most]
        if big:
            out.append(Problem("fabric.claim_gpu_counts",
                               f"{', '.join(map(str, big))} GPUs per claim: the largest "
                               f"machine of this cluster has {most} GPUs", big, True))
    return out


def _context_from(data: Mapping[str, Any]) -> dict[str, Any]:
    ctx: dict[str, Any] = {}
    with contextlib.suppress(ValueError):
        ctx["cloud"] = Cloud(str(data.get("cloud")))
    k8s = data.get("kubernetes")
    version = k8s.get("version") if isinstance(k8s, Mapping) else None
    if version is None and isinstance(k8s, KubernetesSpec):
        version = k8s.version
    with contextlib.suppress(ValueError):
        ctx["kubernetes_version"] = KubeVersion.parse(
            str(version) if version is not None else KubernetesSpec().version
        )
    return ctx
