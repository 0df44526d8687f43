"""Plan cost against the number of teams: resources, dependency edges, time, memory, size.

Pulumi checks every dependency edge a resource declares, so a plan (and ``pulumi up``)
costs what its edges cost (issue 36: 540k edges at 64 teams before each object
depended only on what it needs). This bench plans a committed stack with N generated
teams, each N in a fresh subprocess (its own imports, its own peak RSS), and reports:

* resources and dependency edges (the sum of every resource's ``dependencies``);
* plan wall time and CPU time (user + sys of the child), peak RSS;
* the size of ``plan --json`` for that plan;
* the machine's 1-minute load average when the child started (wall time under load
  is not an idle figure; CPU time is the comparable one).

Usage::

    python -m bench.teams_bench                      # gcp-a4 at 0, 8, 64, 256 teams
    python -m bench.teams_bench --teams 0 8 --json
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

REPO_ROOT = Path(__file__).resolve().parents[1]
if str(REPO_ROOT) not in sys.path:
    sys.path.insert(0, str(REPO_ROOT))

DEFAULT_TEAMS = (0, 8, 64, 256)
DEFAULT_STACK = "gcp-a4"
CHILD_TIMEOUT_S = 3600


@dataclass
class TeamsBench:
    stack: str
    teams: int
    resources: int = 0
    edges: int = 0
    plan_s: float = 0.0
    cpu_s: float = 0.0
    peak_rss_mb: float = 0.0
    json_mb: float = 0.0
    load: float = 0.0
    error: str | None = None


def with_teams(cluster: dict[str, Any], count: int) -> dict[str, Any]:
    """The stack's cluster mapping with ``count`` teams of one GPU each (every GPU pool)."""
    out = dict(cluster)
    tenancy = dict(out.get("tenancy") or {})
    tenancy["teams"] = [
        {"name": f"team-{i:03d}", "group": f"group-{i:03d}", "gpus": 1} for i in range(count)
    ]
    out["tenancy"] = tenancy
    return out


def edge_count(resources: list[Any]) -> int:
    """Dependency edges Pulumi checks: each resource's declared dependencies."""
    return sum(len(r.dependencies) for r in resources)


def measure(stack_name: str, teams: int) -> TeamsBench:
    """Plan in *this* process (call it in a fresh one: :func:`run_child`)."""
    import resource

    from gpu_fabric.plan import load_stack_file, run_plan
    from gpu_fabric.plan.stackfile import CLUSTER_KEY, StackFile

    result = TeamsBench(stack_name, teams, load=os.getloadavg()[0])
    stack = load_stack_file(stack_name)
    config = dict(stack.config)
    config[CLUSTER_KEY] = with_teams(stack.cluster, teams)
    stack = StackFile(stack.name, stack.path, config, stack.secret_keys)
    before = resource.getrusage(resource.RUSAGE_SELF)
    started = time.perf_counter()
    plan = run_plan(stack)
    result.plan_s = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_SELF)
    result.cpu_s = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    result.resources = len(plan.resources)
    result.edges = edge_count(plan.resources)
    result.json_mb = len(json.dumps(plan.to_json(), indent=2)) / 1e6
    result.peak_rss_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return result


def run_child(stack: str, teams: int) -> TeamsBench:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(
        [str(REPO_ROOT / "components"), str(REPO_ROOT), env.get("PYTHONPATH", "")]
    )
    try:
        done = subprocess.run(
            [sys.executable, "-m", "bench.teams_bench", "--child", stack, str(teams)],
            capture_output=True, text=True, timeout=CHILD_TIMEOUT_S, env=env, cwd=REPO_ROOT,
        )
    except subprocess.TimeoutExpired:
        return TeamsBench(stack, teams, error=f"timed out after {CHILD_TIMEOUT_S} s")
    if done.returncode != 0:
        return TeamsBench(stack, teams, error=done.stderr.strip().splitlines()[-1:][0:1][0]
                          if done.stderr.strip() else f"exit {done.returncode}")
    return TeamsBench(**json.loads(done.stdout.strip().splitlines()[-1]))


def markdown(rows: list[TeamsBench]) -> str:
    lines = [
        "| teams | resources | edges | edges per resource | plan wall | plan CPU | peak RSS "
        "| plan --json | load (1 min) |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        if r.error:
            lines.append(f"| {r.teams} | error: {r.error} | | | | | | | |")
            continue
        lines.append(
            f"| {r.teams} | {r.resources} | {r.edges} | {r.edges / max(r.resources, 1):.1f} "
            f"| {r.plan_s:.1f} s | {r.cpu_s:.1f} s | {r.peak_rss_mb:.0f} MB "
            f"| {r.json_mb:.2f} MB | {r.load:.1f} |"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--stack", default=DEFAULT_STACK)
    parser.add_argument("--teams", type=int, nargs="+", default=list(DEFAULT_TEAMS))
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--child", nargs=2, metavar=("STACK", "TEAMS"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        print(json.dumps(asdict(measure(args.child[0], int(args.child[1])))))
        return 0
    rows = []
    for count in args.teams:
        rows.append(run_child(args.stack, count))
        print(f"  {args.stack} {count} teams: {rows[-1]}", file=sys.stderr)
    print(json.dumps([asdict(r) for r in rows], indent=2) if args.json else markdown(rows))
    return 0 if not any(r.error for r in rows) else 1


if __name__ == "__main__":
    raise SystemExit(main())
