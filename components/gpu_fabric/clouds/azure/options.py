"""The ``azure:`` section of the cluster spec."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from gpu_fabric.clouds.options_base import CloudOptions


class AzureMaintenanceWindow(CloudOptions):
    """A weekly AKS planned-maintenance window (learn.microsoft.com/azure/aks/planned-maintenance:
    durationHours at least 4)."""

    day_of_week: Literal["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday",
                         "Sunday"] = "Sunday"
    start_time: str = Field(default="00:00", pattern=r"^([01][0-9]|2[0-3]):[0-5][0-9]$",
                            description="HH:MM")
    duration_hours: int = Field(default=4, ge=4, le=24)
    utc_offset: str = Field(default="+00:00", pattern=r"^[+-](0[0-9]|1[0-4]):[0-5][0-9]$")


class AzureOptions(CloudOptions):
    resource_group: str | None = Field(
        default=None, description="Existing resource group name; default: create one"
    )
    infiniband_feature: Literal["manage", "check", "ignore"] = Field(
        default="manage",
        description="Subscription feature Microsoft.ContainerService/AKSInfinibandSupport: "
        "manage = register it (ND A100/H100/H200/MI300X pools) and wait until Registered; "
        "check = read it and fail with instructions when its state does not fit the pools "
        "(registered for IB pools, unregistered for GB200/GB300); ignore = leave it alone. "
        "A cluster mixing IB and GB200/GB300 pools is refused unless ignore",
    )
    network_plugin_mode: Literal["overlay", "flat"] = Field(
        default="overlay", description="Azure CNI overlay (pods off the VNet) or flat (pod subnet)"
    )
    existing_subnet_id: str | None = Field(default=None, description="Existing node subnet id")
    sku_tier: Literal["Free", "Standard", "Premium"] = "Standard"
    admin_group_object_ids: list[str] = Field(default_factory=list)
    node_os_upgrade_channel: Literal["SecurityPatch", "NodeImage", "Unmanaged", "None"] | None = (
        Field(
            default=None,
            description="AKS node OS upgrade channel; default: NodeImage with "
            "kubernetes.auto_upgrade, else SecurityPatch (OS security patches only), applied "
            "within node_os_maintenance_window",
        )
    )
    node_os_maintenance_window: AzureMaintenanceWindow = Field(
        default_factory=lambda: AzureMaintenanceWindow(),
        description="Weekly window (aksManagedNodeOSUpgradeSchedule) in which AKS applies "
        "node OS updates (SecurityPatch / NodeImage channels)",
    )
