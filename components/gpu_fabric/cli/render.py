"""``render``: write the Kubernetes fabric layer of a stack as YAML files."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from gpu_fabric.cli.common import (
    EXIT_INVALID,
    EXIT_OK,
    Progress,
    add_stack_arguments,
    load_stack,
    report_invalid,
)
from gpu_fabric.errors import SpecError
from gpu_fabric.preflight import check_spec
from gpu_fabric.spec import load_spec


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser("render", help="write the Kubernetes layer's manifests as YAML")
    add_stack_arguments(parser)
    parser.add_argument(
        "--out", required=True,
        help="directory to write into: new, empty, or one render wrote before (its files "
        "are replaced; files it did not write make it refuse)",
    )
    parser.add_argument("--quiet", action="store_true", help="no progress on stderr")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from gpu_fabric.fabric.layer import reusing_layers
    from gpu_fabric.render import RenderTargetError, render

    progress = Progress(quiet=args.quiet)
    try:
        # The checks and the files come from the same Kubernetes layer: built once
        # (issue 36).
        with reusing_layers():
            with progress.step("reading and validating the stack"):
                stack = load_stack(args)
                spec = load_spec(stack.cluster, source=str(stack.path))
                check_spec(spec, source=str(stack.path))
            with progress.step(f"rendering the Kubernetes layer of '{spec.name}' to {args.out}"):
                files = render(spec, Path(args.out))
                progress.note(f"{len(files)} files")
    except SpecError as exc:
        return report_invalid(exc)
    except RenderTargetError as exc:
        print(exc, file=sys.stderr)
        return EXIT_INVALID
    for path in files:
        print(path)
    return EXIT_OK
