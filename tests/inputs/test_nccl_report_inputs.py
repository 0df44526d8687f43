"""nccl-report: one run, one set of ranks; #wrong a count; both places judged; a floor
only for the collectives it was measured for (issue 34).

Logs are the committed GKE seed (tests/data/nccl/gke-seed-two-node.log: rank 0 on
nccl-gib-test-0, rank 1 on nccl-gib-test-1; the 1 GiB row at line 49 reads
out-of-place busbw 36.67, in-place 45.14, #wrong 0 and 0) with one thing changed.
a4-highgpu-8g with 1 GPU per node has a 35.0 GB/s floor (catalog, 280 / 8 NICs).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from gpu_fabric.catalog import get_machine
from gpu_fabric.cli import main
from gpu_fabric.nccl.parser import parse
from gpu_fabric.nccl.verdict import judge

DATA = Path(__file__).resolve().parents[1] / "data" / "nccl"
SEED = (DATA / "gke-seed-two-node.log").read_text()
ROW = ("  1073741824     134217728     float    none      -1    14640   73.35   36.67      0"
       "    11892   90.29   45.14      0")


def _verdict(text: str):  # type: ignore[no-untyped-def]
    return judge(parse(text), get_machine("a4-highgpu-8g"), nodes=2, gpus_per_node=1)


def test_the_seed_passes_as_it_is() -> None:
    assert ROW in SEED
    assert _verdict(SEED).passed


def test_two_single_node_runs_interleaved_are_not_one_two_node_run() -> None:
    """Rank 0 on both hosts: two runs' rank lines, not one 2-node run."""
    text = SEED.replace("#  Rank  1 Group  0 Pid   1415 on nccl-gib-test-1",
                        "#  Rank  0 Group  0 Pid   1415 on nccl-gib-test-1")
    reasons = _verdict(text).reasons
    assert ("rank 0 appears 2 times (on nccl-gib-test-0, nccl-gib-test-1): the log holds "
            "more than one run's ranks, not one multi-node run; judge each run's own log"
            ) in reasons, reasons


@pytest.mark.parametrize("wrong", ["-1", "0.5", "1e3", "nan"])
def test_wrong_counts_are_non_negative_whole_numbers(wrong: str) -> None:
    text = SEED.replace(ROW, ROW[: -len("0")] + wrong)
    reasons = _verdict(text).reasons
    assert (f"line 49: #wrong '{wrong}' is not a non-negative whole number: the log was "
            "damaged or edited") in reasons, reasons


def test_in_place_ten_times_below_out_of_place_fails() -> None:
    slow = ROW.replace("11892   90.29   45.14", "118920    9.03    4.51")
    reasons = _verdict(SEED.replace(ROW, slow)).reasons
    assert reasons == [
        "below floor: in-place peak busbw 4.51 GB/s over rows >= 1 GiB is under the 35.00 "
        "GB/s floor of a4-highgpu-8g with 1 GPU(s) per node (9% of the 50 GB/s line rate)"
    ]


def test_alltoall_is_not_judged_against_the_all_reduce_floor() -> None:
    """synth-do-alltoall-no-header.log: an alltoall run; the catalog floors are all_reduce."""
    run = parse((DATA / "synth-do-alltoall-no-header.log").read_text(), "alltoall")
    v = judge(run, get_machine("gpu-h200x8-1128gb-fabric-contracted"), nodes=2)
    assert v.floor is None
    assert any(w.startswith("the catalog's floor of gpu-h200x8-1128gb-fabric-contracted is "
                            "an all_reduce busbw; no alltoall floor is known") for w in v.warnings)
    assert not any(r.startswith("below floor") for r in v.reasons)


def test_the_cli_says_the_same(tmp_path: Path, capsys) -> None:
    log = tmp_path / "two-runs.log"
    log.write_text(SEED.replace("#  Rank  1 Group  0 Pid   1415 on nccl-gib-test-1",
                                "#  Rank  0 Group  0 Pid   1415 on nccl-gib-test-1"))
    code = main(["nccl-report", str(log), "--machine", "a4-highgpu-8g", "--nodes", "2",
                 "--gpus-per-node", "1"])
    out = capsys.readouterr().out
    assert code == 4 and "rank 0 appears 2 times" in out
