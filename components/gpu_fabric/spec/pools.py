"""Node pools: GPU pools (machine, capacity, placement, MIG, taints) and the system pool."""

from __future__ import annotations

from typing import Literal, Self

from pydantic import (
    Field,
    ValidationInfo,
    field_validator,
    model_validator,
)

from gpu_fabric import catalog
from gpu_fabric.catalog import Cloud, Machine
from gpu_fabric.clouds.registry import provider_for
from gpu_fabric.spec import values
from gpu_fabric.spec.base import SpecModel, _ctx_cloud, _dns_label, _fail

# -- node pools ------------------------------------------------------------------
# /dev/shm of a fabric pod when the pool sets none (the size fabric pods always had).
DEFAULT_SHM_SIZE = "64Gi"


class TaintSpec(SpecModel):
    key: str
    value: str = ""
    effect: Literal["NoSchedule", "PreferNoSchedule", "NoExecute"] = "NoSchedule"

    @field_validator("key")
    @classmethod
    def _key(cls, value: str) -> str:
        problem = values.label_key(value)
        if problem:
            raise _fail("taint_key", "taint key {p} (a taint key is a Kubernetes label key: "
                        "[DNS-subdomain prefix/]name)", p=problem, got=value)
        return value

    @field_validator("value")
    @classmethod
    def _value(cls, value: str) -> str:
        problem = values.label_value(value)
        if problem:
            raise _fail("taint_value", "taint value {p} (a taint value is a Kubernetes "
                        "label value)", p=problem, got=value)
        return value


CapacityType = Literal[
    "on_demand", "spot", "reservation", "capacity_block", "flex_start", "queued"
]
class CapacitySpec(SpecModel):
    """How GPU capacity is obtained.

    ``reservation`` names a GCP specific reservation, an AWS On-Demand Capacity
    Reservation or Capacity Block id (``cr-...``) or an OCI capacity reservation OCID.
    """

    type: CapacityType = "on_demand"
    reservation: str | None = None

    @model_validator(mode="after")
    def _fits(self, info: ValidationInfo) -> Self:
        _check_capacity(self, _ctx_cloud(info))
        return self


def _check_capacity(capacity: CapacitySpec, cloud: Cloud | None) -> None:
    """The capacity type exists on the cloud; a reservation is given exactly when it is used."""
    offered = provider_for(cloud).capacity_types if cloud is not None else (capacity.type,)
    if cloud is not None and capacity.type not in offered:
        raise _fail(
            "capacity_type",
            "capacity type '{t}' is not available on {cloud}; valid: {valid}",
            t=capacity.type, cloud=cloud.display, valid=", ".join(offered),
            at="type", got=capacity.type,
        )
    needs = capacity.type in ("reservation", "capacity_block")
    if needs and not capacity.reservation:
        raise _fail(
            "reservation_missing",
            "capacity type '{t}' needs capacity.reservation (the reservation name or id)",
            t=capacity.type,
            at="reservation",
        )
    if not needs and capacity.reservation:
        raise _fail(
            "reservation_unused",
            "capacity.reservation is only used with type reservation or capacity_block "
            "(type is '{t}')",
            t=capacity.type,
            at="reservation", got=capacity.reservation,
        )
    if cloud is not None:
        provider_for(cloud).check_capacity(capacity)


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
    shm_size: str = Field(
        default=DEFAULT_SHM_SIZE,
        description="Size of the memory-backed /dev/shm (emptyDir medium Memory, sizeLimit) "
        "every fabric pod of the pool gets (the injection policy, the pod fragment, the NCCL "
        "acceptance pods): a Kubernetes binary quantity, a whole number of Ki, Mi, Gi or Ti "
        "above zero, at most the machine's memory where the catalog knows it. The tmpfs is "
        "charged to the pod's memory: nothing here sets a memory limit on fabric pods; where "
        "a job sets limits, /dev/shm is capped at the sum of its containers' memory limits",
    )

    @field_validator("name")
    @classmethod
    def _name(cls, value: str, info: ValidationInfo) -> str:
        return _pool_name(value, _ctx_cloud(info))

    @field_validator("machine_type")
    @classmethod
    def _machine(cls, value: str, info: ValidationInfo) -> str:
        return _machine_type(value, _ctx_cloud(info))

    @field_validator("labels")
    @classmethod
    def _labels(cls, value: dict[str, str]) -> dict[str, str]:
        return _node_labels(value)

    @field_validator("shm_size", mode="before")
    @classmethod
    def _shm_size_text(cls, value: object) -> object:
        if not isinstance(value, str):  # `shm_size: 250` in YAML: say what is valid
            raise _fail("shm_size", "shm_size {v} {p}", v=str(value),
                        p=values.binary_quantity(str(value)), got=value)
        return value

    @field_validator("shm_size")
    @classmethod
    def _shm_size(cls, value: str) -> str:
        return _shm_quantity(value)

    @field_validator("taints")
    @classmethod
    def _taints(cls, value: list[TaintSpec]) -> list[TaintSpec]:
        return _unique_taints(value)

    @model_validator(mode="after")
    def _matches_catalog(self, info: ValidationInfo) -> Self:
        _check_pool(self, _ctx_cloud(info))
        return self

    @property
    def machine(self) -> Machine:
        """The catalog entry (the pool is validated against the cluster's cloud)."""
        return catalog.get_machine(self.machine_type)


