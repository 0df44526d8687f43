"""Issue 21: the policy pack's gaps, one violating resource per rule.

Each case fed the validators before this change and passed: split CIDRs
(``0.0.0.0/1`` + ``128.0.0.0/1``), network ACLs, default security groups / lists, public
API endpoints without CIDRs, moving tags other than ``latest``. Inputs use the engine's
wire names (the provider SDKs' camelCase of the Python argument names checked in
/work/main/.venv: pulumi_aws ec2.NetworkAcl/DefaultNetworkAcl ``ingress[].cidrBlock``,
NetworkAclRule ``ruleAction``/``egress``, DefaultSecurityGroup ``ingress``, pulumi_oci
core.DefaultSecurityList ``ingressSecurityRules``) and go through the policy SDK's proxy.
"""

from __future__ import annotations

import copy
import sys
from pathlib import Path
from typing import Any

import pytest
from pulumi_policy.proxy import unknown_checking_proxy

POLICY_DIR = Path(__file__).resolve().parents[2] / "policy"
if str(POLICY_DIR) not in sys.path:
    sys.path.insert(0, str(POLICY_DIR))

from gpufabric_policies.endpoints import public_api_endpoint  # noqa: E402
from gpufabric_policies.images import unpinned_images  # noqa: E402
from gpufabric_policies.network import is_open, open_ingress  # noqa: E402


def sdk(props: dict[str, Any]) -> Any:
    return unknown_checking_proxy(copy.deepcopy(props))


# -- split CIDRs -----------------------------------------------------------------------
@pytest.mark.parametrize("source", ["0.0.0.0/1", "128.0.0.0/1", "0.0.0.0/4", "::/1"])
def test_split_internet_ranges_are_open(source: str) -> None:
    assert is_open(source)


@pytest.mark.parametrize("source", ["10.0.0.0/8", "192.168.0.0/16", "203.0.113.0/24"])
def test_private_and_narrow_ranges_are_not_open(source: str) -> None:
    assert not is_open(source)


def test_security_group_with_split_cidrs_is_refused() -> None:
    props = {"ingress": [{"protocol": "-1", "fromPort": 0, "toPort": 0,
                          "cidrBlocks": ["0.0.0.0/1", "128.0.0.0/1"]}]}
    problems = open_ingress("aws:ec2/securityGroup:SecurityGroup", sdk(props))
    assert len(problems) == 1 and "0.0.0.0/1" in problems[0] and "128.0.0.0/1" in problems[0]


# -- network ACLs ------------------------------------------------------------------------
OPEN_ACL = {"ingress": [{"action": "allow", "protocol": "-1", "ruleNo": 100, "fromPort": 0,
                         "toPort": 0, "cidrBlock": "0.0.0.0/0"}]}


@pytest.mark.parametrize("type_", ["aws:ec2/networkAcl:NetworkAcl",
                                   "aws:ec2/defaultNetworkAcl:DefaultNetworkAcl"])
def test_network_acl_open_to_the_world_is_refused(type_: str) -> None:
    assert len(open_ingress(type_, sdk(OPEN_ACL))) == 1


def test_network_acl_rule_open_to_the_world_is_refused() -> None:
    rule = {"ruleAction": "allow", "protocol": "6", "ruleNumber": 100, "fromPort": 22,
            "toPort": 22, "cidrBlock": "0.0.0.0/0", "egress": False}
    assert len(open_ingress("aws:ec2/networkAclRule:NetworkAclRule", sdk(rule))) == 1
    assert open_ingress("aws:ec2/networkAclRule:NetworkAclRule",
                        sdk({**rule, "egress": True})) == []


def test_network_acl_admits_only_ephemeral_return_traffic_from_anywhere() -> None:
    ok = {"ingress": [{"action": "allow", "protocol": "6", "ruleNo": 100, "fromPort": 1024,
                       "toPort": 65535, "cidrBlock": "0.0.0.0/0"},
                      {"action": "deny", "protocol": "-1", "ruleNo": 200, "fromPort": 0,
                       "toPort": 0, "cidrBlock": "0.0.0.0/0"}]}
    assert open_ingress("aws:ec2/networkAcl:NetworkAcl", sdk(ok)) == []


# -- default security groups / lists -----------------------------------------------------
def test_default_security_group_open_to_the_world_is_refused() -> None:
    props = {"vpcId": "vpc-1", "ingress": [{"protocol": "tcp", "fromPort": 22, "toPort": 22,
                                            "cidrBlocks": ["0.0.0.0/0"]}]}
    assert len(open_ingress("aws:ec2/defaultSecurityGroup:DefaultSecurityGroup",
                            sdk(props))) == 1


