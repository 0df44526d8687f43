"""The verdict, field by field and word by word (written to kill mutants, see docs/mutation.md).

``test_nccl_verdict.py`` checks what a verdict decides; this file pins what it
says and the edges where it decides. Every expected value is literal. Sources:

* ``tests/data/nccl/gke-seed-two-node.log``: copied verbatim from the project seed
  ``shared/seeds/gke-nvidia-dra-dranet.md`` (2 pods x 1 B200, all_gather); line 49
  is its only row >= 1 GiB (out-of-place busbw 36.67, in-place 45.14), line 51 the
  "Avg bus bandwidth" 12.5463; ranks on hosts nccl-gib-test-0 and nccl-gib-test-1
  (lines 16-17); the first row with algbw >= 1 GB/s is line 34 (32768 B, 1.70/0.85).
* catalog facts in ``components/gpu_fabric/catalog.py`` (each cites its own source): a4-highgpu-8g
  8 NICs x 400 Gb/s, floor 280.0 (70% of 400 GB/s), 2 GPUs : 2 NICs per PCIe root
  (seed), NCCL transport NET/gIB pinned by NCCL_NET=gIB (Google's gIB plugin);
  a3-megagpu-8g 8 x 200 Gb/s, floor 120.0 (60% of 200 GB/s), NET/FasTrak.
* nccl-tests PERFORMANCE.md (NVIDIA/nccl-tests): all_gather busbw = algbw x (n-1)/n,
  so 0.5 on 2 ranks and 15/16 = 0.9375 on 16 ranks.
"""

from __future__ import annotations

import dataclasses
import math
from pathlib import Path

import pytest

from gpu_fabric.catalog import NcclProfile, get_machine
from gpu_fabric.nccl.parser import Measurement, NcclRun, RankInfo, Row, parse
from gpu_fabric.nccl.verdict import (
    VerdictInputError,
    finite_or_none,
    impossible_figures,
    judge,
)

DATA = Path(__file__).resolve().parents[1] / "data" / "nccl"
GIB = 1073741824  # 2**30 bytes: the seed's largest row (line 49)
TRANSPORT_UNKNOWN = (
    "transport unknown: no NCCL INFO lines in the log (run with NCCL_DEBUG=INFO to "
    "catch a silent fallback to TCP sockets)"
)


def seed() -> NcclRun:
    return parse((DATA / "gke-seed-two-node.log").read_text())


def m(time_us: float | None, algbw: float | None, busbw: float | None,
      wrong: int | None = 0) -> Measurement:
    return Measurement(time_us, algbw, busbw, wrong)


