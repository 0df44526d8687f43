"""``nccl-report --plot``: busbw against message size, with line rate, floor and verdict.

The picture has to be read without the text report: a FAILED run says why in
the picture (the verdict's reasons, rows with wrong results marked), the judged
rows (>= 1 GiB) are visible even when there is only one, sizes read as bytes
(``1 GiB``, not ``2^30``), and the legend sits outside the axes so it never
covers the line-rate line.

matplotlib is an optional dependency (the ``plot`` extra); it is imported only
here, only when a plot is asked for.
"""

from __future__ import annotations

import textwrap
from typing import Any

from gpu_fabric.nccl.parser import NcclRun
from gpu_fabric.nccl.verdict import GIB, Verdict

_UNITS = ("B", "KiB", "MiB", "GiB", "TiB")


class PlotUnavailable(RuntimeError):
    pass


def _pyplot() -> Any:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise PlotUnavailable(
            "matplotlib is not installed; install the plot extra: "
            "pip install 'gpu-fabric[plot]' (or pip install matplotlib)"
        ) from None
    return plt


def size_label(size: float) -> str:
    """Bytes in binary units: 1024 -> ``1 KiB``, 2**30 -> ``1 GiB``, 3 * 2**20 -> ``3 MiB``."""
    value, unit = float(size), 0
    while value >= 1024 and unit < len(_UNITS) - 1:
        value /= 1024
        unit += 1
    text = f"{value:.0f}" if value == int(value) else f"{value:.3g}"
    return f"{text} {_UNITS[unit]}"


def efficiency_note(verdict: Verdict) -> str | None:
    """Why the peak can read above 100% of the line rate (None when it does not)."""
    if verdict.efficiency is None or verdict.efficiency <= 1:
        return None
    if verdict.nodes < 2:
        return (f"peak = {verdict.efficiency:.0%} of the NIC line rate: a single-node run "
                "stays on NVLink and never crosses the fabric, so the NICs do not bound it")
    return (f"peak = {verdict.efficiency:.0%} of the NIC line rate: busbw assumes a flat "
            "ring, but NCCL reduces inside each node over NVLink first, so less than busbw "
            "crosses the NICs; the floor, not the line rate, is the bar")


def summary_lines(verdict: Verdict) -> list[str]:
    """The verdict in a few lines for the picture: status, why, and the numbers."""
    lines = []
    if verdict.passed:
        lines.append("PASSED")
    else:
        lines.append("FAILED because:")
        lines += [f"- {r}" for r in verdict.reasons]
    note = efficiency_note(verdict)
    if verdict.peak is not None:
        lines.append(
            f"peak busbw {verdict.peak:.1f} GB/s over rows >= 1 GiB"
            + (f" ({verdict.efficiency:.0%} of line rate)"
               if verdict.efficiency and not note else "")
        )
    if note:
        lines.append(note)
    if verdict.transport:
        lines.append(f"transport {verdict.transport}"
                     + (f" (expected {verdict.expected_transport})"
                        if verdict.expected_transport else ""))
    # The warnings the CLI prints (e.g. transport unknown: the log had no NCCL_DEBUG=INFO
    # lines), so the picture alone does not read as a clean pass (issue 36).
    lines += [f"warning: {w}" for w in verdict.warnings]
    return lines


