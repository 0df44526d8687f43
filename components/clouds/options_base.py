"""Shared base for the cloud sections of the spec (kept SDK-free)."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict


class CloudOptions(BaseModel):
    """Base of ``gcp:``, ``aws:``... sections: unknown keys are errors."""

    model_config = ConfigDict(extra="forbid", frozen=True, str_strip_whitespace=True)
