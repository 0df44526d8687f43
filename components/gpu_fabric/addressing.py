"""Address plans against node counts: the rule every cloud's subnet checks share.

A cloud's layout decides which range each subnet gets; its provider's
``check_infrastructure`` (``clouds/<cloud>/checks.py``) checks that every
subnet is one the cloud accepts and holds the nodes placed in it, so a /30 node
range, 500 nodes on /29 RDMA subnets or a control-plane range inside the node
range are refused before anything is created (issue 21). Each cloud keeps some
addresses of every subnet; its folder holds that count with its source. This
module holds what they share: how many nodes a spec places, and whether a
subnet holds them.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable
from typing import TYPE_CHECKING

from gpu_fabric.errors import Problem

if TYPE_CHECKING:
    from gpu_fabric.spec import ClusterSpec, GpuNodePoolSpec

Net = ipaddress.IPv4Network


def pool_nodes(pool: GpuNodePoolSpec) -> int:
    """The most nodes a pool can have (autoscaling included)."""
    return max(pool.node_count, pool.max_nodes or 0)


def gpu_nodes(spec: ClusterSpec, pools: Iterable[GpuNodePoolSpec] | None = None) -> int:
    return sum(pool_nodes(p) for p in (spec.node_pools if pools is None else pools))


def all_nodes(spec: ClusterSpec) -> int:
    return gpu_nodes(spec) + spec.system_pool.node_count


def holds(path: str, subnet: Net, reserved: int, nodes: int, what: str,
          per_node: int = 1) -> list[Problem]:
    """Nothing when ``subnet`` holds ``nodes`` (``per_node`` addresses each) once the cloud
    took its ``reserved`` addresses; else the problem, at ``path``."""
    usable = subnet.num_addresses - reserved
    need = nodes * per_node
    if need <= usable:
        return []
    each = f" ({per_node} address(es) each)" if per_node != 1 else ""
    return [Problem(
        path,
        f"{what} {subnet} has {max(usable, 0)} usable addresses ({subnet.num_addresses} minus "
        f"{reserved} the cloud reserves) but must hold {nodes} node(s){each}: {need} "
        "addresses; use a larger range (shorter prefix)",
        str(subnet), True,
    )]


def raise_problems(problems: list[Problem]) -> None:
    """Raise :class:`~gpu_fabric.errors.SpecError` when there are problems."""
    from gpu_fabric.errors import SpecError

    if problems:
        raise SpecError(problems)
