"""What the offline planner knows about the Azure provider (pulumi-azure-native, and the
classic pulumi-azure for its credential key): the inputs that force a replacement, the
inputs AKS refuses to change although the provider updates them in place, and the config
keys that are credentials (read by :mod:`gpu_fabric.plan.cloud_facts`).
"""

from __future__ import annotations

from dataclasses import replace

from gpu_fabric.plan.cloud_facts import NodeUpdate, PlanFacts, RefusedInput

# Sources, read through the code index (pulumi-azure-native's schema.json and the REST
# specs repository are too large to fetch; issue 32). The pinned pulumi_azure_native
# 3.29.0 uses, per its SDK docstrings ("Uses Azure REST API version ..."):
# containerservice 2025-09-01 (containerservice/agent_pool.py L923, managed_cluster.py
# L788, maintenance_configuration.py L141), network 2024-05-01 (virtual_network.py L354,
# subnet.py L400, network_security_group.py L161), resources 2024-03-01
# (resource_group.py L107), authorization 2022-04-01 (role_assignment.py L192),
# features 2021-07-01 (subscription_feature_registration.py L87).
#
# How pulumi-azure-native decides that an input replaces:
# * G1 = provider/pkg/provider/diff.go @1b99ef0b634254a11e6182e278313b0542176bc2 L23-30:
#   every path parameter of the resource's PUT (its name, its parents' names) replaces;
# * G2 = provider/pkg/gen/properties.go @000c531859797e289e572f526c7e15f5e2127833,
#   forceNew/propChangeForcesRecreate: a property whose x-ms-mutability has "create"
#   and no "update" replaces; without the extension it is updated in place, unless
#   forceNewMap lists it;
# * F = provider/pkg/gen/replacement.go @1b7112af33c62b247daed1028686bf279f4d5e69
#   (forceNewMap), lines cited;
# * S = provider/pkg/gen/__snapshots__/gen_managedcluster_test.snap @080cda17eb4b: the
#   generated ManagedCluster marks its path parameters willReplaceOnChanges (G1's rule).
# AKS = specification/containerservice/resource-manager/Microsoft.ContainerService/aks/
#   stable/2025-09-01/managedClusters.json @1041da1a500c263360ec4c2692e7e1995f0dcb5a:
#   #/definitions/ManagedClusterAgentPoolProfileProperties (the AgentPool's flattened
#   "properties") gives osDiskSizeGB (-> ContainerServiceOSDisk), vnetSubnetID,
#   podSubnetID, osType (-> OSType), osSKU (-> OSSKU), availabilityZones and gpuProfile
#   (-> GPUProfile) no x-ms-mutability, nor do the referenced definitions; forceNewMap
#   lists none of them (F 61-67). So azure-native 3.29.0 updates them in place: the
#   hand table's replacements for them were wrong. What AKS does with such an update
#   is in AGENT_POOL_REFUSED below.
# Docs = MicrosoftDocs/azure-aks-docs @fb060abe6a8fef960d4c487b543bf7b1e97808fe
#   (learn.microsoft.com/azure/aks/<page>); TF = hashicorp/terraform-provider-azurerm
#   @69697b7fe6a923fc89e88f386bc95c3ed1ee2ec6 internal/services/containers/
#   kubernetes_cluster_node_pool_resource.go (L951-967 cycleNodePoolProperties: the
#   inputs it cannot update in place and changes by creating the pool anew, L986-990).
_DOCS = "MicrosoftDocs/azure-aks-docs@fb060abe articles/aks/"
_TF = ("hashicorp/terraform-provider-azurerm@69697b7f internal/services/containers/"
       "kubernetes_cluster_node_pool_resource.go")
