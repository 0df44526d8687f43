"""OCI's bare-metal GPU shapes and their RoCE NCCL profiles (oci-hpc-oke)."""

from __future__ import annotations

from collections.abc import Iterable

from gpu_fabric.catalog.gpus import (
    A10,
    A100_40,
    A100_80,
    B200,
    GB200,
    H100_80,
    H200_141,
    MI300X,
    NVL72_GB200,
)
from gpu_fabric.catalog.model import (
    DERIVED_RDMA,
    NO_FABRIC,
    Cloud,
    FabricKind,
    Machine,
    NcclProfile,
    _derived,
    _env,
    _mlx,
    _names,
)
from gpu_fabric.catalog.pairing import GpuNicPairing

# OCI RoCE (oci-hpc-oke recommended NCCL parameters). NCCL_IB_HCA starts with "="
# (exact match) in the host-network lists; SR-IOV VFs use the "mlx5" prefix instead.
_OCI_COMMON = {
    "NCCL_IB_GID_INDEX": "3",
    "NCCL_IB_TC": "41",
    "NCCL_IB_SL": "0",
    "NCCL_IB_TIMEOUT": "22",
    "NCCL_IB_SPLIT_DATA_ON_QPS": "0",
}


def _oci_roce(hcas: Iterable[str], **extra: str) -> NcclProfile:
    return NcclProfile(
        transport="NET/IB",
        net="IB",
        plugin=None,
        env=_env(**_OCI_COMMON, NCCL_IB_HCA="=" + ",".join(hcas), **extra),
    )


# Each shape's RDMA devices in rail order, typed once: the machine's hca_names and its
# NCCL_IB_HCA (the order of oci-hpc-oke's NCCL_IB_HCA lists).
_OCI_HCAS_GPU4 = _mlx(0, 2, 6, 8, 10, 12, 14, 16, 1, 3, 7, 9, 11, 13, 15, 17)
_OCI_HCAS_A100 = _mlx(1, 2, 3, 4, 5, 6, 7, 8, 14, 15, 16, 17, 9, 10, 11, 12)
_OCI_HCAS_H100 = _mlx(0, 1, 3, 4, 5, 6, 7, 8, 9, 10, 12, 13, 14, 15, 16, 17)
_OCI_HCAS_H200_B200 = _mlx(0, 3, 4, 5, 6, 9, 10, 11)
_OCI_HCAS_MI300X = _mlx(0, 2, 3, 4, 5, 7, 8, 9)
_OCI_HCAS_GB200 = _mlx(0, 1, 2, 3, 5, 6, 7, 8)
# Where the rows' facts come from: OCI's shape page, and upstream files at the commit read.
_SHAPES = "https://docs.oracle.com/en-us/iaas/Content/Compute/References/computeshapes.htm"
_OKE = (
    "https://github.com/oracle-quickstart/oci-hpc-oke/blob/"
    "61d210acc37f1990f27012aa4f108c5db4e52ab2/"
)
_OKE_NCCL = _OKE + "docs/recommended-nccl-rccl-parameters-by-shape.md"  # env, NCCL_IB_HCA
_OKE_PORTS = _OKE + "docs/using-rdma-network-interfaces-in-manifests.md"  # 16 or 8 per node
_OKE_MTU = _OKE + "terraform/files/nvidia-network-operator/sriov-network-node-policy.yaml"
_OKE_MEASURED = _OKE + "docs/running-nccl-rccl-tests-from-slurm-operator.md"  # 189.60, 357.04
_DRANET_OKE = (
    "https://github.com/kubernetes-sigs/dranet/blob/f258477cbea0551b7ad239e3873a997a7a3d116b/"
    "examples/oci_oke_examples/"
)
_OCI = (_SHAPES, _OKE_NCCL, _OKE_PORTS, _OKE_MTU)

# Host vCPUs and memory: None on every shape. The GPU rows (OCPUs, GB memory) of
# docs.oracle.com Compute Shapes (iaas/Content/Compute/References/computeshapes.htm) were not
# readable here. When filled: that page counts OCPUs, and "one OCPU is the equal of two vCPUs
# for x86-based compute" (same page), so an x86 shape's vCPUs are 2 x OCPUs; the Arm
# GB200-v3 needs its own rule.


