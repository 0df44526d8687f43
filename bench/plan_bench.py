"""Benchmark ``plan`` of every stack in ``stacks/``: time, memory, size, critical path.

Each stack is planned in a fresh subprocess so that its peak memory and its
imported modules are its own (no cache, no SDK imported by an earlier stack).
Per stack it reports:

* ``import gpu_fabric`` time, and which cloud SDKs that import loaded (target: none);
* plan wall time and peak RSS of the process (targets: < 10 s, < 500 MB on 2 cores);
* number of resources (all registered, and custom = real cloud/Kubernetes objects);
* the critical path: the longest chain of custom resources that must be created one
  after another (dependencies, plus each resource's explicit provider), its length,
  and how many of its steps are Kubernetes objects (add-ons installing in parallel
  keep that short: namespace -> operator -> CRs);
* cloud SDK modules imported by the end of the plan (target: only the stack's cloud).

Usage::

    python -m bench.plan_bench              # Markdown table of every stack
    python -m bench.plan_bench --json       # the same rows as JSON
    python -m bench.plan_bench --stack gcp-a4 --stack aws-p5
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import time
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

REPO_ROOT = Path(__file__).resolve().parents[1]
if str(REPO_ROOT) not in sys.path:  # run as a script: python bench/plan_bench.py
    sys.path.insert(0, str(REPO_ROOT))

if TYPE_CHECKING:  # the child process times ``import gpu_fabric``: import nothing of it here
    from gpu_fabric.plan.model import PlannedResource

# Module of each cloud's Pulumi SDK (what must stay unimported for other clouds).
CLOUD_SDKS: dict[str, str] = {
    "gcp": "pulumi_gcp",
    "aws": "pulumi_aws",
    "azure": "pulumi_azure_native",
    "digitalocean": "pulumi_digitalocean",
    "oci": "pulumi_oci",
}
PLAN_SECONDS_TARGET = 10.0
PEAK_MB_TARGET = 500.0
# The cloud's own chain (network -> ... -> cluster) differs per cloud; what the
# library controls is the Kubernetes part after the provider: CRDs/namespace ->
# operator -> CRs. More steps there means add-ons install one after another.
K8S_CHAIN_TARGET = 3
CHILD_TIMEOUT_S = 300
# The floor of a plan (issue 36): importing the Pulumi and provider modules it loads, plus
# the mock runtime's cost per resource. A plan should stay within this factor of it.
PULUMI_ROOTS = frozenset({"pulumi", "pulumi_kubernetes", *CLOUD_SDKS.values()})
FLOOR_FACTOR_TARGET = 1.5


# -- the dependency graph ------------------------------------------------------------------


def _provider_urn(reference: str | None) -> str | None:
    """``urn:...::name::id`` (a provider reference) -> the provider's URN."""
    if not reference:
        return None
    return reference.rsplit("::", 1)[0]


def waits_for(resource: PlannedResource, index: dict[str, PlannedResource],
              children: dict[str, list[str]]) -> list[str]:
    """URNs ``resource`` cannot be created before: its dependencies and its provider.

    A component (``custom=False``) is done when its children are, so it waits for
    them; the Python SDK already expands a dependency on a local component into its
    custom descendants, so this only matters for remote components.
    """
    found = list(resource.dependencies)
    provider = _provider_urn(resource.provider)
    if provider:
        found.append(provider)
    if not resource.custom:
        found.extend(children.get(resource.urn, ()))
    return [urn for urn in dict.fromkeys(found) if urn in index and urn != resource.urn]


