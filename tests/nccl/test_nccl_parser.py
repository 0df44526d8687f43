"""nccl-tests output parser: the GKE seed's tables, synthesized logs, and what is not a log."""

from __future__ import annotations

from pathlib import Path

import pytest

from gpu_fabric.nccl.parser import (
    COLLECTIVES,
    NotNcclTestsOutput,
    busbw_factor,
    clean,
    parse,
    parse_row,
    parse_runs,
    transport_tag,
)

DATA = Path(__file__).resolve().parents[1] / "data" / "nccl"


def log(name: str) -> str:
    return (DATA / name).read_text()


def test_seed_two_node_table_parses_to_the_seed_numbers() -> None:
    run = parse(log("gke-seed-two-node.log"))
    assert run.collective == "all_gather"  # from run_nccl_tests.sh -t all_gather
    assert (run.n_threads, run.n_gpus) == (1, 1)
    assert (run.min_bytes, run.max_bytes) == (8, 1073741824)
    assert run.header["iters"] == "100" and run.header["warmup iters"] == "50"
    assert run.nccl_version == "2.26.6+cuda12.8"
    assert [(r.rank, r.host, r.device, r.bus_id) for r in run.ranks] == [
        (0, "nccl-gib-test-0", 0, "0000:8f:00"),
        (1, "nccl-gib-test-1", 0, "0000:8f:00"),
    ]
    assert run.ranks[0].gpu == "NVIDIA B200"
    assert len(run.rows) == 28
    last = run.rows[-1]
    assert (last.size, last.count, last.type, last.redop, last.root) == (
        1073741824, 134217728, "float", "none", -1
    )
    assert (last.out_of_place.time_us, last.out_of_place.algbw, last.out_of_place.busbw) == (
        14640.0, 73.35, 36.67
    )
    assert (last.in_place.time_us, last.in_place.algbw, last.in_place.busbw) == (
        11892.0, 90.29, 45.14
    )
    assert run.out_of_bounds == 0 and run.out_of_bounds_ok is True
    assert run.avg_busbw == pytest.approx(12.5463)
    assert run.finished and run.total_wrong == 0


def test_seed_single_node_table_with_elided_rows() -> None:
    run = parse(log("gke-seed-single-node.log"))
    assert run.collective == "all_gather"
    assert run.hosts == ["nccl-gib-test-0"] and run.ranks_per_host == {"nccl-gib-test-0": 2}
    assert [r.size for r in run.rows] == [2**k for k in range(26, 34)]
    assert run.rows[-1].in_place.busbw == 564.14
    assert not run.finished  # the seed's table stops without a trailer


def test_mpirun_tags_and_interleaved_info_lines() -> None:
    run = parse(log("synth-p5-2node-allreduce-efa.log"))
    assert run.collective == "all_reduce"
    assert run.tests_version == "2.16.9"
    assert len(run.ranks) == 16 and run.hosts == ["p5-node-a", "p5-node-b"]
    assert [r.size for r in run.rows] == [2**k for k in range(20, 35)]
    assert run.skipped_lines == []
    assert run.transport.summary == "NET/OFI"
    assert run.transport.selected == {"NET/OFI": 2}
    # NCCL names the channel by the plugin's registered name, which has a space.
    assert run.transport.channels == {"NET/OFI": 3}
    assert not run.transport.socket_fallback


@pytest.mark.parametrize(("printed", "tag"), [
    ("AWS Libfabric", "NET/OFI"),   # aws-ofi-nccl < 1.13, or NCCL_NET="AWS Libfabric"
    ("Libfabric", "NET/OFI"),       # aws-ofi-nccl >= 1.13 default
    ("GPUDirectTCPX_v7", "NET/GPUDirectTCPX"),  # google/nccl-plugin-gpudirecttcpx
    ("FasTrak", "NET/FasTrak"),
    ("gIB", "NET/gIB"),
    ("IB", "NET/IB"),
    ("ib", "NET/IB"),               # NCCL compares network names case-insensitively
    ("Socket", "NET/Socket"),
    ("SomethingNew", "NET/SomethingNew"),
])
def test_network_names_map_to_one_transport_tag(printed: str, tag: str) -> None:
    assert transport_tag(printed) == tag


def test_tcpx_runs_are_recognised_by_the_plugins_registered_name() -> None:
    text = log("synth-a3mega-2node-tcpxo-novalidation.log")
    assert "via NET/FasTrak/" in text
    tcpx = text.replace("Using network FasTrak", "Using network GPUDirectTCPX_v7").replace(
        "via NET/FasTrak/", "via NET/GPUDirectTCPX_v7/")
    run = parse(tcpx)
    assert run.transport.summary == "NET/GPUDirectTCPX"
    assert set(run.transport.channels) == {"NET/GPUDirectTCPX"}


def test_socket_fallback_is_detected_from_info_lines() -> None:
    run = parse(log("synth-a4-2node-socket-fallback.log"))
    assert run.transport.socket_fallback
    assert run.transport.summary == "NET/Socket"
    assert run.transport.seen.get("NET/gIB") == 1  # the plugin was tried and found no device