def row(line: int, oop: Measurement, ip: Measurement, size: int = GIB) -> Row:
    return Row(size, size // 4, "float", "none", -1, oop, ip, line)


def synthetic(*rows: Row, **fields: object) -> NcclRun:
    """A finished 2-node all_gather run (2 ranks on 2 hosts) with the given rows."""
    ranks = [RankInfo(i, 0, 100 + i, f"host-{i}", 0, "0000:8f:00", "NVIDIA B200")
             for i in range(2)]
    run = NcclRun(collective="all_gather", header={"nThread": "1"}, ranks=ranks,
                  rows=list(rows), out_of_bounds=0, out_of_bounds_ok=True, avg_busbw=1.0)
    for name, value in fields.items():
        setattr(run, name, value)
    return run


A4 = "a4-highgpu-8g"
GOOD = m(14640.0, 73.35, 36.67)  # seed line 49, out-of-place


# -- the whole verdict ---------------------------------------------------------------
A4_FLOOR_REASON = ("a4-highgpu-8g has no multi-node NVLink domain: ranks on different nodes "
                   "talk over the roce network")


def test_seed_verdict_every_field() -> None:
    v = judge(seed(), get_machine(A4), nodes=2, gpus_per_node=1)
    assert dataclasses.asdict(v) == {
        "collective": "all_gather",
        "machine": "a4-highgpu-8g",
        "nodes": 2,
        "gpus_per_node": 1,
        "ranks": 2,
        "rows": 28,  # lines 22-49
        "large_rows": 1,  # line 49
        "peak_out_of_place": 36.67,
        "peak_in_place": 45.14,
        "avg_busbw": 12.5463,
        "line_rate": 50.0,  # 1 NIC x 400 Gb/s
        "floor": 35.0,  # 280.0 x 1/8
        "wrong": 0,
        "transport": None,
        "expected_transport": "NET/gIB",
        "reasons": [],
        "warnings": [TRANSPORT_UNKNOWN],
        # An A4 node's NVLink stays inside it (no catalog NVLink domain): the network floor.
        "floor_kind": "network",
        "floor_reason": A4_FLOOR_REASON,
    }


def test_seed_json_document() -> None:
    v = judge(seed(), get_machine(A4), nodes=2, gpus_per_node=1)
    assert v.to_json() == {
        "collective": "all_gather",
        "nodes": 2,
        "ranks": 2,
        "rows": 28,
        "peak_busbw": {"out_of_place": 36.67, "in_place": 45.14},
        "avg_busbw": 12.5463,
        "line_rate": 50.0,
        "efficiency": 0.9028,  # 45.14 / 50
        "floor": 35.0,
        "floor_kind": "network",
        "floor_reason": A4_FLOOR_REASON,
        "wrong": 0,
        "transport": None,
        "passed": True,
        "reasons": [],
    }


def test_json_efficiency_is_rounded_to_4_places_and_null_without_peak() -> None:
    # synth-a3mega: in-place/out-of-place peak 184.81 GB/s (8 GiB row) over 200 GB/s.
    run = parse((DATA / "synth-a3mega-2node-tcpxo-novalidation.log").read_text())
    doc = judge(run, get_machine("a3-megagpu-8g"), nodes=2).to_json()
    assert doc["efficiency"] == 0.9241  # 0.92405 rounded
    assert (doc["avg_busbw"], doc["line_rate"], doc["floor"]) == (136.1771, 200.0, 120.0)
    truncated = parse((DATA / "synth-oci-truncated.log").read_text())
    doc = judge(truncated, get_machine("BM.GPU.H100.8"), nodes=2).to_json()
    assert doc["efficiency"] is None and doc["avg_busbw"] is None
    assert doc["reasons"] == [
        "no row >= 1 GiB (largest: 268435456 B): run with -e 1G or more "
        "(a truncated run also ends early)"
    ]


def test_too_few_nodes_lists_every_host() -> None:
    v = judge(seed(), get_machine(A4), nodes=3, gpus_per_node=1)
    assert v.reasons[0] == (
        "too few nodes: the log's ranks ran on 2 host(s) "
        "(nccl-gib-test-0, nccl-gib-test-1), expected 3"
    )


def test_cut_off_run_says_why() -> None:
    run = seed()
    run.avg_busbw = None
    run.out_of_bounds = None
    assert judge(run, get_machine(A4), nodes=2, gpus_per_node=1).reasons == [
        "the run did not finish: no trailer ('# Out of bounds values' / "
        "'# Avg bus bandwidth'), so it crashed or the log was cut off"
    ]


# -- input errors ----------------------------------------------------------------------
def test_questions_that_cannot_be_asked_say_which_and_why() -> None:
    with pytest.raises(VerdictInputError) as info:
        judge(seed(), get_machine("g5.48xlarge"), nodes=2)
    assert str(info.value) == (
        "--machine: g5.48xlarge has no scale-out fabric in the catalog, so there is "
        "no line rate to judge a multi-node run against"
    )
    with pytest.raises(VerdictInputError) as info:
        judge(seed(), get_machine(A4), nodes=0)
    assert str(info.value) == "--nodes must be >= 1, got 0"
    with pytest.raises(VerdictInputError) as info:
        judge(seed(), get_machine(A4), nodes=2, gpus_per_node=0)
    assert str(info.value) == (
        "--gpus-per-node: a4-highgpu-8g has 8 GPUs per node; expected 1..8, got 0"
    )


def test_gpu_count_edges_are_accepted() -> None:
    run = seed()
    run.ranks.clear()  # nothing to infer from: the machine's 8 GPUs
    assert judge(run, get_machine(A4), nodes=2).gpus_per_node == 8
    assert judge(run, get_machine(A4), nodes=2, gpus_per_node=8).line_rate == 400.0
    assert judge(run, get_machine(A4), nodes=1, gpus_per_node=1).nodes == 1


# -- correctness -----------------------------------------------------------------------
def test_wrong_results_count_rows_with_any_wrong_value() -> None:
    run = synthetic(
        row(40, m(1.0, 2.0, 1.0, None), m(1.0, 2.0, 1.0, None)),  # N/A: not counted
        row(41, m(1.0, 2.0, 1.0, 0), m(1.0, 2.0, 1.0, 3)),  # in-place only
        row(42, m(1.0, 2.0, 1.0, 1), m(1.0, 2.0, 1.0, 0)),  # out-of-place only, 1 value
        row(43, m(1.0, 2.0, 1.0, 0), m(1.0, 2.0, 1.0, 0)),
    )
    v = judge(run, get_machine(A4), nodes=2, gpus_per_node=1)
    assert v.wrong == 4
    assert v.reasons[0] == "4 wrong result(s) in 2 row(s): data corruption (#wrong > 0)"


def test_min_bw_failure_is_a_reason() -> None:
    run = seed()
    run.min_bw_failed = True
    assert judge(run, get_machine(A4), nodes=2, gpus_per_node=1).reasons == [
        "nccl-tests FAILED its NCCL_TESTS_MIN_BW check"
    ]


# -- bandwidth ---------------------------------------------------------------------------
def test_peak_equal_to_the_floor_passes() -> None:
    # floor = busbw_floor x 1 NIC / 8 NICs: 293.36 / 8 = 36.67 = the seed's lower peak,
    # out-of-place (exact in binary: dividing by 8 only shifts the exponent). Both
    # places are judged, so the lower one decides.
    machine = dataclasses.replace(get_machine(A4), busbw_floor=293.36)
    v = judge(seed(), machine, nodes=2, gpus_per_node=1)
    assert v.floor == 36.67
    assert v.passed, v.reasons
    # The in-place peak (45.14) over the floor no longer hides a lower out-of-place one.
    higher = dataclasses.replace(get_machine(A4), busbw_floor=361.12)
    assert [r.split(" peak")[0] for r in judge(seed(), higher, nodes=2,
                                               gpus_per_node=1).reasons] == [
        "below floor: out-of-place"]


def test_machine_without_floor_is_not_judged_on_bandwidth() -> None:
    machine = dataclasses.replace(get_machine(A4), busbw_floor=None)
    v = judge(seed(), machine, nodes=2, gpus_per_node=1)
    assert v.floor is None and v.passed
    assert v.warnings == [
        "a4-highgpu-8g has no busbw floor in the catalog: bandwidth not judged",
        TRANSPORT_UNKNOWN,
    ]


def test_nan_peak_rows_are_ignored() -> None:
    run = synthetic(row(40, m(1.0, 2.0, math.nan), m(1.0, 2.0, None)))
    v = judge(run, get_machine(A4), nodes=2, gpus_per_node=1)
    assert v.peak_out_of_place is None and v.peak_in_place is None


# -- transport ------------------------------------------------------------------------
def test_wrong_transport_without_a_net_to_pin() -> None:
    machine = dataclasses.replace(get_machine(A4), nccl=NcclProfile("NET/gIB", None, None))
    run = parse((DATA / "synth-do-alltoall-no-header.log").read_text(), "alltoall")
    assert judge(run, machine, nodes=2).reasons == [
        "wrong transport: NCCL used NET/IB, a4-highgpu-8g should use NET/gIB"
    ]


def test_machine_without_nccl_profile_expects_nothing() -> None:
    machine = dataclasses.replace(get_machine(A4), nccl=None)
    v = judge(seed(), machine, nodes=2, gpus_per_node=1)
    assert v.expected_transport is None and v.passed


# -- consistency warnings ------------------------------------------------------------
def test_unknown_collective_and_damaged_rows_warn() -> None:
    run = seed()
    run.collective = None
    run.skipped_lines = [3, 5, 7, 9, 11, 13]
    assert judge(run, get_machine(A4), nodes=2, gpus_per_node=1).warnings == [
        TRANSPORT_UNKNOWN,
        "collective unknown (header cut off?): pass --collective NAME",
        "6 damaged row(s) skipped (lines 3, 5, 7, 9, 11)",
    ]


def test_factor_warning_names_the_first_mismatching_row() -> None:
    run = seed()
    run.ranks.clear()
    v = judge(run, get_machine(A4), nodes=2, gpus_per_node=8)
    assert v.warnings[-1] == (
        "busbw/algbw = 0.500 on line 34, but all_gather over 16 ranks has factor 0.938: "
        "wrong --collective, --nodes or --gpus-per-node?"
    )


@pytest.mark.parametrize(("algbw", "busbw", "warns"), [
    (1.0, 0.9, True),  # algbw of exactly 1 GB/s is checked; 0.9 vs 0.5 is off
    (0.99, 0.9, False),  # below 1 GB/s rounding dominates: not checked
    (10.0, 5.5, True),  # 0.55: 0.05 off; tolerance is 5% of the factor 0.5 = 0.025
    (10.0, 5.3, True),  # 0.53: 0.03 off, over the 0.025 tolerance
    (10.0, 5.2, False),  # 0.52: 0.02 off, within it
    (10.0, 5.1, False),  # 0.51: 0.01 off, within 5% of 0.5
])
def test_factor_tolerance_edges(algbw: float, busbw: float, warns: bool) -> None:
    run = synthetic(row(40, m(1.0, algbw, busbw), m(1.0, algbw, busbw)))
    warnings = judge(run, get_machine(A4), nodes=2, gpus_per_node=1).warnings
    assert any("busbw/algbw" in w for w in warnings) is warns, warnings


# -- figures no run can produce ---------------------------------------------------
def test_impossible_figures_name_line_place_and_figure() -> None:
    run = synthetic(
        row(40, m(math.nan, 2.0, 1.0), m(1.0, -2.0, 1.0)),
        row(41, m(None, 2.0, -1.0), m(1.0, 2.0, math.inf)),
        avg_busbw=math.nan,
    )
    assert impossible_figures(run, 50.0, 2) == [
        "impossible figure: line 40 (1073741824 B) out-of-place time is nan "
        "(not a number nccl-tests can measure)",
        "impossible figure: line 40 (1073741824 B) in-place algbw is negative (-2.0)",
        "impossible figure: line 41 (1073741824 B) out-of-place busbw is negative (-1.0)",
        "impossible figure: line 41 (1073741824 B) in-place busbw is inf "
        "(not a number nccl-tests can measure)",
        "impossible figure: '# Avg bus bandwidth' is nan",
    ]


def test_busbw_over_three_times_line_rate_on_two_nodes() -> None:
    # 3 x 50 GB/s = 150: exactly 150 can be measured, 150.5 cannot.
    run = synthetic(row(40, m(1.0, 300.0, 150.0), m(1.0, 301.0, 150.5)),
                    row(41, m(1.0, 2.0, None), m(1.0, 2.0, 1.0)))
    assert impossible_figures(run, 50.0, 2) == [
        "impossible figure: line 40 (1073741824 B) in-place busbw 150.5 GB/s is over 3x "
        "the 50 GB/s line rate a multi-node run can reach"
    ]
    assert impossible_figures(run, 50.0, 1) == []  # one node: NVLink only, no line rate


@pytest.mark.parametrize(("avg", "found"), [
    (-0.5, ["impossible figure: '# Avg bus bandwidth' is -0.5"]),
    (0.0, []),
    (0.5, []),
])
def test_average_busbw_edges(avg: float, found: list[str]) -> None:
    assert impossible_figures(synthetic(avg_busbw=avg), 50.0, 2) == found


def test_finite_or_none() -> None:
    assert finite_or_none(None) is None
    assert finite_or_none(math.nan) is None
    assert finite_or_none(-math.inf) is None
    assert finite_or_none(0.0) == 0.0
    assert finite_or_none(45.14) == 45.14
