"""Plausible computed outputs of the GCP resources we create, for offline plans (no SDK).

Keys are the provider's wire names (camelCase), as the mock monitor sees them.
"""

from __future__ import annotations

import base64
import zlib
from typing import Any

_API = "https://www.googleapis.com/compute/v1"


def _project(inputs: dict[str, Any]) -> str:
    return str(inputs.get("project") or "fake-project")


def _network(name: str, inputs: dict[str, Any]) -> dict[str, Any]:
    net = inputs.get("name") or name
    path = f"projects/{_project(inputs)}/global/networks/{net}"
    return {"__id": path, "name": net, "selfLink": f"{_API}/{path}",
            "gatewayIpv4": "", "numericId": str(zlib.crc32(path.encode()))}


def _subnetwork(name: str, inputs: dict[str, Any]) -> dict[str, Any]:
    sub = inputs.get("name") or name
    region = inputs.get("region", "us-west8")
    path = f"projects/{_project(inputs)}/regions/{region}/subnetworks/{sub}"
    cidr = str(inputs.get("ipCidrRange", "10.0.0.0/24"))
    gateway = cidr.split("/")[0].rsplit(".", 1)[0] + ".1"
    return {"__id": path, "name": sub, "selfLink": f"{_API}/{path}", "gatewayAddress": gateway}


def _firewall(name: str, inputs: dict[str, Any]) -> dict[str, Any]:
    rule = inputs.get("name") or name
    path = f"projects/{_project(inputs)}/global/firewalls/{rule}"
    return {"__id": path, "name": rule, "selfLink": f"{_API}/{path}"}


def _cluster(name: str, inputs: dict[str, Any]) -> dict[str, Any]:
    cluster = inputs.get("name") or name
    location = inputs.get("location", "us-west8-c")
    path = f"projects/{_project(inputs)}/locations/{location}/clusters/{cluster}"
    ca = base64.b64encode(f"fake-cluster-ca-for-{cluster}".encode()).decode()
    return {
        "__id": path,
        "name": cluster,
        "endpoint": "203.0.113.10",
        "masterAuth": {"clusterCaCertificate": ca, "clientCertificateConfig": {
            "issueClientCertificate": False}},
        "selfLink": f"https://container.googleapis.com/v1/{path}",
        "masterVersion": str(inputs.get("minMasterVersion", "1.34")),
        "labelFingerprint": "fake",
    }


def _node_pool(name: str, inputs: dict[str, Any]) -> dict[str, Any]:
    pool = inputs.get("name") or name
    location = inputs.get("location", "us-west8-c")
    path = f"projects/{_project(inputs)}/locations/{location}/clusters/{inputs.get('cluster')}"
    return {
        "__id": f"{path}/nodePools/{pool}",
        "name": pool,
        "instanceGroupUrls": [
            f"{_API}/projects/{_project(inputs)}/zones/{location}/instanceGroupManagers/"
            f"gke-{pool}-grp"
        ],
    }


def _service_account(name: str, inputs: dict[str, Any]) -> dict[str, Any]:
    account = inputs.get("accountId") or name
    email = f"{account}@{_project(inputs)}.iam.gserviceaccount.com"
    return {
        "__id": f"projects/{_project(inputs)}/serviceAccounts/{email}",
        "email": email,
        "member": f"serviceAccount:{email}",
        "uniqueId": "100000000000000000001",
    }


def _iam_member(name: str, inputs: dict[str, Any]) -> dict[str, Any]:
    return {"etag": "BwFake="}


RESOURCE_OUTPUTS = {
    "gcp:compute/network:Network": _network,
    "gcp:compute/subnetwork:Subnetwork": _subnetwork,
    "gcp:compute/firewall:Firewall": _firewall,
    "gcp:container/cluster:Cluster": _cluster,
    "gcp:container/nodePool:NodePool": _node_pool,
    "gcp:serviceaccount/account:Account": _service_account,
    "gcp:projects/iAMMember:IAMMember": _iam_member,
}

CALLS: dict[str, Any] = {}
