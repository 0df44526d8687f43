"""What the offline planner knows about the Azure provider (pulumi-azure-native, and the
classic pulumi-azure for its credential key): the inputs that force a replacement, the
inputs the program ignores after create, and the config keys that are credentials
(read by :mod:`gpu_fabric.plan.cloud_facts`).
"""

from __future__ import annotations

from gpu_fabric.plan.cloud_facts import NodeUpdate, PlanFacts

PLAN_FACTS = PlanFacts(
    # pulumi-azure-native marks an input replacing (``willReplaceOnChanges``) when it is
    # a path parameter of the resource's id (its name, its parents' names), when the REST
    # spec gives it no update (``x-ms-mutability`` without "update"), or when the
    # provider's own ``forceNewMap`` lists it. Read through the code index (its schema.json
    # is too large to fetch; issue 32):
    # * F = provider/pkg/gen/replacement.go @1b7112af33c6 (forceNewMap), lines cited;
    # * S = provider/pkg/gen/__snapshots__/gen_managedcluster_test.snap @080cda17eb4b: the
    #   generated ManagedCluster, path parameters resourceGroupName/resourceName marked
    #   willReplaceOnChanges (the generator's rule for every resource's id parameters);
    # * X = the REST spec's create-only properties: kept from the hand table, not read.
    replacing_inputs={
        "azure-native:containerservice:ManagedCluster": (
            "resourceName", "resourceGroupName",  # S
            "diskEncryptionSetID", "dnsPrefix", "fqdnSubdomain", "linuxProfile",  # F 29-32
            "location", "nodeResourceGroup", "windowsProfile",  # F 33-35
            "networkProfile.serviceCidr", "networkProfile.serviceCidrs",  # F 41-42
            "networkProfile.dnsServiceIP", "networkProfile.networkMode",  # F 43-44
            "networkProfile.networkPlugin", "networkProfile.networkPluginMode",  # F 48-49
            "networkProfile.podCidr", "networkProfile.networkDataplane",  # F 50-51
            "networkProfile.networkPolicy", "networkProfile.outboundType",  # F 52-53
        ),
        "azure-native:containerservice:AgentPool": (
            "agentPoolName", "resourceName", "resourceGroupName",  # id parameters (S's rule)
            "gpuInstanceProfile", "vmSize", "networkProfile.nodePublicIPTags",  # F 62-66
            "osSKU", "osType", "osDiskSizeGB", "vnetSubnetID", "podSubnetID",  # X
            "gpuProfile", "availabilityZones",  # X
        ),
        "azure-native:network:VirtualNetwork": (
            "virtualNetworkName", "resourceGroupName",  # id parameters (S's rule)
            "location",  # F 82
        ),
        # F 81: Subnet "no force-news" beyond its id parameters.
        "azure-native:network:Subnet": (
            "subnetName", "virtualNetworkName", "resourceGroupName",
        ),
        "azure-native:resources:ResourceGroup": (
            "resourceGroupName",  # id parameter (S's rule)
            "location",  # F 85
        ),
        "azure-native:authorization:RoleAssignment": (
            "principalId", "scope",  # F 14
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
