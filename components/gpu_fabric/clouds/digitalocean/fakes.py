"""Plausible computed outputs of DigitalOcean resources and invokes for offline plans (SDK-free).

Values follow the shapes the DO API returns: UUID ids, ``do:<kind>:<uuid>`` URNs,
``https://<uuid>.k8s.ondigitalocean.com`` endpoints and a kubeconfig whose token
the provider marks secret. Ids are derived from the resource name so plans are
stable from run to run.
"""

from __future__ import annotations

import base64
import textwrap
import uuid
from collections.abc import Callable
from typing import Any

_NAMESPACE = uuid.UUID("6f1c2d4e-0d0c-4e55-9a57-646f6b733031")
CREATED_AT = "2026-01-01T00:00:00Z"
# DOKS defaults when the cluster does not set cluster_subnet / service_subnet.
DEFAULT_POD_SUBNET = "10.244.0.0/16"
DEFAULT_SERVICE_SUBNET = "10.245.0.0/16"
# Versions the fake DOKS API offers (newest first within a minor).
OFFERED_VERSIONS = ("1.35.1-do.0", "1.34.2-do.1", "1.34.1-do.0", "1.33.6-do.2", "1.32.10-do.3")


def fake_uuid(kind: str, name: str) -> str:
    return str(uuid.uuid5(_NAMESPACE, f"{kind}/{name}"))


def _kubeconfig(cluster: str, region: str, endpoint: str, token: str) -> str:
    """Shaped like the provider's RenderKubeconfig: context do-<region>-<name>, token user."""
    ca = base64.b64encode(f"fake CA of {cluster}".encode()).decode()
    context = f"do-{region}-{cluster}"
    return textwrap.dedent(f"""\
        apiVersion: v1
        kind: Config
        clusters:
        - cluster:
            certificate-authority-data: {ca}
            server: {endpoint}
          name: {context}
        contexts:
        - context:
            cluster: {context}
            user: {context}-admin
          name: {context}
        current-context: {context}
        users:
        - name: {context}-admin
          user:
            token: {token}
        """)


def kubernetes_cluster(name: str, inputs: dict[str, Any]) -> dict[str, Any]:
    cluster_id = fake_uuid("kubernetes", name)
    cluster = str(inputs.get("name") or name)
    endpoint = f"https://{cluster_id}.k8s.ondigitalocean.com"
    token = f"dop_v1_{uuid.uuid5(_NAMESPACE, 'token/' + name).hex}"
    pool = dict(inputs.get("nodePool") or {})
    count = int(pool.get("nodeCount") or pool.get("minNodes") or 1)
    pool_id = fake_uuid("node-pool", f"{name}/{pool.get('name', 'default')}")
    pool.update({
        "id": pool_id,
        "actualNodeCount": count,
        "nodes": [
            {"id": fake_uuid("node", f"{pool_id}/{i}"), "name": f"{pool.get('name')}-{i:05d}",
             "status": "running", "dropletId": str(400000000 + i),
             "createdAt": CREATED_AT, "updatedAt": CREATED_AT}
            for i in range(count)
        ],
    })
    return {
        "__id": cluster_id,
        "endpoint": endpoint,
        "ipv4Address": "203.0.113.10",
        "clusterUrn": f"do:kubernetes:{cluster_id}",
        "status": "running",
        "createdAt": CREATED_AT,
        "updatedAt": CREATED_AT,
        "vpcUuid": inputs.get("vpcUuid") or fake_uuid("vpc", "default"),
        "clusterSubnet": inputs.get("clusterSubnet") or DEFAULT_POD_SUBNET,
        "serviceSubnet": inputs.get("serviceSubnet") or DEFAULT_SERVICE_SUBNET,
        "nodePool": pool,
        "kubeConfigs": [{
            "rawConfig": _kubeconfig(cluster, str(inputs.get("region")), endpoint, token),
            "host": endpoint,
            "clusterCaCertificate": base64.b64encode(b"fake CA").decode(),
            "token": token,
            "expiresAt": "2026-01-08T00:00:00Z",
        }],
    }


def kubernetes_node_pool(name: str, inputs: dict[str, Any]) -> dict[str, Any]:
    pool_id = fake_uuid("node-pool", name)
    count = int(inputs.get("nodeCount") or inputs.get("minNodes") or 0)
    return {
        "__id": pool_id,
        "actualNodeCount": count,
        "nodes": [
            {"id": fake_uuid("node", f"{pool_id}/{i}"), "name": f"{inputs.get('name')}-{i:05d}",
             "status": "running", "dropletId": str(500000000 + i),
             "createdAt": CREATED_AT, "updatedAt": CREATED_AT}
            for i in range(count)
        ],
    }


def vpc(name: str, inputs: dict[str, Any]) -> dict[str, Any]:
    vpc_id = fake_uuid("vpc", name)
    return {
        "__id": vpc_id,
        "urn": f"do:vpc:{vpc_id}",
        "default": False,
        "createdAt": CREATED_AT,
    }


def kubernetes_versions(args: dict[str, Any]) -> dict[str, Any]:
    prefix = str(args.get("versionPrefix") or "")
    valid = [v for v in OFFERED_VERSIONS if v.startswith(prefix)]
    return {
        "id": prefix or "all",
        "latestVersion": valid[0] if valid else "",
        "validVersions": valid,
        "versionPrefix": prefix,
    }


RESOURCE_OUTPUTS: dict[str, Callable[[str, dict[str, Any]], dict[str, Any]]] = {
    "digitalocean:index/kubernetesCluster:KubernetesCluster": kubernetes_cluster,
    "digitalocean:index/kubernetesNodePool:KubernetesNodePool": kubernetes_node_pool,
    "digitalocean:index/vpc:Vpc": vpc,
}
CALLS: dict[str, Callable[[dict[str, Any]], dict[str, Any]]] = {
    "digitalocean:index/getKubernetesVersions:getKubernetesVersions": kubernetes_versions,
}
