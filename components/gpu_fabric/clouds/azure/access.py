"""AKS: wait until the deployer's Azure RBAC role is effective before the first Kubernetes call.

Local accounts are off (``disable_local_accounts``), so every call of the fabric layer
goes through Entra ID and Azure RBAC as the identity running ``pulumi up``. That identity
gets "Azure Kubernetes Service RBAC Cluster Admin" on the cluster (``<n>-api-admin``), but
a role assignment is *created* long before it is *effective*: "Role assignments can take
up to five minutes to propagate" (Microsoft, learn.microsoft.com/azure/aks/manage-azure-rbac,
"Create role assignments for users to access the cluster"). The first Namespace or Helm
call in that window gets 403 Forbidden and the update fails halfway.

So the kubeconfig handed to the Kubernetes provider resolves only once a real request
with the deployer's credentials is allowed: the exec plugin of the AKS kubeconfig
(kubelogin, the same command the provider runs) gives a token, and
``GET /api/v1/namespaces?limit=1`` (a cluster-scoped list only the admin role grants)
is retried every :data:`POLL_SECONDS` until it answers 200, for at most
:data:`WAIT_SECONDS`. After that the update fails with what to check, including the
deployer's own permission to create role assignments.

Offline plans (``GPU_FABRIC_OFFLINE=1``) and previews never probe or sleep: the
kubeconfig passes through unchanged.
"""

from __future__ import annotations

import asyncio
import base64
import json
import os
import ssl
import subprocess
import tempfile
import urllib.error
import urllib.request
from collections.abc import Awaitable, Callable
from typing import Any

import yaml

from gpu_fabric.existing import OFFLINE_ENV

# Microsoft's figure for role-assignment propagation is "up to five minutes"; twice that.
WAIT_SECONDS = 10 * 60
POLL_SECONDS = 15
# What the deployer needs to create <n>-api-admin and <n>-subnet-access-*: Contributor
# lacks it (learn.microsoft.com/azure/role-based-access-control/built-in-roles).
ROLE_ASSIGNMENT_WRITE = "Microsoft.Authorization/roleAssignments/write"
ROLES_THAT_CAN_ASSIGN = (
    "Owner", "User Access Administrator", "Role Based Access Control Administrator"
)
PROBE_PATH = "/api/v1/namespaces?limit=1"


class ApiAccessError(RuntimeError):
    """The deployer's Azure RBAC role on the AKS API never became effective."""


def permission_hint(cluster: str) -> str:
    """The sentence every AKS access error carries: who may create the role assignments."""
    return (
        f"the identity running `pulumi up` creates Azure role assignments on cluster "
        f"'{cluster}' (its own AKS RBAC Cluster Admin and the cluster identity's Network "
        f"Contributor on the subnets), which needs {ROLE_ASSIGNMENT_WRITE}: one of "
        f"{', '.join(ROLES_THAT_CAN_ASSIGN)} on the resource group (Contributor cannot)"
    )


async def wait_until_allowed(
    probe: Callable[[], Awaitable[int]],
    cluster: str,
    *,
    timeout: float = WAIT_SECONDS,
    interval: float = POLL_SECONDS,
    sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
) -> int:
    """Call ``probe`` (an HTTP status) until it returns 200; 401/403 and errors retry.

    Returns the number of probes made. Fails with what to check after ``timeout`` s.
    """
    waited = 0.0
    probes = 0
    last = "no answer"
    while True:
        probes += 1
        try:
            status = await probe()
        except OSError as err:  # DNS, TLS, connection refused while the API comes up
            status, last = 0, f"{type(err).__name__}: {err}"
        if status == 200:
            return probes
        if status:
            last = f"HTTP {status}"
        if waited >= timeout:
            raise ApiAccessError(
                f"AKS cluster '{cluster}': the Kubernetes API still refuses the deployer "
                f"({last} on GET {PROBE_PATH}) {int(waited)} s after its role assignment "
                f"<n>-api-admin was created (Azure RBAC propagates within about five "
                f"minutes). Check that {permission_hint(cluster)}, that `az login` / the "
                "kubelogin method (AAD_LOGIN_METHOD) is the same identity, then run "
                "`pulumi up` again"
            )
        await sleep(interval)
        waited += interval


def _exec_token(user: dict[str, Any]) -> str:
    """A bearer token from the kubeconfig user: ``token`` or its exec plugin (kubelogin)."""
    if user.get("token"):
        return str(user["token"])
    spec = user.get("exec") or {}
    if not spec.get("command"):
        raise ApiAccessError("the AKS kubeconfig has neither a token nor an exec plugin")
    env = {**os.environ, **{e["name"]: e["value"] for e in spec.get("env") or []}}
    out = subprocess.run(
        [spec["command"], *(spec.get("args") or [])],
        capture_output=True, text=True, check=True, env=env, timeout=300,
    )
    return str(json.loads(out.stdout)["status"]["token"])


def http_probe(kubeconfig: str) -> Callable[[], Awaitable[int]]:
    """``probe()`` for :func:`wait_until_allowed`: the status of ``GET`` :data:`PROBE_PATH`
    with the kubeconfig's first cluster and user (a fresh token each time)."""
    config = yaml.safe_load(kubeconfig)
    cluster = config["clusters"][0]["cluster"]
    user = config["users"][0]["user"]
    context = ssl.create_default_context()
    ca = cluster.get("certificate-authority-data")
    if ca:
        with tempfile.NamedTemporaryFile("wb", suffix=".crt", delete=False) as handle:
            handle.write(base64.b64decode(ca))
        context.load_verify_locations(handle.name)

    def once() -> int:
        request = urllib.request.Request(
            cluster["server"].rstrip("/") + PROBE_PATH,
            headers={"Authorization": f"Bearer {_exec_token(user)}"},
        )
        try:
            with urllib.request.urlopen(request, context=context, timeout=30) as answer:
                return int(answer.status)
        except urllib.error.HTTPError as err:
            return int(err.code)

    async def probe() -> int:
        return await asyncio.get_running_loop().run_in_executor(None, once)

    return probe


async def effective_kubeconfig(
    kubeconfig: str,
    cluster: str,
    dry_run: bool,
    make_probe: Callable[[str], Callable[[], Awaitable[int]]] = http_probe,
) -> str:
    """``kubeconfig`` once the deployer's access is effective (unchanged offline/in preview)."""
    if dry_run or os.environ.get(OFFLINE_ENV) == "1":
        return kubeconfig
    await wait_until_allowed(make_probe(kubeconfig), cluster)
    return kubeconfig