def test_kubectl_prefixes_wrong_results_and_failed_oob() -> None:
    run = parse(log("synth-azure-2node-wrong-results.log"))
    assert len(run.ranks) == 16
    wrong = {r.size: (r.out_of_place.wrong, r.in_place.wrong) for r in run.rows if
             (r.out_of_place.wrong or r.in_place.wrong)}
    assert wrong == {2**30: (3, 3), 2**32: (12, 12)}
    assert run.total_wrong == 30
    assert run.out_of_bounds == 15 and run.out_of_bounds_ok is False
    assert run.transport.summary == "NET/IB"


def test_alltoall_without_redop_and_root_and_without_header() -> None:
    run = parse(log("synth-do-alltoall-no-header.log"), collective="alltoall")
    assert run.collective == "alltoall" and not run.has_header and not run.ranks
    assert all(r.redop is None and r.root is None for r in run.rows)
    assert run.rows[0].size == 64 * 2**20
    assert run.finished


def test_validation_off_gives_unknown_wrong_counts() -> None:
    run = parse(log("synth-a3mega-2node-tcpxo-novalidation.log"))
    assert run.header["validation"] == "0"
    assert all(r.out_of_place.wrong is None and r.in_place.wrong is None for r in run.rows)
    assert run.total_wrong == 0
    assert run.transport.summary == "NET/FasTrak"


def test_several_runs_in_one_log_need_a_collective() -> None:
    runs = parse_runs(log("synth-a4-two-collectives.log"))
    assert [r.collective for r in runs] == ["all_gather", "reduce_scatter"]
    with pytest.raises(ValueError, match=r"2 runs .*--collective"):
        parse(log("synth-a4-two-collectives.log"))
    assert parse(log("synth-a4-two-collectives.log"), "reduce_scatter").rows[0].redop == "sum"


def test_collective_that_contradicts_the_log_is_an_error() -> None:
    with pytest.raises(ValueError, match="contradicts the log"):
        parse(log("gke-seed-two-node.log"), collective="all_reduce")
    with pytest.raises(ValueError, match="valid: all_reduce"):
        parse(log("gke-seed-two-node.log"), collective="allreduce")


@pytest.mark.parametrize("text", [
    log("not-nccl.log"),
    "",
    "# nThread 1 nGpus 1 minBytes 8 maxBytes 1024\n# Using devices\n",  # header only
])
def test_text_that_is_not_nccl_tests_output_is_refused(text: str) -> None:
    with pytest.raises(NotNcclTestsOutput, match="no nccl-tests result table"):
        parse(text)


def test_damaged_row_is_skipped_and_recorded() -> None:
    lines = log("gke-seed-two-node.log").splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith("   536870912"))
    lines[at] = " ".join(lines[at].split()[:9])  # a row cut in the middle
    text = "\n".join(lines)
    run = parse(text)
    assert len(run.rows) == 27 and len(run.skipped_lines) == 1
    with pytest.raises(ValueError, match="measurement columns"):
        parse_row("1024  256  float  sum  -1  1.0  2.0")


@pytest.mark.parametrize("prefixed", [
    "[1,3]<stdout>:  1024  256  float  sum  -1  10.0  0.10  0.19  0  10.0  0.10  0.19  0",
    "[pod/nccl-0/test] 1024  256  float  sum  -1  10.0  0.10  0.19  0  10.0  0.10  0.19  0",
    "2026-01-01T10:00:00.123Z 1024  256  float  sum  -1  10.0  0.10  0.19  0  10.0  0.10  0.19  0",
])
def test_log_prefixes_are_removed(prefixed: str) -> None:
    row = parse_row(clean(prefixed))
    assert row is not None and row.size == 1024 and row.in_place.busbw == 0.19


# -- busbw factors per collective, checked against the tables' algbw ----------------
def _ratios(text: str, collective: str | None = None) -> list[float]:
    run = parse(text, collective)
    return [
        m.busbw / m.algbw for r in run.rows for m in (r.out_of_place, r.in_place)
        if m.algbw and m.busbw and m.algbw >= 10
    ]


@pytest.mark.parametrize(("name", "collective", "ranks"), [
    ("gke-seed-two-node.log", None, 2),
    ("synth-p5-2node-allreduce-efa.log", None, 16),
    ("synth-do-alltoall-no-header.log", "alltoall", 16),
    ("synth-a3mega-2node-tcpxo-novalidation.log", None, 16),
])
def test_busbw_factor_matches_the_tables(name: str, collective: str | None, ranks: int) -> None:
    run = parse(log(name), collective)
    assert run.collective is not None
    factor = busbw_factor(run.collective, ranks)
    ratios = _ratios(log(name), collective)
    assert ratios, "rows with algbw to compare"
    assert all(abs(r - factor) < 0.01 * factor + 0.005 for r in ratios), (factor, ratios[:3])


def test_busbw_factor_values() -> None:
    # nccl-tests doc/PERFORMANCE.md "Summary": AllReduce 2(n-1)/n = 2 x 15/16 at 16 ranks.
    assert busbw_factor("all_reduce", 16) == 1.875
    assert busbw_factor("all_gather", 2) == 0.5
    assert busbw_factor("broadcast", 8) == 1.0
    # factor = 1 in src/broadcast.cu, reduce.cu, sendrecv.cu and hypercube.cu (v2.16.9).
    assert {c for c in COLLECTIVES if busbw_factor(c, 4) == 1.0} == {
        "broadcast", "reduce", "sendrecv", "hypercube"
    }
    with pytest.raises(ValueError):
        busbw_factor("all_reduce", 0)