MACHINES: tuple[Machine, ...] = (
    # ----------------------------------------------------------------- OCI --
    Machine(
        cloud=Cloud.OCI, name="BM.GPU4.8", family="GPU4", gpu=A100_40, gpus=8,
        fabric=FabricKind.ROCE, fabric_nics=16, gbps_per_nic=100, total_fabric_gbps=1600,
        mtu=4220,
        nccl=_oci_roce(_OCI_HCAS_GPU4,
                       NCCL_IB_QPS_PER_CONNECTION="4"),
        busbw_floor=round(189.6 * 0.85, 1),
        floor_basis="measured on BM.GPU.B4.8 (same 16x100G class): 85% of 189.6",
        sources=(*_OCI, _OKE_MEASURED), nic_names=_names("rdma", 16),
        hca_names=_OCI_HCAS_GPU4,
        notes="Per-port speed 100 Gb/s inferred from measured busbw.",
        pairing=GpuNicPairing(
            gpus_per_group=1, nics_per_group=2,
            evidence="16 RoCE ports (dual-port shape), 2 per GPU",
            source=_OKE_PORTS,
        ),
    ),
    Machine(
        cloud=Cloud.OCI, name="BM.GPU.B4.8", family="B4", gpu=A100_40, gpus=8,
        fabric=FabricKind.ROCE, fabric_nics=16, gbps_per_nic=100, total_fabric_gbps=1600,
        mtu=4220,
        nccl=_oci_roce(_OCI_HCAS_A100,
                       NCCL_IB_QPS_PER_CONNECTION="4"),
        busbw_floor=round(189.6 * 0.85, 1),
        floor_basis="measured: 85% of 189.6 GB/s all_reduce at 8 GiB (oci-hpc-oke)",
        sources=(*_OCI, _OKE_MEASURED), nic_names=_names("rdma", 16),
        hca_names=_OCI_HCAS_A100,
        pairing=GpuNicPairing(
            gpus_per_group=1, nics_per_group=2,
            evidence="16 RoCE ports (dual-port shape), 2 per GPU",
            source=_OKE_PORTS,
        ),
    ),
    Machine(
        cloud=Cloud.OCI, name="BM.GPU.A100-v2.8", family="A100-v2", gpu=A100_80, gpus=8,
        fabric=FabricKind.ROCE, fabric_nics=16, gbps_per_nic=100, total_fabric_gbps=1600,
        mtu=4220,
        nccl=_oci_roce(_OCI_HCAS_A100,
                       NCCL_IB_QPS_PER_CONNECTION="4"),
        busbw_floor=round(189.6 * 0.85, 1),
        floor_basis="measured on BM.GPU.B4.8 (same 16x100G class): 85% of 189.6",
        sources=(*_OCI, _OKE_MEASURED), nic_names=_names("rdma", 16),
        hca_names=_OCI_HCAS_A100,
        pairing=GpuNicPairing(
            gpus_per_group=1, nics_per_group=2,
            evidence="16 RoCE ports (dual-port shape), 2 per GPU",
            source=_OKE_PORTS,
        ),
    ),
    Machine(
        cloud=Cloud.OCI, name="BM.GPU.H100.8", family="H100", gpu=H100_80, gpus=8,
        fabric=FabricKind.ROCE, fabric_nics=16, gbps_per_nic=200, total_fabric_gbps=3200,
        mtu=4220,
        nccl=_oci_roce(_OCI_HCAS_H100,
                       NCCL_SOCKET_IFNAME="eth0", NCCL_IGNORE_CPU_AFFINITY="1",
                       NCCL_CUMEM_ENABLE="0"),
        busbw_floor=_derived(16, 200, 0.7), floor_basis=DERIVED_RDMA,
        sources=(*_OCI, _DRANET_OKE + "BM.GPU.H100.8/README.md"),
        nic_names=_names("rdma", 16),
        hca_names=_OCI_HCAS_H100,
        pairing=GpuNicPairing(
            gpus_per_group=1, nics_per_group=2,
            evidence="16 RoCE ports (dual-port shape), 2 per GPU",
            source=_OKE_PORTS,
        ),
    ),
    Machine(
        cloud=Cloud.OCI, name="BM.GPU.H200.8", family="H200", gpu=H200_141, gpus=8,
        fabric=FabricKind.ROCE, fabric_nics=8, gbps_per_nic=400, total_fabric_gbps=3200,
        mtu=4220,
        nccl=_oci_roce(_OCI_HCAS_H200_B200, NCCL_SOCKET_IFNAME="eth0",
                       NCCL_IGNORE_CPU_AFFINITY="1", NCCL_CUMEM_ENABLE="0"),
        busbw_floor=_derived(8, 400, 0.7), floor_basis=DERIVED_RDMA,
        sources=_OCI,
        nic_names=_names("rdma", 8), hca_names=_OCI_HCAS_H200_B200,
        notes="Per-port speed unconfirmed.",
        pairing=GpuNicPairing(
            gpus_per_group=1, nics_per_group=1,
            evidence="8 single-port NICs, 1 per GPU",
            source=_OKE_PORTS,
        ),
    ),
    Machine(
        cloud=Cloud.OCI, name="BM.GPU.B200.8", family="B200", gpu=B200, gpus=8,
        fabric=FabricKind.ROCE, fabric_nics=8, gbps_per_nic=400, total_fabric_gbps=3200,
        mtu=4220,
        nccl=_oci_roce(_OCI_HCAS_H200_B200, NCCL_SOCKET_IFNAME="eth0",
                       NCCL_IGNORE_CPU_AFFINITY="1", NCCL_CUMEM_ENABLE="0"),
        busbw_floor=_derived(8, 400, 0.7), floor_basis=DERIVED_RDMA,
        sources=_OCI,
        nic_names=_names("rdma", 8), hca_names=_OCI_HCAS_H200_B200,
        notes="Per-port speed unconfirmed.",
        pairing=GpuNicPairing(
            gpus_per_group=1, nics_per_group=1,
            evidence="8 single-port NICs, 1 per GPU",
            source=_OKE_PORTS,
        ),
    ),
    Machine(
        cloud=Cloud.OCI, name="BM.GPU.MI300X.8", family="MI300X", gpu=MI300X, gpus=8,
        fabric=FabricKind.ROCE, fabric_nics=8, gbps_per_nic=400, total_fabric_gbps=3200,
        mtu=4220,
        nccl=_oci_roce(_OCI_HCAS_MI300X, NCCL_CUMEM_ENABLE="0",
                       NCCL_PXN_DISABLE="0", NCCL_NET_PLUGIN="none",
                       NCCL_IB_QPS_PER_CONNECTION="1"),
        busbw_floor=round(357 * 0.85, 1),
        floor_basis="measured: 85% of ~357 GB/s RCCL all_reduce at 8 GiB (oci-hpc-oke)",
        sources=(*_OCI, _OKE_MEASURED), nic_names=_names("rdma", 8), hca_names=_OCI_HCAS_MI300X,
        pairing=GpuNicPairing(
            gpus_per_group=1, nics_per_group=1,
            evidence="8 single-port NICs, 1 per GPU",
            source=_OKE_PORTS,
        ),
    ),
    Machine(
        cloud=Cloud.OCI, name="BM.GPU.GB200-v3.4", family="GB200-v3", gpu=GB200, gpus=4,
        fabric=FabricKind.ROCE, fabric_nics=8, gbps_per_nic=400, total_fabric_gbps=3200,
        mtu=4220,
        nccl=_oci_roce(_OCI_HCAS_GB200, NCCL_CUMEM_ENABLE="1",
                       NCCL_MNNVL_ENABLE="1", NCCL_NET_GDR_C2C="1", NCCL_NET_PLUGIN="none",
                       NCCL_IB_QPS_PER_CONNECTION="1"),
        busbw_floor=_derived(8, 400, 0.7), floor_basis=DERIVED_RDMA,
        sources=(*_OCI, _DRANET_OKE + "BM.GPU.GB200-v3.4/README.md"),
        cpu_arch="arm64", nic_names=_names("rdma", 8),
        hca_names=_OCI_HCAS_GB200, nvlink=NVL72_GB200,
        pairing=GpuNicPairing(
            gpus_per_group=1, nics_per_group=2, confirmed=False,
            evidence="8 ConnectX-8 for 4 GPUs; inferred from GPU and NIC counts (per-GPU share)",
            source=_DRANET_OKE + "BM.GPU.GB200-v3.4/README.md",
        ),
    ),
    Machine(
        cloud=Cloud.OCI, name="VM.GPU.A10.2", family="A10", gpu=A10, gpus=2,
        fabric=FabricKind.NONE, fabric_nics=0, gbps_per_nic=0, total_fabric_gbps=0,
        mtu=None, nccl=None,
        busbw_floor=None, floor_basis=NO_FABRIC,
        sources=(_SHAPES,),
    ),
    Machine(
        cloud=Cloud.OCI, name="BM.GPU.A10.4", family="A10", gpu=A10, gpus=4,
        fabric=FabricKind.NONE, fabric_nics=0, gbps_per_nic=0, total_fabric_gbps=0,
        mtu=None, nccl=None,
        busbw_floor=None, floor_basis=NO_FABRIC,
        sources=(_SHAPES,),
    ),
)
