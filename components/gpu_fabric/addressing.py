"""Address plans against node counts and each cloud's subnet rules.

The cloud layouts (``components/gpu_fabric/clouds/<cloud>/layout.py``, ``oci/addressing.py``)
decide which range each subnet gets; this module checks that every subnet is
one the cloud accepts and holds the nodes placed in it, so a /30 GKE node
range, 500 nodes on /29 RDMA subnets or a GKE control-plane range inside the
node range are refused before anything is created (issue 21). It runs from
:mod:`gpu_fabric.preflight`, after the layout was derived.

Each cloud keeps some addresses of every subnet:

* GCP: 4 (network, gateway, second-to-last, broadcast); primary IPv4 ranges
  are /29 or larger. https://cloud.google.com/vpc/docs/subnets#unusable-ip-addresses-in-every-subnet
  and #valid-ranges.
* AWS: 5 (network, router, DNS, future use, broadcast); subnets /16 to /28.
  https://docs.aws.amazon.com/vpc/latest/userguide/subnet-sizing.html
* Azure: 5 (network, gateway, 2 for Azure DNS, broadcast); subnets /29 or larger.
  https://learn.microsoft.com/azure/virtual-network/virtual-networks-faq
* OCI: 3 (the first two and the last); subnets /30 or larger.
  https://docs.oracle.com/iaas/Content/Network/Concepts/overview.htm

GKE gives each node a /24 of the pod range at the default of 110 pods per
node (https://cloud.google.com/kubernetes-engine/docs/how-to/flexible-pod-cidr).
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable
from typing import TYPE_CHECKING

from gpu_fabric.errors import Problem

if TYPE_CHECKING:
    from gpu_fabric.spec import ClusterSpec, GpuNodePoolSpec

Net = ipaddress.IPv4Network

GCP_RESERVED, GCP_MIN_PREFIX = 4, 29
AWS_RESERVED = 5
AZURE_RESERVED = 5
OCI_RESERVED = 3
GKE_POD_BLOCK_PER_NODE = 256  # a /24 per node at 110 pods per node


def pool_nodes(pool: GpuNodePoolSpec) -> int:
    """The most nodes a pool can have (autoscaling included)."""
    return max(pool.node_count, pool.max_nodes or 0)


def gpu_nodes(spec: ClusterSpec, pools: Iterable[GpuNodePoolSpec] | None = None) -> int:
    return sum(pool_nodes(p) for p in (spec.node_pools if pools is None else pools))


def all_nodes(spec: ClusterSpec) -> int:
    return gpu_nodes(spec) + spec.system_pool.node_count


def _holds(path: str, subnet: Net, reserved: int, nodes: int, what: str,
           per_node: int = 1) -> list[Problem]:
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


# -- GKE --------------------------------------------------------------------------
def gcp_problems(spec: ClusterSpec, fabric_subnets: Iterable[str]) -> list[Problem]:
    """Primary range, fabric subnets, pod range and control-plane range of a GKE cluster."""
    out: list[Problem] = []
    net = spec.network
    opts = spec.gcp
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
            out += _holds("network.cidr", net.cidr, GCP_RESERVED, all_nodes(spec),
                          "the GKE node subnet")
        fabric_nodes = gpu_nodes(spec, spec.fabric_pools)
        for cidr in sorted(set(fabric_subnets)):
            found = _holds("network.fabric_subnet_prefix", Net(cidr), GCP_RESERVED,
                           fabric_nodes, f"each /{net.fabric_subnet_prefix} fabric subnet, e.g.")
            if found:
                out += found
                break
    if net.pod_cidr is not None:
        out += _holds("network.pod_cidr", net.pod_cidr, 0, all_nodes(spec),
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


# -- EKS ----------------------------------------------------------------------------
def aws_problems(spec: ClusterSpec, gpu_subnet: str | None, private_subnets: Iterable[str],
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
        found = _holds("network.cidr", Net(cidr), AWS_RESERVED, spec.system_pool.node_count,
                       "the EKS private subnet")
        if found:
            out += found
            break
    return out


# -- AKS / OKE -------------------------------------------------------------------------
def azure_problems(spec: ClusterSpec, node_subnet: str) -> list[Problem]:
    return _holds("network.cidr", Net(node_subnet), AZURE_RESERVED, all_nodes(spec),
                  "the AKS node subnet")


def oci_problems(spec: ClusterSpec, workers: Net) -> list[Problem]:
    return _holds("network.cidr", workers, OCI_RESERVED, all_nodes(spec),
                  "the OKE worker subnet (first quarter of network.cidr)")
