"""The nccl-tests parser, field by field and message by message (docs/mutation.md).

Every expected value is written out and says where it comes from: the GKE seed's
log (``tests/data/nccl/gke-seed-two-node.log``, copied verbatim from
shared/seeds/gke-nvidia-dra-dranet.md, line numbers of that file), the
synthesized logs next to it, or NVIDIA/nccl-tests at the pinned v2.16.9
(components/gpu_fabric/versions.py: the EFA image's nccl-tests v2.16.9): ``src/common.cu``
for the header and trailer it prints, ``src/<collective>.cu`` ``*GetBw`` and
``doc/PERFORMANCE.md`` for the busbw factors.
"""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from gpu_fabric.nccl.parser import (
    NotNcclTestsOutput,
    RankInfo,
    _collective_name,
    _is_int,
    busbw_factor,
    clean,
    parse,
    parse_row,
    parse_runs,
)

DATA = Path(__file__).resolve().parents[1] / "data" / "nccl"
SEED = (DATA / "gke-seed-two-node.log").read_text()
# Without line 2, the run_nccl_tests.sh command that names the collective.
SEED_NO_CMD = "\n".join(x for i, x in enumerate(SEED.splitlines(), 1) if i != 2)
TWO_RUNS = (DATA / "synth-a4-two-collectives.log").read_text()
# gke-seed-two-node.log line 49, the 1 GiB row.
SEED_LAST_ROW = ("  1073741824     134217728     float    none      -1    14640   73.35   36.67"
                 "      0    11892   90.29   45.14      0")
SEED_AVG = "# Avg bus bandwidth    : 12.5463"  # gke-seed-two-node.log line 51


# -- busbw factors ---------------------------------------------------------------------
# nccl-tests v2.16.9 src/<collective>.cu, `factor` in <Name>GetBw; doc/PERFORMANCE.md
# "Summary": AllReduce 2(n-1)/n, ReduceScatter and AllGather (n-1)/n, Broadcast 1.
# src/alltoall.cu, gather.cu, scatter.cu: (n-1)/n; reduce.cu: busBw = baseBw;
# sendrecv.cu: 1; hypercube.cu: 1 (its algBw already counts the n-1 peers).
@pytest.mark.parametrize(("collective", "four_ranks", "two_ranks"), [
    ("all_reduce", 1.5, 1.0),
    ("all_gather", 0.75, 0.5),
    ("reduce_scatter", 0.75, 0.5),
    ("alltoall", 0.75, 0.5),
    ("gather", 0.75, 0.5),
    ("scatter", 0.75, 0.5),
    ("broadcast", 1.0, 1.0),
    ("reduce", 1.0, 1.0),
    ("sendrecv", 1.0, 1.0),
    ("hypercube", 1.0, 1.0),
])
def test_busbw_factor_per_collective(collective: str, four_ranks: float, two_ranks: float) -> None:
    assert busbw_factor(collective, 4) == four_ranks
    assert busbw_factor(collective, 2) == two_ranks


def test_busbw_factor_of_a_single_rank() -> None:
    # One rank is a valid run (nccl-tests -g 1 without MPI): (n-1)/n = 0.
    assert busbw_factor("all_reduce", 1) == 0.0
    assert busbw_factor("broadcast", 1) == 1.0


def test_busbw_factor_errors_name_the_value_and_what_is_valid() -> None:
    with pytest.raises(ValueError) as zero:
        busbw_factor("all_reduce", 0)
    assert str(zero.value) == "ranks must be >= 1, got 0"
    with pytest.raises(ValueError) as unknown:
        busbw_factor("alltoallv", 8)
    assert str(unknown.value) == (
        "no busbw factor for 'alltoallv'; valid: all_reduce, all_gather, reduce_scatter, "
        "alltoall, gather, scatter, broadcast, reduce, sendrecv, hypercube"
    )


