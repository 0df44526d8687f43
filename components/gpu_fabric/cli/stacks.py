"""``stacks``: the stacks in stacks/ with their cloud, or those a change touches.

CI uses ``stacks --changed-since origin/main --json`` to build its matrix: a
change to a stack file touches that stack; a change to anything the program is
made of (components/, __main__.py, Pulumi.yaml, pyproject.toml) touches all.
"Changed" means what differs between the merge base with REF and the working
tree: commits, staged and unstaged edits, and new files not yet added, so a
developer sees locally what CI will plan.

Stacks are those of the working directory's project (nearest Pulumi.yaml and
its stackConfigDir, see :mod:`gpu_fabric.plan.project`).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from collections.abc import Iterable
from pathlib import Path

from gpu_fabric.cli.common import EXIT_INVALID, EXIT_OK
from gpu_fabric.errors import SpecError
from gpu_fabric.plan.project import find_project
from gpu_fabric.plan.stackfile import available_stacks, load_stack_file

# Paths (prefixes) whose change can change every stack's plan.
PROGRAM_PATHS = (
    "components/", "__main__.py", "Pulumi.yaml", "pyproject.toml", "requirements.txt",
)


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser("stacks", help="list stacks (or those a git change touches)")
    parser.add_argument(
        "--changed-since", metavar="REF", help="only stacks a diff from REF touches"
    )
    parser.add_argument("--json", action="store_true", help="print JSON for a CI matrix")
    parser.set_defaults(run=run)


def stacks_touched(
    changed_files: Iterable[str], stacks: Iterable[str], stacks_dir: str = "stacks",
    project_dir: str = "",
) -> list[str]:
    """Which stacks a set of changed paths (relative to the git top) affects.

    ``stacks_dir`` and ``project_dir`` are the stack folder and the project folder
    relative to the git top ("" for the top itself).
    """
    names = sorted(stacks)
    prefix = f"{project_dir.strip('/')}/" if project_dir.strip("/.") else ""
    program = tuple(prefix + p for p in PROGRAM_PATHS)
    changed = list(changed_files)
    if any(f.startswith(program) for f in changed):
        return names
    folder = stacks_dir.strip("/")
    folder = f"{folder}/" if folder and folder != "." else ""
    return [n for n in names if f"{folder}Pulumi.{n}.yaml" in changed]


def changed_since(ref: str) -> tuple[list[str], Path]:
    """Paths changed since the merge base with ``ref``, working tree included; and the top."""

    def git(*args: str) -> str:
        return subprocess.run(
            ["git", *args], check=True, capture_output=True, text=True
        ).stdout

    top = Path(git("rev-parse", "--show-toplevel").strip())
    base = git("merge-base", ref, "HEAD").strip()
    tracked = git("-C", str(top), "diff", "--name-only", base).split("\n")
    untracked = git("-C", str(top), "ls-files", "--others", "--exclude-standard").split("\n")
    return sorted({p for p in tracked + untracked if p}), top


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
            changed, top = changed_since(args.changed_since)
        except subprocess.CalledProcessError as exc:
            print(f"stacks: git failed: {exc.stderr.strip()}", file=sys.stderr)
            return EXIT_INVALID
        project = find_project()
        names = stacks_touched(
            changed, names,
            stacks_dir=os.path.relpath(project.stacks_dir, top.resolve()),
            project_dir=os.path.relpath(project.root, top.resolve()),
        )
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
