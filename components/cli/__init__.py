"""The command line. Each subcommand lives in its own module with ``register(subparsers)``.

Exit codes: 0 ok, 1 the input is invalid (the message names the field and the
fix), 2 bad command-line usage, 3 the program failed while running, 4 a check
ran and said no (``nccl-report``: the run failed its verdict; ``diff
--fail-on-replace``: an expensive resource would be replaced).
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

COMMANDS = (
    "validate", "plan", "render", "schema", "diff", "stacks", "urns", "nccl_report"
)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m components",
        description="gpu-fabric: plan and check GPU cluster stacks offline",
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name in COMMANDS:
        importlib.import_module(f"components.cli.{name}").register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        code: int = args.run(args)
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    return code
