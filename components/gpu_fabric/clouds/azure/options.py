"""The ``azure:`` section of the cluster spec."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from gpu_fabric.clouds.options_base import CloudOptions


class AzureOptions(CloudOptions):
    resource_group: str | None = Field(
        default=None, description="Existing resource group name; default: create one"
    )
    infiniband_feature: Literal["manage", "check", "ignore"] = Field(
        default="manage",
        description="Subscription feature Microsoft.ContainerService/AKSInfinibandSupport: "
        "manage = register it (ND A100/H100/H200/MI300X) or refuse GB200/GB300 pools with it; "
        "check = fail with instructions; ignore = leave it alone",
    )
    network_plugin_mode: Literal["overlay", "flat"] = Field(
        default="overlay", description="Azure CNI overlay (pods off the VNet) or flat (pod subnet)"
    )
    existing_subnet_id: str | None = Field(default=None, description="Existing node subnet id")
    sku_tier: Literal["Free", "Standard", "Premium"] = "Standard"
    admin_group_object_ids: list[str] = Field(default_factory=list)
