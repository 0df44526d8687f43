"""The active fabric check's CronJob: one run, from picking idle nodes to labelling them.

Shipped in a ConfigMap with :mod:`gpu_fabric.health.logic` and the NCCL verdict; runs
on the pinned python image with the standard library only, talking to the API server
with its ServiceAccount token. Every decision is in :mod:`~gpu_fabric.health.logic`;
this module does the I/O, through an ``api`` object the tests replace with a fake.

``python -m gpu_fabric.health.controller`` reads ``$GPUFABRIC_HEALTH_CONFIG`` (JSON,
rendered by :mod:`gpu_fabric.health.config`).
"""

from __future__ import annotations

import json
import os
import ssl
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Protocol

from gpu_fabric.health import logic

_SA = "/var/run/secrets/kubernetes.io/serviceaccount"
# Collection paths of the kinds a test creates (the Role grants exactly these).
_PLURALS = {
    ("kubeflow.org/v2beta1", "MPIJob"): "/apis/kubeflow.org/v2beta1/namespaces/{ns}/mpijobs",
    ("apps/v1", "StatefulSet"): "/apis/apps/v1/namespaces/{ns}/statefulsets",
    ("v1", "Service"): "/api/v1/namespaces/{ns}/services",
}


class Api(Protocol):
    def list_nodes(self) -> list[dict[str, Any]]: ...
    def list_pods(self) -> list[dict[str, Any]]: ...
    def pods_of(self, namespace: str, selector: str) -> list[dict[str, Any]]: ...
    def log(self, namespace: str, pod: str, container: str) -> str: ...
    def create(self, obj: Mapping[str, Any]) -> None: ...
    def delete(self, obj: Mapping[str, Any]) -> None: ...
    def get_node(self, name: str) -> dict[str, Any]: ...
    def patch_node(self, name: str, patch: Mapping[str, Any]) -> None: ...


class Conflict(Exception):
    """The API server refused a patch: the object changed since it was read (409)."""


class KubeApi:
    """The few API calls the check makes, over HTTPS with the pod's ServiceAccount."""

    def __init__(self) -> None:
        host = os.environ["KUBERNETES_SERVICE_HOST"]
        port = os.environ.get("KUBERNETES_SERVICE_PORT", "443")
        self.base = f"https://{host}:{port}"
        with open(f"{_SA}/token", encoding="utf-8") as handle:
            self.token = handle.read().strip()
        self.context = ssl.create_default_context(cafile=f"{_SA}/ca.crt")

    def _call(self, method: str, path: str, body: Any = None,
              content_type: str = "application/json") -> Any:
        data = json.dumps(body).encode() if body is not None else None
        request = urllib.request.Request(self.base + path, data=data, method=method)
        request.add_header("Authorization", f"Bearer {self.token}")
        request.add_header("Accept", "application/json")
        if data is not None:
            request.add_header("Content-Type", content_type)
        try:
            with urllib.request.urlopen(request, context=self.context, timeout=60) as resp:
                raw = resp.read().decode()
        except urllib.error.HTTPError as exc:
            if exc.code == 409:
                raise Conflict(path) from exc
            raise
        if resp.headers.get_content_type() == "application/json":
            return json.loads(raw)
        return raw

    def list_nodes(self) -> list[dict[str, Any]]:
        return list(self._call("GET", "/api/v1/nodes")["items"])

    def list_pods(self) -> list[dict[str, Any]]:
        query = urllib.parse.urlencode(
            {"fieldSelector": "status.phase!=Succeeded,status.phase!=Failed"})
        return list(self._call("GET", f"/api/v1/pods?{query}")["items"])

    def pods_of(self, namespace: str, selector: str) -> list[dict[str, Any]]:
        query = urllib.parse.urlencode({"labelSelector": selector})
        return list(self._call("GET", f"/api/v1/namespaces/{namespace}/pods?{query}")["items"])

    def log(self, namespace: str, pod: str, container: str) -> str:
        query = urllib.parse.urlencode({"container": container})
        return str(self._call("GET", f"/api/v1/namespaces/{namespace}/pods/{pod}/log?{query}"))

    def _collection(self, obj: Mapping[str, Any]) -> str:
        path = _PLURALS[(obj["apiVersion"], obj["kind"])]
        return path.format(ns=obj["metadata"]["namespace"])

    def create(self, obj: Mapping[str, Any]) -> None:
        self._call("POST", self._collection(obj), obj)

    def delete(self, obj: Mapping[str, Any]) -> None:
        path = f"{self._collection(obj)}/{obj['metadata']['name']}"
        self._call("DELETE", path, {"propagationPolicy": "Background"})

    def get_node(self, name: str) -> dict[str, Any]:
        return dict(self._call("GET", f"/api/v1/nodes/{name}"))

    def patch_node(self, name: str, patch: Mapping[str, Any]) -> None:
        self._call("PATCH", f"/api/v1/nodes/{name}", patch, "application/merge-patch+json")


@dataclass
class Run:
    pool: Mapping[str, Any]
    pair: logic.Pair
    name: str
    objects: list[dict[str, Any]]
    done: bool = False
    scheduled: bool = False


