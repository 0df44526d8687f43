"""Reusable GKE building blocks: the fabric network, and a GPU node pool with its NICs.

:class:`GcpGpuCluster` composes them; a team that already runs a VPC or a GKE
cluster uses them alone, as ``gpu_fabric.gcp.FabricNetwork`` and
``gpu_fabric.gcp.GpuNodePool`` (``examples/gcp-a4-existing-gke``), the way
cluster-toolkit has one module per concern (vpc, multivpc, gke-node-pool).

* :class:`GcpFabricNetwork` (``gpufabric:gcp:FabricNetwork``): the layout's VPCs,
  subnets and internal firewall rules (a VPC marked ``existing`` is referenced by
  name and gets no resource), plus Cloud Router + NAT when asked.
* :class:`GcpGpuNodePool` (``gpufabric:gcp:GpuNodePool``): one GPU node pool on a
  cluster, created or not by this program, with the additional node networks its
  machine needs (gVNIC + one RDMA subnet per NIC, or one VPC per TCPX NIC).

The blocks wrap the builders of ``network`` and ``nodepool``. Children keep the
names they had as direct children of the cluster component, and under a
``GpuCluster`` each child carries ``pulumi.Alias(parent=<the cluster>)``
(:func:`~gpu_fabric.clouds.blocks.moved_child_opts`): stacks created before the
blocks existed keep every URN (``tests/clouds/test_building_blocks.py``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace

import pulumi

from gpu_fabric.clouds.blocks import ExistingCluster, moved_child_opts
from gpu_fabric.clouds.gcp.layout import GcpLayout, Subnet, build_layout
from gpu_fabric.clouds.gcp.network import CreatedVpc, create_nat, create_vpcs
from gpu_fabric.clouds.gcp.nodepool import gpu_driver_version, gpu_node_pool
from gpu_fabric.fabric.description import FabricDescription
from gpu_fabric.spec import ClusterSpec, GpuNodePoolSpec

__all__ = ["AdditionalNodeNetwork", "ExistingCluster", "GcpFabricNetwork", "GcpFabricNetworkArgs",
           "GcpGpuNodePool", "GcpGpuNodePoolArgs", "layout_on_existing_vpc"]

NETWORK_TYPE = "gpufabric:gcp:FabricNetwork"
NODE_POOL_TYPE = "gpufabric:gcp:GpuNodePool"


def layout_on_existing_vpc(spec: ClusterSpec, network: str, subnetwork: str) -> GcpLayout:
    """The spec's network layout with your primary VPC (nodes, pods) in place of a new
    one: only the fabric VPCs the GPU machines need are created.

    ``network`` / ``subnetwork``: the names of the VPC and subnet your GKE cluster's
    nodes use. Pass the result to :class:`GcpFabricNetworkArgs` ``layout``.
    """
    layout = build_layout(spec)
    primary = replace(layout.primary, name=network, subnets=(Subnet("sub", subnetwork, None),),
                      existing=True, firewall=False)
    return replace(layout, primary=primary)


@dataclass(frozen=True, kw_only=True)
class GcpFabricNetworkArgs:
    """The VPCs to create (or reference) for a GKE GPU cluster's nodes."""

    layout: GcpLayout
    """The VPCs, subnets and firewall rules, as plain data: from
    ``gpu_fabric.gcp.layout_on_existing_vpc`` (your primary VPC, new fabric VPCs) or
    the spec's full layout. A VPC marked ``existing`` is referenced by name only."""
    project: str
    """GCP project id the VPCs are created in."""
    region: str
    """Region of the subnets (and of the Cloud Router and NAT), e.g. ``us-west8``."""
    name_prefix: str
    """Starts every child's Pulumi name (``<name_prefix>-rdma-net``,
    ``<name_prefix>-rdma-sub-3``...); the GCP names come from ``layout``."""
    nat: bool = False
    """Create a Cloud Router + Cloud NAT for the primary VPC's node subnet (private
    nodes pull images from outside Google only through it)."""


@dataclass(frozen=True, kw_only=True)
class AdditionalNodeNetwork:
    """One additional node network of a GPU pool: a VPC and its subnet, by name."""

    network: pulumi.Input[str]
    """VPC name (``gcp.container.NodePool`` ``additional_node_network_configs.network``)."""
    subnetwork: pulumi.Input[str]
    """Subnet name in that VPC."""


