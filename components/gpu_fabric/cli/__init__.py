"""The command line. Each subcommand lives in its own module with ``register(subparsers)``.

Exit codes: 0 ok, 1 the input is invalid (the message names the field and the
fix), 2 bad command-line usage, 3 the program failed while running, 4 a check
ran and said no (``nccl-report``: the run failed its verdict; ``diff
--fail-on-replace``: an expensive resource would be replaced, or the cloud
would refuse a change).
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Sequence

from gpu_fabric.cli.common import guard_commands

COMMANDS = (
    "validate", "plan", "render", "schema", "diff", "stacks", "urns", "nccl_report", "docs"
)


def prog_name(argv0: str | None = None) -> str:
    """``gpu-fabric`` from the installed script, ``python -m <package>`` from ``-m``.

    argparse would print the script's file name (``__main__.py``) for ``-m``.
    """
    argv0 = (sys.argv[0] if argv0 is None else argv0) or "__main__"
    base = os.path.basename(argv0)
    if base in ("__main__.py", "__main__"):
        return f"python -m {__name__.split('.')[0]}"
    return base or "gpu-fabric"


def build_parser(prog: str | None = None) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=prog or prog_name(),
        description="gpu-fabric: plan and check GPU cluster stacks offline",
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name in COMMANDS:
        importlib.import_module(f"{__name__}.{name}").register(sub)
    guard_commands(sub)
    return parser


def main(argv: Sequence[str] | None = None, prog: str | None = None) -> int:
    parser = build_parser(prog)
    args = parser.parse_args(argv)
    try:
        code: int = args.run(args)
        sys.stdout.flush()  # a closed pipe shows up here, inside the handler below
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return _closed_pipe()
    return code


def _closed_pipe() -> int:
    """The reader went away (``| head``): nothing left to say, and not an error.

    stdout is pointed at /dev/null so Python's flush at exit does not raise again
    (the recipe in the ``signal`` module documentation, "Note on SIGPIPE").
    """
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    os.close(devnull)
    return 0
