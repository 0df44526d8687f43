"""Which AKS, network and role-assignment changes replace, as pulumi-azure-native says.

Sources (read through the code index; pulumi-azure-native's schema.json is too large to
fetch, issue 32):
* pulumi/pulumi-azure-native provider/pkg/gen/replacement.go @1b7112af33c6, ``forceNewMap``:
  line 14 Authorization RoleAssignment ``principalId``, ``scope``; lines 29-35 ManagedCluster
  ``diskEncryptionSetID`` ... ``windowsProfile``; lines 41-53 its network profile
  (``serviceCidr`` ... ``outboundType``); lines 62-66 AgentPool ``gpuInstanceProfile``,
  ``vmSize``, ``nodePublicIPTags``; line 82 VirtualNetwork ``location``; line 85
  ResourceGroup ``location``.
* provider/pkg/gen/__snapshots__/gen_managedcluster_test.snap @080cda17eb4b: the generated
  ManagedCluster marks its id parameters ``resourceGroupName`` and ``resourceName``
  ``willReplaceOnChanges``, and ``kubernetesVersion`` not (an upgrade is in place).
"""

from __future__ import annotations

import pytest

from gpu_fabric.plan.diff import diff_plans

CLUSTER = "azure-native:containerservice:ManagedCluster"
POOL = "azure-native:containerservice:AgentPool"
ROLE = "azure-native:authorization:RoleAssignment"
GROUP = "azure-native:resources:ResourceGroup"


def _action(type_: str, before: dict, after: dict) -> str:
    def res(inputs: dict) -> dict:
        return {"urn": f"urn:pulumi:s::p::{type_}::x", "type": type_, "name": "x",
                "inputs": inputs}
    [change] = diff_plans({"resources": [res(before)]}, {"resources": [res(after)]}).changes
    return change.action


@pytest.mark.parametrize(("type_", "before", "after", "action"), [
    # F line 14: a role assignment's principal or scope is its identity.
    (ROLE, {"principalId": "a", "scope": "/s"}, {"principalId": "b", "scope": "/s"}, "replace"),
    (ROLE, {"principalId": "a", "scope": "/s"}, {"principalId": "a", "scope": "/t"}, "replace"),
    # F line 53: the cluster's outbound type.
    (CLUSTER, {"networkProfile": {"outboundType": "loadBalancer"}},
     {"networkProfile": {"outboundType": "userDefinedRouting"}}, "replace"),
    # F line 33: location; S: kubernetesVersion is updated in place.
    (CLUSTER, {"location": "eastus"}, {"location": "westus3"}, "replace"),
    (CLUSTER, {"kubernetesVersion": "1.33"}, {"kubernetesVersion": "1.34"}, "update"),
    # F lines 62-63: an agent pool's GPU instance profile and VM size.
    (POOL, {"gpuInstanceProfile": "MIG1g"}, {"gpuInstanceProfile": "MIG2g"}, "replace"),
    (POOL, {"count": 2}, {"count": 3}, "update"),
    # F line 85.
    (GROUP, {"location": "eastus"}, {"location": "westus3"}, "replace"),
    (GROUP, {"tags": {"a": "1"}}, {"tags": {"a": "2"}}, "update"),
])
def test_azure_native_replacing_inputs(type_: str, before: dict, after: dict,
                                       action: str) -> None:
    assert _action(type_, before, after) == action
