"""``plan``: the resource tree ``pulumi up`` would create, computed offline under mocks."""

from __future__ import annotations

import argparse
import json
import sys
import traceback

from gpu_fabric.cli.common import (
    EXIT_FAILED,
    EXIT_INVALID,
    EXIT_OK,
    EXIT_USAGE,
    Progress,
    add_stack_arguments,
    load_stack,
    report_invalid,
)
from gpu_fabric.errors import SpecError
from gpu_fabric.plan import PlanResult, run_plan
from gpu_fabric.plan.offline import plan_program
from gpu_fabric.plan.project import ProjectError
from gpu_fabric.sdks import CloudSdkMissing


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser(
        "plan", help="offline plan: the resources pulumi up would create",
        description="Plan a stack of this project (--stack/--config), or your own Pulumi "
        "program (--program DIR [--stack NAME]: DIR/Pulumi.yaml, its stackConfigDir).",
    )
    add_stack_arguments(parser, required=False)
    parser.add_argument(
        "--program", metavar="DIR",
        help="a Pulumi project folder (your own program that uses gpu_fabric); --stack "
        "then names one of its stacks",
    )
    parser.add_argument("--json", action="store_true", help="print the plan as JSON")
    parser.add_argument(
        "--preview", action="store_true",
        help="leave computed outputs unknown, as on a first pulumi preview",
    )
    parser.add_argument("--quiet", action="store_true", help="no progress on stderr")
    parser.add_argument("--debug", action="store_true",
                        help="print the traceback when the program fails")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    progress = Progress(quiet=args.quiet)
    if args.program is None and args.stack is None and args.config is None:
        print("plan: give --stack NAME, --config FILE or --program DIR", file=sys.stderr)
        return EXIT_USAGE
    if args.program is not None and args.config is not None:
        print("plan: --program takes --stack NAME (a stack of that project)", file=sys.stderr)
        return EXIT_USAGE
    try:
        if args.program is not None:
            with progress.step(f"running the program in {args.program} under mocks"):
                plan = plan_program(args.program, args.stack, preview=args.preview)
                progress.note(f"{len(plan.resources)} resources")
        else:
            with progress.step("reading and validating the stack"):
                stack = load_stack(args)
            with progress.step(f"running the program for stack '{stack.name}' under mocks"):
                plan = run_plan(stack, preview=args.preview)
                progress.note(f"{len(plan.resources)} resources")
    except SpecError as exc:
        return report_invalid(exc)
    except ProjectError as exc:
        print(f"--program: {exc}", file=sys.stderr)
        return EXIT_INVALID
    except CloudSdkMissing as exc:
        print(f"plan: {exc}", file=sys.stderr)
        return EXIT_FAILED
    except Exception as exc:  # the program failed: one line (--debug: where), exit 3
        if getattr(args, "debug", False):
            traceback.print_exc(file=sys.stderr)
        print(f"plan failed: {failure_line(exc)}", file=sys.stderr)
        return EXIT_FAILED
    if args.json:
        print(json.dumps(plan.to_json(), indent=2))
    else:
        print(render_tree(plan))
    return EXIT_OK


def failure_line(exc: BaseException) -> str:
    """One line saying what failed and where in the program (its deepest frame outside
    this library), without the traceback (``--debug`` prints it)."""
    where = ""
    for frame in traceback.extract_tb(exc.__traceback__):
        if not any(s in frame.filename for s in ("gpu_fabric", "pulumi", "runpy")):
            where = f" (at {frame.filename}:{frame.lineno})"
    text = " ".join(str(exc).split())[:300] or "no message"
    return f"{type(exc).__name__}: {text}{where}; rerun with --debug for the traceback"


def render_tree(plan: PlanResult) -> str:
    """Indented resource tree (type and name) plus counts per type."""
    children: dict[str | None, list[int]] = {}
    urns = {r.urn for r in plan.resources}
    for i, res in enumerate(plan.resources):
        parent = res.parent if res.parent in urns else None
        children.setdefault(parent, []).append(i)
    lines = [f"stack {plan.stack}: {len(plan.resources)} resources"]

    def walk(parent: str | None, depth: int) -> None:
        for i in children.get(parent, []):
            res = plan.resources[i]
            lines.append(f"{'  ' * depth}+ {res.type}  {res.name}")
            walk(res.urn, depth + 1)

    walk(None, 1)
    lines.append("")
    lines.append("count  type")
    for type_, count in sorted(plan.type_counts().items()):
        lines.append(f"{count:5d}  {type_}")
    if plan.outputs:
        lines.append("")
        lines.append("outputs: " + ", ".join(sorted(plan.outputs)))
    return "\n".join(lines)
