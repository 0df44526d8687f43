"""Azure's ND machines, their InfiniBand NCCL profiles and their PCI topologies
(the NCCL_TOPO_FILE the Azure layer renders), side by side."""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from gpu_fabric.catalog.gpus import (
    A100_40,
    A100_80,
    GB200,
    GB300,
    H100_80,
    H200_141,
    MI300X,
    NVL72_GB200,
    NVL72_GB300,
)
from gpu_fabric.catalog.model import (
    DERIVED_RDMA,
    NO_FABRIC,
    Cloud,
    FabricKind,
    Machine,
    NcclProfile,
    NumaNode,
    PciSwitch,
    PciTopology,
    _derived,
    _env,
    _names,
)
from gpu_fabric.catalog.pairing import GpuNicPairing

# Azure ND-series InfiniBand (NCCL's built-in IB transport).
AZURE_IB = NcclProfile(
    transport="NET/IB",
    net="IB",
    plugin=None,
    env=_env(
        NCCL_IB_HCA="mlx5",
        NCCL_IB_PCI_RELAXED_ORDERING="1",
        NCCL_SOCKET_IFNAME="eth0",
        NCCL_NET_GDR_LEVEL="SYS",
        NCCL_IGNORE_CPU_AFFINITY="1",
        CUDA_DEVICE_ORDER="PCI_BUS_ID",
    ),
)
AZURE_IB_GB = NcclProfile(
    transport="NET/IB",
    net="IB",
    plugin=None,
    env=_env(
        NCCL_IB_HCA="mlx5",
        NCCL_SOCKET_IFNAME="eth0",
        NCCL_MNNVL_ENABLE="1",
        NCCL_NVLS_ENABLE="1",
        NCCL_IB_SL="1",
        NCCL_NET_GDR_C2C="1",
        NCCL_DMABUF_ENABLE="1",
    ),
)
# Where the rows' facts come from: the size-series pages (learn.microsoft.com, + series name),
# and upstream files at the commit read.
_SIZES = "https://learn.microsoft.com/azure/virtual-machines/sizes/gpu-accelerated/"
_AZHPC_TOPOLOGY = (
    "https://github.com/Azure/azhpc-images/blob/8e9d055fb9e1f7385da734969793861c447958a1/topology/"
)
_NDV4_TOPO = _AZHPC_TOPOLOGY + "ndv4-topo.xml"
_NDV5_TOPO = _AZHPC_TOPOLOGY + "ndv5-topo.xml"
_AKS_IB_EXPECTED = (  # "less than 180, it indicates that there is a problem"
    "https://github.com/Azure/aks-rdma-infiniband/blob/700dabb4fe0451d482ae09a373617ed68658b021/"
    "tests/expected-output.md"
)
_AZURE_SKILLS = (
    "https://github.com/Azure/ai-infrastructure-on-azure/blob/"
    "a01b07318f46edfcf2ff8889a867a15e45dc83b3/skills/slurm/"
)
_SKU_BASELINE = _AZURE_SKILLS + "sku_performance_baseline/SKILL.md"  # ND H100 v5 ~450 GB/s
_ALLREDUCE_BASELINE = _AZURE_SKILLS + "nccl_allreduce_test/SKILL.md"  # GB300 inter-rack ~200


def _sw(busid: str, *pairs: tuple[str, str]) -> PciSwitch:
    return PciSwitch(busid, tuple(pairs))


AZURE_TOPOLOGIES: Mapping[str, PciTopology] = MappingProxyType({
    "ndv4": PciTopology(
        "ndv4", "AuthenticAMD", 23, 49, "16 GT/s", 16, (
            NumaNode(0, "00000000,00000000,00ffffff", (
                _sw("ffff:ff:01.0", ("0003:00:00.0", "0103:00:00.0"),
                    ("0004:00:00.0", "0104:00:00.0")),
            )),
            NumaNode(1, "00000000,0000ffff,ff000000", (
                _sw("ffff:ff:02.0", ("0001:00:00.0", "0101:00:00.0"),
                    ("0002:00:00.0", "0102:00:00.0")),
            )),
            NumaNode(2, "000000ff,ffff0000,00000000", (
                _sw("ffff:ff:03.0", ("000d:00:00.0", "0107:00:00.0"),
                    ("000e:00:00.0", "0108:00:00.0")),
            )),
            NumaNode(3, "ffffff00,00000000,00000000", (
                _sw("ffff:ff:04.0", ("000b:00:00.0", "0105:00:00.0"),
                    ("000c:00:00.0", "0106:00:00.0")),
            )),
        ),
    ),
    "ndv5": PciTopology(
        "ndv5", "GenuineIntel", 6, 143, "32.0 GT/s PCIe", 16, (
            NumaNode(0, "00000000,0000ffff,ffffffff", (
                _sw("ffff:ff:01.0", ("0001:00:00.0", "0101:00:00.0")),
                _sw("ffff:ff:02.0", ("0002:00:00.0", "0102:00:00.0")),
                _sw("ffff:ff:03.0", ("0003:00:00.0", "0103:00:00.0")),
                _sw("ffff:ff:04.0", ("0008:00:00.0", "0104:00:00.0")),
            )),
            NumaNode(1, "ffffffff,ffff0000,00000000", (
                _sw("ffff:ff:05.0", ("0009:00:00.0", "0105:00:00.0")),
                _sw("ffff:ff:06.0", ("000a:00:00.0", "0106:00:00.0")),
                _sw("ffff:ff:07.0", ("000b:00:00.0", "0107:00:00.0")),
                _sw("ffff:ff:08.0", ("000c:00:00.0", "0108:00:00.0")),
            )),
        ),
        bridge_ids=True,  # ndv5-topo.xml lines 3, 7, ... (vendor="0x0000" device=...)
    ),
})


