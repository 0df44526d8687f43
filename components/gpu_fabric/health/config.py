"""What the active check tests, per GPU pool: the two-node nccl-tests objects, the
verdict's catalog facts and the rails to expect (the ``config.json`` its CronJob reads).

The test objects are the NCCL acceptance test's own (:func:`gpu_fabric.nccl.manifests.
acceptance_manifests`: the pool's pod fragment, image and runner), for two nodes and
1-4 GiB all_reduce, with three changes: a PriorityClass below every workload, a
toleration of this check's own taint (a failed node must be re-testable) and a sysfs
probe of the RDMA rails before the test. Nothing else is tolerated: a cordoned or
quarantined node is never picked and could not run the pods anyway.
"""

from __future__ import annotations

import shlex
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from gpu_fabric.catalog import FabricKind, GpuVendor, Machine
from gpu_fabric.errors import SpecError
from gpu_fabric.fabric.description import FabricDescription
from gpu_fabric.fabric.layer import Manifest
from gpu_fabric.health import logic
from gpu_fabric.nccl.manifests import (
    APP_LABEL,
    TEST_CONTAINER,
    AcceptancePlan,
    Runner,
    acceptance_manifests,
    plan_acceptance,
)
from gpu_fabric.spec import AcceptanceSpec, ClusterSpec

NAMESPACE = "gpu-fabric-health"
NAME = "gpu-fabric-health"
PRIORITY_CLASS = "gpu-fabric-health"
# Below the platform's gpu-fabric-low (teams.PRIORITIES) and the default 0: any
# workload that needs the nodes preempts the check; the check preempts nothing.
PRIORITY = -100
# Rows the verdict judges are >= 1 GiB (gpu_fabric.nccl.verdict); 1, 2 and 4 GiB keep
# the run to seconds of GPU time after the pods start.
MIN_BYTES = "1G"
MAX_BYTES = "4G"
NODES = 2
TIMEOUT_SECONDS = 1200
POLL_SECONDS = 15
# What the acceptance test's gIB script prints when pod 0 is done (nccl.manifests.gib_script).
END_MARKER = "nccl-acceptance finished"
# The rate of RDMA ports is judged where the kernel reports the link rate of a
# ConnectX port (IB, RoCE: "400 Gb/sec (4X NDR)"); EFA ports are counted, not rated.
RATED_FABRICS = (FabricKind.INFINIBAND, FabricKind.ROCE)


@dataclass(frozen=True)
class PoolCheck:
    """One pool's check as the CronJob reads it."""

    pool: str
    plan: AcceptancePlan
    config: dict[str, Any]


def skip_reason(spec: ClusterSpec, fabric: FabricDescription) -> str | None:
    """Why a pool gets no active check (NVSentinel still watches it), or None."""
    machine = fabric.machine
    if machine.gpu.vendor is not GpuVendor.NVIDIA:
        return f"{machine.name} has {machine.gpu.model} GPUs: nccl-tests needs NVIDIA GPUs"
    if not machine.is_multi_node_capable:
        return f"{machine.name} has no scale-out fabric or busbw floor in the catalog"
    pool = next(p for p in spec.node_pools if p.name == fabric.pool)
    if spec.existing is None and max(pool.node_count, pool.max_nodes or 0) < NODES:
        return "fewer than 2 nodes: no pair to test"
    return None


def _plan(spec: ClusterSpec, fabrics: Mapping[str, FabricDescription], pool: str
          ) -> AcceptancePlan:
    acceptance = AcceptanceSpec(enabled=True, pool=pool, nodes=NODES,
                                min_bytes=MIN_BYTES, max_bytes=MAX_BYTES)
    plan = plan_acceptance(spec.model_copy(update={"acceptance": acceptance}), fabrics,
                           logic.PLACEHOLDER)
    return replace(plan, name=logic.PLACEHOLDER)


def _probe_launcher(plan: AcceptancePlan) -> str:
    """The rail probe on every worker (one rank per node), before the test."""
    return (f"mpirun --allow-run-as-root -np {plan.nodes} -N 1 --bind-to none "
            "--mca pml ^ucx --mca btl tcp,self --mca btl_tcp_if_exclude lo,docker0 "
            f"bash -c {shlex.quote(logic.RAIL_PROBE)} || true\n")


def _adapt(template: dict[str, Any], role: str) -> None:
    template["metadata"].setdefault("labels", {})[logic.ROLE] = role
    spec = template["spec"]
    spec["priorityClassName"] = PRIORITY_CLASS
    spec.setdefault("tolerations", []).append(
        {"key": logic.TAINT_KEY, "operator": "Exists", "effect": "NoSchedule"})