# -- line cleaning ---------------------------------------------------------------------
@pytest.mark.parametrize(("raw", "cleaned"), [
    # The line end goes, trailing blanks of the header stay (nccl-tests pads them).
    ("#  Rank  0 Group  0\r\n", "#  Rank  0 Group  0"),
    ("#    in-place          \n", "#    in-place          "),
    # Only \r and \n: a line that ends in X keeps it (the TCPX plugin's name).
    ("NCCL INFO Using network GPUDirectTCPX\n", "NCCL INFO Using network GPUDirectTCPX"),
    ("\n# nThread 1", "\n# nThread 1"),
    ("[1,8]<stdout>:# nThread 1", "# nThread 1"),
    ("[1,3]<stderr>: NCCL WARN x", "NCCL WARN x"),
    ("[1,12]: 1024", "1024"),
    ("[pod/nccl-launcher-x7k2p/launcher] # Avg", "# Avg"),
    ("2026-01-01T10:00:00Z # Avg", "# Avg"),
    ("2026-01-01T10:00:00.123456789+02:00 # Avg", "# Avg"),
    # kubectl logs --prefix --timestamps of an mpirun --tag-output launcher: three
    # prefixes, the timestamp between the two tags (needs a second pass).
    ("[pod/nccl-launcher-x7k2p/launcher] 2026-01-01T10:00:00.5Z [1,0]<stdout>:# nThread 1",
     "# nThread 1"),
    ("2026-01-01T10:00:00Z [pod/a/b] [1,0]<stdout>:x", "x"),
])
def test_clean_removes_exactly_the_prefixes(raw: str, cleaned: str) -> None:
    assert clean(raw) == cleaned


# -- rows ------------------------------------------------------------------------------
def test_a_seed_row_reads_field_by_field() -> None:
    row = parse_row(SEED_LAST_ROW, 49)
    assert row is not None
    assert (row.size, row.count, row.type, row.redop, row.root, row.line) == (
        1073741824, 134217728, "float", "none", -1, 49
    )
    assert (row.out_of_place.time_us, row.out_of_place.algbw, row.out_of_place.busbw,
            row.out_of_place.wrong) == (14640.0, 73.35, 36.67, 0)
    assert (row.in_place.time_us, row.in_place.algbw, row.in_place.busbw,
            row.in_place.wrong) == (11892.0, 90.29, 45.14, 0)
    assert parse_row(SEED_LAST_ROW).line == 0  # type: ignore[union-attr]


@pytest.mark.parametrize(("text", "message"), [
    # Cut right after the type, or after redop and root: no measurement left.
    ("  1073741824     134217728     float", "line 3: row with 0 measurement columns, expected 8"),
    ("  1073741824     134217728     float    none      -1",
     "line 3: row with 0 measurement columns, expected 8"),
    ("  1073741824     134217728     float    none      -1    14640   73.35",
     "line 3: row with 2 measurement columns, expected 8"),
    # 8 columns, one of them garbage (two lines run together).
    ("  1073741824     134217728     float    none      -1    14640   73.35   36.67"
     "      0    11892   90.29   45.14      0#",
     "line 3: row with 8 measurement columns, expected 8"),
])
def test_damaged_rows_say_how_many_columns_they_have(text: str, message: str) -> None:
    with pytest.raises(ValueError) as info:
        parse_row(text, 3)
    assert str(info.value) == message


def test_lines_that_only_mention_a_data_type_are_not_rows() -> None:
    assert parse_row("Testing datatype float") is None
    assert parse_row("nGpus 1 float") is None


def test_only_plain_digits_are_integers() -> None:
    assert [_is_int(t) for t in ("-1", "1073741824", "1.0", "X1", "N/A")] == [
        True, True, False, False, False
    ]


@pytest.mark.parametrize(("name", "collective"), [
    ("all_reduce", "all_reduce"),
    ("all_reduce_perf", "all_reduce"),
    # nccl-tests README "Build": NAME_SUFFIX=_mpi gives all_reduce_perf_mpi.
    ("all_reduce_perf_mpi", "all_reduce"),
    ("reduce_scatter_perf", "reduce_scatter"),
    ("perf_all_gather", None),
    ("ALL_REDUCE_PERF", None),
    ("alltoallv_perf", None),  # src/alltoallv.cu on master: no busbw factor here
])
def test_collective_names(name: str, collective: str | None) -> None:
    assert _collective_name(name) == collective


# -- the seed log, every field -----------------------------------------------------------
def test_seed_log_ranks_and_line_numbers() -> None:
    run = parse(SEED)
    # gke-seed-two-node.log lines 15-16.
    assert run.ranks == [
        RankInfo(rank=0, group=0, pid=1444, host="nccl-gib-test-0", device=0,
                 bus_id="0000:8f:00", gpu="NVIDIA B200"),
        RankInfo(rank=1, group=0, pid=1415, host="nccl-gib-test-1", device=0,
                 bus_id="0000:8f:00", gpu="NVIDIA B200"),
    ]
    # Rows on lines 22-49 (1-based, as an editor shows them).
    assert [r.line for r in run.rows] == list(range(22, 50))
    assert run.tests_version is None  # the GKE script prints no "# nccl-tests version"
    assert run.skipped_lines == [] and run.min_bw_failed is False
    assert (run.n_threads, run.n_gpus, run.min_bytes, run.max_bytes) == (1, 1, 8, 1073741824)


