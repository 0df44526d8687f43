"""The machine catalog: every GPU machine this project knows, on every cloud.

This module is the one place where hardware numbers live. Node pool validation,
NetworkAttachmentDefinition counts, device-plugin configs, EFA interface counts,
NCCL environment and the NCCL acceptance verdict all derive from a
:class:`Machine` entry; no cloud module repeats these numbers.

Each entry lists its ``sources``: https URLs (the vendor's page, or an upstream file
at the commit read) or paths in this repository, so a reader can check every number.
Values the sources leave unconfirmed are kept, and the entry's ``notes`` say so.

Bandwidth floors
----------------
``busbw_floor`` is the lowest acceptable nccl-tests bus bandwidth (GB/s) for a
2-node run using every GPU and every fabric NIC of a node, judged on the peak of
the rows >= 1 GiB (never on the "Avg bus bandwidth" line, which small messages
drag down). It is set by one of three rules, recorded in ``floor_basis``:

* ``published threshold``: the cloud publishes a pass/fail number; use it.
* ``measured``: a published 2-node large-message measurement exists; the floor
  is 85% of it (headroom for run-to-run variance).
* ``derived``: no measurement; the floor is a fixed share of the line rate:
  70% for RDMA fabrics (NVIDIA's rule of thumb is 46-48 GB/s per 400 Gb/s NIC,
  i.e. 92-96%) and 60% for the TCP-based GPUDirect-TCPX/TCPXO fabrics.
The catalog is a package: :mod:`~gpu_fabric.catalog.model` (the types),
one data module per cloud (``gcp``, ``aws``, ``azure`` with its PCI topologies,
``digitalocean``, ``oci``), the shared ``gpus``, the GPU<->NIC ``pairing`` type (each
machine row holds its pairing) and ``lookup`` (which checks the rows when it loads).
Every name stays importable from ``gpu_fabric.catalog``.
"""

from __future__ import annotations

from gpu_fabric.catalog.aws import AWS_EFA
from gpu_fabric.catalog.azure import AZURE_IB, AZURE_IB_GB, AZURE_TOPOLOGIES
from gpu_fabric.catalog.gcp import GKE_TCPX, GKE_TCPXO
from gpu_fabric.catalog.gpus import (
    A10,
    A100_40,
    A100_80,
    B200,
    B300,
    GB200,
    GB300,
    H100_80,
    H200_141,
    L4,
    L40S,
    MI300X,
    MI325X,
    NVL72_GB200,
    NVL72_GB300,
)
from gpu_fabric.catalog.lookup import (
    GPU_NIC_PAIRING,
    MACHINES,
    CatalogRowError,
    get_machine,
    machine_names,
    machines,
)
from gpu_fabric.catalog.model import (
    DERIVED_RDMA,
    DERIVED_TCP,
    NO_FABRIC,
    NVLINK_FLOOR_BASIS,
    Cloud,
    FabricKind,
    Gpu,
    GpuVendor,
    Machine,
    NcclProfile,
    NumaNode,
    NvlinkDomain,
    PciSwitch,
    PciTopology,
    UnknownMachineError,
)
from gpu_fabric.catalog.pairing import GpuNicPairing, gpu_nic_pairing

__all__ = [
    "A10",
    "A100_40",
    "A100_80",
    "AWS_EFA",
    "AZURE_IB",
    "AZURE_IB_GB",
    "AZURE_TOPOLOGIES",
    "B200",
    "B300",
    "DERIVED_RDMA",
    "DERIVED_TCP",
    "GB200",
    "GB300",
    "GKE_TCPX",
    "GKE_TCPXO",
    "GPU_NIC_PAIRING",
    "H100_80",
    "H200_141",
    "L4",
    "L40S",
    "MACHINES",
    "MI300X",
    "MI325X",
    "NO_FABRIC",
    "NVL72_GB200",
    "NVL72_GB300",
    "NVLINK_FLOOR_BASIS",
    "CatalogRowError",
    "Cloud",
    "FabricKind",
    "Gpu",
    "GpuNicPairing",
    "GpuVendor",
    "Machine",
    "NcclProfile",
    "NumaNode",
    "NvlinkDomain",
    "PciSwitch",
    "PciTopology",
    "UnknownMachineError",
    "get_machine",
    "gpu_nic_pairing",
    "machine_names",
    "machines",
]
