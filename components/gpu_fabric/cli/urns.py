"""``urns``: check or update the committed URN list of stacks (see gpu_fabric.plan.urns)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from gpu_fabric.cli.common import EXIT_FAILED, EXIT_INVALID, EXIT_OK
from gpu_fabric.errors import SpecError
from gpu_fabric.plan import load_stack_file, run_plan
from gpu_fabric.plan import urns as urnfile
from gpu_fabric.plan.project import find_project
from gpu_fabric.plan.stackfile import REPO_ROOT, available_stacks

URN_DIR = REPO_ROOT / "tests" / "data" / "urns"
# Where the lists are expected: relative to the project folder (the nearest Pulumi.yaml),
# so the installed CLI keeps a team's lists in the team's repository.
URN_SUBDIR = Path("tests") / "data" / "urns"


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser("urns", help="check or update the committed resource URNs of stacks")
    parser.add_argument("--stack", action="append", help="stack (repeatable; default: all)")
    parser.add_argument("--write", action="store_true", help="update the committed lists")
    parser.add_argument(
        "--allow-drop", action="store_true",
        help="with --write: accept URNs that vanish without an alias (they will be replaced)",
    )
    parser.add_argument(
        "--dir", type=Path, default=None,
        help=f"where the lists live (default: {URN_SUBDIR}/ in the project folder, the "
        "nearest Pulumi.yaml's)",
    )
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    failed = False
    folder = args.dir if args.dir is not None else find_project().root / URN_SUBDIR
    for stack in args.stack or available_stacks():
        path = folder / f"{stack}.txt"
        if not args.write and not path.is_file():
            # One line that says where, not one "new" line per resource (issue 36).
            print(f"{stack}: no committed URN list at {path}; write it with "
                  f"`gpu-fabric urns --write --stack {stack}` (or pass --dir)")
            failed = True
            continue
        try:
            plan = run_plan(load_stack_file(stack))
        except SpecError as exc:
            print(exc.render(), file=sys.stderr)
            return EXIT_INVALID
        committed = urnfile.read(path)
        if args.write:
            try:
                new = urnfile.update(plan, committed, allow_drop=args.allow_drop)
            except ValueError as exc:
                print(f"{stack}: {exc}", file=sys.stderr)
                failed = True
                continue
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(new.render())
            print(f"{stack}: {len(new.current)} URNs written to {path}")
        else:
            problems = urnfile.check(plan, committed)
            for problem in problems:
                print(f"{stack}: {problem}")
            failed = failed or bool(problems)
    return EXIT_FAILED if failed else EXIT_OK
