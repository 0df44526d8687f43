"""The active fabric check's decisions, as pure functions of API objects and logs.

This module runs in two places: here (tests, ``render``) and, byte for byte, inside the
cluster, where the check's CronJob ships it in a ConfigMap next to
:mod:`gpu_fabric.nccl.parser` and :mod:`gpu_fabric.nccl.verdict` (the project's own
verdict, not a copy of its rules). So it imports only the standard library and those
two modules, and takes nodes and pods as the plain JSON dicts the API server returns.

What it decides:

* which GPU nodes are due (no check for ``interval_hours``, or failed last time) and
  idle (no pod holds a GPU of the pool, schedulable, no taint the test does not
  tolerate: a cordoned or quarantined node is never touched), and how to pair them;
* the verdict of one pair: its nccl-tests log judged by the verdict at the pool's
  floor, and each node's RDMA rails (link state and rate read from sysfs);
* the labels and the taint each node gets.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from gpu_fabric.nccl.parser import NotNcclTestsOutput, parse
from gpu_fabric.nccl.verdict import VerdictInputError, judge

LAST_RUN = "gpufabric.dev/health-last-run"
VERDICT = "gpufabric.dev/health-verdict"
BUSBW = "gpufabric.dev/health-busbw"
RAILS = "gpufabric.dev/health-rails"
RAIL_GBPS = "gpufabric.dev/health-rail-gbps"
LABELS = (LAST_RUN, VERDICT, BUSBW, RAILS, RAIL_GBPS)
TAINT_KEY = "gpufabric.dev/fabric-health"
TAINT_VALUE = "failed"
PASS = "pass"
FAIL = "fail"
# Label values allow no ':' (RFC 3339 times do): 2026-11-27T10-17-00Z.
TIME_FORMAT = "%Y-%m-%dT%H-%M-%SZ"
# The test's objects are rendered with this name; each run replaces it everywhere.
PLACEHOLDER = "gpu-fabric-health-run"
ROLE = "gpufabric.dev/health-role"
WORKER = "worker"
LAUNCHER = "launcher"
_BLOCKING = ("NoSchedule", "NoExecute")
_TERMINAL = ("Succeeded", "Failed")


# -- time ----------------------------------------------------------------------------
def format_time(when: datetime) -> str:
    return when.astimezone(UTC).strftime(TIME_FORMAT)


def parse_time(value: str | None) -> datetime | None:
    """The time of a last-run label; None when absent or not ours."""
    if not value:
        return None
    try:
        return datetime.strptime(value, TIME_FORMAT).replace(tzinfo=UTC)
    except ValueError:
        return None


# -- which nodes ---------------------------------------------------------------------
def _labels(node: Mapping[str, Any]) -> Mapping[str, str]:
    return node.get("metadata", {}).get("labels") or {}


def name_of(obj: Mapping[str, Any]) -> str:
    return str(obj.get("metadata", {}).get("name", ""))


def in_pool(node: Mapping[str, Any], selector: Mapping[str, str]) -> bool:
    labels = _labels(node)
    return all(labels.get(k) == v for k, v in selector.items())


def is_ready(node: Mapping[str, Any]) -> bool:
    for cond in node.get("status", {}).get("conditions") or []:
        if cond.get("type") == "Ready":
            return cond.get("status") == "True"
    return False


def blocking_taints(node: Mapping[str, Any], tolerated: Iterable[str]) -> list[str]:
    """Keys of the node's NoSchedule/NoExecute taints the test does not tolerate (the
    pool's own GPU taints and this check's taint are tolerated; anything else, such as
    ``node.kubernetes.io/unschedulable`` on a cordoned node or a quarantine taint, is not)."""
    allowed = set(tolerated)
    return [t.get("key", "") for t in node.get("spec", {}).get("taints") or []
            if t.get("effect") in _BLOCKING and t.get("key") not in allowed]


def testable(node: Mapping[str, Any], tolerated: Iterable[str]) -> bool:
    """Ready, not cordoned, and no taint the test would have to tolerate."""
    if node.get("spec", {}).get("unschedulable"):
        return False
    return is_ready(node) and not blocking_taints(node, tolerated)


def _requests(container: Mapping[str, Any], resource: str) -> bool:
    res = container.get("resources") or {}
    for part in ("requests", "limits"):
        amount = str((res.get(part) or {}).get(resource, "0")).strip()
        if amount not in ("", "0"):
            return True
    return False


def holds_gpus(pod: Mapping[str, Any], resource: str) -> bool:
    """A pod that asks for the pool's GPU resource or DRA claims (DaemonSet pods never
    hold work; the node agents request no GPU anyway)."""
    owners = pod.get("metadata", {}).get("ownerReferences") or []
    if any(o.get("kind") == "DaemonSet" for o in owners):
        return False
    spec = pod.get("spec", {})
    if spec.get("resourceClaims"):
        return True
    containers = [*(spec.get("containers") or []), *(spec.get("initContainers") or [])]
    return any(_requests(c, resource) for c in containers)


def busy_nodes(pods: Iterable[Mapping[str, Any]], resource: str) -> set[str]:
    """Nodes where a pod that has not finished holds GPUs."""
    out = set()
    for pod in pods:
        node = pod.get("spec", {}).get("nodeName")
        if not node or pod.get("status", {}).get("phase") in _TERMINAL:
            continue
        if holds_gpus(pod, resource):
            out.add(str(node))
    return out


def is_due(node: Mapping[str, Any], now: datetime, interval_hours: int) -> bool:
    """Never checked, checked ``interval_hours`` ago or more, or failed last time (a failed
    node is re-tested each run, with a node that passed, until it passes)."""
    labels = _labels(node)
    if labels.get(VERDICT) == FAIL:
        return True
    last = parse_time(labels.get(LAST_RUN))
    return last is None or now - last >= timedelta(hours=interval_hours)


@dataclass(frozen=True)
class Pair:
    """Two nodes tested together; ``partner`` is a node that passed recently, paired with
    a failed node so that a second failure is the failed node's alone."""

    nodes: tuple[str, str]
    partner: str | None = None