def test_oci_default_security_list_open_to_the_world_is_refused() -> None:
    # OCI's default security list of a new VCN admits SSH from 0.0.0.0/0.
    props = {"manageDefaultResourceId": "ocid1.securitylist.oc1..x",
             "ingressSecurityRules": [{"protocol": "6", "source": "0.0.0.0/0",
                                       "tcpOptions": {"min": 22, "max": 22}}]}
    assert len(open_ingress("oci:Core/defaultSecurityList:DefaultSecurityList",
                            sdk(props))) == 1


# -- public API endpoints without CIDRs --------------------------------------------------
@pytest.mark.parametrize(("type_", "props"), [
    ("gcp:container/cluster:Cluster", {"name": "c"}),
    ("gcp:container/cluster:Cluster", {"masterAuthorizedNetworksConfig": {
        "cidrBlocks": [{"cidrBlock": "0.0.0.0/0"}]}}),
    ("gcp:container/cluster:Cluster", {"masterAuthorizedNetworksConfig": {
        "cidrBlocks": [], "gcpPublicCidrsAccessEnabled": True}}),
    ("aws:eks/cluster:Cluster", {"vpcConfig": {"subnetIds": ["subnet-1"]}}),
    ("aws:eks/cluster:Cluster", {"vpcConfig": {"endpointPublicAccess": True,
                                               "publicAccessCidrs": ["0.0.0.0/1",
                                                                     "128.0.0.0/1"]}}),
    ("azure-native:containerservice:ManagedCluster", {"dnsPrefix": "c"}),
    ("azure-native:containerservice:ManagedCluster",
     {"apiServerAccessProfile": {"enablePrivateCluster": False}}),
    ("digitalocean:index/kubernetesCluster:KubernetesCluster", {"name": "c"}),
    ("digitalocean:index/kubernetesCluster:KubernetesCluster",
     {"controlPlaneFirewall": {"enabled": True, "allowedAddresses": ["0.0.0.0/0"]}}),
])
def test_public_api_endpoint_without_cidrs_is_refused(type_: str, props: dict) -> None:
    problems = public_api_endpoint(type_, sdk(props))
    assert len(problems) == 1, problems
    assert "api_access.authorized_cidrs" in problems[0]


@pytest.mark.parametrize(("type_", "props"), [
    ("gcp:container/cluster:Cluster", {"masterAuthorizedNetworksConfig": {
        "cidrBlocks": [{"cidrBlock": "203.0.113.0/24"}]}}),
    ("gcp:container/cluster:Cluster", {"privateClusterConfig": {
        "enablePrivateEndpoint": True}}),
    ("aws:eks/cluster:Cluster", {"vpcConfig": {"endpointPublicAccess": False}}),
    ("aws:eks/cluster:Cluster", {"vpcConfig": {"publicAccessCidrs": ["203.0.113.0/24"]}}),
    ("azure-native:containerservice:ManagedCluster",
     {"apiServerAccessProfile": {"authorizedIPRanges": ["203.0.113.0/24"]}}),
    ("azure-native:containerservice:ManagedCluster",
     {"apiServerAccessProfile": {"enablePrivateCluster": True}}),
    ("digitalocean:index/kubernetesCluster:KubernetesCluster",
     {"controlPlaneFirewall": {"enabled": True, "allowedAddresses": ["203.0.113.0/24"]}}),
])
def test_restricted_or_private_endpoints_pass(type_: str, props: dict) -> None:
    assert public_api_endpoint(type_, sdk(props)) == []


# -- moving tags other than latest -------------------------------------------------------
@pytest.mark.parametrize("image", ["ghcr.io/org/agent:main", "registry.k8s.io/x/dranet:stable",
                                   "quay.io/org/tool:nightly", "nvcr.io/nvidia/x:LATEST"])
def test_moving_image_tags_are_refused(image: str) -> None:
    ds = {"spec": {"template": {"spec": {"containers": [{"name": "c", "image": image}]}}}}
    problems = unpinned_images("kubernetes:apps/v1:DaemonSet", sdk(ds))
    assert len(problems) == 1 and "moving tag" in problems[0]


def test_helm_values_with_a_moving_version_are_refused() -> None:
    release = {"chart": "network-operator", "version": "26.4.1",
               "values": {"operator": {"version": "latest"}, "sriov": {"tag": "main"},
                          "driver": {"image": "doca-driver", "version": "doca3.2.0"}}}
    problems = unpinned_images("kubernetes:helm.sh/v3:Release", sdk(release))
    assert sorted(p.split(" ")[0] for p in problems) == ["values.operator.version",
                                                         "values.sriov.tag"]
