"""OCI's bare-metal GPU shapes and their RoCE NCCL profiles (oci-hpc-oke)."""

from __future__ import annotations

from collections.abc import Iterable

from gpu_fabric.catalog.gpus import A10, A100_40, A100_80, B200, GB200, H100_80, H200_141, MI300X
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
_OCI = ("shared/reference/oci.md", "oracle-quickstart/oci-hpc-oke recommended NCCL parameters")

# Host vCPUs and memory: None on every shape. The GPU rows (OCPUs, GB memory) of
# docs.oracle.com Compute Shapes (iaas/Content/Compute/References/computeshapes.htm) were not
# readable here. When filled: that page counts OCPUs, and "one OCPU is the equal of two vCPUs
# for x86-based compute" (same page), so an x86 shape's vCPUs are 2 x OCPUs; the Arm
# GB200-v3 needs its own rule.


MACHINES: tuple[Machine, ...] = (
    # ----------------------------------------------------------------- OCI --
    Machine(
        Cloud.OCI, "BM.GPU4.8", "GPU4", A100_40, 8,
        FabricKind.ROCE, 16, 100, 1600, 4220,
        _oci_roce(_OCI_HCAS_GPU4,
                  NCCL_IB_QPS_PER_CONNECTION="4"),
        round(189.6 * 0.85, 1), "measured on BM.GPU.B4.8 (same 16x100G class): 85% of 189.6",
        _OCI, nic_names=_names("rdma", 16),
        hca_names=_OCI_HCAS_GPU4,
        notes="Per-port speed 100 Gb/s inferred from measured busbw.",
    ),
    Machine(
        Cloud.OCI, "BM.GPU.B4.8", "B4", A100_40, 8,
        FabricKind.ROCE, 16, 100, 1600, 4220,
        _oci_roce(_OCI_HCAS_A100,
                  NCCL_IB_QPS_PER_CONNECTION="4"),
        round(189.6 * 0.85, 1), "measured: 85% of 189.6 GB/s all_reduce at 8 GiB (oci-hpc-oke)",
        _OCI, nic_names=_names("rdma", 16),
        hca_names=_OCI_HCAS_A100,
    ),
    Machine(
        Cloud.OCI, "BM.GPU.A100-v2.8", "A100-v2", A100_80, 8,
        FabricKind.ROCE, 16, 100, 1600, 4220,
        _oci_roce(_OCI_HCAS_A100,
                  NCCL_IB_QPS_PER_CONNECTION="4"),
        round(189.6 * 0.85, 1), "measured on BM.GPU.B4.8 (same 16x100G class): 85% of 189.6",
        _OCI, nic_names=_names("rdma", 16),
        hca_names=_OCI_HCAS_A100,
    ),
    Machine(
        Cloud.OCI, "BM.GPU.H100.8", "H100", H100_80, 8,
        FabricKind.ROCE, 16, 200, 3200, 4220,
        _oci_roce(_OCI_HCAS_H100,
                  NCCL_SOCKET_IFNAME="eth0", NCCL_IGNORE_CPU_AFFINITY="1",
                  NCCL_CUMEM_ENABLE="0"),
        _derived(16, 200, 0.7), DERIVED_RDMA, (*_OCI, "kubernetes-sigs/dranet oci_oke_examples"),
        nic_names=_names("rdma", 16),
        hca_names=_OCI_HCAS_H100,
    ),
    Machine(
        Cloud.OCI, "BM.GPU.H200.8", "H200", H200_141, 8,
        FabricKind.ROCE, 8, 400, 3200, 4220,
        _oci_roce(_OCI_HCAS_H200_B200, NCCL_SOCKET_IFNAME="eth0",
                  NCCL_IGNORE_CPU_AFFINITY="1", NCCL_CUMEM_ENABLE="0"),
        _derived(8, 400, 0.7), DERIVED_RDMA, _OCI,
        nic_names=_names("rdma", 8), hca_names=_OCI_HCAS_H200_B200,
        notes="Per-port speed unconfirmed.",
    ),
    Machine(
        Cloud.OCI, "BM.GPU.B200.8", "B200", B200, 8,
        FabricKind.ROCE, 8, 400, 3200, 4220,
        _oci_roce(_OCI_HCAS_H200_B200, NCCL_SOCKET_IFNAME="eth0",
                  NCCL_IGNORE_CPU_AFFINITY="1", NCCL_CUMEM_ENABLE="0"),
        _derived(8, 400, 0.7), DERIVED_RDMA, _OCI,
        nic_names=_names("rdma", 8), hca_names=_OCI_HCAS_H200_B200,
        notes="Per-port speed unconfirmed.",
    ),
    Machine(
        Cloud.OCI, "BM.GPU.MI300X.8", "MI300X", MI300X, 8,
        FabricKind.ROCE, 8, 400, 3200, 4220,
        _oci_roce(_OCI_HCAS_MI300X, NCCL_CUMEM_ENABLE="0",
                  NCCL_PXN_DISABLE="0", NCCL_NET_PLUGIN="none",
                  NCCL_IB_QPS_PER_CONNECTION="1"),
        round(357 * 0.85, 1), "measured: 85% of ~357 GB/s RCCL all_reduce at 8 GiB (oci-hpc-oke)",
        _OCI, nic_names=_names("rdma", 8), hca_names=_OCI_HCAS_MI300X,
    ),
    Machine(
        Cloud.OCI, "BM.GPU.GB200-v3.4", "GB200-v3", GB200, 4,
        FabricKind.ROCE, 8, 400, 3200, 4220,
        _oci_roce(_OCI_HCAS_GB200, NCCL_CUMEM_ENABLE="1",
                  NCCL_MNNVL_ENABLE="1", NCCL_NET_GDR_C2C="1", NCCL_NET_PLUGIN="none",
                  NCCL_IB_QPS_PER_CONNECTION="1"),
        _derived(8, 400, 0.7), DERIVED_RDMA, (*_OCI, "kubernetes-sigs/dranet oci_oke_examples"),
        cpu_arch="arm64", nic_names=_names("rdma", 8),
        hca_names=_OCI_HCAS_GB200, nvlink_domain=72,
    ),
    Machine(
        Cloud.OCI, "VM.GPU.A10.2", "A10", A10, 2,
        FabricKind.NONE, 0, 0, 0, None, None, None, NO_FABRIC, _OCI,
    ),
    Machine(
        Cloud.OCI, "BM.GPU.A10.4", "A10", A10, 4,
        FabricKind.NONE, 0, 0, 0, None, None, None, NO_FABRIC, _OCI,
    ),
)