def _age_key(node: Mapping[str, Any]) -> tuple[int, str, str]:
    labels = _labels(node)
    failed = 0 if labels.get(VERDICT) == FAIL else 1
    last = parse_time(labels.get(LAST_RUN))
    return failed, last.isoformat() if last else "", name_of(node)


def select_pairs(
    nodes: Sequence[Mapping[str, Any]],
    pods: Sequence[Mapping[str, Any]],
    pool: Mapping[str, Any],
    now: datetime,
    interval_hours: int,
    max_pairs: int,
) -> list[Pair]:
    """The pairs to test in ``pool`` now: due, idle nodes, failed ones first (each with a
    passing partner while there is one), then never-tested, then the oldest checks."""
    busy = busy_nodes(pods, str(pool["gpu_resource"]))
    tolerated = [*pool["tolerated_taints"], TAINT_KEY]
    idle = [n for n in nodes if in_pool(n, pool["node_selector"])
            and name_of(n) not in busy and testable(n, tolerated)]
    due = sorted((n for n in idle if is_due(n, now, interval_hours)), key=_age_key)
    partners = sorted(
        (n for n in idle if not is_due(n, now, interval_hours) and _labels(n).get(VERDICT) == PASS),
        key=lambda n: (parse_time(_labels(n).get(LAST_RUN)) or now, name_of(n)), reverse=True)
    pairs: list[Pair] = []
    queue: list[str] = []
    for node in due:
        name = name_of(node)
        if _labels(node).get(VERDICT) == FAIL and partners and len(pairs) < max_pairs:
            partner = name_of(partners.pop(0))
            pairs.append(Pair((name, partner), partner))
        else:
            queue.append(name)
    while len(queue) >= 2 and len(pairs) < max_pairs:
        pairs.append(Pair((queue.pop(0), queue.pop(0))))
    if len(queue) == 1 and partners and len(pairs) < max_pairs:
        partner = name_of(partners.pop(0))
        pairs.append(Pair((queue[0], partner), partner))
    return pairs


# -- the test's objects --------------------------------------------------------------
def _pod_templates(obj: Any) -> Iterable[dict[str, Any]]:
    """Every pod template inside a manifest (StatefulSet, MPIJob replica specs)."""
    if isinstance(obj, dict):
        spec = obj.get("spec")
        if "metadata" in obj and isinstance(spec, dict) and "containers" in spec:
            yield obj
        for value in obj.values():
            yield from _pod_templates(value)
    elif isinstance(obj, list):
        for value in obj:
            yield from _pod_templates(value)


def instantiate(objects: Sequence[Mapping[str, Any]], name: str,
                nodes: Sequence[str]) -> list[dict[str, Any]]:
    """One run's objects: the placeholder name replaced by ``name``, worker pods pinned to
    exactly ``nodes`` (by node name: ``metadata.name`` field selector)."""
    text = json.dumps(list(objects)).replace(PLACEHOLDER, name)
    out: list[dict[str, Any]] = json.loads(text)
    for obj in out:
        for template in _pod_templates(obj):
            if template["metadata"].get("labels", {}).get(ROLE) != WORKER:
                continue
            affinity = template["spec"].setdefault("affinity", {})
            affinity["nodeAffinity"] = {"requiredDuringSchedulingIgnoredDuringExecution": {
                "nodeSelectorTerms": [{"matchFields": [
                    {"key": "metadata.name", "operator": "In", "values": list(nodes)}]}]}}
    return out


