"""Plausible computed outputs of OCI resources and invokes for offline plans (SDK-free)."""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from typing import Any

REGION = "iad"


def _ocid(kind: str, name: str) -> str:
    digest = hashlib.sha256(f"{kind}/{name}".encode()).hexdigest()[:24]
    return f"ocid1.{kind}.oc1.{REGION}.aaaa{digest}"


def _with_id(kind: str, **extra: Any) -> Callable[[str, dict[str, Any]], dict[str, Any]]:
    def fake(name: str, inputs: dict[str, Any]) -> dict[str, Any]:
        out = {"__id": _ocid(kind, name), "state": "AVAILABLE", **extra}
        if "displayName" not in inputs and "name" not in inputs:
            out["displayName"] = name
        return out

    return fake


def _cluster(name: str, inputs: dict[str, Any]) -> dict[str, Any]:
    return {
        "__id": _ocid("cluster", name),
        "state": "ACTIVE",
        "endpoints": [{
            "kubernetes": "",
            "privateEndpoint": "10.0.96.2:6443",
            "publicEndpoint": "",
            "vcnHostnameEndpoint": f"{name}.endpoint.oraclevcn.com:6443",
        }],
        "availableKubernetesUpgrades": [],
    }


def _node_pool(name: str, inputs: dict[str, Any]) -> dict[str, Any]:
    size = int((inputs.get("nodeConfigDetails") or {}).get("size", 0))
    return {
        "__id": _ocid("nodepool", name),
        "state": "ACTIVE",
        "nodes": [{"id": _ocid("instance", f"{name}-{i}"), "state": "ACTIVE"}
                  for i in range(size)],
    }


def _kubeconfig(args: dict[str, Any]) -> dict[str, Any]:
    cluster_id = args.get("clusterId", "ocid1.cluster.oc1.iad.fake")
    content = f"""apiVersion: v1
kind: Config
clusters:
- name: oke
  cluster:
    server: https://10.0.96.2:6443
    certificate-authority-data: RkFLRS1DQQ==
contexts:
- name: oke
  context: {{cluster: oke, user: oke}}
current-context: oke
users:
- name: oke
  user:
    exec:
      apiVersion: client.authentication.k8s.io/v1beta1
      command: oci
      args: [ce, cluster, generate-token, --cluster-id, {cluster_id}, --region, us-ashburn-1]
"""
    return {"content": content, "id": cluster_id}


def _services(args: dict[str, Any]) -> dict[str, Any]:
    return {"id": "services", "services": [{
        "id": _ocid("service", "all-osn"),
        "cidrBlock": "all-iad-services-in-oracle-services-network",
        "description": "All IAD Services In Oracle Services Network",
        "name": "All IAD Services In Oracle Services Network",
    }]}


def _node_pool_option(args: dict[str, Any]) -> dict[str, Any]:
    version = str(args.get("nodePoolK8sVersion", "v1.34.1")).lstrip("v")
    names = [
        f"Oracle-Linux-8.10-2026.01.01-0-OKE-{version}-900",
        f"Oracle-Linux-8.10-Gen2-GPU-2026.01.01-0-OKE-{version}-900",
        f"Oracle-Linux-8.10-aarch64-2026.01.01-0-OKE-{version}-900",
    ]
    return {"id": "all", "sources": [
        {"imageId": _ocid("image", n), "sourceName": n, "sourceType": "IMAGE"} for n in names
    ]}


def _region_subscriptions(args: dict[str, Any]) -> dict[str, Any]:
    # The fake tenancy's home region is us-phoenix-1 (not the stacks' us-ashburn-1), so a
    # plan shows which region the IAM provider was given.
    tenancy = args.get("tenancyId", "ocid1.tenancy.oc1..fake")
    return {"id": "subscriptions", "tenancyId": tenancy, "regionSubscriptions": [
        {"isHomeRegion": True, "regionKey": "PHX", "regionName": "us-phoenix-1",
         "state": "READY", "tenancyId": tenancy},
    ]}


RESOURCE_OUTPUTS: dict[str, Callable[[str, dict[str, Any]], dict[str, Any]]] = {
    "oci:Core/vcn:Vcn": _with_id("vcn", defaultRouteTableId="ocid1.routetable.oc1.iad.default"),
    "oci:Core/subnet:Subnet": _with_id("subnet"),
    "oci:Core/natGateway:NatGateway": _with_id("natgateway", natIp="192.0.2.10"),
    "oci:Core/serviceGateway:ServiceGateway": _with_id("servicegateway"),
    "oci:Core/internetGateway:InternetGateway": _with_id("internetgateway"),
    "oci:Core/routeTable:RouteTable": _with_id("routetable"),
    "oci:Core/securityList:SecurityList": _with_id("securitylist"),
    "oci:Core/computeCluster:ComputeCluster": _with_id("computecluster"),
    "oci:Identity/policy:Policy": _with_id("policy"),
    "oci:ContainerEngine/cluster:Cluster": _cluster,
    "oci:ContainerEngine/nodePool:NodePool": _node_pool,
    "oci:ContainerEngine/addon:Addon": _with_id("addon"),
}

CALLS: dict[str, Callable[[dict[str, Any]], dict[str, Any]]] = {
    "oci:ContainerEngine/getClusterKubeConfig:getClusterKubeConfig": _kubeconfig,
    "oci:Core/getServices:getServices": _services,
    "oci:ContainerEngine/getNodePoolOption:getNodePoolOption": _node_pool_option,
    "oci:Identity/getRegionSubscriptions:getRegionSubscriptions": _region_subscriptions,
}
