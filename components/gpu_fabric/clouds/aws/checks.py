"""EKS's checks before the first resource: the subnet and pool plans, and their addresses.

AWS keeps 5 addresses of every subnet (network, router, DNS, future use,
broadcast); subnets are /16 to /28:
https://docs.aws.amazon.com/vpc/latest/userguide/subnet-sizing.html
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING

from gpu_fabric.addressing import Net, holds, pool_nodes, raise_problems
from gpu_fabric.clouds.aws.layout import (
    EFA_TYPE,
    ENA_TYPE,
    addon_versions,
    network_plan,
    options_of,
    pool_plans,
    service_cidr,
)
from gpu_fabric.errors import Problem

if TYPE_CHECKING:
    from gpu_fabric.fabric.description import FabricDescription
    from gpu_fabric.spec import ClusterSpec

AWS_RESERVED = 5


def check_infrastructure(spec: ClusterSpec, fabrics: Mapping[str, FabricDescription]) -> None:
    plan = network_plan(spec) if options_of(spec).existing_vpc is None else None
    pools = pool_plans(spec)
    service_cidr(spec)
    addon_versions(spec)
    if plan is not None:
        with_ip = (ENA_TYPE, EFA_TYPE)  # efa-only interfaces take no IP address
        addressed = {p.pool: sum(1 for i in p.interfaces if i.interface_type in with_ip) or 1
                     for p in pools}
        raise_problems(address_problems(spec, plan.gpu.cidr, [s.cidr for s in plan.private],
                                        addressed))


def address_problems(spec: ClusterSpec, gpu_subnet: str | None, private_subnets: Iterable[str],
                     addresses_per_gpu_node: dict[str, int]) -> list[Problem]:
    """The GPU subnet holds the GPU nodes' addressed interfaces; private ones the system nodes."""
    out: list[Problem] = []
    if gpu_subnet is not None:
        need = sum(pool_nodes(p) * addresses_per_gpu_node.get(p.name, 1)
                   for p in spec.node_pools)
        usable = Net(gpu_subnet).num_addresses - AWS_RESERVED
        if need > usable:
            out.append(Problem(
                "network.cidr",
                f"the EKS GPU subnet {gpu_subnet} (1/16 of network.cidr) has {usable} usable "
                f"addresses but the GPU nodes' addressed interfaces need {need}; use a larger "
                "network.cidr",
                str(spec.network.cidr), True,
            ))
    for cidr in private_subnets:
        found = holds("network.cidr", Net(cidr), AWS_RESERVED, spec.system_pool.node_count,
                      "the EKS private subnet")
        if found:
            out += found
            break
    return out
