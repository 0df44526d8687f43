"""The VCN address plan of an OKE cluster (pure; no SDK).

``network.cidr`` is carved into four subnets, always at the same offsets so an
address plan never moves under an existing cluster:

* workers: the first quarter (node VNICs);
* load balancers: the first eighth of the second quarter;
* API endpoint: a /28 right after the load balancer subnet;
* pods (cni: npn): the second half, or ``network.pod_cidr`` when given (added to
  the VCN as a second CIDR block).

With flannel, pods and services use overlay ranges (``network.pod_cidr`` /
``network.service_cidr`` or OKE's defaults) that are not VCN subnets.

The RDMA cluster network of the GPU nodes is not part of the VCN: OCI wires it
between the members of a compute cluster, so it has no subnet, route or security
rule here.
"""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass
from typing import TYPE_CHECKING

from gpu_fabric.fabric.problems import refuse

if TYPE_CHECKING:
    from gpu_fabric.spec import ClusterSpec

MAX_VCN_PREFIX = 20  # a /20 VCN still leaves a /23 per quarter
FLANNEL_PODS = ipaddress.IPv4Network("10.244.0.0/16")
SERVICES = ipaddress.IPv4Network("10.96.0.0/16")


@dataclass(frozen=True)
class AddressPlan:
    vcn_blocks: tuple[ipaddress.IPv4Network, ...]
    workers: ipaddress.IPv4Network
    load_balancers: ipaddress.IPv4Network
    endpoint: ipaddress.IPv4Network
    pods: ipaddress.IPv4Network  # VCN pod subnet (npn) or the flannel overlay range
    services: ipaddress.IPv4Network
    pods_in_vcn: bool


def plan(spec: ClusterSpec) -> AddressPlan:
    net = spec.network
    vcn = net.cidr
    if vcn.prefixlen > MAX_VCN_PREFIX:
        refuse(
            "network.cidr",
            f"an OKE VCN needs room for worker, pod, endpoint and load balancer subnets; use "
            f"a /{MAX_VCN_PREFIX} or larger range (e.g. 10.0.0.0/16)",
            str(vcn),
        )
    quarters = list(vcn.subnets(prefixlen_diff=2))
    workers = quarters[0]
    load_balancers = next(quarters[1].subnets(prefixlen_diff=3))
    endpoint = ipaddress.IPv4Network((int(load_balancers.broadcast_address) + 1, 28))
    npn = spec.options is not None and spec.options.cni == "npn"
    services = net.service_cidr or SERVICES
    if npn:
        pods = net.pod_cidr or list(vcn.subnets(prefixlen_diff=1))[1]
        blocks = (vcn, net.pod_cidr) if net.pod_cidr else (vcn,)
    else:
        pods = net.pod_cidr or FLANNEL_PODS
        blocks = (vcn,)
    for name, rng in (("network.service_cidr", services), ("network.pod_cidr", pods)):
        if any(rng.overlaps(b) for b in blocks) and not (npn and rng == pods):
            refuse(name, f"{rng} overlaps the VCN range {vcn}; choose a disjoint range", str(rng))
    return AddressPlan(
        vcn_blocks=tuple(blocks),
        workers=workers,
        load_balancers=load_balancers,
        endpoint=endpoint,
        pods=pods,
        services=services,
        pods_in_vcn=npn,
    )
