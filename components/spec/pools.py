"""Node pools: GPU pools (machine, capacity, placement, MIG, taints) and the system pool."""

from __future__ import annotations

import re
from typing import Literal, Self

from pydantic import (
    Field,
    ValidationInfo,
    field_validator,
    model_validator,
)

from components import catalog
from components.catalog import Cloud, Machine
from components.spec.base import LABEL_KEY, LABEL_VALUE, SpecModel, _ctx_cloud, _dns_label, _fail


# -- node pools ------------------------------------------------------------------
class TaintSpec(SpecModel):
    key: str
    value: str = ""
    effect: Literal["NoSchedule", "PreferNoSchedule", "NoExecute"] = "NoSchedule"

    @field_validator("key")
    @classmethod
    def _key(cls, value: str) -> str:
        if not LABEL_KEY.match(value):
            raise _fail("taint_key", "'{v}' is not a valid taint key (prefix/name)", v=value)
        return value


CapacityType = Literal[
    "on_demand", "spot", "reservation", "capacity_block", "flex_start", "queued"
]
_CAPACITY_BY_CLOUD: dict[Cloud, tuple[str, ...]] = {
    Cloud.GCP: ("on_demand", "spot", "reservation", "flex_start", "queued"),
    Cloud.AWS: ("on_demand", "spot", "reservation", "capacity_block"),
    Cloud.AZURE: ("on_demand", "spot"),
    Cloud.DIGITALOCEAN: ("on_demand",),
    Cloud.OCI: ("on_demand", "reservation", "spot"),
}


class CapacitySpec(SpecModel):
    """How GPU capacity is obtained.

    ``reservation`` names a GCP specific reservation, an AWS On-Demand Capacity
    Reservation or Capacity Block id (``cr-...``) or an OCI capacity reservation OCID.
    """

    type: CapacityType = "on_demand"
    reservation: str | None = None

    @model_validator(mode="after")
    def _fits(self, info: ValidationInfo) -> Self:
        cloud = _ctx_cloud(info)
        if cloud is not None and self.type not in _CAPACITY_BY_CLOUD[cloud]:
            raise _fail(
                "capacity_type",
                "capacity type '{t}' is not available on {cloud}; valid: {valid}",
                t=self.type, cloud=cloud.display, valid=", ".join(_CAPACITY_BY_CLOUD[cloud]),
                at="type", got=self.type,
            )
        needs = self.type in ("reservation", "capacity_block")
        if needs and not self.reservation:
            raise _fail(
                "reservation_missing",
                "capacity type '{t}' needs capacity.reservation (the reservation name or id)",
                t=self.type,
                at="reservation",
            )
        if not needs and self.reservation:
            raise _fail(
                "reservation_unused",
                "capacity.reservation is only used with type reservation or capacity_block "
                "(type is '{t}')",
                t=self.type,
                at="reservation", got=self.reservation,
            )
        if cloud is Cloud.AWS and self.reservation and not self.reservation.startswith("cr-"):
            raise _fail(
                "aws_reservation",
                "AWS capacity reservations and Capacity Blocks have ids like cr-0123456789abcdef0",
                at="reservation", got=self.reservation,
            )
        return self


class MigSpec(SpecModel):
    """MIG partitioning through the GPU Operator's MIG manager."""

    strategy: Literal["single", "mixed"] = "single"
    profile: str = Field(
        description="MIG profile every GPU of the pool is split into, e.g. '1g.10gb' "
        "(must be a profile of the pool's GPU model)",
    )


