"""Which GPU counts per pod a fabric serves, and with which NICs.

A pod on a fabric node uses part of the node (1, 2, 4 GPUs) or all of it. What it
can get depends on how the fabric hands NICs out (:class:`NicHandout`) and on the
machine's GPU <-> NIC pairing (``gpu_fabric.catalog.GPU_NIC_PAIRING``):

* ``claimed``: DRA allocates the GPUs and NICs of one claim together, on the same
  PCIe root (``matchAttribute: resource.kubernetes.io/pcieRoot``): aligned, and
  the scheduler never hands one NIC to two pods.
* ``counted``: a device plugin (EFA, SR-IOV VFs) or GKE's device networks count
  NICs per pod: no two pods get the same NIC, but which NICs a pod gets is not
  tied to which GPUs it got.
* ``shared``: every pod sees every NIC (RDMA shared device plugin HCA slots, host
  network); NCCL picks each GPU's nearest NIC from the PCI topology.
* ``moved``: each NIC is moved into one pod's network namespace (Multus
  host-device) and nothing on the node counts it. Two pods on one node would
  fight for the same NIC (the second fails at CNI ADD), so only pods that take
  the whole node get the fabric; smaller pods are refused with the reason.

A cloud's describer may narrow the served counts further
(``FabricDescription.pod_gpu_counts`` and its reason: GKE TCPX/TCPXO, GKE
multi-networking rails, DOKS). The injection policies give a pod the fabric only
for the counts served here and refuse the others with the ``refusal`` text, so a
pod is never left on TCP without being told.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum

from gpu_fabric.catalog import gpu_nic_pairing
from gpu_fabric.fabric.description import Attach, FabricDescription

OPT_OUT = 'annotation gpufabric.dev/inject: "false"'


class NicHandout(StrEnum):
    CLAIMED = "claimed"
    COUNTED = "counted"
    SHARED = "shared"
    MOVED = "moved"


def nic_handout(fabric: FabricDescription) -> NicHandout:
    """How ``fabric`` gives NICs to pods."""
    if fabric.attach is Attach.DRA:
        return NicHandout.CLAIMED
    if fabric.attach is Attach.GKE_MULTINETWORK:
        return NicHandout.COUNTED
    if fabric.attach is Attach.HOST_NETWORK:
        return NicHandout.SHARED
    if fabric.nad_type == "host-device":
        return NicHandout.MOVED
    if fabric.pooled_resources and fabric.pooled_scaling == "per_gpu":
        return NicHandout.COUNTED
    return NicHandout.SHARED


@dataclass(frozen=True)
class PodShape:
    """What a pod using ``gpus`` GPUs of one node gets from the fabric."""

    pool: str
    gpus: int
    handout: NicHandout
    nics: int  # fabric NICs (ports, EFA devices) the pod uses; 0 when refused
    aligned: bool  # the NICs are those of the pod's own GPUs (same PCIe group)
    note: str  # how the NICs are chosen, for docs and messages
    refusal: str | None = None  # why this count gets no fabric (None: served)

    @property
    def served(self) -> bool:
        return self.refusal is None


def pod_shape(
    fabric: FabricDescription, gpus: int, claim_counts: Sequence[int] | None = None
) -> PodShape:
    """The shape of a ``gpus``-GPU pod on ``fabric``'s pool.

    ``claim_counts``: the ResourceClaimTemplate sizes that exist (DRA); a count
    without a template is refused. Counts outside 1..GPUs per node are refused.
    """
    machine = fabric.machine
    handout = nic_handout(fabric)
    pairing = gpu_nic_pairing(machine)

    def refuse(reason: str) -> PodShape:
        return PodShape(fabric.pool, gpus, handout, 0, False, "", reason)

    if not machine.has_fabric or pairing is None:
        return refuse(f"{machine.name} has no scale-out fabric")
    if not 1 <= gpus <= machine.gpus:
        return refuse(f"{machine.name} has {machine.gpus} GPUs per node")
    full = gpus == machine.gpus
    if fabric.uses_dra and claim_counts is not None and gpus not in claim_counts:
        sizes = ", ".join(str(n) for n in claim_counts)
        return refuse(
            f"pool {fabric.pool} has ResourceClaimTemplates for {sizes} GPUs only; "
            "add the count to fabric.claim_gpu_counts or use one of these"
        )
    if fabric.pod_gpu_counts is not None and gpus not in fabric.pod_gpu_counts:
        # The cloud's describer knows shapes that cannot work (GKE TCPX/TCPXO env, GKE
        # multi-networking rails, DOKS host-device NICs).
        counts = ", ".join(str(n) for n in fabric.pod_gpu_counts)
        return refuse(
            f"pool {fabric.pool} ({machine.name}) gives the fabric only to pods with {counts} "
            f"GPUs: {fabric.pod_gpu_counts_reason}"
        )
    if handout is NicHandout.CLAIMED:
        aligned = pairing.aligned(gpus)
        note = ("DRA claim: GPUs and NICs on the same PCIe root" if aligned else
                f"DRA claim: the {gpus}-GPU claim shares its PCIe root's NIC with GPUs "
                "outside the pod; another pod on that root waits for it")
        return PodShape(fabric.pool, gpus, handout, pairing.nics_for(gpus), aligned, note)
    if handout is NicHandout.SHARED:
        return PodShape(fabric.pool, gpus, handout, machine.fabric_nics, True,
                        "every NIC is shared by the pods of the node; NCCL uses each "
                        "GPU's nearest")
    if handout is NicHandout.COUNTED:
        return PodShape(fabric.pool, gpus, handout, pairing.nics_for(gpus), full,
                        "the node hands each pod its own NICs, counted per pod; below a "
                        "full node they are not tied to the pod's GPUs")
    if full:
        return PodShape(fabric.pool, gpus, handout, machine.fabric_nics, True,
                        "the pod takes every NIC of the node")
    return refuse(
        f"pool {fabric.pool} ({machine.name}) moves each fabric NIC into one pod's network "
        f"namespace ({fabric.nad_type or 'whole-device'} attachment) and nothing on the node "
        f"counts them, so a pod with {gpus} of {machine.gpus} GPUs would take NICs another "
        f"pod on the node needs; ask for {machine.gpus} GPUs per pod, or set {OPT_OUT} to "
        "run without the fabric"
    )


def pod_shapes(
    fabric: FabricDescription, claim_counts: Sequence[int] | None = None
) -> list[PodShape]:
    """Every candidate count's shape, served or refused, for 1..GPUs per node."""
    return [pod_shape(fabric, n, claim_counts) for n in range(1, fabric.machine.gpus + 1)]


def served_counts(
    fabric: FabricDescription, claim_counts: Sequence[int] | None = None
) -> list[int]:
    return [s.gpus for s in pod_shapes(fabric, claim_counts) if s.served]
