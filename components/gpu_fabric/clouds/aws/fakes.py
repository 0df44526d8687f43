"""Plausible computed outputs of the AWS resources we create, for offline plans (no SDK).

Keys are the provider's wire names (camelCase), as the mock monitor sees them.
"""

from __future__ import annotations

import base64
import zlib
from typing import Any

ACCOUNT = "123456789012"
REGION = "us-east-1"


def _hex(name: str, n: int = 17) -> str:
    return f"{zlib.crc32(name.encode()):08x}{zlib.crc32(name[::-1].encode()):08x}0"[:n]


def _arn(service: str, resource: str, region: str = REGION) -> str:
    return f"arn:aws:{service}:{region}:{ACCOUNT}:{resource}"


def _with_id(prefix: str) -> Any:
    def fake(name: str, inputs: dict[str, Any]) -> dict[str, Any]:
        rid = f"{prefix}-{_hex(name)}"
        return {"__id": rid, "arn": _arn("ec2", f"{prefix}/{rid}"), "ownerId": ACCOUNT}

    return fake


def _security_group(name: str, inputs: dict[str, Any]) -> dict[str, Any]:
    rid = f"sg-{_hex(name)}"
    return {"__id": rid, "arn": _arn("ec2", f"security-group/{rid}"), "ownerId": ACCOUNT,
            "name": inputs.get("name") or f"{name}-{_hex(name, 7)}"}


def _rule(name: str, inputs: dict[str, Any]) -> dict[str, Any]:
    rid = f"sgr-{_hex(name)}"
    return {"__id": rid, "securityGroupRuleId": rid,
            "arn": _arn("ec2", f"security-group-rule/{rid}")}


def _placement_group(name: str, inputs: dict[str, Any]) -> dict[str, Any]:
    group = inputs.get("name") or f"{name}-{_hex(name, 7)}"
    return {"__id": group, "name": group, "placementGroupId": f"pg-{_hex(name)}",
            "arn": _arn("ec2", f"placement-group/{group}")}


def _launch_template(name: str, inputs: dict[str, Any]) -> dict[str, Any]:
    rid = f"lt-{_hex(name)}"
    return {"__id": rid, "arn": _arn("ec2", f"launch-template/{rid}"), "latestVersion": 1,
            "defaultVersion": 1, "name": inputs.get("name") or f"{name}-{_hex(name, 7)}"}


def _role(name: str, inputs: dict[str, Any]) -> dict[str, Any]:
    role = inputs.get("name") or f"{name}-{_hex(name, 7)}"
    return {"__id": role, "name": role, "arn": f"arn:aws:iam::{ACCOUNT}:role/{role}",
            "uniqueId": f"AROA{_hex(name, 16).upper()}"}


def _cluster(name: str, inputs: dict[str, Any]) -> dict[str, Any]:
    cluster = inputs.get("name") or name
    oidc_id = _hex(cluster, 32).upper().ljust(32, "0")
    ca = base64.b64encode(f"fake-eks-ca-for-{cluster}".encode()).decode()
    vpc_config = dict(inputs.get("vpcConfig") or {})
    vpc_config.update({"clusterSecurityGroupId": f"sg-{_hex(cluster + '-cluster')}",
                       "vpcId": "vpc-0fake0000000000001"})
    return {
        "__id": cluster,
        "name": cluster,
        "arn": _arn("eks", f"cluster/{cluster}"),
        "endpoint": f"https://{oidc_id}.gr7.{REGION}.eks.amazonaws.com",
        "certificateAuthority": {"data": ca},
        "identities": [{"oidcs": [{
            "issuer": f"https://oidc.eks.{REGION}.amazonaws.com/id/{oidc_id}"}]}],
        "vpcConfig": vpc_config,
        "platformVersion": "eks.1",
        "status": "ACTIVE",
        "clusterId": f"{_hex(cluster, 8)}-0000-4000-8000-{_hex(cluster, 12)}",
    }


def _node_group(name: str, inputs: dict[str, Any]) -> dict[str, Any]:
    group = inputs.get("nodeGroupName") or name
    cluster = inputs.get("clusterName", "cluster")
    return {
        "__id": f"{cluster}:{group}",
        "nodeGroupName": group,
        "arn": _arn("eks", f"nodegroup/{cluster}/{group}/{_hex(name, 8)}"),
        "status": "ACTIVE",
        "resources": [{"autoscalingGroups": [{"name": f"eks-{group}-{_hex(name, 8)}"}]}],
    }


def _oidc(name: str, inputs: dict[str, Any]) -> dict[str, Any]:
    url = str(inputs.get("url", "")).removeprefix("https://")
    return {"__id": f"arn:aws:iam::{ACCOUNT}:oidc-provider/{url}",
            "arn": f"arn:aws:iam::{ACCOUNT}:oidc-provider/{url}"}


def _access_entry(name: str, inputs: dict[str, Any]) -> dict[str, Any]:
    cluster = inputs.get("clusterName", "cluster")
    return {"__id": f"{cluster}:{inputs.get('principalArn')}",
            "accessEntryArn": _arn("eks", f"access-entry/{cluster}/{_hex(name, 8)}")}


RESOURCE_OUTPUTS = {
    "aws:ec2/vpc:Vpc": _with_id("vpc"),
    "aws:ec2/subnet:Subnet": _with_id("subnet"),
    "aws:ec2/internetGateway:InternetGateway": _with_id("igw"),
    "aws:ec2/eip:Eip": _with_id("eipalloc"),
    "aws:ec2/natGateway:NatGateway": _with_id("nat"),
    "aws:ec2/routeTable:RouteTable": _with_id("rtb"),
    "aws:ec2/routeTableAssociation:RouteTableAssociation": _with_id("rtbassoc"),
    "aws:ec2/securityGroup:SecurityGroup": _security_group,
    "aws:vpc/securityGroupIngressRule:SecurityGroupIngressRule": _rule,
    "aws:vpc/securityGroupEgressRule:SecurityGroupEgressRule": _rule,
    "aws:ec2/placementGroup:PlacementGroup": _placement_group,
    "aws:ec2/launchTemplate:LaunchTemplate": _launch_template,
    "aws:iam/role:Role": _role,
    "aws:eks/cluster:Cluster": _cluster,
    "aws:eks/nodeGroup:NodeGroup": _node_group,
    "aws:iam/openIdConnectProvider:OpenIdConnectProvider": _oidc,
    "aws:eks/accessEntry:AccessEntry": _access_entry,
}

CALLS: dict[str, Any] = {}
