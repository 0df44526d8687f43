"""Which GPUs share which fabric NIC, per machine (PCIe groups in rail order).

Below the model: :meth:`~gpu_fabric.catalog.model.Machine.nics_for` reads this table."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from gpu_fabric.catalog.model import Machine


# -- GPU <-> NIC pairing ---------------------------------------------------------
# Which fabric NICs serve which GPUs, per machine: the one table partial-node pods
# (1, 2, 4 GPUs), DRA claim templates and NIC counts per pod derive from.
@dataclass(frozen=True)
class GpuNicPairing:
    """How one machine's GPUs and fabric NICs pair.

    The node is made of identical groups (a PCIe switch or root port): group ``k``
    holds GPUs ``k*gpus_per_group .. (k+1)*gpus_per_group - 1`` and NICs
    ``k*nics_per_group ..`` in rail order (the order of ``nic_names`` /
    ``hca_names``). ``nics_per_group < gpus_per_group`` means GPUs share a NIC
    (p4d: 2 GPUs, 1 EFA). ``source`` names the layout's evidence; ``confirmed`` is
    False where only the GPU and NIC counts are known and the grouping is inferred.
    """

    gpus_per_group: int
    nics_per_group: int
    source: str
    confirmed: bool = True

    def groups(self, gpus: int) -> int:
        """Groups a node with ``gpus`` GPUs is made of."""
        return gpus // self.gpus_per_group

    @property
    def shares_nics(self) -> bool:
        """True when several GPUs use one NIC (a pod with part of a group shares a NIC)."""
        return self.nics_per_group < self.gpus_per_group

    def nics_of_gpu(self, gpu: int) -> tuple[int, ...]:
        """Rail indices of the NICs GPU ``gpu`` uses."""
        group, offset = divmod(gpu, self.gpus_per_group)
        if self.shares_nics:
            return (group * self.nics_per_group + offset * self.nics_per_group
                    // self.gpus_per_group,)
        per_gpu = self.nics_per_group // self.gpus_per_group
        first = group * self.nics_per_group + offset * per_gpu
        return tuple(range(first, first + per_gpu))

    def nics_for(self, gpus: int) -> int:
        """NICs of ``gpus`` GPUs packed from GPU 0 (what an aligned pod gets)."""
        return len({n for g in range(gpus) for n in self.nics_of_gpu(g)})

    def aligned(self, gpus: int) -> bool:
        """True when ``gpus`` GPUs packed from a group boundary own their NICs alone."""
        return not self.shares_nics or gpus % self.gpus_per_group == 0


_AWS_TOPO = "aws/aws-ofi-nccl topology/{}-topo.xml"
_COUNTS = "inferred from GPU and NIC counts (per-GPU share)"
_PAIRING_ROWS: tuple[tuple[str, int, int, str, bool], ...] = (
    # GCP (shared/reference/gcp.md machine families; A4 seed: GPU0/GPU1 + 2 NICs per root)
    ("a3-highgpu-8g", 2, 1, "shared/reference/gcp.md: 4 gVNIC for 8 GPUs; " + _COUNTS, False),
    ("a3-megagpu-8g", 1, 1, "shared/reference/gcp.md: 8 gVNIC for 8 GPUs, 1:1", True),
    ("a3-ultragpu-8g", 1, 1, "shared/reference/gcp.md: 8 CX-7 for 8 GPUs, 1:1", True),
    ("a4-highgpu-8g", 2, 2, "shared/seeds/gke-nvidia-dra-dranet.md: 2 GPUs + 2 NICs per "
     "PCIe root (2-gpu-nic-aligned)", True),
    ("a4x-highgpu-4g", 1, 1, "shared/reference/gcp.md: 4 CX-7 for 4 GPUs, 1:1", True),
    # AWS
    ("p4d.24xlarge", 2, 1, _AWS_TOPO.format("p4d-24xl") + ": 2 GPUs + 1 NIC per PCIe "
     "switch", True),
    ("p4de.24xlarge", 2, 1, _AWS_TOPO.format("p4de-24xl") + ": 2 GPUs + 1 NIC per PCIe "
     "switch", True),
    ("p5.48xlarge", 1, 4, _AWS_TOPO.format("p5.48xl") + ": 1 GPU + 4 EFA per PCIe "
     "bridge", True),
    ("p5e.48xlarge", 1, 4, "as p5.48xlarge (same 32 x 100G EFA); " + _COUNTS, False),
    ("p5en.48xlarge", 1, 2, "16 EFA for 8 GPUs; " + _COUNTS, False),
    ("p6-b200.48xlarge", 1, 1, "8 EFA for 8 GPUs; " + _COUNTS, False),
    ("p6-b300.48xlarge", 1, 2, "16 EFA for 8 GPUs; " + _COUNTS, False),
    ("p6e-gb200.36xlarge", 1, 1, "4 EFA for 4 GPUs; " + _COUNTS, False),
    # Azure (AZURE_TOPOLOGIES above, from Azure/azhpc-images topology/ndv4|ndv5-topo.xml)
    ("Standard_ND96asr_v4", 2, 2, "Azure/azhpc-images topology/ndv4-topo.xml: 2 GPUs + "
     "2 HCAs per PCIe switch", True),
    ("Standard_ND96amsr_A100_v4", 2, 2, "Azure/azhpc-images topology/ndv4-topo.xml: 2 GPUs "
     "+ 2 HCAs per PCIe switch", True),
    ("Standard_ND96isr_H100_v5", 1, 1, "Azure/azhpc-images topology/ndv5-topo.xml: 1 GPU + "
     "1 HCA per PCIe switch", True),
    ("Standard_ND96isr_H200_v5", 1, 1, "ndv5 layout (Azure/azhpc-images "
     "topology/ndv5-topo.xml)", True),
    ("Standard_ND96isr_MI300X_v5", 1, 1, "8 IB for 8 GPUs; " + _COUNTS, False),
    ("Standard_ND128isr_NDR_GB200_v6", 1, 1, "4 IB for 4 GPUs; " + _COUNTS, False),
    ("Standard_ND128isr_GB300_v6", 1, 1, "4 IB for 4 GPUs; " + _COUNTS, False),
    # DigitalOcean (shared/reference/digitalocean.md NICs)
    ("gpu-h200x8-1128gb-fabric-contracted", 1, 1, "shared/reference/digitalocean.md: "
     "fabric0..7 for 8 GPUs", False),
    ("gpu-mi300x8-1536gb-fabric-contracted", 1, 1, "shared/reference/digitalocean.md: "
     "fabric0..7 for 8 GPUs", False),
    ("gpu-mi325x8-2048gb-fabric-contracted", 1, 1, "shared/reference/digitalocean.md: "
     "fabric0..7 for 8 GPUs", False),
    ("gpu-b300x8-2304gb-fabric-contracted", 1, 2, "shared/reference/digitalocean.md: "
     "\"2 fabric NICs per GPU\" (slinky-on-doks)", True),
    # OCI (shared/reference/oci.md: 16 dual-port RoCE ports = 2 per GPU, or 8 = 1 per GPU)
    ("BM.GPU4.8", 1, 2, "shared/reference/oci.md: 16 RoCE ports, 2 per GPU", True),
    ("BM.GPU.B4.8", 1, 2, "shared/reference/oci.md: 16 RoCE ports, 2 per GPU", True),
    ("BM.GPU.A100-v2.8", 1, 2, "shared/reference/oci.md: 16 RoCE ports, 2 per GPU", True),
    ("BM.GPU.H100.8", 1, 2, "shared/reference/oci.md: 16 RoCE ports, 2 per GPU", True),
    ("BM.GPU.H200.8", 1, 1, "shared/reference/oci.md: 8 single-port NICs, 1 per GPU", True),
    ("BM.GPU.B200.8", 1, 1, "shared/reference/oci.md: 8 single-port NICs, 1 per GPU", True),
    ("BM.GPU.MI300X.8", 1, 1, "shared/reference/oci.md: 8 single-port NICs, 1 per GPU", True),
    ("BM.GPU.GB200-v3.4", 1, 2, "8 RoCE NICs for 4 GPUs; " + _COUNTS, False),
)
GPU_NIC_PAIRING: Mapping[str, GpuNicPairing] = MappingProxyType({
    name: GpuNicPairing(gpus, nics, source, confirmed)
    for name, gpus, nics, source, confirmed in _PAIRING_ROWS
})


def gpu_nic_pairing(machine: Machine) -> GpuNicPairing | None:
    """The machine's GPU <-> NIC pairing (None for machines without a fabric)."""
    return GPU_NIC_PAIRING.get(machine.name)
