"""The catalog's rows: keyword-only, each with its GPU <-> NIC pairing, values as their sources say.

The spot checks below are written out from the documents the rows cite (not read back
from the catalog's helpers), so a row edited by mistake fails here.
"""

from __future__ import annotations

import dataclasses

import pytest

from gpu_fabric.catalog import (
    GPU_NIC_PAIRING,
    H100_80,
    MACHINES,
    CatalogRowError,
    Cloud,
    FabricKind,
    GpuNicPairing,
    Machine,
    get_machine,
)
from gpu_fabric.catalog.lookup import check_rows


def test_a_machine_row_cannot_be_positional() -> None:
    # The 14 leading fields used to be positional; a row must name them now.
    with pytest.raises(TypeError) as info:
        Machine(Cloud.AWS, "p9.new", "P9", H100_80, 8, FabricKind.NONE, 0, 0, 0,  # type: ignore[call-arg]
                None, None, None, "no fabric", ())
    assert "positional argument" in str(info.value)


def test_a_pairing_cannot_be_positional() -> None:
    with pytest.raises(TypeError) as info:
        GpuNicPairing(2, 1, "layout")  # type: ignore[call-arg]
    assert "positional argument" in str(info.value)


def test_a_row_with_fabric_nics_and_no_pairing_is_refused_by_name() -> None:
    # Before the pairing moved into the row, forgetting its row in the separate table
    # surfaced much later as "<machine> has no scale-out fabric".
    new = dataclasses.replace(get_machine("p4d.24xlarge"), name="p9.new", pairing=None)
    with pytest.raises(CatalogRowError) as info:
        check_rows([get_machine("p5.48xlarge"), new])
    assert str(info.value) == (
        "catalog row p9.new (aws): has 4 fabric NICs but no GPU <-> NIC pairing; add "
        "pairing=GpuNicPairing(gpus_per_group=..., nics_per_group=..., source=...) to the row"
    )


def test_a_pairing_that_does_not_cover_the_nics_is_refused() -> None:
    # p5's pairing (1 GPU + 4 EFA per group) on a row with 16 NICs: 8 x 4 = 32, not 16.
    wrong = dataclasses.replace(get_machine("p5.48xlarge"), name="p9.new", fabric_nics=16)
    with pytest.raises(CatalogRowError) as info:
        check_rows([wrong])
    assert str(info.value) == (
        "catalog row p9.new (aws): pairing of 1 GPUs + 4 NICs per group does not cover 8 GPUs "
        "and 16 fabric NICs; valid: gpus_per_group divides gpus and (gpus / gpus_per_group) x "
        "nics_per_group equals fabric_nics"
    )
    # A group of 3 GPUs does not divide an 8-GPU node.
    odd = dataclasses.replace(get_machine("p5.48xlarge"), name="p9.odd", pairing=GpuNicPairing(
        gpus_per_group=3, nics_per_group=12, source="layout under test"))
    with pytest.raises(CatalogRowError, match=r"^catalog row p9\.odd \(aws\): pairing of 3 GPUs"):
        check_rows([odd])


def test_a_pairing_on_a_machine_without_fabric_nics_is_refused() -> None:
    g5 = dataclasses.replace(get_machine("g5.48xlarge"),
                             pairing=get_machine("p5.48xlarge").pairing)
    with pytest.raises(CatalogRowError) as info:
        check_rows([g5])
    assert str(info.value) == (
        "catalog row g5.48xlarge (aws): has a GPU <-> NIC pairing but no fabric NICs; "
        "drop pairing= or set fabric_nics"
    )


def test_every_row_with_fabric_nics_holds_its_pairing() -> None:
    check_rows(MACHINES)  # what the catalog does when it loads
    with_nics = {m.name for m in MACHINES if m.fabric_nics > 0}
    assert {m.name for m in MACHINES if m.pairing is not None} == with_nics
    assert len(with_nics) == 32  # 5 GCP + 8 AWS + 7 Azure + 4 DigitalOcean + 8 OCI
    # The name -> pairing view the library used to import is read from the rows.
    assert set(GPU_NIC_PAIRING) == with_nics
    assert GPU_NIC_PAIRING["p4d.24xlarge"] is get_machine("p4d.24xlarge").pairing


# -- spot checks against the cited documents ------------------------------------------


