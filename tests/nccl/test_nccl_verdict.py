"""The verdict, computed from catalog values, and the ``nccl-report`` command."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gpu_fabric.catalog import get_machine
from gpu_fabric.cli import main
from gpu_fabric.nccl.parser import parse
from gpu_fabric.nccl.verdict import VerdictInputError, judge

DATA = Path(__file__).resolve().parents[1] / "data" / "nccl"


def run_of(name: str, collective: str | None = None):  # type: ignore[no-untyped-def]
    return parse((DATA / name).read_text(), collective)


# Expected figures below are literal. Sources:
# - seed log tests/data/nccl/gke-seed-two-node.log line 49 (the 1 GiB row, the only
#   row >= 1 GiB): out-of-place busbw 36.67, in-place 45.14; line 51: Avg 12.5463.
# - catalog facts (components/gpu_fabric/catalog.py, each with its own source there):
#   a4-highgpu-8g 8 NICs x 400 Gb/s, floor 70% of 400 GB/s = 280.0, NICs paired
#   2 GPUs : 2 NICs (seed gke-nvidia-dra-dranet.md); a3-megagpu-8g 8 x 200 Gb/s,
#   floor 60% of 200 GB/s = 120.0; p5.48xlarge 32 EFA x 100 Gb/s, floor 85% of
#   443.72 = 377.2; BM.GPU.H100.8 16 x 200 Gb/s, floor 70% of 400 = 280.0.
SEED_PEAKS = (36.67, 45.14)


def test_seed_two_node_passes_against_one_a4_nic() -> None:
    machine = get_machine("a4-highgpu-8g")
    v = judge(run_of("gke-seed-two-node.log"), machine, nodes=2, gpus_per_node=1)
    assert v.line_rate == 50.0  # one GPU uses one 400 Gb/s NIC: 400 / 8 GB/s
    assert v.floor == 35.0  # 280.0 x 1 of 8 NICs
    assert (v.peak_out_of_place, v.peak_in_place) == SEED_PEAKS
    assert v.efficiency == pytest.approx(0.9028)  # 45.14 / 50 (catalog note: 90%)
    assert v.avg_busbw == pytest.approx(12.5463)  # reported, never judged
    assert v.passed and v.reasons == []
    assert any("NCCL_DEBUG=INFO" in w for w in v.warnings)


def test_gpus_per_node_defaults_to_the_log_ranks() -> None:
    v = judge(run_of("gke-seed-two-node.log"), get_machine("a4-highgpu-8g"), nodes=2)
    assert v.gpus_per_node == 1 and v.ranks == 2


def test_full_a3_mega_node_line_rate_and_pass() -> None:
    machine = get_machine("a3-megagpu-8g")
    v = judge(run_of("synth-a3mega-2node-tcpxo-novalidation.log"), machine, nodes=2)
    assert v.line_rate == 200.0  # 8 NICs x 200 Gb/s / 8
    assert v.floor == 120.0
    assert v.transport == "NET/FasTrak"  # the log's INFO lines (file lines 3-5)
    assert v.passed, v.reasons


def test_efficiency_above_100_percent_is_reported_unclipped() -> None:
    machine = get_machine("p5.48xlarge")
    v = judge(run_of("synth-p5-2node-allreduce-efa.log"), machine, nodes=2)
    assert v.passed, v.reasons
    assert v.line_rate == 400.0  # 32 EFA x 100 Gb/s / 8
    # in-place 474.28 GB/s (file line 52, 16 GiB row) over 400 GB/s
    assert v.efficiency == pytest.approx(1.1857)


def test_socket_fallback_fails_with_reason() -> None:
    v = judge(run_of("synth-a4-2node-socket-fallback.log"), get_machine("a4-highgpu-8g"),
              nodes=2)
    assert not v.passed
    assert any(r.startswith("socket fallback") for r in v.reasons)
    assert any(r.startswith("below floor") for r in v.reasons)


def test_wrong_results_fail_even_at_full_bandwidth() -> None:
    machine = get_machine("Standard_ND96isr_H100_v5")
    v = judge(run_of("synth-azure-2node-wrong-results.log"), machine, nodes=2)
    assert v.floor == 280.0
    assert v.peak == 379.55  # over the floor: bandwidth alone would pass
    assert v.wrong == 30
    assert any("wrong result" in r for r in v.reasons)
    assert any("out-of-bounds" in r for r in v.reasons)


def test_truncated_run_without_large_rows_fails() -> None:
    v = judge(run_of("synth-oci-truncated.log"), get_machine("BM.GPU.H100.8"), nodes=2)
    assert not v.passed
    assert [r for r in v.reasons if r.startswith("no row >= 1 GiB")]
    assert v.peak_out_of_place is None and v.efficiency is None


def test_cut_off_after_large_rows_still_fails() -> None:
    text = (DATA / "gke-seed-two-node.log").read_text().split("# Out of bounds")[0]
    v = judge(parse(text), get_machine("a4-highgpu-8g"), nodes=2)
    assert any("did not finish" in r for r in v.reasons)


def test_too_few_nodes() -> None:
    machine = get_machine("a4-highgpu-8g")
    v = judge(run_of("gke-seed-single-node.log"), machine, nodes=2)
    assert any(r.startswith("too few nodes") for r in v.reasons)
    v1 = judge(run_of("gke-seed-single-node.log"), machine, nodes=1)
    assert any("single-node" in r for r in v1.reasons)


def test_wrong_transport_names_the_nccl_net_to_pin() -> None:
    # a4 expects gIB (catalog _gke_gib: NET/gIB, NCCL_NET=gIB); the log used NCCL's own IB.
    v = judge(run_of("synth-do-alltoall-no-header.log", "alltoall"),
              get_machine("a4-highgpu-8g"), nodes=2)
    assert v.reasons == [
        "wrong transport: NCCL used NET/IB, a4-highgpu-8g should use NET/gIB "
        "(pin it with NCCL_NET=gIB)"
    ]


def test_below_floor_is_judged_on_the_catalog_floor_scaled_by_nic_share() -> None:
    # The seed's peak (45.14) on p5: 1 GPU of 8 uses 4 of its 32 EFA (ceil(32/8)), so
    # line rate 4 x 100 / 8 = 50 GB/s and floor 377.2 x 4 / 32 = 47.15 GB/s: it fails.
    v = judge(run_of("gke-seed-two-node.log"), get_machine("p5.48xlarge"), nodes=2,
              gpus_per_node=1)
    assert (v.line_rate, v.floor) == (50.0, 47.15)
    # Each of out-of-place (36.67) and in-place (45.14) is judged (issue 34).
    assert v.reasons == [
        "below floor: out-of-place peak busbw 36.67 GB/s over rows >= 1 GiB is under the "
        "47.15 GB/s floor of p5.48xlarge with 1 GPU(s) per node (73% of the 50 GB/s line "
        "rate)",
        "below floor: in-place peak busbw 45.14 GB/s over rows >= 1 GiB is under the "
        "47.15 GB/s floor of p5.48xlarge with 1 GPU(s) per node (90% of the 50 GB/s line "
        "rate)",
    ]


def test_questions_that_cannot_be_asked() -> None:
    with pytest.raises(VerdictInputError, match="no scale-out fabric"):
        judge(run_of("gke-seed-two-node.log"), get_machine("g5.48xlarge"), nodes=2)
    with pytest.raises(VerdictInputError, match=r"expected 1\.\.8, got 9"):
        judge(run_of("gke-seed-two-node.log"), get_machine("a4-highgpu-8g"), nodes=2,
              gpus_per_node=9)


def test_factor_mismatch_warns() -> None:
    # The seed ran all_gather on 2 ranks; claiming 16 ranks breaks busbw = algbw x factor.
    run = run_of("gke-seed-two-node.log")
    v = judge(run, get_machine("a4-highgpu-8g"), nodes=2, gpus_per_node=1)
    assert not [w for w in v.warnings if "factor" in w]
    run.ranks.clear()
    v8 = judge(run, get_machine("a4-highgpu-8g"), nodes=2, gpus_per_node=8)
    assert [w for w in v8.warnings if "factor" in w]


# -- the command --------------------------------------------------------------------
JSON_KEYS = {
    "collective", "nodes", "ranks", "rows", "peak_busbw", "avg_busbw", "line_rate",
    "efficiency", "floor", "floor_kind", "floor_reason", "wrong", "transport", "passed",
    "reasons",
}


def report(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(["nccl-report", *args])
    out = capsys.readouterr()
    return code, out.out, out.err


def test_cli_json_shape_and_pass(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = report(capsys, str(DATA / "gke-seed-two-node.log"), "--machine",
                          "a4-highgpu-8g", "--nodes", "2", "--gpus-per-node", "1", "--json")
    assert code == 0
    doc = json.loads(out)
    assert set(doc) == JSON_KEYS
    assert set(doc["peak_busbw"]) == {"out_of_place", "in_place"}
    assert doc["peak_busbw"] == {"out_of_place": 36.67, "in_place": 45.14}
    assert doc["transport"] is None and doc["passed"] is True and doc["reasons"] == []
    assert doc["collective"] == "all_gather" and doc["nodes"] == 2 and doc["ranks"] == 2


def test_cli_failure_exit_code_and_reasons(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = report(capsys, str(DATA / "synth-a4-2node-socket-fallback.log"),
                          "--machine", "a4-highgpu-8g", "--nodes", "2", "--json")
    assert code == 4
    doc = json.loads(out)
    assert doc["passed"] is False and doc["transport"] == "NET/Socket"
    assert any("socket fallback" in r for r in doc["reasons"])


def test_cli_text_output(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = report(capsys, str(DATA / "synth-oci-truncated.log"), "--machine",
                          "BM.GPU.H100.8", "--nodes", "2")
    assert code == 4
    assert "FAILED" in out and "no row >= 1 GiB" in out


@pytest.mark.parametrize(("args", "message"), [
    (["not-nccl.log", "--machine", "a4-highgpu-8g", "--nodes", "2"], "no nccl-tests result"),
    (["gke-seed-two-node.log", "--machine", "a9-mega", "--nodes", "2"], "--machine"),
    (["missing.log", "--machine", "a4-highgpu-8g", "--nodes", "2"], "cannot read"),
    (["synth-a4-two-collectives.log", "--machine", "a4-highgpu-8g", "--nodes", "2"],
     "--collective"),
])
def test_cli_invalid_input_exits_1(
    capsys: pytest.CaptureFixture[str], args: list[str], message: str
) -> None:
    code, out, err = report(capsys, str(DATA / args[0]), *args[1:])
    assert code == 1 and out == "" and message in err


def test_cli_collective_for_a_header_less_log(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = report(capsys, str(DATA / "synth-do-alltoall-no-header.log"), "--machine",
                          "gpu-h200x8-1128gb-fabric-contracted", "--nodes", "2",
                          "--collective", "alltoall", "--json")
    assert code == 0 and json.loads(out)["collective"] == "alltoall"


def test_cli_plot_writes_a_png(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    target = tmp_path / "busbw.png"
    code, _, err = report(capsys, str(DATA / "gke-seed-two-node.log"), "--machine",
                          "a4-highgpu-8g", "--nodes", "2", "--plot", str(target))
    assert code == 0
    assert target.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert f"--plot: wrote {target.resolve()}" in err.splitlines()  # issue 36: say where


def test_cli_plot_without_matplotlib_is_a_clear_error(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import sys

    monkeypatch.setitem(sys.modules, "matplotlib", None)
    code, _, err = report(capsys, str(DATA / "gke-seed-two-node.log"), "--machine",
                          "a4-highgpu-8g", "--nodes", "2", "--plot", str(tmp_path / "x.png"))
    assert code == 1 and "plot extra" in err
