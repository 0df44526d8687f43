"""How a machine's GPUs and fabric NICs pair (PCIe groups in rail order).

Below the model: each :class:`~gpu_fabric.catalog.model.Machine` row holds its
pairing (``pairing=``), so a machine and the layout of its NICs are written once,
side by side; :meth:`~gpu_fabric.catalog.model.Machine.nics_for` reads it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from gpu_fabric.catalog.model import Machine


# Which fabric NICs serve which GPUs: what partial-node pods (1, 2, 4 GPUs), DRA claim
# templates and NIC counts per pod derive from.
@dataclass(frozen=True, kw_only=True)
class GpuNicPairing:
    """How one machine's GPUs and fabric NICs pair.

    The node is made of identical groups (a PCIe switch or root port): group ``k``
    holds GPUs ``k*gpus_per_group .. (k+1)*gpus_per_group - 1`` and NICs
    ``k*nics_per_group ..`` in rail order (the order of ``nic_names`` /
    ``hca_names``). ``nics_per_group < gpus_per_group`` means GPUs share a NIC
    (p4d: 2 GPUs, 1 EFA). ``evidence`` says what ``source`` (an https URL or a path
    in this repository) shows of the layout; ``confirmed`` is False where only the GPU
    and NIC counts are known and the grouping is inferred.
    """

    gpus_per_group: int
    nics_per_group: int
    evidence: str
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


def gpu_nic_pairing(machine: Machine) -> GpuNicPairing | None:
    """The machine's GPU <-> NIC pairing (None for machines without a fabric)."""
    return machine.pairing

