"""Who may reach the Kubernetes API server, and which key encrypts its Secrets.

Two cross-cloud spec sections, ``api_access`` and ``secrets_encryption``, and the
one function each cloud's cluster resource reads them through
(:func:`effective_api_access`), so GKE, EKS, AKS, DOKS and OKE cannot disagree on
what "authorized" means.

Why ``api_access`` is required: every managed control plane this library creates
used to answer the whole internet by default (GKE without authorized networks,
EKS with a public endpoint and no ``publicAccessCidrs``, AKS without
``apiServerAccessProfile``, DOKS without a control-plane firewall). A stack now
says who may connect, or is refused at validate, the way cluster-toolkit's GKE
blueprints require ``authorized_cidr``. Opening it to everyone is still possible,
but only through the explicitly named ``allow_public_internet``.

The per-cloud rules (key formats, what each API server cannot do, a cloud
section's own endpoint switch and authorized ranges) are each provider's
(``clouds/<cloud>/provider.py``). Kept free of cloud SDK imports (the spec
imports it).
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Self

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator
from pydantic_core import PydanticCustomError

from gpu_fabric.clouds.registry import provider_for
from gpu_fabric.errors import Problem
from gpu_fabric.strict import strict_int

if TYPE_CHECKING:
    from gpu_fabric.spec import ClusterSpec

# Shorter prefixes than this cover at least 1/256 of the IPv4 internet (0.0.0.0/0, or
# the 0.0.0.0/1 + 128.0.0.0/1 split that slips past "no 0.0.0.0/0" checks).
INTERNET_WIDE_PREFIX = 8
OPEN = "0.0.0.0/0"
FIND_YOUR_ADDRESS = (
    "find the public address `pulumi up` runs from with `curl -s https://checkip.amazonaws.com` "
    "and list it as <address>/32 (or your office/VPN range)"
)


class _Section(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, str_strip_whitespace=True)

    _strict_scalars = field_validator("*", mode="before")(classmethod(strict_int))


# What one /8 holds: more than this in all is "internet-wide", one range or many.
WIDE_ADDRESSES = 2 ** (32 - INTERNET_WIDE_PREFIX)


def total_addresses(nets: list[ipaddress.IPv4Network]) -> int:
    """Addresses the ranges cover together (overlaps counted once)."""
    return sum(n.num_addresses for n in ipaddress.collapse_addresses(nets))


def internet_wide(net: ipaddress.IPv4Network) -> bool:
    """True for ranges that are (a large slice of) the whole internet."""
    return net.prefixlen < INTERNET_WIDE_PREFIX


class ApiAccessSpec(_Section):
    """Who may reach the cluster's Kubernetes API server.

    ``authorized_cidrs`` are the only sources the public endpoint answers (GKE
    master authorized networks, EKS ``publicAccessCidrs``, AKS
    ``authorizedIPRanges``, DOKS control-plane firewall, OKE endpoint security
    list). ``private_endpoint: true`` gives the API server no public endpoint at
    all (GKE private endpoint, EKS private-only, AKS private cluster, OKE private
    endpoint; DOKS has none). The Kubernetes layer is installed from where
    ``pulumi up`` runs, so that machine must be inside an authorized range (or
    inside the network, for a private endpoint).
    """

    authorized_cidrs: list[ipaddress.IPv4Network] = Field(
        default_factory=list,
        description="Networks allowed to reach the API server, e.g. [198.51.100.7/32]; the "
        "machine that runs `pulumi up` must be in one",
    )
    private_endpoint: bool = Field(
        default=False,
        description="No public API endpoint: reachable only from inside the cluster's network "
        "(run `pulumi up` from a VM, VPN or CI runner there). Not available on DOKS",
    )
    allow_public_internet: bool = Field(
        default=False,
        description="Named opt-in: let the whole internet (0.0.0.0/0) reach the API server",
    )

    @field_validator("authorized_cidrs", mode="before")
    @classmethod
    def _strict(cls, value: Any) -> Any:
        if isinstance(value, list):
            for item in value:
                if isinstance(item, str):
                    try:
                        ipaddress.IPv4Network(item, strict=True)
                    except ValueError as exc:
                        raise ValueError(
                            f"'{item}' is not a valid IPv4 CIDR ({exc}); write it like "
                            "198.51.100.7/32"
                        ) from None
        return value

    @model_validator(mode="after")
    def _says_who(self) -> Self:
        if self.allow_public_internet and self.private_endpoint:
            raise ValueError(
                "allow_public_internet and private_endpoint contradict each other; set one"
            )
        if not (self.authorized_cidrs or self.private_endpoint or self.allow_public_internet):
            raise ValueError(
                "api_access must say who may reach the API server: set authorized_cidrs ("
                f"{FIND_YOUR_ADDRESS}) or private_endpoint: true"
            )
        wide = [str(c) for c in self.authorized_cidrs if internet_wide(c)]
        if not wide and total_addresses(self.authorized_cidrs) > WIDE_ADDRESSES:
            # Many ranges each narrower than /8 can still add up to half the internet
            # (128 x /8): judged by the total, not entry by entry (issue 34).
            wide = [f"{len(self.authorized_cidrs)} ranges covering "
                    f"{total_addresses(self.authorized_cidrs)} addresses"]
        if wide and not self.allow_public_internet:
            raise PydanticCustomError(
                "api_internet",
                "{wide} open the API server to (a large part of) the internet; list your own "
                "networks ({find}), or set api_access.allow_public_internet: true to accept "
                "that on purpose",
                {"wide": ", ".join(wide), "find": FIND_YOUR_ADDRESS, "at": "authorized_cidrs",
                 "got": wide},
            )
        return self


_AZURE_VAULT_ID = re.compile(
    r"^/subscriptions/[^/]+/resourceGroups/[^/]+/providers/Microsoft\.KeyVault/vaults/[^/]+$"
)


class SecretsEncryptionSpec(_Section):
    """Encrypt Kubernetes Secrets at rest (envelope encryption) with your own key.

    One setting for every cloud that offers it: GKE application-layer secrets
    encryption (``databaseEncryption``), EKS ``encryptionConfig`` (resources
    ``secrets``), AKS KMS etcd encryption (``azureKeyVaultKms``), OKE ``kmsKeyId``.
    DOKS offers no customer-managed key for Secrets.
    """

    kms_key: str = Field(
        min_length=1,
        description="The key: a Cloud KMS key name (GCP), KMS key ARN (AWS), Key Vault key "
        "identifier with version (Azure) or Vault key OCID (OCI)",
    )
    azure_key_vault_id: str | None = Field(
        default=None,
        description="Azure only: resource id of a Key Vault with public access disabled "
        "(then AKS reaches it over private link); omit for a public vault",
    )

    @field_validator("azure_key_vault_id")
    @classmethod
    def _vault(cls, value: str | None) -> str | None:
        if value is not None and not _AZURE_VAULT_ID.match(value):
            raise ValueError(
                f"'{value}' is not a Key Vault resource id (/subscriptions/SUB/resourceGroups/"
                "RG/providers/Microsoft.KeyVault/vaults/NAME)"
            )
        return value


@dataclass(frozen=True)
class ApiAccess:
    """What a cloud's cluster resource sets: a public endpoint or not, and its sources.

    ``cidrs`` is empty only when the endpoint is private with no extra sources, or
    open to the internet on purpose (``open_to_internet``).
    """

    public: bool
    cidrs: tuple[str, ...]
    open_to_internet: bool

    @property
    def public_cidrs(self) -> list[str]:
        """Sources for a public endpoint (``0.0.0.0/0`` only with the named opt-in)."""
        if self.open_to_internet:
            return [OPEN]
        return list(self.cidrs)


def _legacy_cidrs(spec: ClusterSpec) -> list[str]:
    """Per-cloud lists that predate ``api_access`` (still honoured, merged in)."""
    return provider_for(spec.cloud).legacy_api_cidrs(spec.options)


def effective_api_access(spec: ClusterSpec) -> ApiAccess:
    """The API access every cloud wires (``api_access`` plus the per-cloud lists)."""
    access = spec.api_access
    if access is None:  # only on existing clusters, which create no API server
        return ApiAccess(public=True, cidrs=(), open_to_internet=False)
    cidrs: list[str] = []
    for c in [*(str(c) for c in access.authorized_cidrs), *_legacy_cidrs(spec)]:
        if c not in cidrs and not (access.allow_public_internet and c == OPEN):
            cidrs.append(c)
    # A cloud section may have its own switch (the provider applies it).
    public = provider_for(spec.cloud).public_endpoint(spec.options, not access.private_endpoint)
    return ApiAccess(public=public, cidrs=tuple(cidrs),
                     open_to_internet=access.allow_public_internet and public)


# Whether the spec being loaded is for a program that creates its API server (a stack,
# ``build_cluster``); ``load_spec(..., creates_api_server=False)`` turns it off for a
# program that only adds building blocks to a cluster it does not create.
_CREATES_API_SERVER: ContextVar[bool] = ContextVar("creates_api_server", default=True)


@contextmanager
def loading_for(creates_api_server: bool) -> Iterator[None]:
    """Validate specs inside this block as for a program that does (not) create its API server."""
    token = _CREATES_API_SERVER.set(creates_api_server)
    try:
        yield
    finally:
        _CREATES_API_SERVER.reset(token)


def missing_api_access(spec: ClusterSpec) -> list[Problem]:
    """The refusal of a spec that creates a cluster but says nothing of who may reach it.

    Run where an API server is created (``load_spec`` by default, and again by
    ``preflight.check_spec`` and ``GpuCluster`` before their first resource, for a
    spec that was loaded with ``creates_api_server=False``).
    """
    if spec.existing is not None or spec.api_access is not None:
        return []
    return [Problem(
        "api_access",
        "required: say who may reach the Kubernetes API server. Set api_access."
        f"authorized_cidrs ({FIND_YOUR_ADDRESS}), or api_access.private_endpoint: true and "
        "run `pulumi up` from inside the network; api_access.allow_public_internet: true "
        "opens it to everyone on purpose",
    )]


def security_problems(spec: ClusterSpec) -> list[Problem]:
    """Cross-field checks of ``api_access`` / ``secrets_encryption`` (need the cloud)."""
    out: list[Problem] = missing_api_access(spec) if _CREATES_API_SERVER.get() else []
    access = spec.api_access
    creates = spec.existing is None
    if creates and access is not None:
        out += _access_per_cloud(spec, access)
    enc = spec.secrets_encryption
    if enc is not None:
        out += _encryption_per_cloud(spec, enc)
    return out


def _access_per_cloud(spec: ClusterSpec, access: ApiAccessSpec) -> list[Problem]:
    cloud = spec.cloud
    out = provider_for(cloud).api_access_problems(spec, access)
    wide = [c for c in _legacy_cidrs(spec)
            if internet_wide(ipaddress.IPv4Network(c, strict=False))]
    if wide and not access.allow_public_internet:
        out.append(Problem(
            f"{cloud.value}", f"per-cloud authorized ranges {', '.join(wide)} open the API "
            "server to the internet; list your own networks, or set api_access."
            "allow_public_internet: true on purpose", wide, True,
        ))
    return out


def _encryption_per_cloud(spec: ClusterSpec, enc: SecretsEncryptionSpec) -> list[Problem]:
    if spec.existing is not None:
        return [Problem("secrets_encryption", "only applies to clusters this stack creates; "
                        "configure encryption on the running cluster instead")]
    return provider_for(spec.cloud).encryption_problems(spec, enc)