def test_p5_row() -> None:
    # aws/karpenter-provider-aws instance-types.md: p5.48xlarge vpc.amazonaws.com/efa 32,
    # 3200 Gbps; awsome-distributed-training micro-benchmarks/nccl-tests/README.md: 2x p5
    # all_reduce 443.72 GB/s at 2 GiB (floor 85% = 377.2); aws-ofi-nccl
    # topology/p5.48xl-topo.xml: 1 GPU + 4 EFA per PCIe bridge.
    m = get_machine("p5.48xlarge", Cloud.AWS)
    assert (m.gpus, m.fabric, m.fabric_nics, m.gbps_per_nic, m.total_fabric_gbps) == (
        8, FabricKind.EFA, 32, 100, 3200)
    assert (m.network_cards, m.mtu, m.busbw_floor) == (32, 9001, 377.2)
    assert m.pairing is not None
    assert (m.pairing.gpus_per_group, m.pairing.nics_per_group, m.pairing.confirmed) == (
        1, 4, True)
    assert (m.host_vcpus, m.host_memory_gib) == (192, 2048)  # instance-memory 2097152 MiB


def test_a4_row() -> None:
    # cloud.google.com/compute/docs/gpus/gpu-network-bandwidth: A4 = 8 CX-7 x 400 Gbps
    # (3,200 Gbps) + 2 gVNIC; cluster-toolkit gpu-rdma-vpc MTU 8896; seed: GPU0/GPU1 and
    # 2 NICs share a PCIe root.
    m = get_machine("a4-highgpu-8g", Cloud.GCP)
    assert (m.gpus, m.fabric, m.fabric_nics, m.gbps_per_nic, m.total_fabric_gbps) == (
        8, FabricKind.ROCE, 8, 400, 3200)
    assert (m.mtu, m.accelerator, m.general_nics, m.gpus_per_pcie_root) == (
        8896, "nvidia-b200", 2, 2)
    assert m.nic_names[0] == "gpu0rdma0" and m.nic_names[7] == "gpu7rdma0"
    assert m.pairing is not None
    assert (m.pairing.gpus_per_group, m.pairing.nics_per_group) == (2, 2)


def test_nd_a100_v4_row() -> None:
    # learn.microsoft.com ND A100 v4 size page: 8 x 200 Gb/s HDR InfiniBand;
    # Azure/aks-rdma-infiniband tests/expected-output.md: busbw below 180 is a problem;
    # Azure/azhpc-images topology/ndv4-topo.xml: 2 GPU/HCA pairs per PCIe switch.
    m = get_machine("Standard_ND96asr_v4", Cloud.AZURE)
    assert (m.fabric, m.fabric_nics, m.gbps_per_nic, m.busbw_floor, m.topology) == (
        FabricKind.INFINIBAND, 8, 200, 180.0, "ndv4")
    assert m.pairing is not None
    assert (m.pairing.gpus_per_group, m.pairing.nics_per_group) == (2, 2)


def test_oci_h100_row() -> None:
    # oracle-quickstart/oci-hpc-oke: 16 RDMA ports on dual-port shapes; dranet OKE
    # example: "16 x Mellanox ConnectX-7 ... 3,200 Gbps RDMA cluster network per node".
    m = get_machine("BM.GPU.H100.8", Cloud.OCI)
    assert (m.fabric_nics, m.gbps_per_nic, m.total_fabric_gbps, m.mtu) == (16, 200, 3200, 4220)
    assert m.hca_names[:3] == ("mlx5_0", "mlx5_1", "mlx5_3")
    assert m.pairing is not None and m.pairing.nics_of_gpu(7) == (14, 15)


def test_digitalocean_b300_row() -> None:
    # DO-Solutions/slinky-on-doks: B300 "2 fabric NICs per GPU x 8 GPUs = 16 NICs",
    # NCCL_IB_HCA=mlx5_0,...,mlx5_15.
    m = get_machine("gpu-b300x8-2304gb-fabric-contracted", Cloud.DIGITALOCEAN)
    assert (m.fabric, m.fabric_nics, m.nic_names[15], m.hca_names[15]) == (
        FabricKind.ROCE, 16, "fabric15", "mlx5_15")
    assert m.pairing is not None
    assert (m.pairing.gpus_per_group, m.pairing.nics_per_group) == (1, 2)