class GcpFabricNetwork(pulumi.ComponentResource):
    """The VPCs a GKE GPU cluster's nodes attach to, keyed by layout key (``net``,
    ``rdma-net``); :meth:`node_networks` names those a GPU pool attaches."""

    vpcs: dict[str, CreatedVpc]
    egress: list[pulumi.Resource]

    def __init__(
        self, name: str, args: GcpFabricNetworkArgs, opts: pulumi.ResourceOptions | None = None
    ) -> None:
        super().__init__(NETWORK_TYPE, name, None, opts)
        child = moved_child_opts(self, opts)
        self.layout = args.layout
        self.vpcs = create_vpcs(args.name_prefix, args.layout, project=args.project,
                                region=args.region, opts=child)
        self.egress = create_nat(args.name_prefix, self.vpcs["net"], project=args.project,
                                 region=args.region, opts=child) if args.nat else []
        self.register_outputs({"networks": {key: vpc.ids for key, vpc in self.vpcs.items()}})

    def node_networks(self, fabric: FabricDescription) -> list[AdditionalNodeNetwork]:
        """The additional node networks of a pool of ``fabric``, in NIC order: gVNIC +
        one RDMA subnet per NIC, one VPC per GPUDirect-TCPX NIC, or none (no fabric,
        or GKE-managed DRANet, which attaches the RDMA networks itself)."""
        managed = fabric.dra is not None and fabric.dra.managed_nics
        return [
            AdditionalNodeNetwork(network=self.vpcs[n.vpc].name,
                                  subnetwork=self.vpcs[n.vpc].subnet_names[n.subnet])
            for n in self.layout.node_networks(fabric.machine, managed)
        ]


@dataclass(frozen=True, kw_only=True)
class GcpGpuNodePoolArgs:
    """One GPU node pool on a GKE cluster (created by this program or yours)."""

    name_prefix: str
    """Starts the children's Pulumi names: ``<name_prefix>-<pool>`` (the node pool) and
    ``<name_prefix>-<pool>-workload`` (the workload policy of NVLink-domain machines)."""
    project: str
    """GCP project id of the cluster."""
    zone: str
    """The cluster's zone; the pool's nodes are placed in it (one zone: the fabric and
    compact placement do not span zones)."""
    cluster_name: pulumi.Input[str]
    """Name of the GKE cluster the pool joins (``gcp.container.Cluster.name``, or yours),
    with multi-networking and Dataplane V2 on when the pool has additional networks."""
    pool: GpuNodePoolSpec
    """The pool: machine type, node count, autoscaling bounds, capacity, placement,
    disk, image, repair/upgrade, labels and taints (a ``node_pools`` entry of the spec)."""
    fabric: FabricDescription
    """The pool's fabric description (``gpu_fabric.describe_cluster(spec)[pool.name]``):
    the node labels and taints the fabric layer selects and tolerates."""
    service_account: pulumi.Input[str]
    """Email of the nodes' service account."""
    node_networks: Sequence[AdditionalNodeNetwork] = ()
    """The pool's additional node networks in NIC order: a
    :class:`GcpFabricNetwork`'s ``node_networks(fabric)``, or your own VPCs'."""
    gpu_driver_version: str | None = None
    """``gpu_driver_installation_config.gpu_driver_version``: DEFAULT, LATEST or
    INSTALLATION_DISABLED. None: INSTALLATION_DISABLED on DRA pools (GKE installs no
    driver with DRA), else DEFAULT."""
    workload_identity: bool = True
    """Serve the GKE metadata server to pods (``workload_metadata_config`` GKE_METADATA);
    the cluster must have Workload Identity on."""
    resource_labels: Mapping[str, str] = field(default_factory=dict)
    """GCP labels of the nodes' VMs (the spec's ``tags``)."""
    workload_policy_name: str | None = None
    """GCE name of the workload policy of NVLink-domain machines (A4X); None:
    ``<name_prefix>-<pool>-workload`` (63 characters at most)."""
    depends_on: Sequence[pulumi.Resource] = ()
    """What every child waits for (only a resource the pool must not exist before;
    an id or name output in another field already orders the pool after its owner)."""

    @property
    def driver_version(self) -> str:
        """The driver setting the pool gets (``gpu_driver_version``, or its default)."""
        return self.gpu_driver_version or gpu_driver_version(None, False, dra=self.fabric.gpu_dra)


class GcpGpuNodePool(pulumi.ComponentResource):
    """A GKE GPU node pool with its additional node networks (``node_pool``: the resource)."""

    def __init__(
        self, name: str, args: GcpGpuNodePoolArgs, opts: pulumi.ResourceOptions | None = None
    ) -> None:
        super().__init__(NODE_POOL_TYPE, name, None, opts)
        base = moved_child_opts(self, opts)

        def child(**kwargs: object) -> pulumi.ResourceOptions:
            return base(depends_on=list(args.depends_on), **kwargs)

        self.node_pool = gpu_node_pool(args, child)
        self.register_outputs({"node_pool": self.node_pool.name})
