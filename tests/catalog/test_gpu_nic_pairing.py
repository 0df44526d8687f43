"""Each catalog row's GPU <-> NIC pairing (``pairing=``): which NICs serve which GPUs.

Expected layouts are written out from their sources (not recomputed):
- aws/aws-ofi-nccl topology/p4d-24xl-topo.xml: "Each group has 2 GPUs and 1 NIC behind
  a PCIe switch" (GPU 0, 1 + NIC 0 under switch 0 ... GPU 6, 7 + NIC 3 under switch 3).
- aws/aws-ofi-nccl topology/p5.48xl-topo.xml: each GPU's PCIe bridge holds 4 EFA
  (gpu dev 0 with net dev 0-3 ... gpu dev 7 with net dev 28-31).
- kubernetes-sigs/dranet site/content/docs/user/nvidia-dranet.md (the GKE seed): A4 GPU0/GPU1
  and 2 NICs share a PCIe root.
- Azure/azhpc-images topology/ndv4-topo.xml: 2 GPU/HCA pairs per PCIe switch;
  ndv5-topo.xml: 1 pair per switch (the catalog's AZURE_TOPOLOGIES holds these files).
- oracle-quickstart/oci-hpc-oke docs/using-rdma-network-interfaces-in-manifests.md: 16 VFs on
  dual-port shapes (BM.GPU4.8, A100-v2.8, B4.8, H100.8), 8 on single-port ones.
- DO-Solutions/slinky-on-doks MANUAL-INSTALL-GUIDE.md: B300 "2 fabric NICs per GPU".
"""

from __future__ import annotations

import pytest

from gpu_fabric.catalog import (
    AZURE_TOPOLOGIES,
    MACHINES,
    get_machine,
    gpu_nic_pairing,
)


def _pairing(name: str):  # type: ignore[no-untyped-def]
    pairing = gpu_nic_pairing(get_machine(name))
    assert pairing is not None, name
    return pairing


def test_p4d_two_gpus_share_one_efa_per_pcie_switch() -> None:
    p = _pairing("p4d.24xlarge")
    assert [p.nics_of_gpu(g) for g in range(8)] == [
        (0,), (0,), (1,), (1,), (2,), (2,), (3,), (3,)
    ]
    assert p.shares_nics
    assert [p.nics_for(g) for g in (1, 2, 4, 8)] == [1, 1, 2, 4]
    # One GPU of a switch shares its EFA with the other GPU of that switch.
    assert (p.aligned(1), p.aligned(2), p.aligned(4)) == (False, True, True)
    assert p.confirmed


def test_p5_four_efa_per_gpu() -> None:
    p = _pairing("p5.48xlarge")
    assert p.nics_of_gpu(0) == (0, 1, 2, 3)
    assert p.nics_of_gpu(7) == (28, 29, 30, 31)
    assert [p.nics_for(g) for g in (1, 2, 4, 8)] == [4, 8, 16, 32]
    assert all(p.aligned(g) for g in (1, 2, 4, 8))


def test_a4_two_gpus_and_two_nics_per_pcie_root() -> None:
    p = _pairing("a4-highgpu-8g")
    assert (p.gpus_per_group, p.nics_per_group) == (2, 2)
    assert p.nics_of_gpu(1) == (1,) and p.nics_of_gpu(2) == (2,)
    assert get_machine("a4-highgpu-8g").gpus_per_pcie_root == 2  # the same seed fact


@pytest.mark.parametrize(("machine", "gpus_per_switch"), [
    ("Standard_ND96asr_v4", 2), ("Standard_ND96isr_H100_v5", 1),
])
def test_azure_pairing_matches_the_rendered_nccl_topology(machine: str,
                                                          gpus_per_switch: int) -> None:
    m = get_machine(machine)
    assert m.topology is not None
    switches = [s for n in AZURE_TOPOLOGIES[m.topology].numa_nodes for s in n.switches]
    assert {len(s.pairs) for s in switches} == {gpus_per_switch}
    p = _pairing(machine)
    assert (p.gpus_per_group, p.nics_per_group) == (gpus_per_switch, gpus_per_switch)


@pytest.mark.parametrize(("machine", "gpu0", "gpu7"), [
    ("BM.GPU.H100.8", (0, 1), (14, 15)),
    ("BM.GPU.A100-v2.8", (0, 1), (14, 15)),
    ("BM.GPU.H200.8", (0,), (7,)),
    ("gpu-b300x8-2304gb-fabric-contracted", (0, 1), (14, 15)),
    ("gpu-h200x8-1128gb-fabric-contracted", (0,), (7,)),
    ("a3-megagpu-8g", (0,), (7,)),
    ("a3-ultragpu-8g", (0,), (7,)),
    ("Standard_ND96isr_H100_v5", (0,), (7,)),
])
def test_rails_of_the_first_and_last_gpu(machine: str, gpu0: tuple[int, ...],
                                         gpu7: tuple[int, ...]) -> None:
    p = _pairing(machine)
    assert (p.nics_of_gpu(0), p.nics_of_gpu(7)) == (gpu0, gpu7)


def test_every_fabric_machine_has_a_pairing_that_covers_its_nics() -> None:
    for m in MACHINES:
        p = gpu_nic_pairing(m)
        if not m.has_fabric:
            assert p is None, m.name
            continue
        assert p is not None, f"{m.name}: no GPU <-> NIC pairing in the catalog"
        assert m.gpus % p.gpus_per_group == 0, m.name
        assert p.groups(m.gpus) * p.nics_per_group == m.fabric_nics, m.name
        # Every NIC serves some GPU, and no GPU names a NIC that does not exist.
        used = {n for g in range(m.gpus) for n in p.nics_of_gpu(g)}
        assert used == set(range(m.fabric_nics)), m.name
        assert p.source, m.name


def test_machine_nic_counts_come_from_the_pairing() -> None:
    # p4d: 1 GPU gets its switch's one EFA (never 0, never more than the 4 that exist).
    m = get_machine("p4d.24xlarge")
    assert [m.nics_for(g) for g in (1, 2, 4, 8)] == [1, 1, 2, 4]
    oci = get_machine("BM.GPU.H100.8")
    assert [oci.nics_for(g) for g in (1, 2, 4, 8)] == [2, 4, 8, 16]
