"""How many of each device resource a team may request, per GPU pool.

One derivation feeds both the namespace ResourceQuota and the team's Kueue
ClusterQueue, so the two cannot disagree. The GPU quota is the team's budget;
every fabric resource (per-rail ``rdma/*``, pooled ``vpc.amazonaws.com/efa`` /
``nvidia.com/rdma-vf``, hugepages) is sized from the pod fragment of the fabric
helper so that it is never the binding constraint for pods that use GPUs, while
a team can still not take fabric devices beyond what its GPUs entitle it to.
The worst case for fabric devices is one GPU per pod, so amounts are sized for
``gpus`` single-GPU pods.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from gpu_fabric.fabric.description import FabricDescription
from gpu_fabric.fabric.workload import pod_fragment
from gpu_fabric.platform.mig import mig_resource
from gpu_fabric.spec.values import BINARY_UNITS

if TYPE_CHECKING:
    from gpu_fabric.spec import ClusterSpec, GpuNodePoolSpec, TeamSpec

HUGEPAGES = "hugepages-2Mi"
DRA_DEVICES = "deviceclass.resource.k8s.io/devices"


@dataclass(frozen=True)
class PoolQuota:
    """What one team may use of one pool: resource name -> amount (Kubernetes quantity)."""

    pool: str
    gpus: int
    amounts: Mapping[str, str]


def team_pools(spec: ClusterSpec, team: TeamSpec) -> list[GpuNodePoolSpec]:
    """The pools a team may use (all GPU pools when the team names none)."""
    wanted = set(team.node_pools)
    return [p for p in spec.node_pools if not wanted or p.name in wanted]


def pool_quota(pool: GpuNodePoolSpec, fabric: FabricDescription, gpus: int) -> PoolQuota:
    """Amounts for ``gpus`` GPUs of ``pool`` (0 GPUs: every amount is 0)."""
    amounts: dict[str, int | str] = {}
    if gpus <= 0:
        return PoolQuota(pool.name, 0, {})
    if fabric.uses_dra and fabric.dra is not None:
        amounts[f"{fabric.dra.gpu_class}.{DRA_DEVICES}"] = gpus
    elif pool.mig is not None:
        resource, per_gpu = mig_resource(pool)
        amounts[resource] = gpus * per_gpu
    else:
        amounts[fabric.gpu_resource] = gpus
    for resource, value in _fabric_amounts(fabric, gpus).items():
        amounts[resource] = value
    return PoolQuota(pool.name, gpus, {k: str(v) for k, v in amounts.items()})


def _fabric_amounts(fabric: FabricDescription, gpus: int) -> dict[str, int | str]:
    """Fabric resources ``gpus`` GPUs may take: the most any mix of served pod sizes
    needs (``gpus / n`` pods of ``n`` GPUs each, rounded up), so the GPU budget binds
    first. Sizes the fabric refuses (:mod:`gpu_fabric.fabric.shapes`) are not counted."""
    from gpu_fabric.fabric.shapes import served_counts

    out: dict[str, int | str] = {}
    sizes = served_counts(fabric) if fabric.machine.has_fabric else [1]
    for n in sizes:
        pods = -(-gpus // n)
        for resource, value in pod_fragment(fabric, n).limits.items():
            if resource == fabric.gpu_resource:
                continue
            if resource == HUGEPAGES:
                scaled = _scale_quantity(value, pods)
                if resource not in out or _bytes(scaled) > _bytes(str(out[resource])):
                    out[resource] = scaled
            else:
                out[resource] = max(int(out.get(resource, 0)), int(value) * pods)
    return out


def team_quotas(
    spec: ClusterSpec, fabrics: Mapping[str, FabricDescription], team: TeamSpec
) -> list[PoolQuota]:
    """One entry per pool the team may use. Each pool gets the team's whole GPU budget:
    the namespace ResourceQuota caps the sum across pools."""
    return [pool_quota(p, fabrics[p.name], team.gpus) for p in team_pools(spec, team)]


def total(quotas: list[PoolQuota]) -> dict[str, str]:
    """Per-namespace totals: the GPU budget is shared, fabric resources add up."""
    out: dict[str, int | str] = {}
    for quota in quotas:
        for resource, value in quota.amounts.items():
            if resource not in out:
                out[resource] = value
            elif resource == HUGEPAGES:
                out[resource] = _add_quantity(str(out[resource]), value)
            else:
                out[resource] = max(int(out[resource]), int(value)) if _is_gpu(resource) \
                    else int(out[resource]) + int(value)
    return {k: str(v) for k, v in out.items()}


def _is_gpu(resource: str) -> bool:
    return resource.endswith("/gpu") or "/mig-" in resource or resource.endswith(DRA_DEVICES)


def _bytes(quantity: str) -> int:
    for unit, factor in BINARY_UNITS.items():
        if quantity.endswith(unit):
            return int(quantity[: -len(unit)]) * factor
    return int(quantity)


def _format(n: int) -> str:
    for unit in ("Ti", "Gi", "Mi", "Ki"):
        if n % BINARY_UNITS[unit] == 0:
            return f"{n // BINARY_UNITS[unit]}{unit}"
    return str(n)


def _scale_quantity(quantity: str, factor: int) -> str:
    return _format(_bytes(quantity) * factor)


def _add_quantity(a: str, b: str) -> str:
    return _format(_bytes(a) + _bytes(b))


def quantity_bytes(quantity: str) -> int:
    """Binary quantity ('2Gi', '512Mi', '7') as an integer (for comparisons in tests)."""
    return _bytes(quantity)
