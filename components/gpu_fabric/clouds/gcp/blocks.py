"""Reusable GKE building blocks: the fabric network, and a GPU node pool with its NICs.

:class:`GcpGpuCluster` composes them; a team that already runs a VPC or a GKE
cluster uses them alone (``examples/gcp-a4-existing-gke``), the way
cluster-toolkit has one module per concern (vpc, multivpc, gke-node-pool).

* :class:`GcpFabricNetwork` (``gpufabric:gcp:FabricNetwork``): the layout's VPCs,
  subnets and internal firewall rules (a VPC marked ``existing`` is referenced by
  name and gets no resource), plus Cloud Router + NAT when asked.
* :class:`GcpGpuNodePool` (``gpufabric:gcp:GpuNodePool``): one GPU node pool on a
  cluster, created or not by this program, with the additional node networks its
  machine needs (gVNIC + one RDMA subnet per NIC, or one VPC per TCPX NIC).

The blocks wrap the builders of ``network`` and ``nodepool``. Children keep the
names they had as direct children of the cluster component, and when a block is
given ``aliases_parent`` (the cluster does that) each child carries
``pulumi.Alias(parent=...)``: stacks created before the blocks existed keep every
URN (``tests/test_building_blocks.py``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

import pulumi

from gpu_fabric.clouds.blocks import ExistingCluster, moved_child_opts
from gpu_fabric.clouds.gcp.layout import GcpLayout, Subnet, build_layout
from gpu_fabric.clouds.gcp.network import CreatedVpc, create_nat, create_vpcs
from gpu_fabric.clouds.gcp.nodepool import NamedCluster, gpu_node_pool
from gpu_fabric.fabric.description import FabricDescription
from gpu_fabric.spec import ClusterSpec, GpuNodePoolSpec

__all__ = ["ExistingCluster", "GcpFabricNetwork", "GcpFabricNetworkArgs", "GcpGpuNodePool",
           "GcpGpuNodePoolArgs", "layout_on_existing_vpc"]

NETWORK_TYPE = "gpufabric:gcp:FabricNetwork"
NODE_POOL_TYPE = "gpufabric:gcp:GpuNodePool"


def layout_on_existing_vpc(spec: ClusterSpec, network: str, subnetwork: str) -> GcpLayout:
    """The spec's layout with your primary VPC (nodes, pods) in place of a new one: only
    the fabric VPCs the GPU machines need are created."""
    layout = build_layout(spec)
    primary = replace(layout.primary, name=network, subnets=(Subnet("sub", subnetwork, None),),
                      existing=True, firewall=False)
    return replace(layout, primary=primary)


@dataclass(frozen=True)
class GcpFabricNetworkArgs:
    """``layout``: from :func:`gpu_fabric.clouds.gcp.layout.build_layout` (mark a VPC
    ``existing`` to reuse one). ``name_prefix`` starts every child's Pulumi name."""

    layout: GcpLayout
    project: str
    region: str
    name_prefix: str
    nat: bool = False
    aliases_parent: pulumi.Resource | None = None


class GcpFabricNetwork(pulumi.ComponentResource):
    """The VPCs a GKE GPU cluster's nodes attach to, keyed by layout key (``net``, ``rdma-net``)."""

    vpcs: dict[str, CreatedVpc]
    egress: list[pulumi.Resource]

    def __init__(
        self, name: str, args: GcpFabricNetworkArgs, opts: pulumi.ResourceOptions | None = None
    ) -> None:
        super().__init__(NETWORK_TYPE, name, None, opts)
        child = moved_child_opts(self, args.aliases_parent)
        self.vpcs = create_vpcs(args.name_prefix, args.layout, project=args.project,
                                region=args.region, opts=child)
        self.egress = create_nat(args.name_prefix, self.vpcs["net"], project=args.project,
                                 region=args.region, opts=child) if args.nat else []
        self.register_outputs({"networks": {key: vpc.ids for key, vpc in self.vpcs.items()}})


@dataclass(frozen=True)
class GcpGpuNodePoolArgs:
    """One GPU pool of ``spec`` on ``cluster``, attached to ``vpcs`` (a
    :class:`GcpFabricNetwork`'s, or :class:`CreatedVpc` of VPCs you already have)."""

    spec: ClusterSpec
    pool: GpuNodePoolSpec
    fabric: FabricDescription
    cluster: NamedCluster  # gcp.container.Cluster, or ExistingCluster(name)
    layout: GcpLayout
    vpcs: Mapping[str, CreatedVpc]
    zone: str
    service_account: pulumi.Input[str]
    driver_version: str
    name_prefix: str
    aliases_parent: pulumi.Resource | None = None
    depends_on: list[pulumi.Resource] = field(default_factory=list)


@dataclass(frozen=True)
class _Owner:
    """What the node-pool builder reads from its owner: spec, name prefix, child options."""

    spec: ClusterSpec
    name: str
    child_opts: Callable[..., pulumi.ResourceOptions]


class GcpGpuNodePool(pulumi.ComponentResource):
    """A GKE GPU node pool with its additional node networks (``node_pool``: the resource)."""

    def __init__(
        self, name: str, args: GcpGpuNodePoolArgs, opts: pulumi.ResourceOptions | None = None
    ) -> None:
        super().__init__(NODE_POOL_TYPE, name, None, opts)
        base = moved_child_opts(self, args.aliases_parent)

        def child(**kwargs: Any) -> pulumi.ResourceOptions:
            return base(depends_on=list(args.depends_on), **kwargs)

        owner = _Owner(args.spec, args.name_prefix, child)
        self.node_pool = gpu_node_pool(
            owner, args.cluster, args.pool, args.fabric, args.layout, dict(args.vpcs),
            args.zone, args.service_account, args.driver_version,
        )
        self.register_outputs({"node_pool": self.node_pool.name})
