"""GKE's checks before the first resource: the layout, and the address plan it yields.

Building the network layout runs every GKE rule (multi-networking, pool names,
capacity types, address plans); a cluster this library creates is refused
before any resource is registered. An existing cluster's networks are the
team's, so only what the layer itself needs is checked (in ``kubernetes``).

GCP keeps 4 addresses of every subnet (network, gateway, second-to-last,
broadcast) and primary IPv4 ranges are /29 or larger:
https://cloud.google.com/vpc/docs/subnets#unusable-ip-addresses-in-every-subnet
and #valid-ranges. GKE gives each node a /24 of the pod range at the default of
110 pods per node
(https://cloud.google.com/kubernetes-engine/docs/how-to/flexible-pod-cidr).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING

from gpu_fabric.addressing import Net, all_nodes, gpu_nodes, holds, raise_problems
from gpu_fabric.clouds.gcp.layout import build_layout, fabric_prefix
from gpu_fabric.errors import Problem

if TYPE_CHECKING:
    from gpu_fabric.fabric.description import FabricDescription
    from gpu_fabric.spec import ClusterSpec

GCP_RESERVED, GCP_MIN_PREFIX = 4, 29
GKE_POD_BLOCK_PER_NODE = 256  # a /24 per node at 110 pods per node


def check_spec(spec: ClusterSpec) -> None:
    if spec.existing is None:
        build_layout(spec)


def check_infrastructure(spec: ClusterSpec, fabrics: Mapping[str, FabricDescription]) -> None:
    layout = build_layout(spec)
    fabric_subnets = [s.cidr for v in layout.fabric_vpcs for s in v.subnets if s.cidr]
    raise_problems(address_problems(spec, fabric_subnets))


def address_problems(spec: ClusterSpec, fabric_subnets: Iterable[str]) -> list[Problem]:
    """Primary range, fabric subnets, pod range and control-plane range of a GKE cluster."""
    out: list[Problem] = []
    net = spec.network
    opts = spec.options
    existing = opts is not None and opts.existing_networks is not None
    if not existing:
        if net.cidr.prefixlen > GCP_MIN_PREFIX:
            out.append(Problem(
                "network.cidr",
                f"a GCP subnet range is /{GCP_MIN_PREFIX} or larger; {net.cidr} cannot be a "
                "GKE node subnet (e.g. 10.0.0.0/16)",
                str(net.cidr), True,
            ))
        else:
            out += holds("network.cidr", net.cidr, GCP_RESERVED, all_nodes(spec),
                         "the GKE node subnet")
        fabric_nodes = gpu_nodes(spec, spec.fabric_pools)
        for cidr in sorted(set(fabric_subnets)):
            found = holds("network.fabric_subnet_prefix", Net(cidr), GCP_RESERVED,
                          fabric_nodes, f"each /{fabric_prefix(spec)} fabric subnet, e.g.")
            if found:
                out += found
                break
    if net.pod_cidr is not None:
        out += holds("network.pod_cidr", net.pod_cidr, 0, all_nodes(spec),
                     "the GKE pod range", per_node=GKE_POD_BLOCK_PER_NODE)
    if opts is not None and opts.private_nodes:
        master = opts.master_ipv4_cidr
        for name in ("cidr", "pod_cidr", "service_cidr", "fabric_cidr"):
            other = getattr(net, name)
            if other is not None and master.overlaps(other):
                out.append(Problem(
                    "gcp.master_ipv4_cidr",
                    f"the GKE control-plane range {master} overlaps network.{name} {other}; "
                    "choose a /28 outside every cluster range (e.g. 172.16.0.32/28)",
                    str(master), True,
                ))
    return out
