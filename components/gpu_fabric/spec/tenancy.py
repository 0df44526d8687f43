"""Tenancy and acceptance: teams, quotas, gang scheduling, the NCCL acceptance run."""

from __future__ import annotations

import re
from typing import Literal, Self

from pydantic import (
    Field,
    field_validator,
    model_validator,
)

from gpu_fabric.spec.base import SpecModel, _dns_label, _fail


# -- tenancy and acceptance -------------------------------------------------------
class TeamSpec(SpecModel):
    name: str = Field(description="Team name; becomes its namespace")
    group: str = Field(min_length=1, description="Identity-provider group bound to the team's Role")
    gpus: int = Field(ge=0, description="GPU quota (all pools together)")
    node_pools: list[str] = Field(
        default_factory=list, description="Pools the team may use (empty: all GPU pools)"
    )
    priority: Literal["low", "normal", "high"] = "normal"

    @field_validator("name")
    @classmethod
    def _name(cls, value: str) -> str:
        return _team_namespace(_dns_label(value, 63))


def _team_namespace(name: str) -> str:
    """A team's namespace is its own: not one Kubernetes reserves (``kube-``: "reserved
    for Kubernetes system namespaces", https://kubernetes.io/docs/concepts/overview/
    working-with-objects/namespaces/) nor one an add-on of this project runs in (the
    team's RoleBinding would let its group create Jobs and delete Pods there)."""
    from gpu_fabric.fabric.addons.registry import ADDONS

    system = sorted({a.namespace for a in ADDONS.values()})
    if name.startswith("kube-") or name in system:
        raise _fail(
            "team_namespace",
            "team '{n}' would become the namespace '{n}', which is a system namespace "
            "(kube-* or an add-on's: {system}); name the team after itself",
            n=name, system=", ".join(system),
        )
    return name


class TenancySpec(SpecModel):
    teams: list[TeamSpec] = Field(default_factory=list)
    gang_scheduling: Literal["auto", "kueue", "none"] = Field(
        default="auto", description="auto: Kueue when teams are declared"
    )


Collective = Literal[
    "all_reduce", "all_gather", "reduce_scatter", "alltoall", "broadcast", "reduce", "sendrecv"
]
_SIZE = re.compile(r"^([0-9]+)([KMG]?)\Z")


def parse_size(value: str) -> int:
    """'8', '64K', '1M', '8G' -> bytes (binary multiples, as nccl-tests reads -b/-e)."""
    m = _SIZE.match(value)
    if not m:
        raise ValueError(f"'{value}' is not a size like 64K, 1M or 8G")
    return int(m.group(1)) * {"": 1, "K": 2**10, "M": 2**20, "G": 2**30}[m.group(2)]


class AcceptanceSpec(SpecModel):
    """Optional NCCL acceptance test deployed on the fabric (see gpu_fabric.nccl)."""

    enabled: bool = False
    pool: str | None = Field(default=None, description="GPU pool to test (default: the first)")
    nodes: int = Field(default=2, ge=2)
    gpus_per_node: int | None = Field(default=None, ge=1, description="Default: every GPU")
    collectives: list[Collective] = Field(default_factory=lambda: ["all_reduce"])  # type: ignore[arg-type]
    min_bytes: str = "1M"
    max_bytes: str = "8G"

    @field_validator("min_bytes", "max_bytes")
    @classmethod
    def _size(cls, value: str) -> str:
        return _checked_size(value)

    @model_validator(mode="after")
    def _range(self) -> Self:
        _check_sizes(self)
        return self


def _check_sizes(acceptance: AcceptanceSpec) -> None:
    """max_bytes reaches the 1 GiB rows the verdict judges, and min_bytes <= max_bytes."""
    if parse_size(acceptance.max_bytes) < 2**30:
        raise _fail(
            "max_bytes",
            "max_bytes must be at least 1G: the verdict judges rows >= 1 GiB (got {v})",
            v=acceptance.max_bytes,
            at="max_bytes", got=acceptance.max_bytes,
        )
    if parse_size(acceptance.min_bytes) > parse_size(acceptance.max_bytes):
        raise _fail("size_range", "min_bytes is larger than max_bytes", at="min_bytes",
                    got=acceptance.min_bytes)


def _checked_size(value: str) -> str:
    """A size nccl-tests reads (see :func:`parse_size`)."""
    try:
        parse_size(value)
    except ValueError as exc:
        raise _fail("size", str(exc)) from None
    return value
