"""AKS: the layer waits until the deployer's Azure RBAC role is effective (issue 31).

Source of the wait: Microsoft, "Use Azure RBAC for Kubernetes Authorization"
(https://learn.microsoft.com/azure/aks/manage-azure-rbac): "Role assignments can take up
to five minutes to propagate". Source of the permission: built-in roles
(https://learn.microsoft.com/azure/role-based-access-control/built-in-roles): creating a
role assignment needs Microsoft.Authorization/roleAssignments/write, which Owner, User
Access Administrator and Role Based Access Control Administrator have and Contributor
does not (its NotActions exclude Microsoft.Authorization/*/Write).
"""

from __future__ import annotations

import asyncio
import http.server
import sys
import threading
from typing import Any

import pytest
import yaml

from gpu_fabric.clouds.azure import access
from gpu_fabric.existing import OFFLINE_ENV


def _run(coro: Any) -> Any:
    return asyncio.new_event_loop().run_until_complete(coro)


def _probe(statuses: list[int]) -> tuple[Any, list[int]]:
    seen: list[int] = []

    async def probe() -> int:
        status = statuses[min(len(seen), len(statuses) - 1)]
        seen.append(status)
        return status

    return probe, seen


def test_waits_through_403_until_the_api_answers_200() -> None:
    probe, seen = _probe([403, 403, 401, 200])
    slept: list[float] = []

    async def sleep(s: float) -> None:
        slept.append(s)

    assert _run(access.wait_until_allowed(probe, "c1", sleep=sleep)) == 4
    assert seen == [403, 403, 401, 200]
    assert slept == [15, 15, 15]


def test_connection_errors_retry_too() -> None:
    calls: list[int] = []

    async def probe() -> int:
        calls.append(1)
        if len(calls) < 3:
            raise ConnectionRefusedError("api not up")
        return 200

    async def sleep(s: float) -> None:
        return None

    assert _run(access.wait_until_allowed(probe, "c1", sleep=sleep)) == 3


def test_gives_up_after_ten_minutes_naming_the_roles_that_can_assign() -> None:
    probe, seen = _probe([403])
    slept: list[float] = []

    async def sleep(s: float) -> None:
        slept.append(s)

    with pytest.raises(access.ApiAccessError) as err:
        _run(access.wait_until_allowed(probe, "gpu-aks", sleep=sleep))
    # 600 s / 15 s = 40 sleeps, 41 probes (the first probe is immediate).
    assert sum(slept) == 600 and len(seen) == 41
    text = str(err.value)
    for needed in ("HTTP 403", "gpu-aks", "Microsoft.Authorization/roleAssignments/write",
                   "Owner", "User Access Administrator",
                   "Role Based Access Control Administrator", "Contributor cannot"):
        assert needed in text, needed


def test_offline_and_preview_never_probe(monkeypatch: pytest.MonkeyPatch) -> None:
    def make_probe(_: str) -> Any:
        raise AssertionError("probed offline")

    monkeypatch.setenv(OFFLINE_ENV, "1")
    assert _run(access.effective_kubeconfig("kc", "c1", False, make_probe)) == "kc"
    monkeypatch.delenv(OFFLINE_ENV)
    assert _run(access.effective_kubeconfig("kc", "c1", True, make_probe)) == "kc"


def test_a_real_up_probes_before_handing_the_kubeconfig_on(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv(OFFLINE_ENV, raising=False)
    probe, seen = _probe([200])
    got = _run(access.effective_kubeconfig("kc", "c1", False, lambda _: probe))
    assert got == "kc" and seen == [200]


class _Api(http.server.BaseHTTPRequestHandler):
    answers = [403, 200]
    seen: list[tuple[str, str | None]] = []

    def do_GET(self) -> None:
        self.seen.append((self.path, self.headers.get("Authorization")))
        self.send_response(self.answers[min(len(self.seen), len(self.answers)) - 1])
        self.end_headers()

    def log_message(self, *args: Any) -> None:
        return None


def test_http_probe_uses_the_exec_plugin_token_like_kubectl() -> None:
    server = http.server.HTTPServer(("127.0.0.1", 0), _Api)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    credential = ('{"apiVersion":"client.authentication.k8s.io/v1beta1",'
                  '"kind":"ExecCredential","status":{"token":"tok-$TOKEN_SUFFIX"}}')
    kubeconfig = yaml.safe_dump({
        "apiVersion": "v1", "kind": "Config",
        "clusters": [{"name": "c", "cluster": {
            "server": f"http://127.0.0.1:{server.server_port}"}}],
        "users": [{"name": "u", "user": {"exec": {
            "apiVersion": "client.authentication.k8s.io/v1beta1",
            "command": sys.executable,
            "args": ["-c", "import os,sys; sys.stdout.write(" + repr(credential)
                     + ".replace('$TOKEN_SUFFIX', os.environ['TOKEN_SUFFIX']))"],
            "env": [{"name": "TOKEN_SUFFIX", "value": "abc"}],
        }}}],
    })
    try:
        probe = access.http_probe(kubeconfig)
        assert _run(probe()) == 403
        assert _run(probe()) == 200
    finally:
        server.shutdown()
    assert _Api.seen == [("/api/v1/namespaces?limit=1", "Bearer tok-abc")] * 2
