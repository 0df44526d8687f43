"""The ``azure:`` section of the cluster spec."""

from __future__ import annotations

import re
import unicodedata
from typing import Literal

from pydantic import Field, field_validator

from gpu_fabric.clouds.options_base import CloudOptions

# Azure's naming rules for the names and ids this section passes through unchanged: a
# name ARM refuses used to pass validate and plan and fail half-way through pulumi up
# (issue 34). "Naming rules and restrictions for Azure resources",
# https://learn.microsoft.com/azure/azure-resource-manager/management/resource-name-rules
# (read online, not re-checked offline): Microsoft.Resources/resourcegroups 1-90
# characters, "Underscores, hyphens, periods, parentheses, and letters or digits as
# defined by the Char.IsLetterOrDigit function", "Can't end with period";
# Microsoft.Network/virtualNetworks 2-64 and virtualNetworks/subnets 1-80 characters,
# "Alphanumerics, underscores, periods, and hyphens. Start with alphanumeric. End
# alphanumeric or underscore". A subscription id is a GUID
# (https://learn.microsoft.com/azure/azure-portal/get-subscription-tenant-id).
RESOURCE_GROUP_MAX = 90
# Char.IsLetterOrDigit: the Unicode letter categories and decimal digits (Nd).
_LETTER_OR_DIGIT = frozenset({"Lu", "Ll", "Lt", "Lm", "Lo", "Nd"})
_GUID = re.compile(r"[0-9a-fA-F]{8}-([0-9a-fA-F]{4}-){3}[0-9a-fA-F]{12}", re.ASCII)
_NETWORK_NAME = re.compile(r"[A-Za-z0-9]([A-Za-z0-9_.-]*[A-Za-z0-9_])?", re.ASCII)
_SUBNET_ID = re.compile(
    r"/subscriptions/([^/]*)/resourceGroups/([^/]*)/providers/Microsoft\.Network/"
    r"virtualNetworks/([^/]*)/subnets/([^/]*)", re.IGNORECASE,
)
# Spaces inside the braces keep each run of the message short enough to be shown whole.
SUBNET_ID_FORMAT = ("/subscriptions/{subscription GUID}/resourceGroups/{resource group}/"
                    "providers/Microsoft.Network/virtualNetworks/{virtual network}/subnets/"
                    "{subnet}")


def _cut(value: str) -> str:
    return value if len(value) <= 60 else value[:57] + "..."


def resource_group_problem(value: str) -> str | None:
    """Why Azure would refuse ``value`` as a resource group name, or None."""
    if not 1 <= len(value) <= RESOURCE_GROUP_MAX:
        return (f"is {len(value)} characters; an Azure resource group name has 1 to "
                f"{RESOURCE_GROUP_MAX}")
    bad = sorted({c for c in value
                  if c not in "_-.()" and unicodedata.category(c) not in _LETTER_OR_DIGIT})
    if bad:
        return (f"has {', '.join(repr(c) for c in bad)}; an Azure resource group name has "
                "letters, digits, '_', '-', '.', '(' and ')' only")
    if value.endswith("."):
        return "ends with '.'; an Azure resource group name cannot end with a period"
    return None


def subnet_id_problem(value: str) -> str | None:
    """Why ``value`` is no ARM id of a subnet Azure could hold, or None."""
    found = _SUBNET_ID.fullmatch(value)
    if not found:
        return f"is not the resource id of a subnet; write it as {SUBNET_ID_FORMAT}"
    subscription, group, vnet, subnet = found.groups()
    if not _GUID.fullmatch(subscription):
        return f"has subscription '{_cut(subscription)}', which is not a GUID"
    problem = resource_group_problem(group)
    if problem:
        return f"has resource group '{_cut(group)}', which {problem}"
    for kind, name, low, high in (("virtual network", vnet, 2, 64), ("subnet", subnet, 1, 80)):
        if not low <= len(name) <= high or not _NETWORK_NAME.fullmatch(name):
            return (f"has {kind} name '{_cut(name)}'; an Azure {kind} name has {low} to {high} "
                    "letters, digits, '_', '.' and '-', starting with a letter or digit and "
                    "ending with a letter, digit or '_'")
    return None


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

    @field_validator("resource_group")
    @classmethod
    def _resource_group(cls, value: str | None) -> str | None:
        problem = resource_group_problem(value) if value is not None else None
        if problem:
            raise ValueError(f"'{value}' {problem}")
        return value

    @field_validator("existing_subnet_id")
    @classmethod
    def _subnet_id(cls, value: str | None) -> str | None:
        problem = subnet_id_problem(value) if value is not None else None
        if problem:
            raise ValueError(f"'{value}' {problem}")
        return value
