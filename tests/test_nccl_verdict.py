"""The verdict, computed from catalog values, and the ``nccl-report`` command."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from components.catalog import get_machine
from components.cli import main
from components.nccl.parser import parse
from components.nccl.verdict import GIB, VerdictInputError, judge

DATA = Path(__file__).resolve().parent / "data" / "nccl"


def run_of(name: str, collective: str | None = None):  # type: ignore[no-untyped-def]
    return parse((DATA / name).read_text(), collective)


def peak_of(name: str, collective: str | None = None) -> tuple[float, float]:
    rows = [r for r in run_of(name, collective).rows if r.size >= GIB]
    return (
        max(r.out_of_place.busbw or 0 for r in rows),
        max(r.in_place.busbw or 0 for r in rows),
    )


def test_seed_two_node_passes_against_one_a4_nic() -> None:
    machine = get_machine("a4-highgpu-8g")
    v = judge(run_of("gke-seed-two-node.log"), machine, nodes=2, gpus_per_node=1)
    nic_rate = machine.gbps_per_nic / 8  # one GPU uses one NIC
    assert v.line_rate == nic_rate
    assert v.floor == pytest.approx(machine.busbw_floor * 1 / machine.fabric_nics)
    assert (v.peak_out_of_place, v.peak_in_place) == peak_of("gke-seed-two-node.log")
    assert v.efficiency == pytest.approx(max(peak_of("gke-seed-two-node.log")) / nic_rate)
    assert v.avg_busbw == pytest.approx(12.5463)  # reported, never judged
    assert v.passed and v.reasons == []
    assert any("NCCL_DEBUG=INFO" in w for w in v.warnings)


def test_gpus_per_node_defaults_to_the_log_ranks() -> None:
    v = judge(run_of("gke-seed-two-node.log"), get_machine("a4-highgpu-8g"), nodes=2)
    assert v.gpus_per_node == 1 and v.ranks == 2


def test_full_a3_mega_node_line_rate_and_pass() -> None:
    machine = get_machine("a3-megagpu-8g")
    v = judge(run_of("synth-a3mega-2node-tcpxo-novalidation.log"), machine, nodes=2)
    assert v.line_rate == machine.fabric_nics * machine.gbps_per_nic / 8
    assert v.floor == machine.busbw_floor
    assert v.transport == machine.nccl.transport if machine.nccl else False
    assert v.passed, v.reasons


def test_efficiency_above_100_percent_is_reported_unclipped() -> None:
    machine = get_machine("p5.48xlarge")
    v = judge(run_of("synth-p5-2node-allreduce-efa.log"), machine, nodes=2)
    assert v.passed, v.reasons
    assert v.efficiency is not None and v.efficiency > 1.0
    assert v.efficiency == pytest.approx(max(peak_of("synth-p5-2node-allreduce-efa.log"))
                                         / machine.line_rate)


def test_socket_fallback_fails_with_reason() -> None:
    v = judge(run_of("synth-a4-2node-socket-fallback.log"), get_machine("a4-highgpu-8g"),
              nodes=2)
    assert not v.passed
    assert any(r.startswith("socket fallback") for r in v.reasons)
    assert any(r.startswith("below floor") for r in v.reasons)


def test_wrong_results_fail_even_at_full_bandwidth() -> None:
    machine = get_machine("Standard_ND96isr_H100_v5")
    v = judge(run_of("synth-azure-2node-wrong-results.log"), machine, nodes=2)
    assert v.peak is not None and machine.busbw_floor is not None
    assert v.peak >= machine.busbw_floor
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
    machine = get_machine("a4-highgpu-8g")  # expects gIB, the log used NCCL's own IB
    v = judge(run_of("synth-do-alltoall-no-header.log", "alltoall"), machine, nodes=2)
    assert machine.nccl is not None
    assert any(r.startswith("wrong transport") and f"NCCL_NET={machine.nccl.net}" in r
               for r in v.reasons)


def test_below_floor_is_judged_on_the_catalog_floor_scaled_by_nic_share() -> None:
    # The seed's peak (45.14) on a machine whose per-NIC floor is higher fails.
    run = run_of("gke-seed-two-node.log")
    peak = max(peak_of("gke-seed-two-node.log"))
    machine = get_machine("p5.48xlarge")
    floor = machine.floor_for(1)
    assert floor is not None
    v = judge(run, machine, nodes=2, gpus_per_node=1)
    assert v.floor == floor
    assert v.passed == (peak >= floor)
    assert any(r.startswith("below floor") for r in v.reasons) == (peak < floor)


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
    "efficiency", "floor", "wrong", "transport", "passed", "reasons",
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
    assert doc["peak_busbw"] == dict(zip(("out_of_place", "in_place"),
                                         peak_of("gke-seed-two-node.log"), strict=True))
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
    code, _, _ = report(capsys, str(DATA / "gke-seed-two-node.log"), "--machine",
                        "a4-highgpu-8g", "--nodes", "2", "--plot", str(target))
    assert code == 0
    assert target.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_cli_plot_without_matplotlib_is_a_clear_error(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import sys

    monkeypatch.setitem(sys.modules, "matplotlib", None)
    code, _, err = report(capsys, str(DATA / "gke-seed-two-node.log"), "--machine",
                          "a4-highgpu-8g", "--nodes", "2", "--plot", str(tmp_path / "x.png"))
    assert code == 1 and "plot extra" in err
