"""Names of objects workloads refer to (one place, so the layer and the pod fragments agree)."""

from __future__ import annotations

from components.fabric.description import FabricDescription


def claim_template_name(fabric: FabricDescription, gpus: int) -> str:
    """``2-gpu-nic-aligned`` (GKE seed naming) or ``2-gpu`` when NICs are not DRA devices."""
    kind = "gpu-nic-aligned" if fabric.attach.value == "dra" else "gpu"
    return f"{fabric.claim_prefix}{gpus}-{kind}"


def claim_gpu_counts(fabric: FabricDescription, wanted: list[int]) -> list[int]:
    """The claim sizes that fit the machine (1, 2, 4, 8 on an 8-GPU node)."""
    return [n for n in wanted if n <= fabric.machine.gpus]


def compute_domain_name(fabric: FabricDescription) -> str:
    return f"{fabric.pool}-compute-domain"


def compute_domain_channel(fabric: FabricDescription) -> str:
    """The ResourceClaimTemplate a ComputeDomain creates for its IMEX channel."""
    return f"{compute_domain_name(fabric)}-channel"