def _selector(run: Run, role: str) -> str:
    return f"{run.pool['app_label']}={run.name},{logic.ROLE}={role}"


def _poll(api: Api, run: Run) -> None:
    """Whether the run finished: the launcher pod ended (MPIJob), or the first pod
    printed the acceptance script's end marker (StatefulSet runner)."""
    ns = run.pool["namespace"]
    workers = api.pods_of(ns, _selector(run, logic.WORKER))
    run.scheduled = bool(workers) and all(
        p.get("spec", {}).get("nodeName") and p.get("status", {}).get("phase") == "Running"
        for p in workers)
    if run.pool["runner"] == "mpijob":
        launchers = api.pods_of(ns, _selector(run, logic.LAUNCHER))
        run.done = any(p.get("status", {}).get("phase") in ("Succeeded", "Failed")
                       for p in launchers)
    else:
        first = sorted(workers, key=logic.name_of)[:1]
        run.done = bool(first) and run.pool["end_marker"] in api.log(
            ns, logic.name_of(first[0]), run.pool["container"])


def _logs(api: Api, run: Run) -> tuple[str, dict[str, str]]:
    """Every test pod's log (launcher first) and worker pod name -> node."""
    ns = run.pool["namespace"]
    workers = api.pods_of(ns, _selector(run, logic.WORKER))
    launchers = api.pods_of(ns, _selector(run, logic.LAUNCHER))
    texts = [api.log(ns, logic.name_of(p), run.pool["container"])
             for p in sorted(launchers + workers, key=logic.name_of)]
    nodes = {logic.name_of(p): str(p.get("spec", {}).get("nodeName", "")) for p in workers}
    return "\n".join(texts), nodes


def _label(api: Api, result: logic.NodeResult, now: datetime, taint: bool,
           say: Callable[[str], None]) -> None:
    for _ in range(5):
        node = api.get_node(result.node)
        try:
            api.patch_node(result.node, logic.node_patch(node, result, now, taint))
            return
        except Conflict:
            continue
    say(f"{result.node}: node kept changing, labels not written")


def run_once(api: Api, config: Mapping[str, Any], now: Callable[[], datetime],
             sleep: Callable[[float], None], say: Callable[[str], None] = print) -> int:
    """Test the due idle nodes of every pool once; returns how many nodes got labels."""
    started = now()
    nodes, pods = api.list_nodes(), api.list_pods()
    runs: list[Run] = []
    for pool in config["pools"]:
        pairs = logic.select_pairs(nodes, pods, pool, started, int(config["interval_hours"]),
                                   int(config["max_pairs"]))
        for index, pair in enumerate(pairs):
            name = logic.run_name(pool["pool"], started, index)
            run = Run(pool, pair, name, logic.instantiate(pool["objects"], name, pair.nodes))
            say(f"{pool['pool']}: testing {' + '.join(pair.nodes)} as {name}")
            for obj in run.objects:
                api.create(obj)
            runs.append(run)
    polls = int(float(config["timeout_seconds"]) // float(config["poll_seconds"]))
    try:
        for _ in range(polls):
            if all(r.done for r in runs):
                break
            sleep(float(config["poll_seconds"]))
            for run in runs:
                if not run.done:
                    _poll(api, run)
        labelled = 0
        for run in runs:
            labelled += _finish(api, config, run, now(), say)
        return labelled
    finally:
        for run in runs:
            for obj in reversed(run.objects):
                try:
                    api.delete(obj)
                except Exception as exc:
                    say(f"{run.name}: could not delete {obj['kind']}: {exc}")


def _finish(api: Api, config: Mapping[str, Any], run: Run, when: datetime,
            say: Callable[[str], None]) -> int:
    if not run.done and not run.scheduled:
        # The pods never all ran (the nodes got work, or could not start them): not the
        # nodes' verdict. They stay due and are picked again next run.
        say(f"{run.name}: did not start in time; no verdict")
        return 0
    text, node_of_host = _logs(api, run)
    pool = run.pool
    nccl = logic.judge_log(text, logic.ConfiguredMachine(pool["machine"]), 2,
                           int(pool["machine"]["gpus_per_node"]))
    if not run.done:
        nccl = logic.NcclResult(False, nccl.busbw, (*nccl.reasons, "timed out: the test hung"))
    results = logic.pair_results(run.pair, nccl, logic.parse_rails(text), node_of_host,
                                 pool["rails"])
    for result in results:
        verdict = "pass" if result.passed else "fail: " + "; ".join(result.reasons)
        say(f"{result.node}: {verdict}")
        _label(api, result, when, bool(config["taint_on_failure"]), say)
    return len(results)


def main(argv: Sequence[str] = ()) -> int:
    path = os.environ.get("GPUFABRIC_HEALTH_CONFIG", "/etc/gpu-fabric-health/config.json")
    with open(path, encoding="utf-8") as handle:
        config = json.load(handle)
    run_once(KubeApi(), config, lambda: datetime.now(UTC), time.sleep)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
