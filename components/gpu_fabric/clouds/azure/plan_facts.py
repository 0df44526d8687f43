"""What the offline planner knows about the Azure provider (pulumi-azure-native, and the
classic pulumi-azure for its credential key): the inputs that force a replacement, the
inputs the program ignores after create, and the config keys that are credentials
(read by :mod:`gpu_fabric.plan.cloud_facts`).
"""

from __future__ import annotations

from gpu_fabric.plan.cloud_facts import NodeUpdate, PlanFacts

PLAN_FACTS = PlanFacts(
    # Written by hand, not extracted from pulumi-azure-native's sources (they could not be read
    # offline: plan/data/replacing_inputs.json "not_extracted"; issue 32).
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
    credential_keys=frozenset({
        "azure-native:clientSecret", "azure-native:clientCertificatePassword",
        "azure:clientSecret",
    }),
    # ARM resource names are unique in their parent (resource group, VNet, cluster):
    # the name is part of the resource id, so a second create is the same object.
    unique_names={
        "azure-native:resources:ResourceGroup": ("resourceGroupName",),
        "azure-native:containerservice:ManagedCluster": ("resourceName",),
        "azure-native:containerservice:AgentPool": ("agentPoolName",),
        "azure-native:network:VirtualNetwork": ("virtualNetworkName",),
        "azure-native:network:Subnet": ("subnetName",),
        "azure-native:network:NetworkSecurityGroup": ("networkSecurityGroupName",),
        # aksManagedNodeOSUpgradeSchedule: AKS's fixed name, one per cluster.
        "azure-native:containerservice:MaintenanceConfiguration": ("configName",),
    },
    roles={
        "azure-native:containerservice:ManagedCluster": "cluster",
        "azure-native:containerservice:AgentPool": "pool",
        "azure-native:network:VirtualNetwork": "network",
        "azure-native:network:Subnet": "network",
    },
    # Node pool upgrades surge maxSurge nodes (default 10%) and take maxUnavailable
    # (default 0) down; GPU pools set maxSurge 0 / maxUnavailable 1
    # (https://learn.microsoft.com/en-us/azure/aks/upgrade-aks-node-pools-rolling).
    node_updates={
        "azure-native:containerservice:AgentPool": NodeUpdate(
            rolling_inputs=("orchestratorVersion", "nodeImageVersion"),
            surge_path="upgradeSettings.maxSurge", surge_default="10%",
            unavailable_path="upgradeSettings.maxUnavailable", unavailable_default="0",
            source="https://learn.microsoft.com/en-us/azure/aks/upgrade-aks-node-pools-rolling",
        ),
    },
    control_plane_inputs={
        "azure-native:containerservice:ManagedCluster": ("kubernetesVersion",)},
    runbook="aks",
    free_names={
        "azure-native:authorization:RoleAssignment": (
            "no name input (azure-native generates a GUID); scope, role and principal, "
            "its identity, are its replacing inputs"),
        "azure-native:features:SubscriptionFeatureRegistration": (
            "identity (providerNamespace, featureName) is its replacing inputs"),
    },
)