def check_objects(plan: AcceptancePlan) -> list[Manifest]:
    """The acceptance objects of ``plan``, adapted for the check (see the module doc)."""
    objects = acceptance_manifests(plan)
    for obj in objects:
        if obj["kind"] == "MPIJob":
            replicas = obj["spec"]["mpiReplicaSpecs"]
            launcher = replicas["Launcher"]["template"]
            _adapt(launcher, logic.LAUNCHER)
            _adapt(replicas["Worker"]["template"], logic.WORKER)
            container = launcher["spec"]["containers"][0]
            container["args"] = [_probe_launcher(plan) + container["args"][0]]
            obj["spec"]["runPolicy"]["activeDeadlineSeconds"] = TIMEOUT_SECONDS
        elif obj["kind"] == "StatefulSet":
            template = obj["spec"]["template"]
            _adapt(template, logic.WORKER)
            container = template["spec"]["containers"][0]
            container["args"] = [logic.RAIL_PROBE + container["args"][0]]
    return objects


def rails(fabric: FabricDescription, gpus: int) -> dict[str, Any]:
    """The rails a node must show: the fabric NICs the test's GPUs use, at the catalog's
    per-NIC rate where it is judged; named devices where the description knows them."""
    machine = fabric.machine
    if not machine.fabric.is_rdma:
        # GPUDirect-TCPX(O) NICs are no RDMA devices: nothing in /sys/class/infiniband.
        return {"expected": 0, "gbps": 0, "devices": []}
    used = fabric.rails[: machine.nics_for(gpus)]
    hcas = [r.hca for r in used]
    return {
        "expected": machine.nics_for(gpus),
        "gbps": machine.gbps_per_nic if machine.fabric in RATED_FABRICS else 0,
        "devices": [str(h) for h in hcas] if hcas and all(hcas) else None,
    }


def machine_facts(machine: Machine, gpus_per_node: int) -> dict[str, Any]:
    """What :class:`gpu_fabric.health.logic.ConfiguredMachine` gives the verdict: every
    catalog fact :func:`gpu_fabric.nccl.verdict.judge` reads of a machine."""
    return {
        "name": machine.name,
        "gpus": machine.gpus,
        "has_fabric": machine.has_fabric,
        "fabric": machine.fabric.value,
        "nccl": ({"transport": machine.nccl.transport, "net": machine.nccl.net}
                 if machine.nccl else None),
        "nvlink": ({"gpus": machine.nvlink.gpus,
                    "gb_per_s_per_gpu": machine.nvlink.gb_per_s_per_gpu,
                    "floor": machine.nvlink.floor} if machine.nvlink else None),
        "gpus_per_node": gpus_per_node,
        "line_rate": machine.line_rate_for(gpus_per_node),
        "floor": machine.floor_for(gpus_per_node),
    }


def pool_checks(spec: ClusterSpec, fabrics: Mapping[str, FabricDescription]
                ) -> tuple[list[PoolCheck], dict[str, str]]:
    """The pools the check tests, and why the others are not tested."""
    checks: list[PoolCheck] = []
    skipped: dict[str, str] = {}
    for pool in spec.node_pools:
        fabric = fabrics[pool.name]
        reason = skip_reason(spec, fabric)
        if reason is None:
            try:
                plan = _plan(spec, fabrics, pool.name)
            except SpecError as exc:  # e.g. full-node pods get no fabric on this pool
                reason = "; ".join(p.message for p in exc.problems)
        if reason is not None:
            skipped[pool.name] = reason
            continue
        checks.append(PoolCheck(pool.name, plan, {
            "pool": pool.name,
            "namespace": plan.namespace,
            "runner": plan.runner.value,
            "container": TEST_CONTAINER,
            "app_label": APP_LABEL,
            "end_marker": END_MARKER,
            "gpu_resource": fabric.gpu_resource,
            "node_selector": dict(fabric.node_selector),
            "tolerated_taints": sorted({t.key for t in fabric.workload_taints}),
            "machine": machine_facts(fabric.machine, plan.gpus_per_node),
            "rails": rails(fabric, plan.gpus_per_node),
            "objects": check_objects(plan),
        }))
    return checks, skipped


def check_config(spec: ClusterSpec, checks: list[PoolCheck], skipped: Mapping[str, str]
                 ) -> dict[str, Any]:
    """The CronJob's ``config.json``."""
    health = spec.health
    return {
        "interval_hours": health.interval_hours,
        "max_pairs": health.max_pairs,
        "taint_on_failure": health.taint_on_failure,
        "timeout_seconds": TIMEOUT_SECONDS,
        "poll_seconds": POLL_SECONDS,
        "pools": [c.config for c in checks],
        "skipped": dict(skipped),
    }


def runners(checks: list[PoolCheck]) -> set[Runner]:
    return {c.plan.runner for c in checks}
