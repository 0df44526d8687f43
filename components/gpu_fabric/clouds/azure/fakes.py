"""Plausible computed outputs of Azure resources and invokes for offline plans (no SDK).

Shapes follow pulumi-azure-native 3.29.0 (camelCase wire names). Ids look like
ARM ids so code that parses them (e.g. a subnet id) sees realistic values.
"""

from __future__ import annotations

import base64
from collections.abc import Callable
from typing import Any

SUBSCRIPTION = "00000000-0000-0000-0000-000000000000"
TENANT = "11111111-1111-1111-1111-111111111111"


def _rg_id(group: str) -> str:
    return f"/subscriptions/{SUBSCRIPTION}/resourceGroups/{group}"


def _resource_group(name: str, inputs: dict[str, Any]) -> dict[str, Any]:
    group = inputs.get("resourceGroupName", name)
    return {"__id": _rg_id(group), "name": group, "provisioningState": "Succeeded"}


def _vnet(name: str, inputs: dict[str, Any]) -> dict[str, Any]:
    vnet = inputs.get("virtualNetworkName", name)
    rid = f"{_rg_id(inputs.get('resourceGroupName', 'rg'))}/providers/Microsoft.Network/" \
          f"virtualNetworks/{vnet}"
    return {"__id": rid, "name": vnet, "provisioningState": "Succeeded"}


def _subnet(name: str, inputs: dict[str, Any]) -> dict[str, Any]:
    vnet = inputs.get("virtualNetworkName", "vnet")
    subnet = inputs.get("subnetName", name)
    rid = f"{_rg_id(inputs.get('resourceGroupName', 'rg'))}/providers/Microsoft.Network/" \
          f"virtualNetworks/{vnet}/subnets/{subnet}"
    return {"__id": rid, "name": subnet, "provisioningState": "Succeeded"}


def _nsg(name: str, inputs: dict[str, Any]) -> dict[str, Any]:
    nsg = inputs.get("networkSecurityGroupName", name)
    rid = f"{_rg_id(inputs.get('resourceGroupName', 'rg'))}/providers/Microsoft.Network/" \
          f"networkSecurityGroups/{nsg}"
    return {"__id": rid, "name": nsg, "provisioningState": "Succeeded"}


def _cluster(name: str, inputs: dict[str, Any]) -> dict[str, Any]:
    cluster = inputs.get("resourceName", name)
    group = inputs.get("resourceGroupName", "rg")
    location = inputs.get("location", "eastus")
    rid = f"{_rg_id(group)}/providers/Microsoft.ContainerService/managedClusters/{cluster}"
    return {
        "__id": rid,
        "name": cluster,
        "fqdn": f"{cluster}-dns-a1b2c3d4.hcp.{location}.azmk8s.io",
        "nodeResourceGroup": f"MC_{group}_{cluster}_{location}",
        "identity": {"type": "SystemAssigned",
                     "principalId": "22222222-2222-2222-2222-222222222222", "tenantId": TENANT},
        "oidcIssuerProfile": {
            "enabled": True,
            "issuerURL": f"https://{location}.oic.prod-aks.azure.com/{TENANT}/"
                         "33333333-3333-3333-3333-333333333333/",
        },
        "provisioningState": "Succeeded",
        "powerState": {"code": "Running"},
    }


def _agent_pool(name: str, inputs: dict[str, Any]) -> dict[str, Any]:
    pool = inputs.get("agentPoolName", name)
    cluster = inputs.get("resourceName", "cluster")
    rid = f"{_rg_id(inputs.get('resourceGroupName', 'rg'))}/providers/Microsoft.ContainerService/" \
          f"managedClusters/{cluster}/agentPools/{pool}"
    return {"__id": rid, "name": pool, "provisioningState": "Succeeded",
            "nodeImageVersion": "AKSUbuntu-2204gen2containerd-202511.03.0"}


def _feature(name: str, inputs: dict[str, Any]) -> dict[str, Any]:
    feature = inputs.get("featureName", name)
    namespace = inputs.get("providerNamespace", "Microsoft.ContainerService")
    rid = f"/subscriptions/{SUBSCRIPTION}/providers/Microsoft.Features/providers/{namespace}/" \
          f"subscriptionFeatureRegistrations/{feature}"
    return {"__id": rid, "name": feature,
            "properties": {**inputs.get("properties", {}), "state": "Registered"}}


def _role_assignment(name: str, inputs: dict[str, Any]) -> dict[str, Any]:
    rid = f"{inputs.get('scope', '')}/providers/Microsoft.Authorization/roleAssignments/" \
          "44444444-4444-4444-4444-444444444444"
    return {"__id": rid, "name": "44444444-4444-4444-4444-444444444444"}


RESOURCE_OUTPUTS: dict[str, Callable[[str, dict[str, Any]], dict[str, Any]]] = {
    "azure-native:resources:ResourceGroup": _resource_group,
    "azure-native:network:VirtualNetwork": _vnet,
    "azure-native:network:Subnet": _subnet,
    "azure-native:network:NetworkSecurityGroup": _nsg,
    "azure-native:containerservice:ManagedCluster": _cluster,
    "azure-native:containerservice:AgentPool": _agent_pool,
    "azure-native:features:SubscriptionFeatureRegistration": _feature,
    "azure-native:authorization:RoleAssignment": _role_assignment,
}

KUBECONFIG = """apiVersion: v1
kind: Config
clusters:
- cluster:
    certificate-authority-data: {ca}
    server: https://{cluster}-dns-a1b2c3d4.hcp.eastus.azmk8s.io:443
  name: {cluster}
contexts:
- context:
    cluster: {cluster}
    user: clusterUser_{group}_{cluster}
  name: {cluster}
current-context: {cluster}
users:
- name: clusterUser_{group}_{cluster}
  user:
    client-certificate-data: ZmFrZQo=
    client-key-data: ZmFrZQo=
    token: fake-token
"""


def _user_credentials(args: dict[str, Any]) -> dict[str, Any]:
    cluster = args.get("resourceName", "cluster")
    group = args.get("resourceGroupName", "rg")
    ca = base64.b64encode(b"-----BEGIN CERTIFICATE-----\nfake\n-----END CERTIFICATE-----\n")
    text = KUBECONFIG.format(cluster=cluster, group=group, ca=ca.decode())
    return {"kubeconfigs": [
        {"name": "clusterUser", "value": base64.b64encode(text.encode()).decode()}
    ]}


def _client_config(args: dict[str, Any]) -> dict[str, Any]:
    return {"clientId": "55555555-5555-5555-5555-555555555555",
            "objectId": "66666666-6666-6666-6666-666666666666",
            "subscriptionId": SUBSCRIPTION, "tenantId": TENANT}


def _feature_state(args: dict[str, Any]) -> dict[str, Any]:
    # The fake subscription has AKSInfinibandSupport registered (the common case
    # for ND H100 users), so `check` passes for IB pools and fails for GB200/GB300.
    feature = args.get("featureName", "")
    return {"name": feature, "properties": {"state": "Registered"}}


CALLS: dict[str, Callable[[dict[str, Any]], dict[str, Any]]] = {
    "azure-native:containerservice:listManagedClusterUserCredentials": _user_credentials,
    "azure-native:authorization:getClientConfig": _client_config,
    "azure-native:features:getSubscriptionFeatureRegistration": _feature_state,
}
