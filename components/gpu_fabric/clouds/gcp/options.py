"""The ``gcp:`` section of the cluster spec."""

from __future__ import annotations

import ipaddress
import re
from datetime import datetime, timedelta
from typing import Literal, Self

from pydantic import Field, field_validator, model_validator
from pydantic_core import PydanticCustomError

from gpu_fabric.clouds.options_base import CloudOptions


class GcpExistingNetworks(CloudOptions):
    """Use networks that already exist, by name, instead of creating them."""

    network: str = Field(description="Primary VPC name (nodes, pods, services)")
    subnetwork: str = Field(description="Primary subnet name")
    gvnic_network: str | None = Field(
        default=None, description="Second gVNIC VPC (RDMA machines)"
    )
    gvnic_subnetwork: str | None = None
    rdma_network: str | None = Field(
        default=None, description="RoCE VPC (network profile vpc-roce)"
    )
    rdma_subnetworks: list[str] = Field(default_factory=list, description="One subnet per RDMA NIC")
    gpu_networks: list[str] = Field(
        default_factory=list, description="TCPX/TCPXO: one VPC per GPU NIC (A3 High 4, A3 Mega 8)"
    )
    gpu_subnetworks: list[str] = Field(default_factory=list)

    @field_validator("network", "subnetwork", "gvnic_network", "gvnic_subnetwork",
                     "rdma_network")
    @classmethod
    def _name(cls, value: str | None) -> str | None:
        _gcp_names([value] if value is not None else [])
        return value

    @field_validator("rdma_subnetworks", "gpu_networks", "gpu_subnetworks")
    @classmethod
    def _names(cls, value: list[str]) -> list[str]:
        return _gcp_names(value)


def _gcp_names(names: list[str]) -> list[str]:
    """Names GCP accepts for a network or subnetwork (issue 34): "1-63 characters long and
    match the regular expression [a-z]([-a-z0-9]*[a-z0-9])?"
    (https://cloud.google.com/compute/docs/naming-resources), an RFC 1035 label."""
    from gpu_fabric.spec.values import dns1035_label

    for name in names:
        problem = dns1035_label(name)
        if problem:
            raise ValueError(f"'{name}' is not a GCP resource name: it {problem}")
    return names


_RFC3339 = re.compile(
    r"^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]+)?(Z|[+-][0-9]{2}:[0-9]{2})$"
)


NO_UPGRADES_MAX_DAYS = 30


class GcpMaintenanceExclusion(CloudOptions):
    """A GKE maintenance exclusion (cluster-toolkit gke-cluster ``maintenance_exclusions``;
    examples/gke-a4 and gke-a3-ultragpu use NO_MINOR_OR_NODE_UPGRADES until end of support,
    so reserved GPU nodes are not drained for upgrades)."""

    name: str = Field(description="Exclusion name")
    start_time: str = Field(description="RFC 3339 start, e.g. 2026-12-01T00:00:00Z")
    end_time: str | None = Field(
        default=None, description="RFC 3339 end; unset: until the minor version's end of support"
    )
    scope: Literal["NO_UPGRADES", "NO_MINOR_UPGRADES", "NO_MINOR_OR_NODE_UPGRADES"] = Field(
        default="NO_MINOR_OR_NODE_UPGRADES",
        description="What is excluded; NO_MINOR_OR_NODE_UPGRADES allows control-plane patches only",
    )

    @field_validator("start_time", "end_time")
    @classmethod
    def _time(cls, value: str | None) -> str | None:
        if value is not None and not _RFC3339.match(value):
            raise ValueError(f"'{value}' is not an RFC 3339 time like 2026-12-01T00:00:00Z")
        if value is not None:
            try:  # the shape can still hold a date no calendar has (2026-02-30)
                datetime.fromisoformat(value)
            except ValueError as exc:
                raise ValueError(f"'{value}' is not a real date and time ({exc})") from None
        return value

    @model_validator(mode="after")
    def _window(self) -> Self:
        """The end comes after the start; a NO_UPGRADES exclusion has an end within 30
        days ("No upgrades ... up to 30 days", https://cloud.google.com/kubernetes-engine/
        docs/concepts/maintenance-windows-and-exclusions#scope_of_maintenance_to_exclude)."""
        start = datetime.fromisoformat(self.start_time)
        end = datetime.fromisoformat(self.end_time) if self.end_time else None
        if end is not None and end <= start:
            raise PydanticCustomError(
                "exclusion_window", "end_time is not after start_time {start}",
                {"start": self.start_time, "at": "end_time", "got": self.end_time})
        too_long = end is None or end - start > timedelta(days=NO_UPGRADES_MAX_DAYS)
        if self.scope == "NO_UPGRADES" and too_long:
            raise PydanticCustomError(
                "exclusion_window", "a NO_UPGRADES exclusion lasts at most {days} days: "
                "set end_time within {days} days of start_time",
                {"days": NO_UPGRADES_MAX_DAYS, "at": "end_time", "got": self.end_time})
        return self


