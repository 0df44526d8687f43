"""Helpers every subcommand shares: choosing a stack, printing errors and progress."""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager

from components.errors import SpecError
from components.plan.stackfile import StackFile, load_stack_file

EXIT_OK = 0
EXIT_INVALID = 1
EXIT_USAGE = 2
EXIT_FAILED = 3
EXIT_REJECTED = 4  # the check ran and said no (verdict failed, replacement found)


def add_stack_arguments(parser: argparse.ArgumentParser) -> None:
    group = parser.add_mutually_exclusive_group(required=True)
    group.add_argument("--stack", help="stack name: reads stacks/Pulumi.NAME.yaml")
    group.add_argument("--config", help="path of a stack file (Pulumi.<stack>.yaml)")


def load_stack(args: argparse.Namespace) -> StackFile:
    return load_stack_file(name=args.stack, path=args.config)


def report_invalid(error: SpecError) -> int:
    print(error.render(), file=sys.stderr)
    return EXIT_INVALID


class Progress:
    """Step-by-step progress on stderr (stdout stays machine-readable)."""

    def __init__(self, quiet: bool = False) -> None:
        self.quiet = quiet

    @contextmanager
    def step(self, message: str) -> Iterator[None]:
        start = time.perf_counter()
        if not self.quiet:
            print(f"... {message}", file=sys.stderr, flush=True)
        yield
        if not self.quiet:
            print(f"    done in {time.perf_counter() - start:.1f}s", file=sys.stderr, flush=True)

    def note(self, message: str) -> None:
        if not self.quiet:
            print(f"    {message}", file=sys.stderr, flush=True)