AGENT_POOL_REFUSED = (
    RefusedInput(
        "osDiskSizeGB", "AKS cannot change a pool's OS disk size after it is created",
        _DOCS + "concepts-storage.md L42, L56; " + _TF + " L959"),
    RefusedInput(
        "availabilityZones", "AKS cannot change a pool's availability zones after it is "
        "created: a new pool with the zones is the way",
        _DOCS + "reliability-availability-zones-configure.md L53; " + _TF + " L966"),
    RefusedInput(
        "gpuProfile", "AKS makes a pool's gpuProfile (driver) immutable after creation: "
        "a new pool is the way",
        _DOCS + "aks-managed-gpu-nodes.md L98; " + _TF + " L200-203 (gpu_driver ForceNew)"),
    RefusedInput(
        "vnetSubnetID", "AKS does not move an existing pool to another node subnet",
        _TF + " L965 (vnet_subnet_id: pool created anew); no Microsoft page found"),
    RefusedInput(
        "podSubnetID", "AKS does not move an existing pool to another pod subnet",
        _TF + " L961 (pod_subnet_id: pool created anew); no Microsoft page found"),
    RefusedInput(
        "osType", "AKS cannot change a pool's OS type (Windows cannot be set on update)",
        _DOCS + "upgrade-os-version.md L26; " + _TF + " L318-321 (os_type ForceNew)"),
    # The SR-IOV pools set kubeletConfig.topologyManagerPolicy (blocks.py). AKS takes a
    # custom kubelet configuration when a cluster or pool is created, and documents no
    # update of it (custom-node-configuration.md L15, L173-184: `az aks create` and
    # `az aks nodepool add` only); an update that changes it fails with
    # CustomKubeletConfigOrCustomLinuxOSConfigCanNotBeChanged (github.com/Azure/AKS issues
    # 2300 and 2591; terraform-provider-azurerm PR 11119, which made the blocks ForceNew
    # for that error; issue 32764 meets it again in 2026). azurerm creates the pool anew
    # for it (TF L954). No AKS page or CLI flag for updating it was found at the docs
    # commit; not verified against a live API.
    RefusedInput(
        "kubeletConfig", "AKS sets a pool's custom kubelet configuration only when the pool "
        "is created (CustomKubeletConfigOrCustomLinuxOSConfigCanNotBeChanged)",
        _DOCS + "custom-node-configuration.md L15, L173-184; github.com/Azure/AKS/issues/"
        "2591; github.com/hashicorp/terraform-provider-azurerm/pull/11119; " + _TF + " L954"),
    RefusedInput(
        "maxPods", "AKS cannot change a pool's max pods after it is created: a new pool is "
        "the way",
        _DOCS + "create-node-pools.md L59; concepts-network-ip-address-planning.md L91; "
        + _TF + " L957"),
    # A Linux OS SKU moves in place (the pool's nodes are reimaged, see node_updates);
    # to or from a Windows SKU it does not.
    RefusedInput(
        "osSKU", "AKS updates a pool's OS SKU in place only between Linux SKUs",
        _DOCS + "upgrade-os-version.md L65-83",
        allowed_between=r"Ubuntu\d*|AzureLinux\d*|AzureContainerLinux|CBLMariner"),
)

# The refused inputs AKS never changes in place: the agent pool registers them with
# ``replace_on_changes`` (clouds/azure/blocks.py), so a change replaces the pool (it
# deletes first: fixed name) instead of failing half-way through ``pulumi up``. This is
# what azurerm does for the same inputs (TF L951-967: the pool is created anew). The
# OS SKU stays a refusal: between Linux SKUs AKS moves it in place.
AGENT_POOL_REPLACE_ON_CHANGES = tuple(
    r.path for r in AGENT_POOL_REFUSED if r.allowed_between is None)

# The system pool is no AgentPool resource: it is ``agentPoolProfiles[0]`` of the
# ManagedCluster (clouds/azure/cluster.py), which azure-native updates in place: its
# forceNewMap set (F 27-60) names no agentPoolProfiles property but nodePublicIPTags (F 59,
# not set here) since pulumi-azure-native PR 2774 removed them, its maintainers saying "You
# are not allowed to update those properties within an existing agent pool, but you can
# create a new agent pool ... then delete the old agent pool". AKS refuses the same
# changes of it as of any pool, and its VM size besides: "You can't change the virtual
# machine (VM) size of a node pool after you create it" (create-node-pools.md L58); the
# in-place VMSS resize needs AKS API 2026-01-02-preview (resize-node-pool.md L24-48),
# 3.29.0 sends 2025-09-01. A pool's name is refused as well: a cluster PUT cannot add a pool
# ("Adding agent pools to an existing cluster is not allowed through managed cluster
# operations", github.com/pulumi/pulumi-azure-native/issues/579). azurerm changes all of
# them by cycling the default pool through a temporary one (TFC L2669-2687). Never
# replace_on_changes here: that would replace the cluster. Its count and
# orchestratorVersion stay in-place updates (the system pool scales and upgrades).
_TFC = ("hashicorp/terraform-provider-azurerm@69697b7f internal/services/containers/"
        "kubernetes_cluster_resource.go L2669-2687 (default_node_pool cycled)")
