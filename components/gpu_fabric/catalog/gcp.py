"""Google Cloud's GPU machines and their NCCL profiles (gIB, TCPX, TCPXO)."""

from __future__ import annotations

from gpu_fabric import versions as _versions
from gpu_fabric.catalog import gcp_nccl as _gcp_nccl
from gpu_fabric.catalog.gpus import A100_40, B200, GB200, H100_80, H200_141, L4, NVL72_GB200
from gpu_fabric.catalog.model import (
    DERIVED_RDMA,
    DERIVED_TCP,
    NO_FABRIC,
    Cloud,
    FabricKind,
    Machine,
    NcclProfile,
    _derived,
    _env,
    _names,
)
from gpu_fabric.catalog.pairing import GpuNicPairing


# GKE RDMA (A3 Ultra, A4, A4X): the gIB plugin, installed by nccl-rdma-installer, with
# Google's set_nccl_env.sh tuning; GKE A3 Mega: GPUDirect-TCPXO ("FasTrak") plugin +
# RxDM sidecar. Both envs come from components/gpu_fabric/catalog/gcp_nccl.py at the pinned
# installer versions (one table per plugin).
def _gke_gib(
    machine: str, installer: str = _versions.GKE_NCCL_RDMA_INSTALLER.tag
) -> NcclProfile:
    return NcclProfile(
        transport="NET/gIB",
        net="gIB",
        plugin="nccl-plugin-gib",
        env=_gcp_nccl.gib_env(installer, machine),
    )


GKE_TCPXO = NcclProfile(
    transport="NET/FasTrak",
    net="FasTrak",
    plugin="nccl-plugin-gpudirecttcpx (TCPXO)",
    env=_gcp_nccl.tcpxo_env(_versions.GKE_TCPXO_INSTALLER.tag),
)
GKE_TCPX = NcclProfile(
    transport="NET/GPUDirectTCPX",
    net="GPUDirectTCPX_v7",
    plugin="nccl-plugin-gpudirecttcpx",
    env=_env(
        LD_LIBRARY_PATH="/usr/local/nvidia/lib64",
        NCCL_SOCKET_IFNAME="eth0",
        NCCL_GPUDIRECTTCPX_SOCKET_IFNAME="eth1,eth2,eth3,eth4",
        NCCL_GPUDIRECTTCPX_CTRL_DEV="eth0",
        NCCL_GPUDIRECTTCPX_TX_BINDINGS="eth1:8-21,112-125;eth2:8-21,112-125;"
        "eth3:60-73,164-177;eth4:60-73,164-177",
        NCCL_GPUDIRECTTCPX_RX_BINDINGS="eth1:22-35,126-139;eth2:22-35,126-139;"
        "eth3:74-87,178-191;eth4:74-87,178-191",
        NCCL_GPUDIRECTTCPX_PROGRAM_FLOW_STEERING_WAIT_MICROS="500000",
        NCCL_GPUDIRECTTCPX_UNIX_CLIENT_PREFIX="/run/tcpx",
        NCCL_CROSS_NIC="0",
        NCCL_ALGO="Ring",
        NCCL_PROTO="Simple",
        NCCL_NSOCKS_PERTHREAD="4",
        NCCL_SOCKET_NTHREADS="1",
        NCCL_DYNAMIC_CHUNK_SIZE="524288",
        NCCL_P2P_NET_CHUNKSIZE="524288",
        NCCL_P2P_PCI_CHUNKSIZE="524288",
        NCCL_P2P_NVL_CHUNKSIZE="1048576",
        NCCL_BUFFSIZE="4194304",
        NCCL_MAX_NCHANNELS="8",
        NCCL_MIN_NCHANNELS="8",
        NCCL_NET_GDR_LEVEL="PIX",
        NCCL_P2P_PXN_LEVEL="0",
    ),
)