def test_a_damaged_row_is_recorded_by_its_line_number() -> None:
    lines = SEED.splitlines()
    lines[47] = lines[47][:60]  # line 48, the 512 MiB row, cut in the middle
    assert parse("\n".join(lines)).skipped_lines == [48]


def test_headerless_run_has_no_header_numbers() -> None:
    run = parse((DATA / "synth-do-alltoall-no-header.log").read_text(), "alltoall")
    assert (run.n_threads, run.n_gpus, run.min_bytes, run.max_bytes) == (None, None, None, None)
    assert run.tests_version is None and run.nccl_version is None


def test_commented_rows_are_not_read() -> None:
    text = SEED.replace(SEED_LAST_ROW, "   #" + SEED_LAST_ROW)
    assert [r.size for r in parse(text).rows][-1] == 536870912


# -- NCCL version ---------------------------------------------------------------------
def test_nccl_version_from_an_info_line() -> None:
    # NCCL logs its version as an INFO line ("<host>:<pid>:<tid> [<dev>] NCCL INFO NCCL
    # version 2.26.6+cuda12.8", as in synth-a4-2node-socket-fallback.log line 2).
    text = SEED.replace(
        "NCCL version 2.26.6+cuda12.8",
        "nccl-gib-test-0:1444:1444 [0] NCCL INFO NCCL version 2.26.6+cuda12.8",
    )
    assert parse(text).nccl_version == "2.26.6+cuda12.8"


def test_first_nccl_version_of_a_run_wins() -> None:
    before = "NCCL version 2.19.3+cuda12.2\n"  # a previous job's line, before any header
    after = SEED.replace(SEED_AVG, "NCCL version 2.99.0\n" + SEED_AVG)
    assert parse(before + after).nccl_version == "2.26.6+cuda12.8"
    info = after.replace("NCCL version 2.99.0", "h:1:1 [0] NCCL INFO NCCL version 2.99.0")
    assert parse(info).nccl_version == "2.26.6+cuda12.8"


# -- trailer (nccl-tests v2.16.9 src/common.cu lines 1265-1266) ----------------------------
def test_min_bw_failure_is_read_from_the_avg_line() -> None:
    """With NCCL_TESTS_MIN_BW set, nccl-tests appends FAILED or OK to the average line
    ("# Avg bus bandwidth    : %g %s"); before, the parser looked for FAILED on a later line
    and never saw it."""
    failed = parse(SEED.replace(SEED_AVG, SEED_AVG + " FAILED"))
    assert failed.min_bw_failed is True and failed.avg_busbw == 12.5463
    ok = parse(SEED.replace(SEED_AVG, SEED_AVG + " OK"))
    assert ok.min_bw_failed is False and ok.avg_busbw == 12.5463


def test_a_later_failed_line_is_not_the_min_bw_check() -> None:
    text = SEED + "\nmpirun: job FAILED on node 1\n"
    assert parse(text).min_bw_failed is False


@pytest.mark.parametrize("printed", ["nan", "-nan", "inf"])
def test_impossible_average_is_read_not_dropped(printed: str) -> None:
    # %g prints NaN / infinity this way (glibc); the verdict reports them as impossible.
    avg = parse(SEED.replace(SEED_AVG, f"# Avg bus bandwidth    : {printed}")).avg_busbw
    assert avg is not None and not math.isfinite(avg)


@pytest.mark.parametrize(("line", "count", "ok"), [
    ("# Out of bounds values : 0 OK", 0, True),
    ("# Out of bounds values : 15 FAILED", 15, False),
])
def test_out_of_bounds(line: str, count: int, ok: bool) -> None:
    run = parse(SEED.replace("# Out of bounds values : 0 OK", line))
    assert (run.out_of_bounds, run.out_of_bounds_ok) == (count, ok)


# -- transport evidence ------------------------------------------------------------------
def test_evidence_keeps_channels_out_of_seen() -> None:
    # synth-p5-2node-allreduce-efa.log: NET/OFI plugin lines 10, 31 and 33; "Using network
    # AWS Libfabric" lines 32, 34; channel lines 35, 36, 41 ("via NET/AWS Libfabric/<n>").
    run = parse((DATA / "synth-p5-2node-allreduce-efa.log").read_text())
    assert run.transport.seen == {"NET/OFI": 3}
    assert run.transport.selected == {"NET/OFI": 2}
    assert run.transport.channels == {"NET/OFI": 3}