def plot_run(run: NcclRun, verdict: Verdict, path: str) -> None:
    """Write a PNG of busbw vs size (log2 x axis, byte units) for ``run``."""
    plt = _pyplot()
    from matplotlib.ticker import FixedLocator, FuncFormatter, NullLocator

    rows = [r for r in run.rows if r.size > 0]
    sizes = [r.size for r in rows]
    text = "\n".join(
        textwrap.fill(line, width=120, subsequent_indent="  ")
        for line in summary_lines(verdict)
    )
    # Inches: the verdict box grows with its lines, below the x labels; legend at right.
    box, plot, below, above = 0.19 * (text.count("\n") + 1) + 0.3, 4.0, 0.95, 0.45
    height = box + below + plot + above
    fig = plt.figure(figsize=(11, height))
    ax = fig.add_axes((0.08, (box + below) / height, 0.62, plot / height))
    for label, pick, marker in (("out-of-place", "out_of_place", "o"),
                                ("in-place", "in_place", "s")):
        points = [(r.size, getattr(r, pick).busbw) for r in rows]
        xs = [x for x, y in points if y is not None]
        ys = [y for _, y in points if y is not None]
        if xs:
            ax.plot(xs, ys, marker=marker, markersize=3.5, label=f"busbw {label}")
    wrong = [
        (r.size, max(v for v in (r.out_of_place.busbw, r.in_place.busbw) if v is not None))
        for r in rows
        if (r.out_of_place.wrong or 0) + (r.in_place.wrong or 0) > 0
        and (r.out_of_place.busbw is not None or r.in_place.busbw is not None)
    ]
    if wrong:
        ax.scatter([x for x, _ in wrong], [y for _, y in wrong], marker="X", s=90,
                   color="tab:red", zorder=5, label="row with #wrong > 0")
    ax.axhline(verdict.line_rate, color="tab:green", linestyle="--",
               label=f"NIC line rate {verdict.line_rate:g} GB/s")
    if verdict.floor is not None:
        ax.axhline(verdict.floor, color="tab:red", linestyle=":",
                   label=f"floor {verdict.floor:g} GB/s")
    if sizes:
        low, high = min(sizes), max(sizes)
        ax.set_xlim(low / 1.5, high * 2)
        if high >= GIB:
            # One step (x 2) past the last row, so one judged row still shows a band.
            ax.axvspan(GIB, high * 2, color="0.88", zorder=0, label="judged rows (>= 1 GiB)")
            judged = [
                (r.size, max(v for v in (r.out_of_place.busbw, r.in_place.busbw)
                             if v is not None))
                for r in rows if r.size >= GIB
                and (r.out_of_place.busbw is not None or r.in_place.busbw is not None)
            ]
            ax.scatter([x for x, _ in judged], [y for _, y in judged], s=110,
                       facecolors="none", edgecolors="black", zorder=4,
                       label="peak of a judged row")
        ax.set_xscale("log", base=2)
        ticks = _ticks(low, high)
        ax.xaxis.set_major_locator(FixedLocator(ticks))
        ax.xaxis.set_minor_locator(NullLocator())
        ax.xaxis.set_major_formatter(FuncFormatter(lambda x, _pos: size_label(x)))
        plt.setp(ax.get_xticklabels(), rotation=30, ha="right")
    ax.set_ylim(bottom=0, top=max([verdict.line_rate, *(y for _, y in wrong)],
                                  default=0) * 1.12 or None)
    top = max((v for r in rows for v in (r.out_of_place.busbw, r.in_place.busbw)
               if v is not None), default=0.0)
    if top * 1.08 > ax.get_ylim()[1]:
        ax.set_ylim(0, top * 1.08)
    ax.set_xlabel("message size")
    ax.set_ylabel("bus bandwidth (GB/s)")
    status = "PASSED" if verdict.passed else "FAILED"
    ax.set_title(
        f"{verdict.collective or 'nccl-tests'}: {verdict.nodes} x {verdict.machine}, "
        f"{verdict.gpus_per_node} GPU/node - {status}",
        color="black" if verdict.passed else "tab:red", fontweight="bold",
    )
    ax.grid(True, which="major", alpha=0.3)
    ax.legend(loc="upper left", bbox_to_anchor=(1.02, 1.0), borderaxespad=0.0,
              fontsize=9)
    fig.text(0.02, 0.08 / height, text, fontsize=9, va="bottom", ha="left", family="monospace",
             color="black" if verdict.passed else "darkred",
             bbox={"facecolor": "white" if verdict.passed else "#fde8e8",
                   "edgecolor": "0.7", "boxstyle": "round,pad=0.4"})
    fig.savefig(path, dpi=110)
    plt.close(fig)


def _ticks(low: int, high: int) -> list[float]:
    """Powers of two from ``low`` to ``high``, thinned to at most ~12 labels."""
    first, last = max(int(low).bit_length() - 1, 0), int(high).bit_length() - 1
    exps = list(range(first, last + 1))
    step = max(1, -(-len(exps) // 12))
    exps = [e for e in exps if (e - 30) % step == 0] or exps  # keep 1 GiB on a tick
    return [float(2**e) for e in exps]