def _pool_name(value: str, cloud: Cloud | None) -> str:
    """A DNS label of at most 40 characters, and what the cloud asks of a pool name."""
    if cloud is not None:
        provider_for(cloud).check_pool_name(value)
    return _dns_label(value, 40)


def _machine_type(value: str, cloud: Cloud | None) -> str:
    """A machine of the cluster's cloud in the catalog (the catalog's error lists them)."""
    if cloud is not None:
        try:
            catalog.get_machine(value, cloud)
        except catalog.UnknownMachineError as exc:
            raise _fail("machine_type", str(exc)) from None
    return value


def _shm_quantity(value: str) -> str:
    """A memory size Kubernetes reads as an emptyDir ``sizeLimit`` (the machine's memory
    bound is checked with the machine, :func:`_check_shm_fits`)."""
    problem = values.binary_quantity(value)
    if problem:
        raise _fail("shm_size", "shm_size '{v}' {p}", v=value, p=problem, got=value)
    return value


def _node_labels(value: dict[str, str]) -> dict[str, str]:
    """Label keys and values the API server accepts (on a created cluster the keys must
    also be ones the kubelet sets: ``ClusterSpec``'s cross checks)."""
    found = values.first_problem(value, values.label_key, values.label_value)
    if found:
        key, problem = found
        kind = "label_key" if values.label_key(key) else "label_value"
        raise _fail(kind, "node label {p}", p=problem, at=key, got=value[key])
    return value


def _unique_taints(taints: list[TaintSpec]) -> list[TaintSpec]:
    """Taints unique by key and effect, as the API server requires of a node."""
    dupes = values.duplicate_taints((t.key, t.effect) for t in taints)
    if dupes:
        raise _fail(
            "duplicate_taint",
            "taints must be unique by key and effect; repeated: {d}",
            d=", ".join(f"{k}:{e}" for k, e in dupes),
        )
    return taints


def _check_pool(pool: GpuNodePoolSpec, cloud: Cloud | None) -> None:
    """The pool agrees with its catalog machine: counts, fabric, sizes, MIG profile."""
    if cloud is None:
        return
    try:
        machine = catalog.get_machine(pool.machine_type, cloud)
    except catalog.UnknownMachineError:
        return  # already reported on machine_type
    if pool.gpus_per_node is not None and pool.gpus_per_node != machine.gpus:
        raise _fail(
            "gpu_count",
            "gpus_per_node {n} does not match {m}, which has {g} GPUs; remove it or set {g}",
            n=pool.gpus_per_node, m=machine.name, g=machine.gpus,
            at="gpus_per_node", got=pool.gpus_per_node,
        )
    if pool.fabric_nics is not None and pool.fabric_nics != machine.fabric_nics:
        raise _fail(
            "nic_count",
            "fabric_nics {n} does not match {m}, which has {k} fabric NICs; remove it or "
            "set {k}",
            n=pool.fabric_nics, m=machine.name, k=machine.fabric_nics,
            at="fabric_nics", got=pool.fabric_nics,
        )
    multi_node = pool.node_count > 1 or (pool.max_nodes or 0) > 1
    if multi_node and not machine.has_fabric:
        fabric = ", ".join(catalog.machine_names(cloud, fabric_only=True))
        raise _fail(
            "no_fabric",
            "{m} has no scale-out GPU fabric, so a multi-node pool of it would run NCCL "
            "over plain TCP; use a fabric machine ({valid}) or node_count 1",
            m=machine.name, valid=fabric,
            at="machine_type", got=pool.machine_type,
        )
    if pool.node_count == 0 and pool.max_nodes is None:
        raise _fail(
            "empty_pool",
            "node_count 0 without autoscaling makes a pool that never has a node; set "
            "node_count >= 1, or min_nodes: 0 and max_nodes: N for a pool that scales "
            "up from zero when jobs wait for it",
            at="node_count", got=pool.node_count,
        )
    if pool.min_nodes is not None and pool.max_nodes is not None:
        if not pool.min_nodes <= pool.node_count <= pool.max_nodes:
            raise _fail(
                "autoscaling",
                "need min_nodes <= node_count <= max_nodes (got {a} <= {b} <= {c})",
                a=pool.min_nodes, b=pool.node_count, c=pool.max_nodes,
                at="node_count", got=pool.node_count,
            )
    elif (pool.min_nodes is None) != (pool.max_nodes is None):
        raise _fail(
            "autoscaling", "set both min_nodes and max_nodes, or neither", at="min_nodes"
        )
    if pool.gpu_taint:
        gpu = provider_for(cloud).gpu_taint(machine.gpu.vendor)
        for i, t in enumerate(pool.taints):
            if (t.key, t.effect) == (gpu.key, gpu.effect):
                raise _fail(
                    "duplicate_taint",
                    "taint {k}:{e} is the cloud's GPU taint, which the pool already gets "
                    "(gpu_taint: true); taints must be unique by key and effect: remove it, "
                    "or set gpu_taint: false",
                    k=t.key, e=t.effect, at=f"taints[{i}]", got=t.key,
                )
    _check_shm_fits(pool, machine)
    if pool.mig is not None:
        profiles = machine.gpu.mig_profiles
        if not profiles:
            raise _fail(
                "mig_unsupported",
                "{gpu} ({m}) does not support MIG in this catalog; remove mig",
                gpu=machine.gpu.model, m=machine.name,
                at="mig",
            )
        if pool.mig.profile not in profiles:
            raise _fail(
                "mig_profile",
                "MIG profile '{p}' does not exist on {gpu}; valid: {valid}",
                p=pool.mig.profile, gpu=machine.gpu.model, valid=", ".join(profiles),
                at="mig.profile", got=pool.mig.profile,
            )


