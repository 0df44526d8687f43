"""The NVLink floor: a run inside one GB200/GB300 NVLink domain is judged against NVLink,
not the network, and nccl-report says which floor it judged and why.

Catalog facts: NVIDIA's GB200 NVL72 and GB300 NVL72 pages (72 GPUs in one NVLink domain,
"NVLink Bandwidth 130 TB/s" for the rack: 1.8 TB/s per GPU both ways, 900 GB/s one way;
https://www.nvidia.com/en-us/data-center/gb200-nvl72/,
https://www.nvidia.com/en-us/data-center/gb300-nvl72/). Logs: coreweave/nccl-tests
f443305cf9637741e504ac88f88c9330b7942286 README.md, "Expected Performance" > "GB200"
(tests/data/nccl/coreweave-gb200-nvl72.PROVENANCE.md).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gpu_fabric.catalog import get_machine
from gpu_fabric.cli import main
from gpu_fabric.nccl.parser import parse
from gpu_fabric.nccl.verdict import VerdictInputError, judge

DATA = Path(__file__).resolve().parents[1] / "data" / "nccl"
RACK = DATA / "coreweave-gb200-nvl72-single-rack.log"
RACKS_20 = DATA / "coreweave-gb200-nvl72-20-racks.log"
GB = ["a4x-highgpu-4g", "p6e-gb200.36xlarge", "Standard_ND128isr_NDR_GB200_v6",
      "Standard_ND128isr_GB300_v6", "BM.GPU.GB200-v3.4"]


@pytest.mark.parametrize("name", GB)
def test_the_catalog_carries_the_nvlink_domain_and_its_bandwidth(name: str) -> None:
    machine = get_machine(name)
    assert machine.nvlink_domain == 72
    assert machine.nvlink_domain_nodes == 18  # 72 GPUs / 4 per node
    assert machine.nvlink is not None
    assert machine.nvlink.gb_per_s_per_gpu == 900.0
    assert machine.nvlink.floor == 630.0  # 70% of 900 GB/s
    page = ("https://www.nvidia.com/en-us/data-center/gb300-nvl72/" if "GB300" in name
            else "https://www.nvidia.com/en-us/data-center/gb200-nvl72/")
    assert page in machine.nvlink.sources


def _report(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, dict, str]:
    code = main(["nccl-report", *args, "--json"])
    out = capsys.readouterr()
    return code, json.loads(out.out), out.err


def test_a_published_single_rack_run_is_judged_against_the_nvlink_floor(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, doc, err = _report(capsys, str(RACK), "--machine", "p6e-gb200.36xlarge",
                             "--nodes", "18", "--gpus-per-node", "4")
    assert code == 0
    assert doc["floor_kind"] == "nvlink"
    assert doc["floor"] == 630.0 and doc["line_rate"] == 900.0
    assert doc["peak_busbw"] == {"out_of_place": 839.16, "in_place": 846.82}
    assert doc["ranks"] == 72 and doc["passed"] is True
    assert doc["floor_reason"].startswith(
        "18 node(s) fit in one NVLink domain (72 GPUs, 18 nodes of p6e-gb200.36xlarge), and "
        "NCCL runs multi-node NVLink (MNNVL) inside a domain")
    assert "the log lists 1 of at least 72 rank lines (an excerpt)" in err


def test_the_same_run_against_the_network_floor_cannot_be_explained(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """846.82 GB/s is over 3x the 200 GB/s of 4 x 400 Gb/s InfiniBand (ND GB200 v6): judged
    as a network run it looks forged; that is why an intra-domain run needs its own floor.
    (p6e-gb200 now has 16 x 200 Gb/s EFA, 400 GB/s, after issue 30: 2.1x, not the point.)"""
    code, doc, _ = _report(capsys, str(RACK), "--machine", "Standard_ND128isr_NDR_GB200_v6",
                           "--nodes", "18", "--gpus-per-node", "4", "--floor", "network")
    assert code == 4
    assert doc["floor_kind"] == "network" and doc["floor"] == 140.0
    assert any("over 3x the 200 GB/s line rate" in r for r in doc["reasons"])


def test_more_nodes_than_a_domain_are_judged_against_the_network(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, doc, _ = _report(capsys, str(RACKS_20), "--machine", "Standard_ND128isr_NDR_GB200_v6",
                           "--nodes", "360", "--gpus-per-node", "4")
    assert code == 0
    assert doc["floor_kind"] == "network" and doc["floor"] == 140.0
    assert doc["floor_reason"] == (
        "360 nodes are more than one NVLink domain (72 GPUs, 18 nodes of "
        "Standard_ND128isr_NDR_GB200_v6) holds: traffic between domains crosses the network")


def test_an_intra_domain_run_below_the_nvlink_floor_fails() -> None:
    """The 20-rack figures (peak 405.74 GB/s) as if measured inside one domain: under the
    630 GB/s NVLink floor although far above the network floor."""
    run = parse(RACKS_20.read_text())
    verdict = judge(run, get_machine("BM.GPU.GB200-v3.4"), nodes=18, gpus_per_node=4,
                    floor="nvlink")
    assert verdict.floor_kind == "nvlink"
    # Out-of-place (405.74) and in-place (404.77) are judged each (issue 34).
    assert verdict.reasons == [
        "below floor: out-of-place peak busbw 405.74 GB/s over rows >= 1 GiB is under the "
        "630.00 GB/s NVLink floor of BM.GPU.GB200-v3.4 with 4 GPU(s) per node (45% of the "
        "900 GB/s NVLink bandwidth per GPU)",
        "below floor: in-place peak busbw 404.77 GB/s over rows >= 1 GiB is under the "
        "630.00 GB/s NVLink floor of BM.GPU.GB200-v3.4 with 4 GPU(s) per node (45% of the "
        "900 GB/s NVLink bandwidth per GPU)"]


def test_machines_without_a_domain_keep_the_network_floor() -> None:
    run = parse(RACK.read_text())
    verdict = judge(run, get_machine("p5.48xlarge"), nodes=2, gpus_per_node=8)
    assert verdict.floor_kind == "network"
    assert verdict.floor_reason == ("p5.48xlarge has no multi-node NVLink domain: ranks on "
                                    "different nodes talk over the efa network")
    with pytest.raises(VerdictInputError) as err:
        judge(run, get_machine("p5.48xlarge"), nodes=2, floor="nvlink")
    assert str(err.value).startswith("--floor nvlink: p5.48xlarge has no multi-node NVLink "
                                     "domain in the catalog")
    with pytest.raises(VerdictInputError) as err:
        judge(run, get_machine("a4x-highgpu-4g"), nodes=19, floor="nvlink")
    assert "19 nodes do not fit in one NVLink domain" in str(err.value)
