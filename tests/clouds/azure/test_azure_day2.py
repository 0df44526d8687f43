"""AKS day 2 (issue 31): node OS security patches by default, within a maintenance window.

Sources: https://learn.microsoft.com/azure/aks/auto-upgrade-node-os-image (channels None,
Unmanaged, SecurityPatch, NodeImage; NodeImage is the default from API 2023-06-01) and
https://learn.microsoft.com/azure/aks/planned-maintenance (the node OS schedule is the
maintenance configuration named ``aksManagedNodeOSUpgradeSchedule``; durationHours >= 4).
Before issue 31 the channel was ``None`` unless kubernetes.auto_upgrade: no OS patches.
"""

from __future__ import annotations

import pytest

from gpu_fabric.errors import SpecError
from tests.specs import spec_dict

CLUSTER = "azure-native:containerservice:ManagedCluster"
WINDOW = "azure-native:containerservice:MaintenanceConfiguration"


def test_default_is_security_patches_in_a_sunday_window(stack_plan) -> None:
    plan = stack_plan("azure-ndv5")
    profile = plan.one(CLUSTER).inputs["autoUpgradeProfile"]
    assert profile == {"upgradeChannel": "none", "nodeOSUpgradeChannel": "SecurityPatch"}
    window = plan.one(WINDOW, "azure-ndv5-node-os-window").inputs
    assert window["configName"] == "aksManagedNodeOSUpgradeSchedule"
    assert window["maintenanceWindow"] == {
        "schedule": {"weekly": {"dayOfWeek": "Sunday", "intervalWeeks": 1}},
        "durationHours": 4, "startTime": "00:00", "utcOffset": "+00:00",
    }


def test_auto_upgrade_keeps_node_image(spec_plan) -> None:
    data = spec_dict("azure")
    data["kubernetes"] = {**data["kubernetes"], "auto_upgrade": True}
    profile = spec_plan(data).one(CLUSTER).inputs["autoUpgradeProfile"]
    assert profile == {"upgradeChannel": "patch", "nodeOSUpgradeChannel": "NodeImage"}


def test_channel_and_window_are_options(spec_plan) -> None:
    data = spec_dict("azure")
    data["azure"] = {**data.get("azure", {}), "node_os_upgrade_channel": "Unmanaged"}
    plan = spec_plan(data)
    assert plan.one(CLUSTER).inputs["autoUpgradeProfile"]["nodeOSUpgradeChannel"] == "Unmanaged"
    assert not plan.by_type(WINDOW)
    data["azure"] = {"node_os_maintenance_window": {"day_of_week": "Saturday",
                                                    "start_time": "22:30",
                                                    "duration_hours": 6}}
    window = spec_plan(data).one(WINDOW).inputs["maintenanceWindow"]
    assert (window["schedule"]["weekly"]["dayOfWeek"], window["startTime"],
            window["durationHours"]) == ("Saturday", "22:30", 6)


def test_a_window_shorter_than_four_hours_is_refused(spec_plan) -> None:
    data = spec_dict("azure")
    data["azure"] = {"node_os_maintenance_window": {"duration_hours": 2}}
    with pytest.raises(SpecError, match="duration_hours"):
        spec_plan(data)