def run_name(pool: str, now: datetime, index: int) -> str:
    """A DNS-1035 name, unique per run and pair, short enough for MPIJob pod names."""
    stamp = format_time(now).replace("T", "").replace("-", "").lower()[2:12]
    return f"gfh-{pool[:20].rstrip('-')}-{stamp}-{index}"


# -- rails (sysfs) -------------------------------------------------------------------
# Runs in each test pod (bash in the nccl-tests image): one line per RDMA port with its
# state and rate as the kernel reports them (/sys/class/infiniband/<dev>/ports/<n>/state
# "4: ACTIVE", rate "400 Gb/sec (4X NDR)"; Linux Documentation/ABI/stable/sysfs-class-
# infiniband). GPUFABRIC_SYSFS points it at a fake tree in the tests.
RAIL_PROBE = r"""sysfs=${GPUFABRIC_SYSFS:-/sys}
host=$(hostname)
for port in "$sysfs"/class/infiniband/*/ports/*; do
  [ -r "$port/state" ] || continue
  dev=${port%/ports/*}
  printf 'gpufabric-rail %s %s %s %s | %s\n' "$host" "${dev##*/}" "${port##*/}" \
    "$(cat "$port/state" 2>/dev/null)" "$(cat "$port/rate" 2>/dev/null)"
done
"""

_RAIL_LINE = re.compile(r"gpufabric-rail (\S+) (\S+) (\d+) (.*?) \| ?(.*)$")
_RATE = re.compile(r"(\d+(?:\.\d+)?)\s*Gb/sec")


@dataclass(frozen=True)
class Port:
    device: str
    port: int
    active: bool
    gbps: float | None


def parse_rails(text: str) -> dict[str, list[Port]]:
    """Host (pod hostname) -> its RDMA ports, from the probe's lines anywhere in a log."""
    out: dict[str, list[Port]] = {}
    for line in text.splitlines():
        m = _RAIL_LINE.search(line)
        if not m:
            continue
        host, dev, port, state, rate = m.groups()
        speed = _RATE.search(rate)
        found = Port(dev, int(port), "ACTIVE" in state.upper(),
                     float(speed.group(1)) if speed else None)
        if found not in out.setdefault(host, []):
            out[host].append(found)
    return out


@dataclass(frozen=True)
class RailResult:
    up: int
    expected: int
    slowest_gbps: float | None

    @property
    def passed(self) -> bool:
        return self.up >= self.expected


def judge_rails(ports: Sequence[Port], rails: Mapping[str, Any]) -> RailResult | None:
    """Rails up at full rate vs the rails the test's GPUs use. ``rails``: ``expected``
    (count), ``gbps`` (per-NIC rate to reach; 0: rate not judged) and ``devices`` (the
    pool's RDMA devices, or None: every port counts). None when the pod saw no port."""
    devices = rails.get("devices")
    seen = [p for p in ports if devices is None or p.device in devices]
    if not seen:
        return None
    gbps = float(rails.get("gbps") or 0)
    active = [p for p in seen if p.active]
    up = [p for p in active if not gbps or p.gbps is None or p.gbps >= gbps]
    rates = [p.gbps for p in active if p.gbps is not None]
    return RailResult(len(up), int(rails["expected"]), min(rates) if rates else None)


# -- the verdict ----------------------------------------------------------------------
class ConfiguredMachine:
    """The catalog facts the verdict reads, for the pool's machine at the test's GPU
    count, as the layer computed them from the machine catalog (the cluster has no
    catalog; :func:`gpu_fabric.nccl.verdict.judge` asks a machine for exactly these)."""

    def __init__(self, facts: Mapping[str, Any]) -> None:
        self.name = str(facts["name"])
        self.gpus = int(facts["gpus"])
        self.has_fabric = bool(facts["has_fabric"])
        self.fabric = _Value(str(facts["fabric"]))
        nccl = facts.get("nccl")
        self.nccl = _Nccl(str(nccl["transport"]), nccl.get("net")) if nccl else None
        domain = facts.get("nvlink")
        self.nvlink = _Domain(int(domain["gpus"]), float(domain["gb_per_s_per_gpu"]),
                              float(domain["floor"])) if domain else None
        self._gpus_per_node = int(facts["gpus_per_node"])
        self._line_rate = float(facts["line_rate"])
        floor = facts.get("floor")
        self._floor = float(floor) if floor is not None else None

    def _check(self, gpus: int) -> None:
        if gpus != self._gpus_per_node:
            raise VerdictInputError(
                f"the check was configured for {self._gpus_per_node} GPUs per node, not {gpus}")

    def line_rate_for(self, gpus: int) -> float:
        self._check(gpus)
        return self._line_rate

    def floor_for(self, gpus: int) -> float | None:
        self._check(gpus)
        return self._floor