def critical_path(resources: Sequence[PlannedResource]) -> list[PlannedResource]:
    """The longest chain of custom resources created one after another, first to last.

    Length counts custom resources only (components create nothing). Among chains of
    equal length the one reached first in registration order wins.
    """
    index = {r.urn: r for r in resources}
    children: dict[str, list[str]] = {}
    for r in resources:
        if r.parent:
            children.setdefault(r.parent, []).append(r.urn)
    best: dict[str, tuple[int, str | None]] = {}  # urn -> (length, predecessor on the chain)
    for start in resources:
        # Iterative depth-first walk: deep graphs must not hit the recursion limit.
        stack: list[tuple[str, bool]] = [(start.urn, False)]
        on_path: set[str] = set()
        while stack:
            urn, expanded = stack.pop()
            if urn in best:
                continue
            deps = waits_for(index[urn], index, children)
            if not expanded:
                if urn in on_path:
                    raise ValueError(f"dependency cycle through {urn}")
                on_path.add(urn)
                stack.append((urn, True))
                stack.extend((d, False) for d in reversed(deps) if d not in best)
                continue
            on_path.discard(urn)
            weight = 1 if index[urn].custom else 0
            longest: tuple[int, str | None] = (0, None)
            for dep in deps:
                if best[dep][0] > longest[0]:
                    longest = (best[dep][0], dep)
            best[urn] = (longest[0] + weight, longest[1])
    if not best:
        return []
    end = max(resources, key=lambda r: best[r.urn][0]).urn
    chain: list[PlannedResource] = []
    cursor: str | None = end
    while cursor is not None:
        if index[cursor].custom:
            chain.append(index[cursor])
        cursor = best[cursor][1]
    return list(reversed(chain))


def short_type(type_: str) -> str:
    """``gcp:container/nodePool:NodePool`` -> ``NodePool``; ``pulumi:providers:kubernetes`` kept."""
    if type_.startswith("pulumi:providers:"):
        return "provider:" + type_.rsplit(":", 1)[-1]
    return type_.rsplit(":", 1)[-1]


# -- one stack, in a child process ---------------------------------------------------------


@dataclass
class StackBench:
    stack: str
    cloud: str = "?"
    import_s: float = 0.0
    sdks_after_import: list[str] = field(default_factory=list)
    plan_s: float = 0.0
    peak_rss_mb: float = 0.0
    resources: int = 0
    custom_resources: int = 0
    critical_path: int = 0
    kubernetes_steps: int = 0
    path: list[str] = field(default_factory=list)
    sdks_after_plan: list[str] = field(default_factory=list)
    unexpected_sdks: list[str] = field(default_factory=list)
    pulumi_modules: list[str] = field(default_factory=list)
    floor_s: float = 0.0
    cpu_s: float = 0.0
    error: str | None = None

    @property
    def over_floor(self) -> float:
        """CPU of (import gpu_fabric + plan) over the floor's CPU; 0 when not measured.
        CPU time, so that the ratio holds on a loaded machine too."""
        return self.cpu_s / self.floor_s if self.floor_s else 0.0

    def meets_targets(self) -> dict[str, bool]:
        return {
            "floor": not self.floor_s or self.over_floor <= FLOOR_FACTOR_TARGET,
            "plan_time": self.plan_s < PLAN_SECONDS_TARGET,
            "memory": self.peak_rss_mb < PEAK_MB_TARGET,
            "lazy_sdks": not self.sdks_after_import and not self.unexpected_sdks,
            "chain": self.kubernetes_steps <= K8S_CHAIN_TARGET,
        }


def _peak_rss_mb() -> float:
    import resource

    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak / (1024 * 1024) if sys.platform == "darwin" else peak / 1024  # bytes vs KiB


def _loaded_sdks() -> list[str]:
    return sorted(m for m in CLOUD_SDKS.values() if m in sys.modules)


