"""``validate``: parse a stack file and print every problem (or a one-line summary)."""

from __future__ import annotations

import argparse

from gpu_fabric.cli.common import EXIT_OK, add_stack_arguments, load_stack, report_invalid
from gpu_fabric.errors import SpecError
from gpu_fabric.preflight import check_spec
from gpu_fabric.spec import load_spec


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser("validate", help="check a stack file's cluster spec")
    add_stack_arguments(parser)
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    try:
        stack = load_stack(args)
        spec = load_spec(stack.cluster, source=str(stack.path))
        check_spec(spec, source=str(stack.path))
    except SpecError as exc:
        return report_invalid(exc)
    pools = ", ".join(f"{p.name}: {p.node_count} x {p.machine_type}" for p in spec.node_pools)
    print(f"{stack.path}: valid ({spec.cloud.value} cluster '{spec.name}'; {pools})")
    return EXIT_OK