class GcpOptions(CloudOptions):
    project: str = Field(description="GCP project id")
    release_channel: Literal["UNSPECIFIED", "RAPID", "REGULAR", "STABLE", "EXTENDED"] = Field(
        default="REGULAR",
        description="REGULAR (cluster-toolkit's GKE blueprints), with node auto-upgrade and, "
        "unless maintenance_exclusions is set, a NO_MINOR_OR_NODE_UPGRADES exclusion until end "
        "of support; UNSPECIFIED allows turning auto-upgrade off (the seed does)",
    )
    private_nodes: bool = Field(default=True, description="Nodes without public IPs")
    master_ipv4_cidr: ipaddress.IPv4Network = Field(
        default=ipaddress.IPv4Network("172.16.0.32/28"),
        description="Control plane range for private clusters (/28)",
    )
    master_authorized_networks: list[ipaddress.IPv4Network] = Field(default_factory=list)
    cloud_nat: bool | None = Field(
        default=None,
        description="Cloud Router + Cloud NAT for the node VPC's region, so private nodes can "
        "pull images outside Google (nvcr.io, registry.k8s.io, reg.kyverno.io). Default: on "
        "for private nodes on networks this stack creates, off on existing networks (their "
        "owner provides egress). false with private nodes: you provide egress yourself",
    )
    multi_networking: bool = Field(
        default=True,
        description="GKE multi-networking; required for every GPU fabric (extra node networks)",
    )
    workload_identity: bool = True
    deletion_protection: bool = True
    gpu_driver_version: Literal["DEFAULT", "LATEST", "INSTALLATION_DISABLED"] | None = Field(
        default=None,
        description="GKE-managed GPU driver; default: DEFAULT, or INSTALLATION_DISABLED when "
        "the GPU Operator installs the driver",
    )
    existing_networks: GcpExistingNetworks | None = None
    maintenance_exclusions: list[GcpMaintenanceExclusion] = Field(
        default_factory=list, max_length=3,
        description="GKE maintenance exclusions (at most 3), e.g. NO_MINOR_OR_NODE_UPGRADES so "
        "GPU nodes are not upgraded (drained) while jobs run",
    )
    maintenance_start_time: str = Field(
        default="09:00", pattern=r"^([01][0-9]|2[0-3]):[0-5][0-9]$",
        description="Daily maintenance window start (GMT, HH:MM) when exclusions are set "
        "(cluster-toolkit gke-cluster default)",
    )
    node_service_account: str | None = Field(
        default=None,
        description="Email of an existing service account for the nodes; default: one is "
        "created with only roles/container.defaultNodeServiceAccount",
    )

    @field_validator("node_service_account")
    @classmethod
    def _service_account(cls, value: str | None) -> str | None:
        if value is not None and not re.match(r"^[^@\s]+@[a-z0-9.-]+\.iam\.gserviceaccount\.com$"
                                              r"|^[^@\s]+@developer\.gserviceaccount\.com$", value):
            raise ValueError(
                f"'{value}' is not a service account email (name@project.iam.gserviceaccount.com)"
            )
        return value

    @field_validator("project")
    @classmethod
    def _project(cls, value: str) -> str:
        if not re.match(r"^[a-z][a-z0-9-]{4,28}[a-z0-9]$", value):
            raise ValueError(
                f"'{value}' is not a GCP project id (6-30 chars: lowercase letters, digits, '-')"
            )
        return value

    @field_validator("master_ipv4_cidr")
    @classmethod
    def _master(cls, value: ipaddress.IPv4Network) -> ipaddress.IPv4Network:
        if value.prefixlen != 28:
            raise ValueError(f"master_ipv4_cidr must be a /28 (got {value})")
        return value
