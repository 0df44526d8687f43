"""``stacks``: the stacks in stacks/ with their cloud, or those a change touches.

CI uses ``stacks --changed-since origin/main --json`` to build its matrix: a
change to a stack file touches that stack; a change to anything the program is
made of (components/, __main__.py, Pulumi.yaml, pyproject.toml) touches all.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from collections.abc import Iterable

from components.cli.common import EXIT_INVALID, EXIT_OK
from components.errors import SpecError
from components.plan.stackfile import available_stacks, load_stack_file

# Paths (prefixes) whose change can change every stack's plan.
PROGRAM_PATHS = ("components/", "__main__.py", "Pulumi.yaml", "pyproject.toml")


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser("stacks", help="list stacks (or those a git change touches)")
    parser.add_argument(
        "--changed-since", metavar="REF", help="only stacks a diff from REF touches"
    )
    parser.add_argument("--json", action="store_true", help="print JSON for a CI matrix")
    parser.set_defaults(run=run)


def stacks_touched(changed_files: Iterable[str], stacks: Iterable[str]) -> list[str]:
    """Which stacks a set of changed repository paths affects."""
    names = sorted(stacks)
    changed = list(changed_files)
    if any(f.startswith(PROGRAM_PATHS) for f in changed):
        return names
    return [n for n in names if f"stacks/Pulumi.{n}.yaml" in changed]


def stack_cloud(name: str) -> str:
    """The stack's cloud (``existing`` for a cluster this library did not create)."""
    cluster = load_stack_file(name).cluster
    if not isinstance(cluster, dict):
        return "unknown"
    if cluster.get("existing"):
        return "existing"
    return str(cluster.get("cloud", "unknown"))


def run(args: argparse.Namespace) -> int:
    names = available_stacks()
    if args.changed_since:
        try:
            out = subprocess.run(
                ["git", "diff", "--name-only", f"{args.changed_since}...HEAD"],
                check=True, capture_output=True, text=True,
            ).stdout
        except subprocess.CalledProcessError as exc:
            print(f"stacks: git diff failed: {exc.stderr.strip()}", file=sys.stderr)
            return EXIT_INVALID
        names = stacks_touched(out.split(), names)
    try:
        rows = [{"stack": n, "cloud": stack_cloud(n)} for n in names]
    except SpecError as exc:
        print(exc.render(), file=sys.stderr)
        return EXIT_INVALID
    if args.json:
        print(json.dumps(rows))
    else:
        for row in rows:
            print(f"{row['stack']}\t{row['cloud']}")
    return EXIT_OK
