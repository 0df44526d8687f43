"""``nccl-report --plot``: the picture's content, read back from the matplotlib figure.

The verdicts are written out field by field (not judged here), so the expected
text follows from them alone. The runs are the seed's two-node table
(tests/data/nccl/gke-seed-two-node.log: 28 rows, the last at 1 GiB with busbw
36.67 / 45.14 GB/s, two rows of size 0) and the synthesized Azure log with wrong
results (synth-azure-2node-wrong-results.log: #wrong 3 at 1 GiB, 12 at 4 GiB).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from gpu_fabric.nccl.parser import Measurement, NcclRun, Row, parse
from gpu_fabric.nccl.plot import _ticks, efficiency_note, size_label, summary_lines
from gpu_fabric.nccl.verdict import Verdict

DATA = Path(__file__).parents[1] / "data" / "nccl"
GIB = 2**30


def seed_verdict(**changes: Any) -> Verdict:
    """The seed's 1-NIC all_gather as nccl-report judges it on a4-highgpu-8g: 1 of 8
    NICs = 50 GB/s line rate, floor 280 x 1/8 = 35 GB/s (tests/nccl/test_nccl_verdict*.py)."""
    fields: dict[str, Any] = dict(
        collective="all_gather", machine="a4-highgpu-8g", nodes=2, gpus_per_node=1, ranks=2,
        rows=28, large_rows=1, peak_out_of_place=36.67, peak_in_place=45.14,
        avg_busbw=12.5463, line_rate=50.0, floor=35.0, wrong=0, transport="NET/gIB",
        expected_transport="NET/gIB",
    )
    fields.update(changes)
    return Verdict(**fields)


# -- text -------------------------------------------------------------------------------------
@pytest.mark.parametrize(("size", "label"), [
    (0, "0 B"),
    (1023, "1023 B"),
    (1024, "1 KiB"),
    (1536, "1.5 KiB"),
    (1264, "1.23 KiB"),          # 3 significant digits
    (1023 * 2**20, "1023 MiB"),
    (2**40, "1 TiB"),
    (2**50, "1024 TiB"),         # no unit above TiB
])
def test_size_labels(size: int, label: str) -> None:
    assert size_label(size) == label


def test_efficiency_notes() -> None:
    assert efficiency_note(seed_verdict()) is None  # 90%
    assert efficiency_note(seed_verdict(peak_in_place=50.0)) is None  # exactly 100%
    assert efficiency_note(seed_verdict(peak_out_of_place=None, peak_in_place=None)) is None
    assert efficiency_note(seed_verdict(peak_in_place=59.5)) == (
        "peak = 119% of the NIC line rate: busbw assumes a flat ring, but NCCL reduces "
        "inside each node over NVLink first, so less than busbw crosses the NICs; the floor, "
        "not the line rate, is the bar"
    )
    assert efficiency_note(seed_verdict(nodes=1, peak_in_place=282.07)) == (
        "peak = 564% of the NIC line rate: a single-node run stays on NVLink and never "
        "crosses the fabric, so the NICs do not bound it"
    )


def test_summary_of_a_passed_run() -> None:
    assert summary_lines(seed_verdict()) == [
        "PASSED",
        "peak busbw 45.1 GB/s over rows >= 1 GiB (90% of line rate)",
        "transport NET/gIB (expected NET/gIB)",
    ]


def test_summary_of_a_failed_run_with_a_note_and_no_expected_transport() -> None:
    verdict = seed_verdict(peak_in_place=59.5, expected_transport=None, transport="NET/IB",
                           reasons=["first reason", "second reason"])
    assert summary_lines(verdict) == [
        "FAILED because:",
        "- first reason",
        "- second reason",
        "peak busbw 59.5 GB/s over rows >= 1 GiB",  # the note explains the percentage
        efficiency_note(verdict),
        "transport NET/IB",
    ]


def test_summary_without_peak_or_transport() -> None:
    assert summary_lines(seed_verdict(peak_out_of_place=None, peak_in_place=None,
                                      transport=None)) == ["PASSED"]
    # line rate 0: no efficiency to print.
    assert summary_lines(seed_verdict(line_rate=0.0, transport=None)) == [
        "PASSED", "peak busbw 45.1 GB/s over rows >= 1 GiB"
    ]


@pytest.mark.parametrize(("low", "high", "ticks"), [
    # 2^5 .. 2^30: 26 powers, every 3rd kept, counted from 2^30.
    (32, GIB, [2.0**e for e in range(6, 31, 3)]),
    # 2^20 .. 2^34: 15 powers, every 2nd.
    (2**20, 2**34, [2.0**e for e in range(20, 35, 2)]),
    # 12 powers or fewer: all of them.
    (8, 2**14, [2.0**e for e in range(3, 15)]),
    (1, 4, [1.0, 2.0, 4.0]),
    (3, 12, [2.0, 4.0, 8.0]),    # from the power of two at or below each end
])
def test_ticks(low: int, high: int, ticks: list[float]) -> None:
    assert _ticks(low, high) == ticks


# -- the figure -------------------------------------------------------------------------------
@pytest.fixture
def figures(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """Every figure plot_run creates (kept after it closes them)."""
    plt = pytest.importorskip("matplotlib.pyplot")
    made: list[Any] = []
    original = plt.figure

    def figure(*args: Any, **kwargs: Any) -> Any:
        made.append(original(*args, **kwargs))
        return made[-1]

    monkeypatch.setattr(plt, "figure", figure)
    return made


def _draw(run: NcclRun, verdict: Verdict, figures: list[Any], tmp_path: Path) -> Any:
    from gpu_fabric.nccl.plot import plot_run

    plot_run(run, verdict, str(tmp_path / "run.png"))
    (fig,) = figures
    return fig


def _legend(ax: Any) -> list[str]:
    return [t.get_text() for t in ax.get_legend().get_texts()]


def test_passed_seed_run(figures: list[Any], tmp_path: Path) -> None:
    run = parse((DATA / "gke-seed-two-node.log").read_text())
    fig = _draw(run, seed_verdict(), figures, tmp_path)
    # Inches: verdict box 0.19 x 3 lines + 0.3, 0.95 below the axes, 4.0 plot, 0.45 above.
    assert tuple(fig.get_size_inches()) == pytest.approx((11.0, 6.27))
    (ax,) = fig.axes
    assert ax.get_position().bounds == pytest.approx(
        (0.08, (0.87 + 0.95) / 6.27, 0.62, 4.0 / 6.27))
    oop, ip, line_rate, floor = ax.get_lines()
    # The two size-0 rows are left out (no place on a log axis): 26 points from 32 B.
    assert list(oop.get_xdata()) == [2**k for k in range(5, 31)]
    assert list(oop.get_ydata())[-1] == 36.67 and list(ip.get_ydata())[-1] == 45.14
    assert (oop.get_label(), oop.get_marker(), ip.get_label(), ip.get_marker()) == (
        "busbw out-of-place", "o", "busbw in-place", "s")
    assert oop.get_markersize() == ip.get_markersize() == 3.5
    assert (line_rate.get_ydata()[0], line_rate.get_color(), line_rate.get_linestyle()) == (
        50.0, "tab:green", "--")
    assert (floor.get_ydata()[0], floor.get_color(), floor.get_linestyle()) == (
        35.0, "tab:red", ":")
    (judged,) = ax.collections
    assert judged.get_offsets().tolist() == [[GIB, 45.14]]
    assert (list(judged.get_sizes()), judged.get_zorder()) == ([110], 4)
    assert list(judged.get_facecolors()) == []  # hollow rings
    assert judged.get_edgecolors().tolist() == [[0.0, 0.0, 0.0, 1.0]]
    (band,) = ax.patches
    assert (band.get_x(), band.get_x() + band.get_width()) == (GIB, 2 * GIB)
    assert (tuple(band.get_facecolor()), band.get_zorder()) == ((0.88, 0.88, 0.88, 1.0), 0)
    assert _legend(ax) == [
        "busbw out-of-place", "busbw in-place", "NIC line rate 50 GB/s", "floor 35 GB/s",
        "judged rows (>= 1 GiB)", "peak of a judged row",
    ]
    # x from 32 B / 1.5 to 2 GiB, log base 2, one tick every 8x, in byte units.
    assert ax.get_xlim() == pytest.approx((32 / 1.5, 2 * GIB))
    assert (ax.get_xscale(), ax.xaxis.get_transform().base) == ("log", 2)
    assert [t.get_text() for t in ax.get_xticklabels()] == [
        "64 B", "512 B", "4 KiB", "32 KiB", "256 KiB", "2 MiB", "16 MiB", "128 MiB", "1 GiB"]
    assert list(ax.xaxis.get_minorticklocs()) == []
    label = ax.get_xticklabels()[0]
    assert (label.get_rotation(), label.get_horizontalalignment()) == (30.0, "right")
    # y from 0 to 12% above the line rate (the busbw stays below it).
    assert ax.get_ylim() == pytest.approx((0.0, 56.0))
    assert (ax.get_xlabel(), ax.get_ylabel()) == ("message size", "bus bandwidth (GB/s)")
    assert ax.get_title() == "all_gather: 2 x a4-highgpu-8g, 1 GPU/node - PASSED"
    assert (ax.title.get_color(), ax.title.get_fontweight()) == ("black", "bold")
    assert ax.xaxis.get_gridlines()[0].get_alpha() == 0.3
    legend = ax.get_legend()
    assert legend._loc == 2  # "upper left" of the anchor, outside the axes at x = 1.02
    assert (legend.get_bbox_to_anchor().x0 - fig.bbox.width * 0.7) == pytest.approx(
        fig.bbox.width * 0.62 * 0.02)
    assert legend.get_texts()[0].get_fontsize() == 9
    # Its top edge level with the axes' top, no padding between them.
    assert legend.get_bbox_to_anchor().y0 == pytest.approx(fig.bbox.height * (0.87 + 0.95 + 4.0)
                                                           / 6.27)
    assert legend.borderaxespad == 0.0
    assert ax.xaxis.get_gridlines()[0].get_visible() is True
    (text,) = fig.texts
    assert text.get_text() == "\n".join(summary_lines(seed_verdict()))
    assert text.get_position() == pytest.approx((0.02, 0.08 / 6.27))
    assert (text.get_fontsize(), text.get_family(), text.get_color()) == (
        9.0, ["monospace"], "black")
    assert (text.get_verticalalignment(), text.get_horizontalalignment()) == ("bottom", "left")
    box = text.get_bbox_patch()
    assert tuple(box.get_facecolor()) == (1.0, 1.0, 1.0, 1.0)
    assert tuple(box.get_edgecolor()) == (0.7, 0.7, 0.7, 1.0)
    png = (tmp_path / "run.png").read_bytes()
    # PNG IHDR: width and height in pixels at 110 dpi (11 in -> 1210 px).
    assert int.from_bytes(png[16:20], "big") == 1210
    assert int.from_bytes(png[20:24], "big") == 689


def test_failed_run_marks_wrong_rows(figures: list[Any], tmp_path: Path) -> None:
    run = parse((DATA / "synth-azure-2node-wrong-results.log").read_text())
    reasons = ["30 wrong result(s) in 2 row(s): data corruption (#wrong > 0)",
               "nccl-tests reports 15 out-of-bounds values (FAILED)"]
    verdict = seed_verdict(collective=None, machine="Standard_ND96isr_H100_v5", gpus_per_node=8,
                           ranks=16, line_rate=400.0, floor=None, reasons=reasons,
                           peak_out_of_place=None, peak_in_place=None, transport=None)
    fig = _draw(run, verdict, figures, tmp_path)
    (ax,) = fig.axes
    wrong = next(c for c in ax.collections if c.get_label() == "row with #wrong > 0")
    sizes_with_wrong = [r.size for r in run.rows if r.out_of_place.wrong or r.in_place.wrong]
    assert sizes_with_wrong == [GIB, 4 * GIB]
    assert [x for x, _ in wrong.get_offsets().tolist()] == [GIB, 4 * GIB]
    assert (list(wrong.get_sizes()), wrong.get_zorder()) == ([90], 5)
    assert _legend(ax)[:3] == ["busbw out-of-place", "busbw in-place", "row with #wrong > 0"]
    assert "floor" not in " ".join(_legend(ax))
    assert ax.get_title() == "nccl-tests: 2 x Standard_ND96isr_H100_v5, 8 GPU/node - FAILED"
    assert ax.title.get_color() == "tab:red"
    (text,) = fig.texts
    assert text.get_text() == "FAILED because:\n- " + "\n- ".join(reasons)
    assert text.get_color() == "darkred"
    box = text.get_bbox_patch()
    assert tuple(box.get_facecolor()) == pytest.approx((0xfd / 255, 0xe8 / 255, 0xe8 / 255, 1.0))
    # 3 lines: 0.19 x 3 + 0.3 + 0.95 + 4.0 + 0.45 inches.
    assert tuple(fig.get_size_inches()) == pytest.approx((11.0, 6.27))


def _row(size: int, oop: float | None, ip: float | None, wrong: int = 0) -> Row:
    return Row(size, size // 4, "float", "sum", -1, Measurement(1.0, oop, oop, wrong),
               Measurement(1.0, ip, ip, 0), line=0)


def test_small_rows_only_and_a_busbw_above_the_line_rate(figures: list[Any],
                                                          tmp_path: Path) -> None:
    # No row reaches 1 GiB: no judged band. A busbw of 60 over a 50 GB/s line rate lifts
    # the y axis to 8% above it; an N/A in-place busbw leaves that point out.
    run = NcclRun(rows=[_row(2**20, 10.0, 11.0), _row(2**21, 60.0, None, wrong=2)])
    verdict = seed_verdict(peak_out_of_place=None, peak_in_place=None, transport=None)
    fig = _draw(run, verdict, figures, tmp_path)
    (ax,) = fig.axes
    assert len(ax.patches) == 0
    assert "judged rows (>= 1 GiB)" not in _legend(ax)
    oop, ip = ax.get_lines()[:2]
    assert list(oop.get_xdata()) == [2**20, 2**21] and list(ip.get_xdata()) == [2**20]
    (wrong,) = ax.collections
    assert wrong.get_offsets().tolist() == [[2**21, 60.0]]
    assert ax.get_ylim() == pytest.approx((0.0, 67.2))  # max(50, 60) x 1.12
    assert ax.get_xlim() == pytest.approx((2**20 / 1.5, 2**22))
    assert [t.get_text() for t in ax.get_xticklabels()] == ["1 MiB", "2 MiB"]


def test_busbw_above_the_markers_lifts_the_axis(figures: list[Any], tmp_path: Path) -> None:
    run = NcclRun(rows=[_row(GIB, 80.0, 70.0)])
    fig = _draw(run, seed_verdict(transport=None), figures, tmp_path)
    (ax,) = fig.axes
    assert ax.get_ylim() == pytest.approx((0.0, 86.4))  # 80 x 1.08 > 50 x 1.12
    (judged,) = ax.collections
    assert judged.get_offsets().tolist() == [[GIB, 80.0]]


def test_a_run_without_rows_draws_the_line_rate_only(figures: list[Any],
                                                      tmp_path: Path) -> None:
    fig = _draw(NcclRun(), seed_verdict(transport=None), figures, tmp_path)
    (ax,) = fig.axes
    assert _legend(ax) == ["NIC line rate 50 GB/s", "floor 35 GB/s"]
    assert ax.get_ylim() == pytest.approx((0.0, 56.0))


def test_wrong_rows_in_place_only_or_without_busbw(figures: list[Any], tmp_path: Path) -> None:
    in_place_wrong = Row(2**20, 2**18, "float", "sum", -1, Measurement(1.0, 5.0, 5.0, 0),
                         Measurement(1.0, 6.0, 6.0, 1), line=0)
    no_busbw = Row(2**21, 2**19, "float", "sum", -1, Measurement(None, None, None, 4),
                   Measurement(None, None, None, 4), line=0)
    run = NcclRun(rows=[_row(1, 0.0, 0.0), in_place_wrong, no_busbw])
    fig = _draw(run, seed_verdict(transport=None), figures, tmp_path)
    (ax,) = fig.axes
    # A 1-byte row (int8, -b 1) is drawn; the row without any busbw has no marker.
    assert list(ax.get_lines()[0].get_xdata()) == [1, 2**20]
    (wrong,) = ax.collections
    assert wrong.get_offsets().tolist() == [[2**20, 6.0]]
    # A filled red "X", over everything else.
    assert tuple(wrong.get_facecolors()[0]) == pytest.approx(
        (0xd6 / 255, 0x27 / 255, 0x28 / 255, 1.0))  # tab:red = #d62728
    from matplotlib.markers import MarkerStyle

    marker = MarkerStyle("X")
    expected = marker.get_path().transformed(marker.get_transform())
    assert wrong.get_paths()[0].vertices.tolist() == expected.vertices.tolist()


def test_judged_rows_with_one_busbw(figures: list[Any], tmp_path: Path) -> None:
    run = NcclRun(rows=[_row(GIB, None, 40.0), _row(2 * GIB, None, None)])
    fig = _draw(run, seed_verdict(transport=None), figures, tmp_path)
    (ax,) = fig.axes
    (judged,) = ax.collections
    assert judged.get_offsets().tolist() == [[GIB, 40.0]]


def test_a_peak_just_under_the_axis_top_still_gets_room(figures: list[Any],
                                                         tmp_path: Path) -> None:
    # 54 x 1.08 = 58.32 > 50 x 1.12 = 56: lifted so the marker is not cut at the edge.
    run = NcclRun(rows=[_row(GIB, 54.0, 54.0)])
    fig = _draw(run, seed_verdict(transport=None), figures, tmp_path)
    assert fig.axes[0].get_ylim() == pytest.approx((0.0, 58.32))


def test_no_line_rate_and_no_rows(figures: list[Any], tmp_path: Path) -> None:
    fig = _draw(NcclRun(), seed_verdict(transport=None, line_rate=0.0, floor=None),
                figures, tmp_path)
    assert fig.axes[0].get_ylim() == pytest.approx((0.0, 1.0))  # matplotlib's default


def test_long_lines_wrap_at_120_characters(figures: list[Any], tmp_path: Path) -> None:
    # "- " + 119 characters = 121: one too many for a 120-character line.
    reason = "x" * 60 + " " + "y" * 58
    fig = _draw(NcclRun(), seed_verdict(transport=None, reasons=[reason]), figures, tmp_path)
    assert fig.texts[0].get_text().split("\n")[:3] == [
        "FAILED because:", "- " + "x" * 60, "  " + "y" * 58]
    short = "x" * 60 + " " + "y" * 57  # 120 with "- ": fits
    figures.clear()
    fig = _draw(NcclRun(), seed_verdict(transport=None, reasons=[short]), figures, tmp_path)
    assert fig.texts[0].get_text().split("\n")[1] == "- " + short


def test_missing_matplotlib_says_how_to_install_it(monkeypatch: pytest.MonkeyPatch) -> None:
    import sys

    from gpu_fabric.nccl.plot import PlotUnavailable, _pyplot

    monkeypatch.setitem(sys.modules, "matplotlib", None)  # import matplotlib -> ImportError
    with pytest.raises(PlotUnavailable) as info:
        _pyplot()
    assert str(info.value) == (
        "matplotlib is not installed; install the plot extra: "
        "pip install 'gpu-fabric[plot]' (or pip install matplotlib)"
    )


def test_summary_carries_the_warnings_the_cli_prints() -> None:
    """Issue 36: the picture left out "transport unknown", so it read as a clean pass."""
    unknown = ("transport unknown: no NCCL INFO lines in the log (run with NCCL_DEBUG=INFO "
               "to catch a silent fallback to TCP sockets)")  # nccl/verdict.py, the warning
    assert summary_lines(seed_verdict(transport=None, warnings=[unknown])) == [
        "PASSED",
        "peak busbw 45.1 GB/s over rows >= 1 GiB (90% of line rate)",
        "warning: " + unknown,
    ]