def _check_shm_fits(pool: GpuNodePoolSpec, machine: Machine) -> None:
    """/dev/shm no larger than the machine's memory, where the catalog knows it: the tmpfs
    is charged to the pod's memory, so a larger one can never be filled (no figure: the
    quantity check alone)."""
    memory = machine.host_memory_gib
    if memory is None or values.binary_quantity(pool.shm_size):
        return
    if values.binary_quantity_bytes(pool.shm_size) > memory * values.BINARY_UNITS["Gi"]:
        raise _fail(
            "shm_size",
            "shm_size {v} is more than the {mem}Gi of memory of {m}; the memory-backed "
            "/dev/shm is charged to the pod's memory: set at most {mem}Gi",
            v=pool.shm_size, mem=memory, m=machine.name,
            at="shm_size", got=pool.shm_size,
        )


class SystemPoolSpec(SpecModel):
    """Small CPU pool for system pods and operators (never on GPU nodes)."""

    machine_type: str | None = Field(default=None, description="Default: the cloud's default")
    node_count: int = Field(default=2, ge=1, le=100)

    @field_validator("machine_type")
    @classmethod
    def _machine(cls, value: str | None, info: ValidationInfo) -> str | None:
        return _system_machine(value, _ctx_cloud(info))


def _system_machine(value: str | None, cloud: Cloud | None) -> str | None:
    """A CPU machine type named as the cloud names them (issue 34: any string, another
    cloud's size or a GPU machine used to pass and fail at ``pulumi up``)."""
    problem = system_machine_problem(value, cloud) if value and cloud is not None else None
    if problem:
        raise _fail("system_machine_type", "'{v}' {p}", v=value, p=problem, got=value)
    return value


def system_machine_problem(value: str, cloud: Cloud) -> str | None:
    """Why ``value`` cannot be ``cloud``'s system pool machine, or None: a GPU machine (the
    catalog, then the cloud's GPU families), another cloud's name, or no name of the cloud
    (each provider's ``system_machines``)."""
    from gpu_fabric.clouds.registry import providers

    rules = provider_for(cloud).system_machines()
    for machine in catalog.machines():
        if machine.name != value:
            continue
        if machine.cloud == cloud:
            return (f"is a GPU machine ({machine.gpus} x {machine.gpu.model}); the system "
                    f"pool runs system pods on CPU machines: {rules.shape}")
        return (f"is {machine.cloud.a_display} GPU machine, not {cloud.a_display} machine "
                f"type; {cloud.display} names them {rules.shape}")
    if rules.gpu.fullmatch(value):
        return (f"is a GPU machine type of {cloud.display}; the system pool runs system pods "
                f"on CPU machines: {rules.shape}")
    if not rules.pattern.fullmatch(value):
        others = [p.cloud.display for p in providers()
                  if p.cloud != cloud and p.system_machines().pattern.fullmatch(value)]
        like = f"it looks like {' or '.join(others)} naming; " if others else ""
        return (f"is not {cloud.a_display} machine type name: {like}{cloud.display} names "
                f"them {rules.shape} ({rules.source})")
    if rules.refused is not None and rules.refused.fullmatch(value):
        return f"{rules.refused_why}; use {rules.shape}"
    return None
