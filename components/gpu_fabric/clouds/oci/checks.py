"""OKE's checks before the first resource: the VCN address plan.

OCI keeps 3 addresses of every subnet (the first two and the last); subnets are
/30 or larger: https://docs.oracle.com/iaas/Content/Network/Concepts/overview.htm
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from gpu_fabric.addressing import Net, all_nodes, holds, raise_problems
from gpu_fabric.clouds.oci.addressing import plan
from gpu_fabric.errors import Problem

if TYPE_CHECKING:
    from gpu_fabric.fabric.description import FabricDescription
    from gpu_fabric.spec import ClusterSpec

OCI_RESERVED = 3


def check_infrastructure(spec: ClusterSpec, fabrics: Mapping[str, FabricDescription]) -> None:
    addresses = plan(spec)
    if spec.options is None or spec.options.existing_network is None:
        raise_problems(address_problems(spec, addresses.workers))


def address_problems(spec: ClusterSpec, workers: Net) -> list[Problem]:
    return holds("network.cidr", workers, OCI_RESERVED, all_nodes(spec),
                 "the OKE worker subnet (first quarter of network.cidr)")