SYSTEM_POOL_REFUSED = (
    RefusedInput(
        "agentPoolProfiles.vmSize", "AKS cannot change the VM size of an existing pool "
        "(the system pool in the cluster's agentPoolProfiles) at API 2025-09-01",
        _DOCS + "create-node-pools.md L58; resize-node-pool.md L24-48 (in place only from "
        "API 2026-01-02-preview); " + _TFC),
    RefusedInput(
        "agentPoolProfiles.name", "AKS does not add or rename a pool through the cluster's "
        "agentPoolProfiles (\"Adding agent pools to an existing cluster is not allowed "
        "through managed cluster operations\")",
        "github.com/pulumi/pulumi-azure-native/issues/579; " + _TFC),
    *(replace(r, path="agentPoolProfiles." + r.path,
              reason=r.reason + " (the system pool in the cluster's agentPoolProfiles)",
              source=r.source + "; " + _TFC)
      for r in AGENT_POOL_REFUSED),
)

PLAN_FACTS = PlanFacts(
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
        # G1: agent_pool.py L1071, L1109, L1112 (agentPools/{agentPoolName} under the
        # cluster); F 62-66. Nothing else: see AKS above.
        "azure-native:containerservice:AgentPool": (
            "agentPoolName", "resourceName", "resourceGroupName",
            "gpuInstanceProfile", "vmSize", "networkProfile.nodePublicIPTags",
        ),
        # G1: maintenance_configuration.py L197, L202, L205 (maintenanceConfigurations/
        # {configName} under the cluster); forceNewMap has no entry (F 26-68); AKS's
        # MaintenanceConfigurationProperties/MaintenanceWindow carry no x-ms-mutability.
        "azure-native:containerservice:MaintenanceConfiguration": (
            "configName", "resourceName", "resourceGroupName",
        ),
        "azure-native:network:VirtualNetwork": (
            "virtualNetworkName", "resourceGroupName",  # id parameters (G1)
            "location",  # F 82
        ),
        # F 81: Subnet "no force-news" beyond its id parameters.
        "azure-native:network:Subnet": (
            "subnetName", "virtualNetworkName", "resourceGroupName",
        ),
        # G1: network_security_group.py L223, L226; no forceNewMap entry (F 75-83);
        # networkSecurityGroup.json @c9388702 (2024-05-01) NetworkSecurityGroupProperties-
        # Format and SecurityRulePropertiesFormat carry no x-ms-mutability.
        "azure-native:network:NetworkSecurityGroup": (
            "networkSecurityGroupName", "resourceGroupName",
        ),
        "azure-native:resources:ResourceGroup": (
            "resourceGroupName",  # id parameter (G1)
            "location",  # F 85
        ),
        "azure-native:authorization:RoleAssignment": (
            "principalId", "scope",  # F 14
            "roleAssignmentName",  # G1: role_assignment.py L264 ({scope}/.../{name})
        ),
        # G1: subscription_feature_registration.py L132, L136; Microsoft.Features/stable/
        # 2021-07-01/SubscriptionFeatureRegistration.json @0c1e42fc L37 (the PUT path
        # .../featureProviders/{providerNamespace}/subscriptionFeatureRegistrations/
        # {featureName}); its properties carry no x-ms-mutability.
        "azure-native:features:SubscriptionFeatureRegistration": (
            "providerNamespace", "featureName",
        ),
    },
    refused_inputs={
        "azure-native:containerservice:AgentPool": AGENT_POOL_REFUSED,
        "azure-native:containerservice:ManagedCluster": SYSTEM_POOL_REFUSED,
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
            # osSKU between Linux SKUs: "rolls the cluster through the standard node
            # image upgrade process" (MicrosoftDocs/azure-docs@12c695d5 articles/
            # azure-linux/tutorial-azure-linux-migration.md, "In-place OS SKU migration").
            rolling_inputs=("orchestratorVersion", "nodeImageVersion", "osSKU"),
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
