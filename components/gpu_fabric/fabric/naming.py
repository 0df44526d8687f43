"""Names of objects workloads refer to (one place, so the layer and the pod fragments agree)."""

from __future__ import annotations

from gpu_fabric.fabric.description import FabricDescription


def split_resource(resource: str) -> tuple[str, str]:
    """``("rdma", "fabric0")`` for the extended resource ``rdma/fabric0``: the device
    plugins' ``resourcePrefix`` and ``resourceName``."""
    prefix, _, name = resource.partition("/")
    return prefix, name


def claim_template_name(fabric: FabricDescription, gpus: int) -> str:
    """``2-gpu-nic-aligned`` (GKE seed naming) or ``2-gpu`` when NICs are not DRA devices."""
    kind = "gpu-nic-aligned" if fabric.attach.value == "dra" else "gpu"
    return f"{fabric.claim_prefix}{gpus}-{kind}"


def rail_claim_template_name(fabric: FabricDescription, gpus: int,
                             rails: tuple[int, ...]) -> str:
    """``2-gpu-nic-rails-2-3`` / ``1-gpu-nic-rail-5``: a claim pinned to NIC rails.

    Named by the rails (NIC index k = rail k of a rail-optimized fabric), not by the
    GPUs: the rails are what the pods of a job on other nodes must share.
    """
    where = f"rail-{rails[0]}" if len(rails) == 1 else f"rails-{rails[0]}-{rails[-1]}"
    return f"{fabric.claim_prefix}{gpus}-gpu-nic-{where}"


def rail_sets(fabric: FabricDescription, gpus: int) -> list[tuple[int, ...]]:
    """The NIC rails of each slice of ``gpus`` GPUs (GPUs 0..g-1, g..2g-1, ...).

    From the catalog's GPU <-> NIC pairing, in rail order, without repeats (two
    1-GPU slices that share one NIC give one rail set). Empty where ``gpus`` does
    not split the node or the machine has no pairing row.
    """
    from gpu_fabric.catalog import gpu_nic_pairing

    machine = fabric.machine
    pairing = gpu_nic_pairing(machine)
    if pairing is None or gpus < 1 or machine.gpus % gpus:
        return []
    out: list[tuple[int, ...]] = []
    for first in range(0, machine.gpus, gpus):
        rails = tuple(sorted({n for g in range(first, first + gpus)
                              for n in pairing.nics_of_gpu(g)}))
        if rails not in out:
            out.append(rails)
    return out


def pinned_rail_sets(fabric: FabricDescription, gpus: int) -> list[tuple[int, ...]]:
    """The rail sets a ``gpus``-GPU pod of ``fabric`` is pinned to by injection (one rail
    claim template each, ``fabric.parts._rail_claim_templates``); empty where the pool has
    no rail templates (no DRA NIC class known by DraNet ifName, or a full node)."""
    classes = fabric.dra
    if (classes is None or not classes.rails_by_ifname or not classes.nic_class
            or fabric.attach.value != "dra" or gpus >= fabric.machine.gpus):
        return []
    names = [r.netdev for r in fabric.rails]
    if len(names) != fabric.machine.fabric_nics or not all(names):
        return []
    return rail_sets(fabric, gpus)


def rails_value(rails: tuple[int, ...]) -> str:
    """``2,3``: the ``gpufabric.dev/rails`` annotation value naming a rail set."""
    return ",".join(str(r) for r in rails)


def claim_gpu_counts(fabric: FabricDescription, wanted: list[int]) -> list[int]:
    """The claim sizes that fit the machine (1, 2, 4, 8 on an 8-GPU node)."""
    return [n for n in wanted if n <= fabric.machine.gpus]


def compute_domain_name(fabric: FabricDescription) -> str:
    return f"{fabric.pool}-compute-domain"


def compute_domain_channel(fabric: FabricDescription) -> str:
    """The ResourceClaimTemplate a ComputeDomain creates for its IMEX channel."""
    return f"{compute_domain_name(fabric)}-channel"
