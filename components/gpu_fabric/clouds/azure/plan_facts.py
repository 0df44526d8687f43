"""What the offline planner knows about the Azure provider (pulumi-azure-native, and the
classic pulumi-azure for its credential key): the inputs that force a replacement, the
inputs the program ignores after create, and the config keys that are credentials
(read by :mod:`gpu_fabric.plan.cloud_facts`).
"""

from __future__ import annotations

from gpu_fabric.plan.cloud_facts import PlanFacts

PLAN_FACTS = PlanFacts(
    replacing_inputs={
        "azure-native:containerservice:ManagedCluster": (
            "resourceName", "resourceGroupName", "location", "dnsPrefix",
            "networkProfile.networkPlugin", "networkProfile.networkPluginMode",
            "networkProfile.podCidr", "networkProfile.serviceCidr",
        ),
        "azure-native:containerservice:AgentPool": (
            "agentPoolName", "resourceName", "resourceGroupName", "vmSize", "osSKU", "osType",
            "osDiskSizeGB", "vnetSubnetID", "podSubnetID", "gpuProfile", "availabilityZones",
        ),
        "azure-native:network:VirtualNetwork": (
            "virtualNetworkName", "resourceGroupName", "location",
        ),
        "azure-native:network:Subnet": (
            "subnetName", "virtualNetworkName", "resourceGroupName",
        ),
    },
    # Subnets are their own resources (network.py), so the VNet's list is not diffed.
    ignored_inputs={"azure-native:network:VirtualNetwork": ("subnets",)},
    credential_keys=frozenset({
        "azure-native:clientSecret", "azure-native:clientCertificatePassword",
        "azure:clientSecret",
    }),
)
