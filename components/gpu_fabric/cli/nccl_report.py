"""``nccl-report``: judge an nccl-tests log against the machine catalog.

Exit codes: 0 the run passed; 1 the input is invalid (not nccl-tests output,
unknown machine, impossible GPU count); 4 the run was judged and failed (below
the floor, wrong results, socket fallback, wrong transport, too few nodes, no
row >= 1 GiB, run cut off). ``--json`` prints exactly the keys of
:meth:`gpu_fabric.nccl.verdict.Verdict.to_json`.
"""

from __future__ import annotations

import argparse
import errno
import json
import sys
from pathlib import Path

from gpu_fabric.catalog import UnknownMachineError, get_machine
from gpu_fabric.cli.common import EXIT_INVALID, EXIT_OK, EXIT_REJECTED
from gpu_fabric.files import read_bytes_bounded
from gpu_fabric.nccl.parser import COLLECTIVES, NotNcclTestsOutput, parse
from gpu_fabric.nccl.plot import efficiency_note
from gpu_fabric.nccl.verdict import FLOORS, Verdict, VerdictInputError, judge


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser(
        "nccl-report",
        help="judge an nccl-tests log (busbw vs line rate and floor, transport, #wrong)",
        description="Parse nccl-tests output and judge it against the machine catalog. "
        "Exit 0 pass, 1 invalid input, 4 failed run.",
    )
    parser.add_argument("log", help="nccl-tests output (a file, or - for stdin)")
    parser.add_argument("--machine", required=True, help="machine type, e.g. a4-highgpu-8g")
    parser.add_argument("--nodes", required=True, type=int, help="nodes the run used")
    parser.add_argument("--gpus-per-node", type=int, default=None,
                        help="GPUs per node (default: from the log's rank lines, else all)")
    parser.add_argument("--collective", choices=COLLECTIVES, default=None,
                        help="collective of the run (for logs whose header was cut off, "
                        "or to pick one run of several)")
    parser.add_argument("--floor", choices=FLOORS, default="auto",
                        help="which floor to judge: nvlink (a run inside one GB200/GB300 "
                        "NVLink domain), network, or auto (nvlink when the nodes fit in "
                        "one domain of the machine)")
    parser.add_argument("--json", action="store_true", help="print the verdict as JSON")
    parser.add_argument("--plot", metavar="FILE.png", default=None,
                        help="draw busbw vs message size (needs the 'plot' extra: matplotlib)")
    parser.set_defaults(run=run)


# An nccl-tests log with NCCL_DEBUG=INFO is a few MB for a large run; /dev/zero or a
# runaway file is refused by its size before it is read (issue 34).
MAX_LOG_BYTES = 64 * 1024 * 1024
# What matplotlib's savefig writes under the name given (without a suffix it appends
# .png: another file than the one named).
PLOT_SUFFIXES = (".png", ".svg", ".pdf")


def _read(path: str) -> str:
    if path == "-":
        text = sys.stdin.read(MAX_LOG_BYTES + 1)
        if len(text) > MAX_LOG_BYTES:
            raise OSError(errno.EFBIG, f"is over {MAX_LOG_BYTES} bytes", "-")
        return text
    return read_bytes_bounded(path, MAX_LOG_BYTES).decode("utf-8", errors="replace")


def plot_problem(plot: str, log: str) -> str | None:
    """Why ``--plot`` cannot be written as named, or None."""
    target = Path(plot)
    if target.suffix.lower() not in PLOT_SUFFIXES:
        return (f"'{plot}' must end in {', '.join(PLOT_SUFFIXES)} (the image is written in "
                "that format, under exactly that name)")
    if target.is_dir():
        return f"'{plot}' is a folder; name the image file"
    if not target.resolve().parent.is_dir():
        return f"cannot write '{plot}': its folder does not exist or is not a folder"
    if log != "-" and target.exists() and target.resolve() == Path(log).resolve():
        return f"'{plot}' is the log itself; name another file"
    return None


def run(args: argparse.Namespace) -> int:
    if args.plot:
        # Before parsing, and before matplotlib is imported (seconds), so a typo fails fast.
        problem = plot_problem(args.plot, args.log)
        if problem:
            print(f"--plot: {problem}", file=sys.stderr)
            return EXIT_INVALID
    try:
        text = _read(args.log)
    except OSError as exc:
        print(f"LOG: cannot read '{args.log}': {exc.strerror or exc}", file=sys.stderr)
        return EXIT_INVALID
    try:
        machine = get_machine(args.machine)
        nccl_run = parse(text, collective=args.collective)
        verdict = judge(nccl_run, machine, nodes=args.nodes, gpus_per_node=args.gpus_per_node,
                        floor=args.floor)
    except NotNcclTestsOutput as exc:
        print(f"{args.log}: {exc}", file=sys.stderr)
        return EXIT_INVALID
    except UnknownMachineError as exc:
        print(f"--machine: {exc.args[0]}", file=sys.stderr)
        return EXIT_INVALID
    except (VerdictInputError, ValueError) as exc:
        print(f"{args.log}: {exc}", file=sys.stderr)
        return EXIT_INVALID
    if args.plot:
        from gpu_fabric.nccl.plot import PlotUnavailable, plot_run

        try:
            plot_run(nccl_run, verdict, args.plot)
        except PlotUnavailable as exc:
            print(f"--plot: {exc}", file=sys.stderr)
            return EXIT_INVALID
        print(f"--plot: wrote {Path(args.plot).resolve()}", file=sys.stderr)
    if args.json:
        print(json.dumps(verdict.to_json(), indent=2, allow_nan=False))
        for warning in verdict.warnings:
            print(f"warning: {warning}", file=sys.stderr)
    else:
        print(render_text(verdict))
    return EXIT_OK if verdict.passed else EXIT_REJECTED


def _gbs(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.2f} GB/s"


def render_text(v: Verdict) -> str:
    lines = [
        f"NCCL acceptance: {v.collective or 'unknown collective'} on {v.nodes} x {v.machine} "
        f"({v.gpus_per_node} GPU(s)/node, {v.ranks} ranks)",
        f"  rows:              {v.rows} ({v.large_rows} >= 1 GiB)",
        f"  peak busbw:        out-of-place {_gbs(v.peak_out_of_place)}, "
        f"in-place {_gbs(v.peak_in_place)} (rows >= 1 GiB)",
        f"  line rate:         {_gbs(v.line_rate)}"
        + (f" -> efficiency {v.efficiency:.0%}" if v.efficiency is not None else ""),
        f"  floor:             {_gbs(v.floor)}",
        f"  judged against:    {v.floor_kind} ({v.floor_reason})",
        f"  avg bus bandwidth: {_gbs(v.avg_busbw)} (all sizes; not judged)",
        f"  #wrong:            {v.wrong}",
        f"  transport:         {v.transport or 'unknown'}"
        + (f" (expected {v.expected_transport})" if v.expected_transport else ""),
    ]
    note = efficiency_note(v)
    if note:
        lines.append(f"  note:              {note}")
    lines += [f"  warning: {w}" for w in v.warnings]
    if v.passed:
        lines.append("PASSED")
    else:
        lines.append("FAILED")
        lines += [f"  - {r}" for r in v.reasons]
    return "\n".join(lines)
