"""The catalog's rules, on inputs where a wrong rule gives a different answer (docs/mutation.md).

The machine rows are checked by tests/catalog/test_catalog.py,
tests/catalog/test_catalog_rows.py and tests/catalog/test_gpu_nic_pairing.py.
This file calls the functions the rows are built with and the rules applied to
them, so that a changed operator or constant fails here; mutmut can only activate
a mutant in a function called after import (its workers fork from a process that
already built the tables). Expected values are literal; sources in the comments.
"""

from __future__ import annotations

import dataclasses

import pytest

from gpu_fabric.catalog import (
    Cloud,
    GpuNicPairing,
    UnknownMachineError,
    get_machine,
    machine_names,
    machines,
)
from gpu_fabric.catalog.azure import PciSwitch, _sw
from gpu_fabric.catalog.digitalocean import _do_roce
from gpu_fabric.catalog.gcp import _gke_gib
from gpu_fabric.catalog.model import _derived, _env, _mlx, _names
from gpu_fabric.catalog.oci import _oci_roce


def test_derived_floor_is_a_share_of_the_line_rate_rounded_to_0_1() -> None:
    # catalog DERIVED_RDMA: "70% of line rate"; 8 x 400 Gb/s = 400 GB/s -> 280.0.
    assert _derived(8, 400, 0.7) == 280.0
    # DERIVED_TCP "60%": a3-highgpu-8g 4 x 200 Gb/s = 100 GB/s -> 60.0.
    assert _derived(4, 200, 0.6) == 60.0
    # 3 x 100 Gb/s = 37.5 GB/s, x 0.33 = 12.375 -> 12.4 (one decimal).
    assert _derived(3, 100, 0.33) == 12.4


def test_interface_and_hca_name_helpers() -> None:
    assert _names("gpu", 3, "rdma0") == ("gpu0rdma0", "gpu1rdma0", "gpu2rdma0")
    assert _names("ib", 2) == ("ib0", "ib1")  # no suffix by default
    assert _mlx(0, 3) == ("mlx5_0", "mlx5_3")
    assert dict(_env(A="1", B="2")) == {"A": "1", "B": "2"}


def test_nic_share_without_a_pairing_is_the_ceiling_of_the_per_gpu_share() -> None:
    # A machine built outside the catalog with no pairing falls back to
    # ceil(NICs x GPUs / 8). 4 NICs for 8 GPUs: 1 GPU -> 1 (never 0), 3 -> 2 (1.5 up), 8 -> 4.
    new = dataclasses.replace(get_machine("p4d.24xlarge"), name="p9.unlisted", pairing=None)
    assert [new.nics_for(g) for g in (1, 2, 3, 8)] == [1, 1, 2, 4]
    # 12 NICs for 8 GPUs: 1 GPU -> 2 (1.5 up), 3 -> 5 (4.5 up); no pairing has these.
    twelve = dataclasses.replace(new, fabric_nics=12)
    assert [twelve.nics_for(g) for g in (1, 3, 8)] == [2, 5, 12]
    with pytest.raises(ValueError) as info:
        new.nics_for(9)
    assert str(info.value) == "p9.unlisted has 8 GPUs; gpus must be 1..8, got 9"


def test_a_machine_without_fabric_nics_gives_a_pod_no_nic() -> None:
    # components/gpu_fabric/catalog/gcp.py a2-highgpu-8g and aws.py g5.48xlarge: FabricKind.NONE,
    # fabric_nics 0. A pod there has 0 fabric NICs (not the "at least 1" of a fabric
    # machine), so its line rate is 0.0 and there is no floor.
    for name in ("a2-highgpu-8g", "g5.48xlarge"):
        m = get_machine(name)
        assert [m.nics_for(g) for g in (1, 2, 8)] == [0, 0, 0]
        assert m.line_rate_for(1) == 0.0 and m.floor_for(1) is None
    # The bounds check still comes first: 8 GPUs, so 9 is refused.
    with pytest.raises(ValueError) as info:
        get_machine("a2-highgpu-8g").nics_for(9)
    assert str(info.value) == "a2-highgpu-8g has 8 GPUs; gpus must be 1..8, got 9"


def test_a_group_sharing_nics_spreads_its_gpus_over_them() -> None:
    # GpuNicPairing docstring: group k holds GPUs k*gpus_per_group.. and NICs
    # k*nics_per_group.. ; a group of 4 GPUs and 2 NICs gives 2 GPUs per NIC.
    p = GpuNicPairing(gpus_per_group=4, nics_per_group=2, evidence="4 GPUs + 2 NICs",
                      source="layout under test")
    assert [p.nics_of_gpu(g) for g in range(8)] == [
        (0,), (0,), (1,), (1,), (2,), (2,), (3,), (3,)
    ]
    assert p.groups(8) == 2 and isinstance(p.groups(8), int)
    assert p.nics_for(3) == 2


