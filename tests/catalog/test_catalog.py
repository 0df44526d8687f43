"""The machine catalog is internally consistent and every fabric machine has a floor."""

from __future__ import annotations

import pytest

from gpu_fabric import catalog
from gpu_fabric.catalog import Cloud, FabricKind

FABRIC = [m for m in catalog.MACHINES if m.has_fabric]


def test_names_are_unique_per_cloud() -> None:
    for cloud in Cloud:
        names = catalog.machine_names(cloud)
        assert len(names) == len(set(names)), cloud


def test_every_cloud_has_fabric_machines() -> None:
    assert {m.cloud for m in FABRIC} == set(Cloud)


@pytest.mark.parametrize("m", FABRIC, ids=lambda m: m.name)
def test_nic_count_times_speed_is_the_documented_total(m: catalog.Machine) -> None:
    assert m.fabric_nics * m.gbps_per_nic == m.total_fabric_gbps


@pytest.mark.parametrize("m", FABRIC, ids=lambda m: m.name)
def test_every_fabric_machine_has_a_floor_with_a_basis(m: catalog.Machine) -> None:
    assert m.busbw_floor is not None and m.busbw_floor > 0
    assert m.floor_basis.startswith(("derived", "measured", "published threshold"))
    # all_reduce busbw can exceed line rate (NVLink reduces in the node), never by 2x.
    assert m.busbw_floor < 2 * m.line_rate


@pytest.mark.parametrize("m", FABRIC, ids=lambda m: m.name)
def test_derived_floors_follow_the_stated_rule(m: catalog.Machine) -> None:
    if m.floor_basis == catalog.DERIVED_RDMA:
        assert m.busbw_floor == pytest.approx(0.7 * m.line_rate, abs=0.1)
    if m.floor_basis == catalog.DERIVED_TCP:
        assert m.busbw_floor == pytest.approx(0.6 * m.line_rate, abs=0.1)


@pytest.mark.parametrize("m", FABRIC, ids=lambda m: m.name)
def test_fabric_machines_have_an_nccl_profile_that_pins_the_transport(m: catalog.Machine) -> None:
    assert m.nccl is not None
    assert m.nccl.net, "NCCL_NET must be pinned so a missing fabric fails instead of TCP"
    assert m.nccl.transport.startswith("NET/")


@pytest.mark.parametrize("m", FABRIC, ids=lambda m: m.name)
def test_interface_lists_match_nic_count(m: catalog.Machine) -> None:
    if m.nic_names:
        assert len(m.nic_names) == m.fabric_nics
        assert len(set(m.nic_names)) == m.fabric_nics
    if m.hca_names:
        assert len(m.hca_names) == m.fabric_nics
        assert len(set(m.hca_names)) == m.fabric_nics


def test_oci_hca_list_is_the_nccl_ib_hca_value() -> None:
    for m in catalog.machines(Cloud.OCI, fabric_only=True):
        assert m.nccl is not None
        assert m.nccl.env["NCCL_IB_HCA"] == "=" + ",".join(m.hca_names)


def test_non_fabric_entries_have_no_floor() -> None:
    for m in catalog.MACHINES:
        if not m.has_fabric:
            assert m.fabric is FabricKind.NONE and m.busbw_floor is None and m.fabric_nics == 0


@pytest.mark.parametrize(
    ("name", "gpus", "nics", "line"),
    [
        ("a4-highgpu-8g", 1, 1, 50.0),  # seed: 1 GPU + its NIC on A4 = 50 GB/s
        ("a3-megagpu-8g", 8, 8, 200.0),  # a full A3 Mega node = 8 x 200 / 8
        ("p5.48xlarge", 8, 32, 400.0),
        ("p5.48xlarge", 2, 8, 100.0),
        ("BM.GPU.H100.8", 1, 2, 50.0),  # dual-port shape: 2 ports per GPU
    ],
)
def test_line_rate_for_a_share_of_the_node(name: str, gpus: int, nics: int, line: float) -> None:
    m = catalog.get_machine(name)
    assert m.nics_for(gpus) == nics
    assert m.line_rate_for(gpus) == line


def test_floor_scales_with_the_nic_share() -> None:
    # a4-highgpu-8g: 8 x 400 Gb/s = 400 GB/s, derived floor 70% = 280.0 GB/s; NICs pair
    # 2 GPUs : 2 NICs (kubernetes-sigs/dranet nvidia-dranet.md), so 1 GPU uses 1 NIC of 8.
    m = catalog.get_machine("a4-highgpu-8g")
    assert m.busbw_floor == 280.0
    assert [m.floor_for(g) for g in (1, 2, 4, 8)] == [35.0, 70.0, 140.0, 280.0]
    # p4d: 4 EFA for 8 GPUs, 2 GPUs per EFA (aws-ofi-nccl topology/p4d-24xl-topo.xml);
    # floor 85% of 78.33 = 66.6 GB/s (catalog floor_basis). 1 GPU still uses 1 EFA.
    p4d = catalog.get_machine("p4d.24xlarge")
    assert [p4d.floor_for(g) for g in (1, 2, 8)] == [16.65, 16.65, 66.6]
    assert catalog.get_machine("g5.48xlarge").floor_for(1) is None  # no fabric, no floor


def test_lookup_errors_list_valid_names() -> None:
    with pytest.raises(catalog.UnknownMachineError, match=r"p5\.48xlarge"):
        catalog.get_machine("p5.96xlarge", Cloud.AWS)


def test_efa_counts_from_the_aws_guidance() -> None:
    expected = {"p5.48xlarge": 32, "p5e.48xlarge": 32, "p5en.48xlarge": 16,
                "p4d.24xlarge": 4, "p4de.24xlarge": 4, "p6-b200.48xlarge": 8,
                "p6-b300.48xlarge": 16}
    for name, efa in expected.items():
        assert catalog.get_machine(name, Cloud.AWS).fabric_nics == efa