# Where the rows' facts come from: Google's pages, and upstream files at the commit read.
_NIC_LAYOUT = "https://cloud.google.com/compute/docs/gpus/gpu-network-bandwidth"  # NICs x Gbps
_MACHINE_SERIES = "https://cloud.google.com/compute/docs/accelerator-optimized-machines"
_CA_MACHINETYPES = (
    "https://github.com/GoogleCloudPlatform/cluster-autoscaler/blob/"
    "7d250507339b3a7583b380349f217ea191ff15ff/pkg/cloudprovider/gke/machinetypes/"
)
_HOST_SIZES = _CA_MACHINETYPES + "deprecated_machine_types_config.go"  # vCPUs, memory
_FABRIC_NICS = _CA_MACHINETYPES + "dranet.go"  # fabric NIC count, netdev names, MTU
_LOCAL_SSD = (
    "https://github.com/GoogleCloudPlatform/cluster-toolkit/blob/"
    "1047080375afbb44da4b596be314634e7486af4a/modules/compute/gke-node-pool/disk_definitions.tf"
)
# The GKE A4 + NVIDIA DRA + DraNet walkthrough (this project's seed is a copy of it): GPU0/GPU1
# and 2 NICs share a PCIe root; 1 GPU + 1 NIC per node, all_gather 1 GiB 36.67 / 45.14 GB/s.
_A4_SEED = (
    "https://github.com/kubernetes-sigs/dranet/blob/f258477cbea0551b7ad239e3873a997a7a3d116b/"
    "site/content/docs/user/nvidia-dranet.md"
)
_GCP = (_NIC_LAYOUT, _MACHINE_SERIES, _HOST_SIZES)
# Google's "consumption options" (AI Hypercomputer): future reservations for A4X, A4 and
# A3 Ultra; flex-start and Spot for "any GPU machine except A4X"; no on-demand (standard
# provisioning) for these three. GKE queued provisioning is flex-start capacity (DWS).
_CONSUMPTION = "https://cloud.google.com/ai-hypercomputer/docs/consumption-models"
_RESERVED_FLEX_SPOT = ("reservation", "flex_start", "queued", "spot")
_RESERVED_ONLY = ("reservation",)
_GCP_FABRIC = (*_GCP, _FABRIC_NICS)


# Host vCPUs and memory (GiB). A3 High: cloud.google.com/compute/docs/accelerator-optimized-
# machines ("The A3 machine series has 208 vCPUs, and 1,872 GB of memory", when A3 High was its
# only type). The other machine tables of that page were not readable here; their figures are
# Google's own static machine-type table in GKE's cluster autoscaler,
# GoogleCloudPlatform/cluster-autoscaler pkg/cloudprovider/gke/machinetypes/
# deprecated_machine_types_config.go (commit 7d25050), NewMachineTypeInfo(name, cpu, memoryGb)
# beside each machine; it also lists a3-highgpu-8g as (208, 1872), the page's figures. The
# page's "GB" is GiB: machine_type.go NewMachineTypeInfo stores memoryGb x units.GiB.

