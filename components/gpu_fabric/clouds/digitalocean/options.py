"""The ``digitalocean:`` section of the cluster spec (SDK-free)."""

from __future__ import annotations

import re
from typing import Literal, Self

from pydantic import Field, field_validator, model_validator

from gpu_fabric.clouds.options_base import CloudOptions

# DOKS's CPU size for the system pool when ``system_pool.machine_type`` is unset: room
# for the operators and Kyverno without touching the contracted GPU capacity.
DEFAULT_SYSTEM_SIZE = "s-4vcpu-8gb"
AMD_PARTITION_MODES = ("AMD_PARTITION_MODE_SPX_NPS1", "AMD_PARTITION_MODE_DPX_NPS2")
_UUID = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")


class DoksComponents(CloudOptions):
    """DOKS-managed cluster components, set explicitly instead of relying on DO defaults.

    The GPU device plugin and the GPU DRA driver are mutually exclusive (one node
    cannot advertise GPUs both ways). ``None`` means: decided from the spec (the RDMA
    plugin is on when a pool has fabric NICs; GPUs come through the DRA driver when
    ``fabric.mode`` is ``dra``, else through the device plugin). The GPU choices
    apply to the vendor of each pool: ``nvidia_gpu_*`` for NVIDIA, ``amd_gpu_*`` for
    AMD.
    """

    rdma_shared_device_plugin: bool | None = Field(
        default=None,
        description="DOKS-managed RDMA shared device plugin (rdma/fabricN); default: on when "
        "a pool has fabric NICs. Off: the fabric layer installs its own",
    )
    gpu_device_plugin: bool | None = Field(
        default=None, description="DOKS-managed GPU device plugin (nvidia.com/gpu, amd.com/gpu)"
    )
    gpu_dra_driver: bool | None = Field(
        default=None, description="DOKS-managed GPU DRA driver (GPUs through ResourceClaims)"
    )
    amd_device_metrics_exporter: bool = Field(
        default=False, description="DOKS-managed AMD GPU device metrics exporter"
    )

    @model_validator(mode="after")
    def _exclusive(self) -> Self:
        if self.gpu_device_plugin and self.gpu_dra_driver:
            raise ValueError(
                "gpu_device_plugin and gpu_dra_driver are mutually exclusive; enable one"
            )
        return self


class DigitalOceanOptions(CloudOptions):
    vpc_uuid: str | None = Field(default=None, description="Existing VPC; default: create one")
    ha: bool = Field(default=False, description="Highly available control plane")
    surge_upgrade: bool = Field(
        default=False,
        description="Surge upgrades add a node before draining one; off by default because "
        "contracted GPU capacity rarely has a spare node",
    )
    amd_gpu_partition_mode: Literal[
        "AMD_PARTITION_MODE_SPX_NPS1", "AMD_PARTITION_MODE_DPX_NPS2"
    ] | None = Field(
        default=None,
        description="Partition mode of AMD GPU pools (set at pool creation only; changing it "
        "replaces the pool). Default: DO's default",
    )
    components: DoksComponents = DoksComponents()

    @field_validator("vpc_uuid")
    @classmethod
    def _uuid(cls, value: str | None) -> str | None:
        if value is not None and not _UUID.match(value):
            raise ValueError(
                f"'{value}' is not a VPC id; DigitalOcean VPC ids are UUIDs like "
                "c0ffee00-1234-4abc-8def-0123456789ab (doctl vpcs list)"
            )
        return value