def test_nccl_warn_lines_are_evidence_too() -> None:
    # NCCL prints failures as "<host>:<pid>:<tid> [<dev>] NCCL WARN NET/IB : ...".
    text = SEED.replace(
        "NCCL version 2.26.6+cuda12.8",
        "NCCL version 2.26.6+cuda12.8\n"
        "nccl-gib-test-0:1444:1444 [0] NCCL WARN NET/IB : Got async event : port error",
    )
    assert parse(text).transport.seen == {"NET/IB": 1}


# -- collectives and runs ----------------------------------------------------------------
def _without_start_lines(text: str) -> str:
    return "\n".join(x for x in text.splitlines() if "Collective test starting" not in x)


def test_several_runs_messages() -> None:
    with pytest.raises(ValueError) as many:
        parse(TWO_RUNS)
    assert str(many.value) == (
        "the log holds 2 runs (all_gather, reduce_scatter); choose one with --collective"
    )
    with pytest.raises(ValueError) as unknown:
        parse(_without_start_lines(TWO_RUNS))
    assert str(unknown.value) == "the log holds 2 runs (?, ?); choose one with --collective"
    with pytest.raises(ValueError) as missing:
        parse(TWO_RUNS, "all_reduce")
    assert str(missing.value) == (
        "the log holds no all_reduce run; runs: all_gather, reduce_scatter"
    )
    with pytest.raises(ValueError) as missing_unknown:
        parse(_without_start_lines(TWO_RUNS), "all_reduce")
    assert str(missing_unknown.value) == "the log holds no all_reduce run; runs: ?, ?"


def test_unknown_collective_message_lists_the_valid_ones() -> None:
    with pytest.raises(ValueError) as info:
        parse(SEED, "allgather")
    assert str(info.value) == (
        "collective 'allgather' is not an nccl-tests collective; valid: all_reduce, "
        "all_gather, reduce_scatter, alltoall, broadcast, reduce, sendrecv, gather, scatter, "
        "hypercube"
    )


def test_not_nccl_tests_output_message() -> None:
    with pytest.raises(NotNcclTestsOutput) as info:
        parse_runs("Epoch 1/10  loss 2.3041")
    assert str(info.value) == (
        "no nccl-tests result table found: expected rows like "
        "'1073741824  268435456  float  sum  -1  ...  time algbw busbw #wrong' "
        "(the output of all_reduce_perf and the other nccl-tests binaries)"
    )


def test_mpi_build_start_line_names_the_collective() -> None:
    # src/common.cu line 1010 prints program_invocation_short_name: all_gather_perf_mpi for
    # an MPI=1 NAME_SUFFIX=_mpi build.
    text = TWO_RUNS.replace("starting: all_gather_perf", "starting: all_gather_perf_mpi")
    assert [r.collective for r in parse_runs(text)] == ["all_gather", "reduce_scatter"]


def test_unknown_start_line_keeps_the_command_lines_collective() -> None:
    text = "mpirun -np 2 /opt/nccl-tests/build/sendrecv_perf -b 8 -e 1G\n" + SEED_NO_CMD.replace(
        "# nThread", "# Collective test starting: alltoallv_perf\n# nThread")
    assert parse(text).collective == "sendrecv"


def test_binary_named_after_the_header_names_that_run() -> None:
    # The header without a start line (cut by --tail), then the command echoed by a wrapper.
    text = SEED_NO_CMD.replace("# Using devices", "# Using devices\n+ exec /opt/nccl-tests/build/"
                        "sendrecv_perf -b 8")
    assert parse(text).collective == "sendrecv"
    assert parse(text, "sendrecv").collective == "sendrecv"


def test_a_run_that_died_before_its_rows_does_not_take_the_next_runs_collective() -> None:
    # A crashed first attempt (header, no rows), then a retry with its start line.
    header = SEED.splitlines()[11]  # line 12, the seed's "# nThread" header
    text = header + "\n# Collective test starting: all_gather_perf\n" + SEED_NO_CMD
    assert parse(text).collective == "all_gather"


def test_rows_after_a_finished_run_start_a_new_run_without_a_collective() -> None:
    # The second run's header was lost (log filtered by grep): its rows still form a run,
    # whose collective the log does not say.
    second = [x for x in TWO_RUNS.splitlines()[49:] if not x.startswith("#")]
    text = SEED + "\n" + "\n".join(second)
    runs = parse_runs(text)
    assert [r.collective for r in runs] == ["all_gather", None]
    assert parse(text, "all_gather").rows[0].size == 0
