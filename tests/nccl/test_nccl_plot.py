"""``nccl-report --plot`` and the efficiency note (issue 23: read the picture as a person).

The PNGs of every log in tests/data/nccl were looked at while writing this; the
tests pin what made them readable: the verdict's reasons in the picture, byte
units on the x axis, the note that explains a busbw above the NIC line rate.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from gpu_fabric.catalog import get_machine
from gpu_fabric.cli import main
from gpu_fabric.nccl.parser import parse
from gpu_fabric.nccl.plot import efficiency_note, size_label, summary_lines
from gpu_fabric.nccl.verdict import judge

DATA = Path(__file__).parents[1] / "data" / "nccl"


def _verdict(log: str, machine: str, nodes: int, **kw):
    run = parse((DATA / log).read_text())
    return run, judge(run, get_machine(machine), nodes=nodes, **kw)


def test_sizes_read_in_binary_byte_units() -> None:
    assert [size_label(x) for x in (8, 1024, 3 * 2**20, 2**30, 2**33)] == [
        "8 B", "1 KiB", "3 MiB", "1 GiB", "8 GiB"
    ]


def test_failed_run_says_why_in_the_picture_text() -> None:
    # synth-azure-2node-wrong-results.log: 30 wrong results in 2 rows, curve above the floor.
    _, v = _verdict("synth-azure-2node-wrong-results.log", "Standard_ND96isr_H100_v5", 2)
    lines = summary_lines(v)
    assert lines[0] == "FAILED because:"
    assert "- 30 wrong result(s) in 2 row(s): data corruption (#wrong > 0)" in lines


def test_busbw_above_line_rate_is_explained() -> None:
    # synth-p5-2node-allreduce-efa.log: all_reduce peak 119% of the 400 GB/s EFA line rate.
    _, v = _verdict("synth-p5-2node-allreduce-efa.log", "p5.48xlarge", 2)
    note = efficiency_note(v)
    assert note is not None and note.startswith("peak = 119% of the NIC line rate")
    assert "NVLink" in note
    # The seed's single-node all_gather (564%): never crossed the fabric.
    _, single = _verdict("gke-seed-single-node.log", "a4-highgpu-8g", 1)
    assert "single-node run stays on NVLink" in (efficiency_note(single) or "")
    _, normal = _verdict("gke-seed-two-node.log", "a4-highgpu-8g", 2, gpus_per_node=1)
    assert efficiency_note(normal) is None  # 90%: nothing to explain


def test_text_report_carries_the_note(capsys: pytest.CaptureFixture[str]) -> None:
    main(["nccl-report", str(DATA / "synth-p5-2node-allreduce-efa.log"),
          "--machine", "p5.48xlarge", "--nodes", "2"])
    assert "note:              peak = 119% of the NIC line rate" in capsys.readouterr().out


def test_plot_of_a_failed_run_writes_a_png(tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    from gpu_fabric.nccl.plot import plot_run

    run, v = _verdict("synth-azure-2node-wrong-results.log", "Standard_ND96isr_H100_v5", 2)
    target = tmp_path / "run.png"
    plot_run(run, v, str(target))
    assert target.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