def test_lookup_error_messages_list_the_valid_names() -> None:
    with pytest.raises(UnknownMachineError) as info:
        get_machine("p9.nope", Cloud.DIGITALOCEAN)
    assert str(info.value) == (
        "'p9.nope' is not a DigitalOcean machine type in the catalog; valid: "
        "gpu-h200x8-1128gb-fabric-contracted, gpu-mi300x8-1536gb-fabric-contracted, "
        "gpu-mi325x8-2048gb-fabric-contracted, gpu-b300x8-2304gb-fabric-contracted, "
        "gpu-h100x8-640gb, gpu-h200x8-1128gb, gpu-h100x1-80gb"
    )
    with pytest.raises(UnknownMachineError) as info:
        get_machine("p9.nope")
    assert str(info.value).startswith(
        "'p9.nope' is not in the machine catalog; valid: a3-highgpu-8g, a3-megagpu-8g, "
    )


def test_machine_lists_per_cloud() -> None:
    # DigitalOcean: 4 fabric-contracted shapes + 3 without fabric (catalog rows).
    assert machine_names("digitalocean", fabric_only=True) == [
        "gpu-h200x8-1128gb-fabric-contracted", "gpu-mi300x8-1536gb-fabric-contracted",
        "gpu-mi325x8-2048gb-fabric-contracted", "gpu-b300x8-2304gb-fabric-contracted",
    ]
    assert machine_names("digitalocean")[-3:] == [
        "gpu-h100x8-640gb", "gpu-h200x8-1128gb", "gpu-h100x1-80gb"
    ]
    assert "g5.48xlarge" in [m.name for m in machines()]  # default: every machine


def test_digitalocean_roce_profile() -> None:
    # NCCL env of DO-Solutions/slinky-on-doks (jobs/nccl-allreduce-2node.sh): IB transport
    # over the fabric HCAs, RoCE v2 GID 3.
    profile = _do_roce(("mlx5_0", "mlx5_1"))
    assert (profile.transport, profile.net, profile.plugin) == ("NET/IB", "IB", None)
    assert dict(profile.env) == {
        "NCCL_SOCKET_IFNAME": "eth0",
        "NCCL_IB_HCA": "mlx5_0,mlx5_1",
        "NCCL_IB_GID_INDEX": "3",
        "NCCL_NET_GDR_LEVEL": "5",
    }


def test_oci_roce_profile() -> None:
    # oracle-quickstart/oci-hpc-oke docs/recommended-nccl-rccl-parameters-by-shape.md: common
    # RoCE settings, NCCL_IB_HCA as an exact list ("=" prefix).
    profile = _oci_roce(("mlx5_0", "mlx5_3"), NCCL_IB_QPS_PER_CONNECTION="4")
    assert (profile.transport, profile.net, profile.plugin) == ("NET/IB", "IB", None)
    assert dict(profile.env) == {
        "NCCL_IB_GID_INDEX": "3",
        "NCCL_IB_TC": "41",
        "NCCL_IB_SL": "0",
        "NCCL_IB_TIMEOUT": "22",
        "NCCL_IB_SPLIT_DATA_ON_QPS": "0",
        "NCCL_IB_HCA": "=mlx5_0,mlx5_3",
        "NCCL_IB_QPS_PER_CONNECTION": "4",
    }


def test_gke_gib_profile() -> None:
    # GKE RDMA machines use Google's gIB NCCL plugin (NCCL_NET=gIB, INFO lines say NET/gIB;
    # GoogleCloudPlatform/container-engine-accelerators gpudirect-rdma nccl-rdma-installer).
    profile = _gke_gib("a4-highgpu-8g")
    assert (profile.transport, profile.net, profile.plugin) == (
        "NET/gIB", "gIB", "nccl-plugin-gib"
    )
    assert profile.env == get_machine("a4-highgpu-8g").nccl.env  # type: ignore[union-attr]


def test_pci_switch_helper_keeps_its_pairs() -> None:
    # Azure/azhpc-images topology/ndv5-topo.xml: switch ffff:ff:01.0 holds GPU 0001:00:00.0
    # and HCA 0101:00:00.0 (the first pair of AZURE_TOPOLOGIES["ndv5"]).
    assert _sw("ffff:ff:01.0", ("0001:00:00.0", "0101:00:00.0")) == PciSwitch(
        "ffff:ff:01.0", (("0001:00:00.0", "0101:00:00.0"),)
    )
