"""Add-ons: per add-on on/off, pinned version override and Helm values."""

from __future__ import annotations

from typing import Any

from pydantic import (
    Field,
    field_validator,
)

from gpu_fabric.spec.base import VERSION_PIN, SpecModel, _fail


# -- add-ons -------------------------------------------------------------------
class AddonSpec(SpecModel):
    """One optional component. ``enabled: null`` means the cloud's default."""

    enabled: bool | None = None
    version: str | None = Field(
        default=None, description="Pinned chart/image version; default from gpu_fabric.versions"
    )
    values: dict[str, Any] = Field(
        default_factory=dict, description="Extra Helm values, merged over the computed ones"
    )

    @field_validator("version")
    @classmethod
    def _pinned(cls, value: str | None) -> str | None:
        return _pinned_version(value)


def _pinned_version(value: str | None) -> str | None:
    """An exact release, or None (the default of gpu_fabric.versions)."""
    if value is not None and not VERSION_PIN.match(value):
        raise _fail(
            "unpinned",
            "'{v}' is not a pinned version; give an exact release such as v1.2.3 "
            "(not latest/stable/ranges)",
            v=value,
        )
    return value


class AddonsSpec(SpecModel):
    multus: AddonSpec = AddonSpec()
    rdma_shared_device_plugin: AddonSpec = AddonSpec()
    sriov_device_plugin: AddonSpec = AddonSpec()
    network_operator: AddonSpec = AddonSpec()
    gpu_operator: AddonSpec = AddonSpec()
    nvidia_device_plugin: AddonSpec = AddonSpec()
    efa_device_plugin: AddonSpec = AddonSpec()
    nvidia_dra_driver: AddonSpec = AddonSpec()
    dranet: AddonSpec = AddonSpec()
    nccl_installer: AddonSpec = AddonSpec()
    kyverno: AddonSpec = AddonSpec()
    kueue: AddonSpec = AddonSpec()
    jobset: AddonSpec = AddonSpec()
    mpi_operator: AddonSpec = AddonSpec()
    prometheus: AddonSpec = AddonSpec()