@dataclass(frozen=True)
class _Value:
    value: str


@dataclass(frozen=True)
class _Nccl:
    transport: str
    net: str | None


@dataclass(frozen=True)
class _Domain:
    """A multi-node NVLink domain (GB200/GB300), as the verdict's NVLink floor reads it."""

    gpus: int
    gb_per_s_per_gpu: float
    floor: float

    def nodes(self, gpus_per_node: int) -> int:
        return self.gpus // gpus_per_node


@dataclass(frozen=True)
class NcclResult:
    passed: bool
    busbw: float | None
    reasons: tuple[str, ...] = ()


def judge_log(text: str, machine: Any, nodes: int, gpus_per_node: int) -> NcclResult:
    """The project's verdict on a test log (floor, transport, wrong results, coverage)."""
    try:
        run = parse(text)
    except NotNcclTestsOutput as exc:
        return NcclResult(False, None, (f"no nccl-tests result in the log ({exc})",))
    verdict = judge(run, machine, nodes=nodes, gpus_per_node=gpus_per_node)
    return NcclResult(verdict.passed, verdict.peak, tuple(verdict.reasons))


@dataclass(frozen=True)
class NodeResult:
    node: str
    passed: bool
    busbw: float | None
    rails: RailResult | None
    reasons: tuple[str, ...] = field(default=())


def pair_results(pair: Pair, nccl: NcclResult, rails_by_host: Mapping[str, Sequence[Port]],
                 node_of_host: Mapping[str, str], rails: Mapping[str, Any]) -> list[NodeResult]:
    """Each node's result. A failed nccl run fails both nodes, except a partner that
    passed before: a pair of a failed node and its partner that fails again is the failed
    node's failure (the partner keeps its labels). A node's rails fail it alone."""
    by_node: dict[str, RailResult | None] = {}
    for host, ports in rails_by_host.items():
        node = node_of_host.get(host)
        if node in pair.nodes:
            by_node[node] = judge_rails(ports, rails)
    out = []
    for node in pair.nodes:
        if node == pair.partner and not nccl.passed:
            continue
        rail = by_node.get(node)
        reasons = list(nccl.reasons)
        if rail is not None and not rail.passed:
            reasons.append(f"{rail.up} of {rail.expected} rails up at full rate")
        passed = nccl.passed and (rail is None or rail.passed)
        out.append(NodeResult(node, passed, nccl.busbw, rail, tuple(reasons)))
    return out


# -- what the nodes get ----------------------------------------------------------------
def labels_for(result: NodeResult, now: datetime) -> dict[str, str | None]:
    """The node labels of one result (None removes a label the run could not measure)."""
    rail = result.rails
    return {
        LAST_RUN: format_time(now),
        VERDICT: PASS if result.passed else FAIL,
        BUSBW: f"{result.busbw:.1f}" if result.busbw is not None else None,
        RAILS: f"{rail.up}-of-{rail.expected}" if rail else None,
        RAIL_GBPS: f"{rail.slowest_gbps:g}" if rail and rail.slowest_gbps is not None else None,
    }


def taints_for(node: Mapping[str, Any], passed: bool, taint_on_failure: bool
               ) -> list[dict[str, Any]] | None:
    """The node's new taint list, or None when it does not change: the check's taint is
    added on a failure (when configured) and removed on a pass; other taints are kept."""
    current = list(node.get("spec", {}).get("taints") or [])
    kept = [t for t in current if t.get("key") != TAINT_KEY]
    if not passed and taint_on_failure:
        kept.append({"key": TAINT_KEY, "value": TAINT_VALUE, "effect": "NoSchedule"})
    return None if kept == current else kept


def node_patch(node: Mapping[str, Any], result: NodeResult, now: datetime,
               taint_on_failure: bool) -> dict[str, Any]:
    """A JSON merge patch for the node: labels, the taint list when it changes, and the
    node's resourceVersion (the API server refuses the patch if the node changed since it
    was read: the taint list is replaced whole, so a taint added meanwhile is never lost)."""
    meta: dict[str, Any] = {"labels": labels_for(result, now)}
    patch: dict[str, Any] = {"metadata": meta}
    taints = taints_for(node, result.passed, taint_on_failure)
    if taints is not None:
        meta["resourceVersion"] = node.get("metadata", {}).get("resourceVersion")
        patch["spec"] = {"taints": taints}
    return patch