def measure_stack(name: str) -> StackBench:
    """Plan one stack in *this* process (call it in a fresh one: see :func:`run_child`)."""
    result = StackBench(name)
    started, cpu = time.perf_counter(), time.process_time()
    import gpu_fabric  # noqa: F401

    result.import_s = time.perf_counter() - started
    result.sdks_after_import = _loaded_sdks()

    from gpu_fabric.plan import load_stack_file, run_plan

    try:
        stack = load_stack_file(name)
        cluster = stack.cluster if isinstance(stack.cluster, dict) else {}
        result.cloud = str(cluster.get("cloud", "?"))
        uses_cloud = "existing" not in cluster
        started = time.perf_counter()
        plan = run_plan(stack)
        result.plan_s = time.perf_counter() - started
        result.cpu_s = time.process_time() - cpu
    except Exception as exc:  # a broken stack is a row with an error, not a crash
        result.error = f"{type(exc).__name__}: {exc}".splitlines()[0][:200]
        result.peak_rss_mb = _peak_rss_mb()
        return result
    result.peak_rss_mb = _peak_rss_mb()
    result.resources = len(plan.resources)
    result.custom_resources = sum(1 for r in plan.resources if r.custom)
    chain = critical_path(plan.resources)
    result.critical_path = len(chain)
    result.kubernetes_steps = sum(1 for r in chain if r.type.startswith("kubernetes:"))
    result.path = [short_type(r.type) for r in chain]
    result.sdks_after_plan = _loaded_sdks()
    result.pulumi_modules = [m for m in sys.modules if m.split(".")[0] in PULUMI_ROOTS]
    allowed = {CLOUD_SDKS[result.cloud]} if uses_cloud and result.cloud in CLOUD_SDKS else set()
    result.unexpected_sdks = [m for m in result.sdks_after_plan if m not in allowed]
    return result


def run_child(name: str, timeout: float = CHILD_TIMEOUT_S) -> StackBench:
    """Measure one stack in a fresh interpreter (clean peak memory, clean sys.modules)."""
    cmd = [sys.executable, "-m", "bench.plan_bench", "--child", name]
    try:
        done = subprocess.run(
            cmd, cwd=REPO_ROOT, capture_output=True, text=True, timeout=timeout, check=False
        )
    except subprocess.TimeoutExpired:
        return StackBench(name, error=f"timed out after {timeout:.0f} s")
    lines = [line for line in done.stdout.splitlines() if line.startswith("{")]
    if done.returncode != 0 or not lines:
        tail = (done.stderr.strip().splitlines() or ["no output"])[-1]
        return StackBench(name, error=f"child exited {done.returncode}: {tail[:200]}")
    return StackBench(**json.loads(lines[-1]))


def import_seconds(modules: Sequence[str]) -> float:
    """CPU seconds to import ``modules`` in a fresh interpreter, in that order."""
    code = ("import importlib, sys, time\n"
            "mods = sys.stdin.read().split()\n"
            "t = time.process_time()\n"
            # SDKs import their modules lazily (importlib.util.LazyLoader): an attribute
            # access runs the module, as the plan's use of it did.
            "[getattr(importlib.import_module(m), '__doc__', None) for m in mods]\n"
            "print(time.process_time() - t)\n")
    done = subprocess.run([sys.executable, "-c", code], input="\n".join(modules),
                          capture_output=True, text=True, timeout=CHILD_TIMEOUT_S, check=True)
    return float(done.stdout.strip().splitlines()[-1])


