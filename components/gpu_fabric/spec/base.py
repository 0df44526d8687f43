"""The spec's shared base: the strict model class, validation helpers, name patterns."""

from __future__ import annotations

import ipaddress
import re
from typing import Annotated, Any

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ValidationInfo,
    field_validator,
)
from pydantic_core import PydanticCustomError

from gpu_fabric.catalog import Cloud
from gpu_fabric.kube_version import KubeVersion
from gpu_fabric.strict import strict_int


class SpecModel(BaseModel):
    """Base of every spec model: unknown keys are errors; instances are immutable."""

    model_config = ConfigDict(extra="forbid", frozen=True, str_strip_whitespace=True)

    _strict_ints = field_validator("*", mode="before")(classmethod(strict_int))


_UNSET: Any = object()


def _fail(
    kind: str, message: str, *, at: str | None = None, got: Any = _UNSET, **ctx: Any
) -> PydanticCustomError:
    """A validation error. ``at``/``got`` point a model-level check at one field and value."""
    if at is not None:
        ctx["at"] = at
    if got is not _UNSET:
        ctx["got"] = got
    return PydanticCustomError(kind, message, ctx or None)


def _ctx_cloud(info: ValidationInfo) -> Cloud | None:
    ctx = info.context or {}
    return ctx.get("cloud")


def _ctx_version(info: ValidationInfo) -> KubeVersion | None:
    ctx = info.context or {}
    return ctx.get("kubernetes_version")


DNS_LABEL = re.compile(r"^[a-z]([-a-z0-9]*[a-z0-9])?\Z")
LABEL_KEY = re.compile(
    r"^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?"
    r"[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$"
)
LABEL_VALUE = re.compile(r"^([A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?)?\Z")
VERSION_PIN = re.compile(r"^v?[0-9]+\.[0-9]+(\.[0-9]+)?([-+.][0-9A-Za-z.+-]+)?\Z")


def _dns_label(value: str, max_len: int) -> str:
    if len(value) > max_len or not DNS_LABEL.match(value):
        raise _fail(
            "dns_label",
            "must be a lowercase DNS label: letters, digits and '-', starting with a letter, "
            "at most {max_len} characters",
            max_len=max_len,
        )
    return value


ClusterName = Annotated[str, Field(description="Cluster name; children derive their names from it")]
Cidr = Annotated[
    ipaddress.IPv4Network,
    Field(description="IPv4 CIDR block, e.g. 10.0.0.0/16 (host bits must be zero)"),
]