class GpuNodePoolSpec(SpecModel):
    """A pool of identical GPU nodes that share one fabric."""

    name: str = Field(description="Pool name (lowercase DNS label; at most 12 chars on Azure)")
    machine_type: str = Field(description="Machine type / VM size / shape from the catalog")
    node_count: int = Field(default=2, ge=0, le=1000)
    min_nodes: int | None = Field(default=None, ge=0, description="Autoscaling lower bound")
    max_nodes: int | None = Field(default=None, ge=1, description="Autoscaling upper bound")
    gpus_per_node: int | None = Field(
        default=None, description="Optional check: must equal the catalog's GPU count"
    )
    fabric_nics: int | None = Field(
        default=None, description="Optional check: must equal the catalog's fabric NIC count"
    )
    capacity: CapacitySpec = CapacitySpec()
    placement: Literal["auto", "compact", "none"] = Field(
        default="auto",
        description="compact: GCP COMPACT policy / AWS cluster placement group. auto: compact "
        "unless a reservation already fixes placement",
    )
    labels: dict[str, str] = Field(default_factory=dict)
    taints: list[TaintSpec] = Field(default_factory=list)
    gpu_taint: bool = Field(
        default=True, description="Add the cloud's standard GPU taint so only GPU jobs land here"
    )
    auto_repair: bool = False
    auto_upgrade: bool = False
    disk_size_gb: int | None = Field(default=None, ge=50, le=65536)
    os_image: str | None = Field(
        default=None,
        description="Node image: GCP image_type, AWS ami_type, Azure os_sku, OCI image OCID",
    )
    mig: MigSpec | None = None

    @field_validator("name")
    @classmethod
    def _name(cls, value: str, info: ValidationInfo) -> str:
        if _ctx_cloud(info) is Cloud.AZURE and not re.match(r"^[a-z][a-z0-9]{0,11}$", value):
            raise _fail(
                "azure_pool_name",
                "Azure agent pool names are 1-12 lowercase letters and digits, starting with "
                "a letter (no '-')",
            )
        return _dns_label(value, 40)

    @field_validator("machine_type")
    @classmethod
    def _machine(cls, value: str, info: ValidationInfo) -> str:
        cloud = _ctx_cloud(info)
        if cloud is not None:
            try:
                catalog.get_machine(value, cloud)
            except catalog.UnknownMachineError as exc:
                raise _fail("machine_type", str(exc)) from None
        return value

    @field_validator("labels")
    @classmethod
    def _labels(cls, value: dict[str, str]) -> dict[str, str]:
        for key, val in value.items():
            if not LABEL_KEY.match(key):
                raise _fail("label_key", "'{k}' is not a valid Kubernetes label key", k=key)
            if not LABEL_VALUE.match(val):
                raise _fail(
                    "label_value",
                    "label {k}='{v}' has an invalid value (<=63 chars of [A-Za-z0-9-_.])",
                    k=key, v=val,
                )
        return value

    @model_validator(mode="after")
    def _matches_catalog(self, info: ValidationInfo) -> Self:
        cloud = _ctx_cloud(info)
        if cloud is None:
            return self
        try:
            machine = catalog.get_machine(self.machine_type, cloud)
        except catalog.UnknownMachineError:
            return self  # already reported on machine_type
        if self.gpus_per_node is not None and self.gpus_per_node != machine.gpus:
            raise _fail(
                "gpu_count",
                "gpus_per_node {n} does not match {m}, which has {g} GPUs; remove it or set {g}",
                n=self.gpus_per_node, m=machine.name, g=machine.gpus,
                at="gpus_per_node", got=self.gpus_per_node,
            )
        if self.fabric_nics is not None and self.fabric_nics != machine.fabric_nics:
            raise _fail(
                "nic_count",
                "fabric_nics {n} does not match {m}, which has {k} fabric NICs; remove it or "
                "set {k}",
                n=self.fabric_nics, m=machine.name, k=machine.fabric_nics,
                at="fabric_nics", got=self.fabric_nics,
            )
        multi_node = self.node_count > 1 or (self.max_nodes or 0) > 1
        if multi_node and not machine.has_fabric:
            fabric = ", ".join(catalog.machine_names(cloud, fabric_only=True))
            raise _fail(
                "no_fabric",
                "{m} has no scale-out GPU fabric, so a multi-node pool of it would run NCCL "
                "over plain TCP; use a fabric machine ({valid}) or node_count 1",
                m=machine.name, valid=fabric,
                at="machine_type", got=self.machine_type,
            )
        if self.node_count == 0 and self.max_nodes is None:
            raise _fail(
                "empty_pool",
                "node_count 0 without autoscaling makes a pool that never has a node; set "
                "node_count >= 1, or min_nodes: 0 and max_nodes: N for a pool that scales "
                "up from zero when jobs wait for it",
                at="node_count", got=self.node_count,
            )
        if self.min_nodes is not None and self.max_nodes is not None:
            if not self.min_nodes <= self.node_count <= self.max_nodes:
                raise _fail(
                    "autoscaling",
                    "need min_nodes <= node_count <= max_nodes (got {a} <= {b} <= {c})",
                    a=self.min_nodes, b=self.node_count, c=self.max_nodes,
                    at="node_count", got=self.node_count,
                )
        elif (self.min_nodes is None) != (self.max_nodes is None):
            raise _fail(
                "autoscaling", "set both min_nodes and max_nodes, or neither", at="min_nodes"
            )
        if self.mig is not None:
            profiles = machine.gpu.mig_profiles
            if not profiles:
                raise _fail(
                    "mig_unsupported",
                    "{gpu} ({m}) does not support MIG in this catalog; remove mig",
                    gpu=machine.gpu.model, m=machine.name,
                    at="mig",
                )
            if self.mig.profile not in profiles:
                raise _fail(
                    "mig_profile",
                    "MIG profile '{p}' does not exist on {gpu}; valid: {valid}",
                    p=self.mig.profile, gpu=machine.gpu.model, valid=", ".join(profiles),
                    at="mig.profile", got=self.mig.profile,
                )
        return self

    @property
    def machine(self) -> Machine:
        """The catalog entry (the pool is validated against the cluster's cloud)."""
        return catalog.get_machine(self.machine_type)


class SystemPoolSpec(SpecModel):
    """Small CPU pool for system pods and operators (never on GPU nodes)."""

    machine_type: str | None = Field(default=None, description="Default: the cloud's default")
    node_count: int = Field(default=2, ge=1, le=100)