def seconds_per_resource(count: int = 400) -> float:
    """The mock runtime's CPU cost of one resource: a program of ``count`` bare resources
    planned by the same runner, minus the same program with none."""
    code = (
        "import time, pulumi\n"
        "from gpu_fabric.plan.runner import run_program\n"
        "def program(n):\n"
        "    return lambda: [pulumi.CustomResource('test:index:Thing', f't{i}', {'i': i})\n"
        "                    for i in range(n)]\n"
        "run_program(program(1))\n"
        "t = time.process_time(); run_program(program(0)); empty = time.process_time() - t\n"
        f"t = time.process_time(); run_program(program({count})); "
        "full = time.process_time() - t\n"
        f"print((full - empty) / {count})\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=CHILD_TIMEOUT_S, check=True, cwd=REPO_ROOT)
    return float(done.stdout.strip().splitlines()[-1])


def with_floor(row: StackBench, per_resource: float) -> StackBench:
    if not row.error and row.pulumi_modules:
        row.floor_s = import_seconds(row.pulumi_modules) + per_resource * row.resources
    return row


# -- report ----------------------------------------------------------------------------------


def machine_line() -> str:
    return (
        f"{time.strftime('%Y-%m-%d')}, {os.cpu_count()} CPUs (nproc), "
        f"Python {platform.python_version()}, {platform.system()} {platform.machine()}"
    )


def _mark(ok: bool) -> str:
    return "yes" if ok else "**no**"


def markdown(rows: Iterable[StackBench]) -> str:
    header = (
        "| stack | cloud | resources (custom) | import gpu_fabric | plan | CPU | floor (CPU) "
        "| over floor "
        "| peak RSS | critical path (k8s steps) | SDKs loaded | targets met |\n"
        "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---|---|\n"
    )
    lines = []
    for r in rows:
        if r.error:
            lines.append(f"| {r.stack} | {r.cloud} | - | - | - | - | - | - | - | - | - "
                         f"| error: {r.error} |")
            continue
        met = r.meets_targets()
        failed = [k for k, ok in met.items() if not ok]
        lines.append(
            f"| {r.stack} | {r.cloud} | {r.resources} ({r.custom_resources}) "
            f"| {r.import_s:.2f} s | {r.plan_s:.2f} s | {r.cpu_s:.2f} s | {r.floor_s:.2f} s "
            f"| {r.over_floor:.2f}x "
            f"| {r.peak_rss_mb:.0f} MB "
            f"| {r.critical_path} ({r.kubernetes_steps}) "
            f"| {', '.join(s.removeprefix('pulumi_') for s in r.sdks_after_plan) or 'none'} "
            f"| {_mark(not failed)}{'' if not failed else ' (' + ', '.join(failed) + ')'} |"
        )
    paths = [
        f"- {r.stack}: {' -> '.join(r.path)}" for r in rows if not r.error and r.path
    ]
    legend = (
        f"\nTargets: plan < {PLAN_SECONDS_TARGET:.0f} s, at most {FLOOR_FACTOR_TARGET}x the floor "
        "(floor: importing the Pulumi and provider modules the plan loads, in a fresh "
        "process, plus the mock runtime's time per resource times the resources), "
        f"peak RSS < {PEAK_MB_TARGET:.0f} MB, "
        "no cloud SDK loaded by `import gpu_fabric` nor for a cloud the stack does not use, "
        f"at most {K8S_CHAIN_TARGET} Kubernetes objects on the critical path "
        "(CRDs/namespace -> operator -> CRs; the cloud's own network/cluster chain is not "
        "counted against it).\n"
        f"Machine: {machine_line()}.\n\nCritical paths:\n"
    )
    return header + "\n".join(lines) + "\n" + legend + "\n".join(paths) + "\n"


def measure_all(names: Sequence[str]) -> list[StackBench]:
    """Every stack in its own child, with its floor."""
    per_resource = seconds_per_resource()
    rows = []
    for name in names:
        print(f"... {name}", file=sys.stderr, flush=True)
        rows.append(with_floor(run_child(name), per_resource))
    return rows


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--stack", action="append", help="only these stacks (repeatable)")
    parser.add_argument("--json", action="store_true", help="JSON rows instead of Markdown")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        print(json.dumps(asdict(measure_stack(args.child))))
        return 0

    from gpu_fabric.plan.stackfile import available_stacks

    rows = measure_all(args.stack or available_stacks())
    if args.json:
        print(json.dumps(
            {"machine": machine_line(), "stacks": [asdict(r) | {"targets": r.meets_targets()}
                                                   for r in rows]},
            indent=2,
        ))
    else:
        print(markdown(rows), end="")
    return 1 if any(r.error for r in rows) else 0


if __name__ == "__main__":
    sys.exit(main())
