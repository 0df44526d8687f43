"""The catalog's rows: keyword-only, each with its GPU <-> NIC pairing, values as their
sources say, and every source an https URL or a path in this repository.

The spot checks below are written out from the documents the rows cite (not read back
from the catalog's helpers), so a row edited by mistake fails here.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterator
from pathlib import Path

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
        GpuNicPairing(2, 1, "2 GPUs + 1 NIC", "layout")  # type: ignore[call-arg]
    assert "positional argument" in str(info.value)


def test_a_row_with_fabric_nics_and_no_pairing_is_refused_by_name() -> None:
    # Before the pairing moved into the row, forgetting its row in the separate table
    # surfaced much later as "<machine> has no scale-out fabric".
    new = dataclasses.replace(get_machine("p4d.24xlarge"), name="p9.new", pairing=None)
    with pytest.raises(CatalogRowError) as info:
        check_rows([get_machine("p5.48xlarge"), new])
    assert str(info.value) == (
        "catalog row p9.new (aws): has 4 fabric NICs but no GPU <-> NIC pairing; add "
        "pairing=GpuNicPairing(gpus_per_group=..., nics_per_group=..., evidence=..., source=...) "
        "to the row"
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
        gpus_per_group=3, nics_per_group=12, evidence="3 GPUs + 12 NICs", source="README.md"))
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


# -- sources ------------------------------------------------------------------------

REPO = Path(__file__).resolve().parents[2]
GITHUB_AT_COMMIT = re.compile(r"^https://github\.com/[\w.-]+/[\w.-]+/(blob|tree)/[0-9a-f]{40}/\S+$")


def _citable(source: str) -> bool:
    """An https URL, or a path that exists in this repository."""
    return source.startswith("https://") or (
        bool(source) and not source.startswith(("/", "..")) and (REPO / source).exists()
    )


def _citations() -> Iterator[tuple[str, str]]:
    for m in MACHINES:
        for source in m.sources:
            yield m.name, source
        if m.pairing is not None:
            yield f"{m.name} pairing", m.pairing.source


def test_what_counts_as_a_source() -> None:
    # Before: 45 of the rows' 102 citations named ../shared/reference/*.md or seeds, files
    # outside this repository; the rest were titles or URLs without a scheme.
    assert not _citable("shared/reference/aws.md")
    assert not _citable("../shared/reference/aws.md")
    assert not _citable("docs.aws.amazon.com/AWSEC2/latest/UserGuide/using-eni.html")
    assert not _citable("karpenter-provider-aws instance-types.md")
    assert not _citable("")
    assert _citable("https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/network_mtu.html")
    assert _citable("components/gpu_fabric/catalog/gcp_nccl.py")


def test_every_source_is_a_url_or_a_path_in_the_repository() -> None:
    citations = list(_citations())
    assert len(citations) == 32 + sum(len(m.sources) for m in MACHINES)
    assert [(who, s) for who, s in citations if not _citable(s)] == []


def test_github_sources_name_the_commit_they_were_read_at() -> None:
    # A file on a branch changes under the citation; a commit does not.
    github = [s for _, s in _citations() if s.startswith("https://github.com/")]
    assert len(github) >= 20
    assert [s for s in github if not GITHUB_AT_COMMIT.match(s)] == []


def test_every_row_cites_its_sources_once() -> None:
    for m in MACHINES:
        assert m.sources, m.name
        assert len(set(m.sources)) == len(m.sources), m.name


def test_spot_checked_rows_cite_the_documents_above() -> None:
    p5 = get_machine("p5.48xlarge")
    assert p5.sources == (
        "https://github.com/aws/karpenter-provider-aws/blob/1d927085dd81a9df9301e613f371dac5b4d16bfe"
        "/website/content/en/docs/reference/instance-types.md",
        "https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/using-eni.html#network-cards",
        "https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/network_mtu.html",
        "https://github.com/aws-samples/awsome-distributed-training/blob/"
        "7217859f67bc693c52ff175ccc6082c41dbd7a1b/micro-benchmarks/nccl-tests/README.md",
    )
    assert p5.pairing is not None and p5.pairing.source == (
        "https://github.com/aws/aws-ofi-nccl/blob/d6546c3aa559c90d422af77c406e08d7151a41d3"
        "/topology/p5.48xl-topo.xml"
    )
    a4 = get_machine("a4-highgpu-8g")
    assert a4.sources[0] == "https://cloud.google.com/compute/docs/gpus/gpu-network-bandwidth"
    assert a4.pairing is not None and a4.pairing.source == (
        "https://github.com/kubernetes-sigs/dranet/blob/f258477cbea0551b7ad239e3873a997a7a3d116b"
        "/site/content/docs/user/nvidia-dranet.md"
    )
    nd = get_machine("Standard_ND96asr_v4")
    assert nd.sources[0] == (
        "https://learn.microsoft.com/azure/virtual-machines/sizes/gpu-accelerated/"
        "ndasra100v4-series"
    )
