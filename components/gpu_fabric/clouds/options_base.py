"""Shared base for the cloud sections of the spec (kept SDK-free)."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, field_validator

from gpu_fabric.strict import strict_int


class CloudOptions(BaseModel):
    """Base of ``gcp:``, ``aws:``... sections: unknown keys are errors."""

    model_config = ConfigDict(extra="forbid", frozen=True, str_strip_whitespace=True)

    _strict_ints = field_validator("*", mode="before")(classmethod(strict_int))
