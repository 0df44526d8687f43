"""Reusable EKS building blocks: the fabric network, and an EFA GPU node group.

:class:`AwsGpuCluster` composes them; a team that already runs a VPC or an EKS
cluster uses them alone (``examples/aws-efa-existing-eks``), the way pulumi-eks
exports ``Cluster``, ``ManagedNodeGroup`` and ``NodeGroupV2`` separately.

* :class:`AwsFabricNetwork` (``gpufabric:aws:FabricNetwork``): the VPC (private +
  public subnet per AZ, one GPU subnet, IGW, NAT, routes) or an existing VPC's
  ids, and the EFA security group (self-referencing rules only).
* :class:`AwsEfaNodeGroup` (``gpufabric:aws:GpuNodeGroup``): a GPU pool's cluster
  placement group, its launch template (one EFA interface per network card) and
  its EKS managed node group, on a cluster created here or an existing one.

The blocks wrap the builders of ``network`` and ``nodegroup``. Children keep the
names they had as direct children of the cluster component, and under a
``GpuCluster`` each carries ``pulumi.Alias(parent=<the cluster>)``
(:func:`~gpu_fabric.clouds.blocks.moved_child_opts`), so stacks created before the
blocks keep their URNs. Public names: ``gpu_fabric.aws.FabricNetwork``,
``gpu_fabric.aws.EfaNodeGroup`` (and their Args).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import pulumi
import pulumi_aws as aws

from gpu_fabric.clouds.aws.layout import NetworkPlan, check_vpc_cni, plan_pool
from gpu_fabric.clouds.aws.network import Network, create_network, existing_network
from gpu_fabric.clouds.aws.nodegroup import (
    efa_security_group,
    gpu_launch_template,
    gpu_node_group,
)
from gpu_fabric.clouds.blocks import ExistingCluster, moved_child_opts
from gpu_fabric.fabric.description import FabricDescription
from gpu_fabric.spec import GpuNodePoolSpec

__all__ = ["AwsEfaNodeGroup", "AwsEfaNodeGroupArgs", "AwsFabricNetwork", "AwsFabricNetworkArgs",
           "ExistingCluster", "ExistingVpc"]

NETWORK_TYPE = "gpufabric:aws:FabricNetwork"
NODE_GROUP_TYPE = "gpufabric:aws:GpuNodeGroup"
# aws.efa_interface_layout's values (gpu_fabric.clouds.aws.options.AwsOptions).
EFA_INTERFACE_LAYOUTS = ("ena-primary", "efa-primary")


@dataclass(frozen=True, kw_only=True)
class ExistingVpc:
    """A VPC you already run: private subnets in >= 2 AZs and the GPU subnet (one AZ)."""

    vpc_id: pulumi.Input[str]
    """The VPC's id (``vpc-...``); the EFA security group is created in it."""
    private_subnet_ids: Sequence[pulumi.Input[str]]
    """Private subnets in at least two AZs (the EKS control plane's ENIs)."""
    gpu_subnet_id: pulumi.Input[str]
    """The one subnet GPU nodes use (EFA does not cross AZs)."""


@dataclass(frozen=True, kw_only=True)
class AwsFabricNetworkArgs:
    """A new VPC for an EKS GPU cluster (``cidr`` + ``plan``), or your ``existing`` one;
    either way the EFA security group."""

    name_prefix: str
    """Starts every child's Pulumi name (``<name_prefix>-vpc``, ``<name_prefix>-efa-sg``)."""
    cluster_name: str
    """The EKS cluster's name: in the AWS ``Name`` tags and the subnets'
    ``kubernetes.io/cluster/<name>`` tag, and in the EFA group's description."""
    cidr: str | None = None
    """The new VPC's IPv4 range (with ``plan``; not with ``existing``)."""
    plan: NetworkPlan | None = None
    """The new VPC's subnets (private + public per AZ, the GPU subnet), as plain data
    (the spec's ``network_plan``)."""
    existing: ExistingVpc | None = None
    """Your VPC instead of a new one: nothing but the EFA security group is created."""
    tags: Mapping[str, str] = field(default_factory=dict)
    """AWS tags of every child."""


class AwsFabricNetwork(pulumi.ComponentResource):
    """``network``: VPC and subnet ids (and NAT routes to wait for); ``efa_security_group``."""

    network: Network
    efa_security_group: aws.ec2.SecurityGroup

    def __init__(
        self, name: str, args: AwsFabricNetworkArgs, opts: pulumi.ResourceOptions | None = None
    ) -> None:
        if args.existing is None and (args.cidr is None or args.plan is None):
            raise ValueError("AwsFabricNetworkArgs: give cidr and plan (a new VPC), or "
                             "existing (your VPC's ids)")
        super().__init__(NETWORK_TYPE, name, None, opts)
        child = moved_child_opts(self, opts)
        tags = dict(args.tags)
        if args.existing is not None:
            ex = args.existing
            self.network = existing_network(ex.vpc_id, list(ex.private_subnet_ids),
                                            ex.gpu_subnet_id)
        else:
            assert args.cidr is not None and args.plan is not None
            self.network = create_network(args.name_prefix, args.cluster_name, args.cidr,
                                          args.plan, tags, child)
        self.efa_security_group = efa_security_group(
            args.name_prefix, args.cluster_name, self.network.vpc_id, tags, child
        )
        self.register_outputs({
            "vpc_id": self.network.vpc_id,
            "gpu_subnet_id": self.network.gpu_subnet_id,
            "efa_security_group_id": self.efa_security_group.id,
        })


