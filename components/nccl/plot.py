"""``nccl-report --plot``: busbw against message size, with line rate and floor.

matplotlib is an optional dependency (the ``plot`` extra); it is imported only
here, only when a plot is asked for.
"""

from __future__ import annotations

from typing import Any

from components.nccl.parser import NcclRun
from components.nccl.verdict import GIB, Verdict


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


def plot_run(run: NcclRun, verdict: Verdict, path: str) -> None:
    """Write a PNG of busbw vs size (log x axis) for ``run``."""
    plt = _pyplot()
    rows = [r for r in run.rows if r.size > 0]
    sizes = [r.size for r in rows]
    fig, ax = plt.subplots(figsize=(9, 5))
    for label, pick in (("out-of-place", "out_of_place"), ("in-place", "in_place")):
        points = [(r.size, getattr(r, pick).busbw) for r in rows]
        xs = [x for x, y in points if y is not None]
        ys = [y for _, y in points if y is not None]
        if xs:
            ax.plot(xs, ys, marker="o", markersize=3, label=f"busbw {label}")
    ax.axhline(verdict.line_rate, color="tab:green", linestyle="--",
               label=f"line rate {verdict.line_rate:g} GB/s")
    if verdict.floor is not None:
        ax.axhline(verdict.floor, color="tab:red", linestyle=":",
                   label=f"floor {verdict.floor:g} GB/s")
    if sizes and max(sizes) >= GIB:
        ax.axvspan(GIB, max(sizes), color="0.9", label="judged (>= 1 GiB)")
    ax.set_xscale("log", base=2)
    ax.set_xlabel("message size (bytes)")
    ax.set_ylabel("bus bandwidth (GB/s)")
    status = "PASSED" if verdict.passed else "FAILED"
    ax.set_title(
        f"{verdict.collective or 'nccl-tests'}: {verdict.nodes} x {verdict.machine}, "
        f"{verdict.gpus_per_node} GPU/node - {status}"
    )
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(loc="upper left")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