# Host vCPUs and memory (GiB): the "Host specifications" table of each size-series page
# on learn.microsoft.com (azure/virtual-machines/sizes/gpu-accelerated/*-series), whose
# source is MicrosoftDocs/azure-compute-docs articles/virtual-machines/sizes/
# gpu-accelerated/includes/<file named beside each machine>; NC sizes are the smallest
# size of their series (nca100v4-series.md "Sizes in series"; the ncadsh100v5 range's
# lower bound, 40 vCPUs / 320 GiB, is NC40ads).

MACHINES: tuple[Machine, ...] = (
    # --------------------------------------------------------------- Azure --
    Machine(
        cloud=Cloud.AZURE, name="Standard_ND96asr_v4", family="ND A100 v4", gpu=A100_40, gpus=8,
        fabric=FabricKind.INFINIBAND, fabric_nics=8, gbps_per_nic=200, total_fabric_gbps=1600,
        mtu=None, nccl=AZURE_IB,
        busbw_floor=180.0,
        floor_basis="published threshold: aks-rdma-infiniband flags < 180 GB/s all_reduce",
        sources=(_SIZES + "ndasra100v4-series", _AKS_IB_EXPECTED, _NDV4_TOPO),
        nic_names=_names("ib", 8), topology="ndv4",
        host_vcpus=96, host_memory_gib=900,  # ndasra100v4-series-specs.md
        pairing=GpuNicPairing(
            gpus_per_group=2, nics_per_group=2,
            evidence="2 GPUs + 2 HCAs per PCIe switch",
            source=_NDV4_TOPO,
        ),
    ),
    Machine(
        cloud=Cloud.AZURE,
        name="Standard_ND96amsr_A100_v4",
        family="NDm A100 v4",
        gpu=A100_80,
        gpus=8,
        fabric=FabricKind.INFINIBAND, fabric_nics=8, gbps_per_nic=200, total_fabric_gbps=1600,
        mtu=None, nccl=AZURE_IB,
        busbw_floor=180.0,
        floor_basis="published threshold: aks-rdma-infiniband flags < 180 GB/s all_reduce",
        sources=(_SIZES + "ndma100v4-series", _AKS_IB_EXPECTED, _NDV4_TOPO),
        nic_names=_names("ib", 8), topology="ndv4",
        host_vcpus=96, host_memory_gib=1900,  # ndma100v4-series-specs.md
        pairing=GpuNicPairing(
            gpus_per_group=2, nics_per_group=2,
            evidence="2 GPUs + 2 HCAs per PCIe switch",
            source=_NDV4_TOPO,
        ),
    ),
    Machine(
        cloud=Cloud.AZURE,
        name="Standard_ND96isr_H100_v5",
        family="ND H100 v5",
        gpu=H100_80,
        gpus=8,
        fabric=FabricKind.INFINIBAND, fabric_nics=8, gbps_per_nic=400, total_fabric_gbps=3200,
        mtu=None, nccl=AZURE_IB,
        busbw_floor=_derived(8, 400, 0.7), floor_basis=DERIVED_RDMA,
        sources=(_SIZES + "ndh100v5-series", _NDV5_TOPO, _SKU_BASELINE),
        nic_names=_names("ib", 8), topology="ndv5",
        notes="Azure's 8-node SHARP baseline is ~450 GB/s (fail < 300); no 2-node figure.",
        host_vcpus=96, host_memory_gib=1900,  # ndh100v5-series-specs.md
        pairing=GpuNicPairing(
            gpus_per_group=1, nics_per_group=1,
            evidence="1 GPU + 1 HCA per PCIe switch",
            source=_NDV5_TOPO,
        ),
    ),
    Machine(
        cloud=Cloud.AZURE,
        name="Standard_ND96isr_H200_v5",
        family="ND H200 v5",
        gpu=H200_141,
        gpus=8,
        fabric=FabricKind.INFINIBAND, fabric_nics=8, gbps_per_nic=400, total_fabric_gbps=3200,
        mtu=None, nccl=AZURE_IB,
        busbw_floor=_derived(8, 400, 0.7), floor_basis=DERIVED_RDMA,
        sources=(_SIZES + "nd-h200-v5-series", _NDV5_TOPO),
        nic_names=_names("ib", 8), topology="ndv5",
        host_vcpus=96, host_memory_gib=1850,  # nd-h200-v5-series-specs.md
        pairing=GpuNicPairing(
            gpus_per_group=1, nics_per_group=1,
            evidence="1 GPU + 1 HCA per PCIe switch (the ndv5 layout)",
            source=_NDV5_TOPO,
        ),
    ),
    Machine(
        cloud=Cloud.AZURE,
        name="Standard_ND96isr_MI300X_v5",
        family="ND MI300X v5",
        gpu=MI300X,
        gpus=8,
        fabric=FabricKind.INFINIBAND, fabric_nics=8, gbps_per_nic=400, total_fabric_gbps=3200,
        mtu=None, nccl=AZURE_IB,
        busbw_floor=_derived(8, 400, 0.7), floor_basis=DERIVED_RDMA,
        sources=(_SIZES + "ndmi300xv5-series",), nic_names=_names("ib", 8),
        host_vcpus=96, host_memory_gib=1850,  # ndmi300xv5-series-specs.md
        pairing=GpuNicPairing(
            gpus_per_group=1, nics_per_group=1, confirmed=False,
            evidence="8 IB for 8 GPUs; inferred from GPU and NIC counts (per-GPU share)",
            source=_SIZES + "ndmi300xv5-series",
        ),
    ),
    Machine(
        cloud=Cloud.AZURE,
        name="Standard_ND128isr_NDR_GB200_v6",
        family="ND GB200 v6",
        gpu=GB200,
        gpus=4,
        fabric=FabricKind.INFINIBAND, fabric_nics=4, gbps_per_nic=400, total_fabric_gbps=1600,
        mtu=None, nccl=AZURE_IB_GB,
        busbw_floor=_derived(4, 400, 0.7), floor_basis=DERIVED_RDMA,
        sources=(_SIZES + "nd-gb200-v6-series",),
        cpu_arch="arm64", nic_names=_names("ib", 4), nvlink=NVL72_GB200,
        notes="AKSInfinibandSupport must NOT be registered; pool needs os_sku Ubuntu2404.",
        host_vcpus=128, host_memory_gib=900,  # nd-gb200-v6-series-specs.md
        pairing=GpuNicPairing(
            gpus_per_group=1, nics_per_group=1, confirmed=False,
            evidence="4 IB for 4 GPUs; inferred from GPU and NIC counts (per-GPU share)",
            source=_SIZES + "nd-gb200-v6-series",
        ),
    ),
    Machine(
        cloud=Cloud.AZURE,
        name="Standard_ND128isr_GB300_v6",
        family="ND GB300 v6",
        gpu=GB300,
        gpus=4,
        fabric=FabricKind.INFINIBAND, fabric_nics=4, gbps_per_nic=800, total_fabric_gbps=3200,
        mtu=None, nccl=AZURE_IB_GB,
        busbw_floor=round(200 * 0.85, 1),
        floor_basis="measured: 85% of ~200 GB/s inter-rack IB-only all_reduce "
        "(ai-infrastructure-on-azure)",
        sources=(_SIZES + "nd-gb300-v6-series", _ALLREDUCE_BASELINE),
        cpu_arch="arm64", nic_names=_names("ib", 4), nvlink=NVL72_GB300,
        notes="AKSInfinibandSupport must NOT be registered; pool needs os_sku Ubuntu2404.",
        host_vcpus=128, host_memory_gib=864,  # nd-gb300-v6-series-specs.md
        pairing=GpuNicPairing(
            gpus_per_group=1, nics_per_group=1, confirmed=False,
            evidence="4 IB for 4 GPUs; inferred from GPU and NIC counts (per-GPU share)",
            source=_SIZES + "nd-gb300-v6-series",
        ),
    ),
    Machine(
        cloud=Cloud.AZURE,
        name="Standard_NC24ads_A100_v4",
        family="NC A100 v4",
        gpu=A100_80,
        gpus=1,
        fabric=FabricKind.NONE, fabric_nics=0, gbps_per_nic=0, total_fabric_gbps=0,
        mtu=None, nccl=None,
        busbw_floor=None, floor_basis=NO_FABRIC,
        sources=(_SIZES + "nca100v4-series",),
        host_vcpus=24, host_memory_gib=220,  # nca100v4-series.md size table
    ),
    Machine(
        cloud=Cloud.AZURE,
        name="Standard_NC40ads_H100_v5",
        family="NC H100 v5",
        gpu=H100_80,
        gpus=1,
        fabric=FabricKind.NONE, fabric_nics=0, gbps_per_nic=0, total_fabric_gbps=0,
        mtu=None, nccl=None,
        busbw_floor=None, floor_basis=NO_FABRIC,
        sources=(_SIZES + "ncadsh100v5-series",),
        host_vcpus=40, host_memory_gib=320,  # ncadsh100v5-series-specs.md
    ),
)
