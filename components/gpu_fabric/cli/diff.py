"""``diff``: Markdown table of what a change does to a stack's resources, offline.

Two ways to call it::

    python -m gpu_fabric diff --base base.json --head head.json
    python -m gpu_fabric diff --stack gcp-a4 --base-ref origin/main [--head-ref HEAD]

The second plans the stack at each git ref in a temporary worktree (the
working tree itself when ``--head-ref`` is left out), with this interpreter,
so a reviewer sees the change without cloud credentials.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from gpu_fabric.cli.common import (
    EXIT_FAILED,
    EXIT_INVALID,
    EXIT_OK,
    EXIT_REJECTED,
    EXIT_USAGE,
    Progress,
)
from gpu_fabric.files import read_bytes_bounded
from gpu_fabric.plan import chart_diff
from gpu_fabric.plan.diff import diff_plans, to_markdown


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser("diff", help="offline plan diff between two plans or git refs")
    parser.add_argument("--base", help="plan JSON of the base (python -m gpu_fabric plan --json)")
    parser.add_argument("--head", help="plan JSON of the head")
    parser.add_argument("--stack", help="stack to plan at --base-ref and --head-ref")
    parser.add_argument("--base-ref", help="git ref of the base (e.g. origin/main)")
    parser.add_argument("--head-ref", help="git ref of the head (default: the working tree)")
    parser.add_argument("--json", action="store_true", help="print the diff as JSON")
    parser.add_argument(
        "--fail-on-replace", action="store_true",
        help="exit 4 when an expensive resource (cluster, node pool, network) is replaced, "
             "or a change would be refused by the cloud (verdict 'refused')",
    )
    parser.add_argument("--quiet", action="store_true", help="no progress on stderr")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    progress = Progress(quiet=args.quiet)
    try:
        if args.base and args.head:
            base, head = _read_plan(args.base), _read_plan(args.head)
        elif args.stack and args.base_ref:
            with progress.step(f"planning stack '{args.stack}' at {args.base_ref}"):
                base = plan_at_ref(args.stack, args.base_ref)
            label = args.head_ref or "the working tree"
            with progress.step(f"planning stack '{args.stack}' at {label}"):
                head = plan_at_ref(args.stack, args.head_ref) if args.head_ref else plan_here(
                    args.stack, _toplevel(), Path.cwd()
                )
        else:
            print(
                "diff needs either --base PLAN.json --head PLAN.json, or --stack NAME "
                "--base-ref REF [--head-ref REF]",
                file=sys.stderr,
            )
            return EXIT_USAGE
    except (OSError, ValueError) as exc:
        print(f"diff: {exc}", file=sys.stderr)
        return EXIT_INVALID
    except subprocess.CalledProcessError as exc:
        print(f"diff: planning failed:\n{exc.stderr or exc}", file=sys.stderr)
        return EXIT_FAILED
    try:
        result = diff_plans(base, head)
    except ValueError as exc:
        print(f"diff: {exc}", file=sys.stderr)
        return EXIT_INVALID
    charts = chart_diff.release_changes(base, head, *_chart_readers(args))
    if args.json:
        print(json.dumps({**result.to_json(), "charts": charts}, indent=2))
    else:
        print(to_markdown(result) + chart_diff.to_markdown(charts))
    if args.fail_on_replace and (result.replacements or result.refusals):
        return EXIT_REJECTED
    return EXIT_OK


def _chart_readers(args: argparse.Namespace
                   ) -> tuple[chart_diff.ArchiveReader, chart_diff.ArchiveReader]:
    """Where each side's vendored chart archives are: its git ref, else the working tree."""
    top = _toplevel_or_none()
    if top is None:
        none: chart_diff.ArchiveReader = lambda name: None  # noqa: E731
        return none, none
    here = chart_diff.tree_reader(top)
    base = chart_diff.git_reader(top, args.base_ref) if args.base_ref else here
    head = chart_diff.git_reader(top, args.head_ref) if args.head_ref else here
    return base, head


def _toplevel_or_none() -> Path | None:
    try:
        return _toplevel()
    except (OSError, subprocess.CalledProcessError):
        return None


# A plan of the largest committed stack is ~200 KB; a FIFO, /dev/zero or a runaway
# file as --base/--head is refused before it is read (gpu_fabric.files).
MAX_PLAN_BYTES = 64 * 1024 * 1024


def _read_plan(path: str) -> dict[str, Any]:
    try:
        data = json.loads(read_bytes_bounded(path, MAX_PLAN_BYTES).decode("utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise ValueError(f"{path} is not JSON: {exc}") from exc
    if not isinstance(data, dict):
        raise ValueError(f"{path} is not a plan document")
    return data


def plan_here(stack: str, root: Path, cwd: Path | None = None) -> dict[str, Any]:
    """``plan --json`` of ``stack`` in the checkout at ``root``, in a subprocess.

    The stack is looked up from ``cwd`` (default ``root``), as ``pulumi`` finds the
    nearest ``Pulumi.yaml``. When the checkout is this library's own repository
    (``components/gpu_fabric`` in it), its library code is the one that plans, so a
    change to the library shows in the diff; in a team's repository the installed
    ``gpu_fabric`` plans both sides.
    """
    env = dict(os.environ)
    library = root / "components"
    if (library / "gpu_fabric" / "__init__.py").is_file():
        env["PYTHONPATH"] = os.pathsep.join(
            p for p in (str(library), env.get("PYTHONPATH", "")) if p
        )
    out = subprocess.run(
        [sys.executable, "-m", "gpu_fabric", "plan", "--stack", stack, "--json", "--quiet"],
        cwd=cwd or root, env=env, check=True, capture_output=True, text=True,
    )
    data: dict[str, Any] = json.loads(out.stdout)
    return data


def _toplevel() -> Path:
    """The top folder of the git checkout the command runs in."""
    out = subprocess.run(
        ["git", "rev-parse", "--show-toplevel"], check=True, capture_output=True, text=True
    )
    return Path(out.stdout.strip())


def plan_at_ref(stack: str, ref: str) -> dict[str, Any]:
    """Plan ``stack`` at git ``ref`` in a throwaway worktree (from the same folder in it)."""
    top = str(_toplevel())
    known = subprocess.run(
        ["git", "-C", top, "rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}"],
        check=False, capture_output=True, text=True,
    )
    if known.returncode != 0:  # bad input (exit 1), not a failed plan (exit 3)
        raise ValueError(f"--base-ref/--head-ref: '{ref}' is not a commit of this repository")
    with tempfile.TemporaryDirectory(prefix="gpu-fabric-diff-") as tmp:
        tree = Path(tmp) / "tree"
        subprocess.run(
            ["git", "-C", top, "worktree", "add", "--detach", str(tree), ref],
            check=True, capture_output=True, text=True,
        )
        here = Path.cwd().resolve().relative_to(Path(top).resolve())
        try:
            return plan_here(stack, tree, tree / here)
        finally:
            subprocess.run(
                ["git", "-C", top, "worktree", "remove", "--force", str(tree)],
                check=False, capture_output=True,
            )