@dataclass(frozen=True, kw_only=True)
class AwsEfaNodeGroupArgs:
    """One EFA GPU pool on an EKS cluster (created by this program or yours)."""

    name_prefix: str
    """Starts the children's Pulumi names: ``<name_prefix>-pg`` (placement group),
    ``<name_prefix>-lt`` (launch template), ``<name_prefix>-ng`` (node group)."""
    cluster_name: pulumi.Input[str]
    """Name of the EKS cluster the node group joins (``aws.eks.Cluster.name``, or yours)."""
    node_role_arn: pulumi.Input[str]
    """ARN of the nodes' IAM role (with the EKS worker and ECR pull policies; the CNI policy
    on it only if your vpc-cni has no role of its own)."""
    subnet_id: pulumi.Input[str]
    """The GPU subnet (one AZ: EFA does not cross AZs, nor does a placement group)."""
    pool: GpuNodePoolSpec
    """The pool: instance type, node count and autoscaling bounds, capacity
    (on-demand, spot, reservation, Capacity Block), placement, disk, AMI type."""
    fabric: FabricDescription
    """The pool's fabric description (``gpu_fabric.describe_cluster(spec)[pool.name]``):
    the node labels and taints the fabric layer selects and tolerates."""
    cluster_security_group_id: pulumi.Input[str]
    """The EKS cluster security group every interface joins (control plane, pods)."""
    efa_security_group_id: pulumi.Input[str]
    """The EFA security group the EFA interfaces join: an :class:`AwsFabricNetwork`'s, or
    yours (all traffic between its members)."""
    kubernetes_version: str
    """The node group's Kubernetes minor version, e.g. ``1.34`` (the cluster's)."""
    efa_interface_layout: str = "ena-primary"
    """``ena-primary``: card 0 device 0 is a plain ENA and every EFA is efa-only (AWS
    guidance); ``efa-primary``: card 0 device 0 is a combined EFA+ENA."""
    placement_group_name: str | None = None
    """An existing cluster placement group to launch into (instead of a new one): the one a
    Capacity Reservation was created in (EC2 cr-cpg), which makes ``compact`` valid with
    a reservation."""
    vpc_cni_version: str | None = None
    """The cluster's VPC CNI version (``v1.20.1-eksbuild.3`` or ``1.20.1``): required when
    the launch template has efa-only interfaces (every EFA layout does), which need
    1.18.5 or later (EKS user guide node-efa); an older one is refused before any resource."""
    tags: Mapping[str, str] = field(default_factory=dict)
    """AWS tags of every child (instances also get ``gpufabric.dev/pool``)."""
    depends_on: Sequence[pulumi.Resource] = ()
    """What the node group waits for (node role policies, NAT routes, the vpc-cni
    add-on): nodes that boot before them never join."""


class AwsEfaNodeGroup(pulumi.ComponentResource):
    """An EFA GPU node group: ``placement_group`` (or None), ``launch_template``, ``node_group``."""

    def __init__(
        self, name: str, args: AwsEfaNodeGroupArgs, opts: pulumi.ResourceOptions | None = None
    ) -> None:
        if args.efa_interface_layout not in EFA_INTERFACE_LAYOUTS:
            raise ValueError(
                f"AwsEfaNodeGroupArgs.efa_interface_layout: '{args.efa_interface_layout}' is "
                f"not an interface layout; use one of {', '.join(EFA_INTERFACE_LAYOUTS)}"
            )
        plan = plan_pool(args.pool, args.efa_interface_layout, "AwsEfaNodeGroupArgs.pool",
                         args.placement_group_name, "AwsEfaNodeGroupArgs.placement_group_name")
        check_vpc_cni(args.vpc_cni_version, [plan], "AwsEfaNodeGroupArgs.vpc_cni_version",
                      "(upgrade the vpc-cni add-on first)")
        super().__init__(NODE_GROUP_TYPE, name, None, opts)
        child = moved_child_opts(self, opts)
        base = args.name_prefix
        tags = dict(args.tags)
        self.placement_group = None
        if plan.placement_group:
            self.placement_group = aws.ec2.PlacementGroup(
                f"{base}-pg", strategy="cluster",
                tags={**tags, "gpufabric.dev/pool": plan.pool},
                opts=child(),
            )
        self.launch_template = gpu_launch_template(
            base, plan, args.cluster_security_group_id, args.efa_security_group_id,
            self.placement_group, args.pool.disk_size_gb, tags, child,
            placement_group_name=plan.placement_group_name,
        )
        self.node_group = gpu_node_group(
            base, args.cluster_name, args.node_role_arn, args.subnet_id, plan, args.fabric,
            self.launch_template, args.kubernetes_version, tags,
            lambda **kw: child(depends_on=list(args.depends_on), **kw),
        )
        self.register_outputs({"node_group_name": self.node_group.node_group_name})
