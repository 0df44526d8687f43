"""Helpers every subcommand shares: choosing a stack, printing errors and progress."""

from __future__ import annotations

import argparse
import functools
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from gpu_fabric.errors import SpecError, cut
from gpu_fabric.plan.stackfile import StackFile, load_stack_file

EXIT_OK = 0
EXIT_INVALID = 1
EXIT_USAGE = 2
EXIT_FAILED = 3
EXIT_REJECTED = 4  # the check ran and said no (verdict failed, replacement found)


def add_stack_arguments(parser: argparse.ArgumentParser, required: bool = True) -> None:
    group = parser.add_mutually_exclusive_group(required=required)
    group.add_argument(
        "--stack",
        help="stack name: reads Pulumi.NAME.yaml in the stack folder of the nearest "
        "Pulumi.yaml (its stackConfigDir), as pulumi does",
    )
    group.add_argument("--config", help="path of a stack file (Pulumi.<stack>.yaml)")


def load_stack(args: argparse.Namespace) -> StackFile:
    return load_stack_file(name=args.stack, path=args.config)


def report_invalid(error: SpecError) -> int:
    print(error.render(), file=sys.stderr)
    return EXIT_INVALID


Runner = Callable[[argparse.Namespace], int]


def guarded(run: Runner) -> Runner:
    """``run`` that answers bad input with one clear line and exit 1, never a traceback.

    Each command handles what it expects; this catches the rest of what bad
    input can raise anywhere below: an invalid spec, a file that cannot be read
    or written (``--out`` in a read-only place, ``--plot`` into a missing
    directory, a kubeconfig that is a directory), text that is not UTF-8, data
    nested too deeply. A closed pipe and Ctrl-C go on to ``gpu_fabric.cli.main``.
    """

    @functools.wraps(run)
    def wrapper(args: argparse.Namespace) -> int:
        try:
            return run(args)
        except (BrokenPipeError, KeyboardInterrupt):
            raise
        except SpecError as exc:
            return report_invalid(exc)
        except OSError as exc:
            where = _argument_for(args, exc.filename) or _command(args)
            target = f" '{cut(str(exc.filename), 200)}'" if exc.filename else ""
            print(f"{where}: cannot use{target}: {exc.strerror or exc}", file=sys.stderr)
            return EXIT_INVALID
        except UnicodeError as exc:
            print(f"{_command(args)}: the input is not valid UTF-8 text ({exc})", file=sys.stderr)
            return EXIT_INVALID
        except (RecursionError, MemoryError):
            print(f"{_command(args)}: the input is nested too deeply or too large",
                  file=sys.stderr)
            return EXIT_INVALID

    return wrapper


def guard_commands(sub: argparse._SubParsersAction) -> None:
    """Wrap every registered command's ``run`` in :func:`guarded`."""
    for parser in sub.choices.values():
        run = parser.get_default("run")
        if run is not None:
            parser.set_defaults(run=guarded(run))


def _command(args: argparse.Namespace) -> str:
    return str(getattr(args, "command", None) or "gpu-fabric")


def _argument_for(args: argparse.Namespace, filename: object) -> str | None:
    """The command-line option whose value is (a parent of) ``filename``: ``--out``..."""
    if not filename:
        return None
    name = str(filename)
    found: list[tuple[int, str]] = []
    for key, value in vars(args).items():
        if key in ("command", "run") or not isinstance(value, str | Path) or not str(value):
            continue
        given = str(value).rstrip("/") or "/"
        if name == given or name.startswith(given + "/"):
            option = key.upper() if key == "log" else f"--{key.replace('_', '-')}"
            found.append((len(given) + (1 if name == given else 0), option))
    if found:
        return max(found)[1]  # the closest: --plot LOG/x.png names --plot, not LOG
    return None


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