MACHINES: tuple[Machine, ...] = (
    # ----------------------------------------------------------------- GCP --
    Machine(
        cloud=Cloud.GCP, name="a3-highgpu-8g", family="A3 High", gpu=H100_80, gpus=8,
        fabric=FabricKind.TCPX, fabric_nics=4, gbps_per_nic=200, total_fabric_gbps=800,
        mtu=8244, nccl=GKE_TCPX,
        busbw_floor=_derived(4, 200, 0.6), floor_basis=DERIVED_TCP,
        sources=(*_GCP_FABRIC, _LOCAL_SSD),
        nic_names=tuple(f"eth{i}" for i in range(1, 5)),
        local_ssd_count=16, accelerator="nvidia-h100-80gb", general_nics=1,
        notes="cluster-toolkit CI floor 25 GB/s is on the Avg line, not comparable.",
        host_vcpus=208, host_memory_gib=1872,  # 208 vCPUs, 1,872 GB
        pairing=GpuNicPairing(
            gpus_per_group=2, nics_per_group=1, confirmed=False,
            evidence="4 gVNIC for 8 GPUs; inferred from GPU and NIC counts (per-GPU share)",
            source=_NIC_LAYOUT,
        ),
    ),
    Machine(
        cloud=Cloud.GCP, name="a3-megagpu-8g", family="A3 Mega", gpu=H100_80, gpus=8,
        fabric=FabricKind.TCPXO, fabric_nics=8, gbps_per_nic=200, total_fabric_gbps=1600,
        mtu=8244, nccl=GKE_TCPXO,
        busbw_floor=_derived(8, 200, 0.6), floor_basis=DERIVED_TCP,
        sources=(*_GCP_FABRIC, _LOCAL_SSD),
        nic_names=tuple(f"eth{i}" for i in range(1, 9)),
        local_ssd_count=16, accelerator="nvidia-h100-mega-80gb", general_nics=1,
        notes="cluster-toolkit CI floor 30 GB/s is on the Avg line, not comparable.",
        host_vcpus=208, host_memory_gib=1872,  # NewMachineTypeInfo("a3-megagpu-8g", 208, 1872)
        pairing=GpuNicPairing(
            gpus_per_group=1, nics_per_group=1,
            evidence="8 gVNIC for 8 GPUs, 1:1",
            source=_NIC_LAYOUT,
        ),
    ),
    Machine(
        cloud=Cloud.GCP, name="a3-ultragpu-8g", family="A3 Ultra", gpu=H200_141, gpus=8,
        fabric=FabricKind.ROCE, fabric_nics=8, gbps_per_nic=400, total_fabric_gbps=3200,
        mtu=8896, nccl=_gke_gib("a3-ultragpu-8g"),
        busbw_floor=_derived(8, 400, 0.7), floor_basis=DERIVED_RDMA,
        sources=(*_GCP_FABRIC, _LOCAL_SSD),
        nic_names=_names("gpu", 8, "rdma0"),
        local_ssd_count=32, accelerator="nvidia-h200-141gb", general_nics=2,
        host_vcpus=224, host_memory_gib=2952,  # NewMachineTypeInfo("a3-ultragpu-8g", 224, 2952)
        capacity_types=_RESERVED_FLEX_SPOT, capacity_source=_CONSUMPTION,
        pairing=GpuNicPairing(
            gpus_per_group=1, nics_per_group=1,
            evidence="8 CX-7 for 8 GPUs, 1:1",
            source=_NIC_LAYOUT,
        ),
    ),
    Machine(
        cloud=Cloud.GCP, name="a4-highgpu-8g", family="A4", gpu=B200, gpus=8,
        fabric=FabricKind.ROCE, fabric_nics=8, gbps_per_nic=400, total_fabric_gbps=3200,
        mtu=8896, nccl=_gke_gib("a4-highgpu-8g"),
        busbw_floor=_derived(8, 400, 0.7), floor_basis=DERIVED_RDMA,
        sources=(*_GCP_FABRIC, _LOCAL_SSD, _A4_SEED),
        nic_names=_names("gpu", 8, "rdma0"),
        local_ssd_count=32, accelerator="nvidia-b200", general_nics=2, gpus_per_pcie_root=2,
        notes="Seed: GPU0/GPU1 + 2 NICs share a PCIe root (2-gpu-nic-aligned). "
        "1 GPU + 1 NIC per node, all_gather 1 GiB = 36.67 / 45.14 GB/s "
        "(73% / 90% of the 50 GB/s one NIC gives).",
        host_vcpus=224, host_memory_gib=3968,  # NewMachineTypeInfo("a4-highgpu-8g", 224, 3968)
        capacity_types=_RESERVED_FLEX_SPOT, capacity_source=_CONSUMPTION,
        pairing=GpuNicPairing(
            gpus_per_group=2, nics_per_group=2,
            evidence="2 GPUs + 2 NICs per PCIe root (2-gpu-nic-aligned)",
            source=_A4_SEED,
        ),
    ),
    Machine(
        cloud=Cloud.GCP, name="a4x-highgpu-4g", family="A4X", gpu=GB200, gpus=4,
        fabric=FabricKind.ROCE, fabric_nics=4, gbps_per_nic=400, total_fabric_gbps=1600,
        mtu=8896, nccl=_gke_gib("a4x-highgpu-4g"),
        busbw_floor=_derived(4, 400, 0.7), floor_basis=DERIVED_RDMA,
        sources=_GCP_FABRIC,
        cpu_arch="arm64", nic_names=_names("gpu", 4, "rdma0"),
        accelerator="nvidia-gb200", general_nics=2, nvlink=NVL72_GB200,
        notes="Multi-node NVLink (NVL72) needs a DRA ComputeDomain (IMEX).",
        host_vcpus=140, host_memory_gib=884,  # NewMachineTypeInfo("a4x-highgpu-4g", 140, 884)
        capacity_types=_RESERVED_ONLY, capacity_source=_CONSUMPTION,
        pairing=GpuNicPairing(
            gpus_per_group=1, nics_per_group=1,
            evidence="4 CX-7 for 4 GPUs, 1:1",
            source=_NIC_LAYOUT,
        ),
    ),
    Machine(
        cloud=Cloud.GCP, name="a2-highgpu-8g", family="A2", gpu=A100_40, gpus=8,
        fabric=FabricKind.NONE, fabric_nics=0, gbps_per_nic=0, total_fabric_gbps=0,
        mtu=None, nccl=None,
        busbw_floor=None, floor_basis=NO_FABRIC,
        sources=_GCP,
        accelerator="nvidia-tesla-a100",
        host_vcpus=96, host_memory_gib=680,  # NewMachineTypeInfo("a2-highgpu-8g", 96, 680)
    ),
    Machine(
        cloud=Cloud.GCP, name="g2-standard-48", family="G2", gpu=L4, gpus=4,
        fabric=FabricKind.NONE, fabric_nics=0, gbps_per_nic=0, total_fabric_gbps=0,
        mtu=None, nccl=None,
        busbw_floor=None, floor_basis=NO_FABRIC,
        sources=_GCP,
        accelerator="nvidia-l4",
        host_vcpus=48, host_memory_gib=192,  # NewMachineTypeInfo("g2-standard-48", 48, 192)
    ),
)
