"""AKS's checks before the first resource: the VNet split, sized from the pools' fabrics.

Azure keeps 5 addresses of every subnet (network, gateway, 2 for Azure DNS,
broadcast); subnets are /29 or larger:
https://learn.microsoft.com/azure/virtual-network/virtual-networks-faq
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from gpu_fabric.addressing import Net, all_nodes, holds, raise_problems
from gpu_fabric.clouds.azure.kubernetes import operator_installs_driver
from gpu_fabric.clouds.azure.layout import plan_layout
from gpu_fabric.errors import Problem

if TYPE_CHECKING:
    from gpu_fabric.fabric.description import FabricDescription
    from gpu_fabric.spec import ClusterSpec

AZURE_RESERVED = 5


def check_infrastructure(spec: ClusterSpec, fabrics: Mapping[str, FabricDescription]) -> None:
    layout = plan_layout(spec, dict(fabrics), operator_installs_driver(spec, dict(fabrics)))
    if layout.network.existing_subnet_id is None:
        raise_problems(address_problems(spec, layout.network.node_subnet))


def address_problems(spec: ClusterSpec, node_subnet: str) -> list[Problem]:
    return holds("network.cidr", Net(node_subnet), AZURE_RESERVED, all_nodes(spec),
                 "the AKS node subnet")
