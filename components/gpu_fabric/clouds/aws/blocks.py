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
names they had as direct children of the cluster component, and with
``aliases_parent`` (the cluster passes itself) each carries
``pulumi.Alias(parent=...)``, so stacks created before the blocks keep their URNs.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import pulumi
import pulumi_aws as aws

from gpu_fabric.clouds.aws.layout import NetworkPlan, PoolPlan
from gpu_fabric.clouds.aws.network import Network, create_network, existing_network
from gpu_fabric.clouds.aws.nodegroup import (
    efa_security_group,
    gpu_launch_template,
    gpu_node_group,
)
from gpu_fabric.clouds.blocks import ExistingCluster, moved_child_opts
from gpu_fabric.fabric.description import FabricDescription

__all__ = ["AwsEfaNodeGroup", "AwsEfaNodeGroupArgs", "AwsFabricNetwork", "AwsFabricNetworkArgs",
           "ExistingCluster", "ExistingVpc"]

NETWORK_TYPE = "gpufabric:aws:FabricNetwork"
NODE_GROUP_TYPE = "gpufabric:aws:GpuNodeGroup"


@dataclass(frozen=True)
class ExistingVpc:
    """A VPC you already run: private subnets in >= 2 AZs and the GPU subnet (one AZ)."""

    vpc_id: str
    private_subnet_ids: list[str]
    gpu_subnet_id: str


@dataclass(frozen=True)
class AwsFabricNetworkArgs:
    """A new VPC (``cidr`` + ``plan`` from :func:`~gpu_fabric.clouds.aws.layout.network_plan`)
    or ``existing``; ``name_prefix`` starts every child's Pulumi name."""

    name_prefix: str
    cluster_name: str
    cidr: str | None = None
    plan: NetworkPlan | None = None
    existing: ExistingVpc | None = None
    tags: dict[str, str] = field(default_factory=dict)
    aliases_parent: pulumi.Resource | None = None


class AwsFabricNetwork(pulumi.ComponentResource):
    """``network``: VPC and subnet ids (and NAT routes to wait for); ``efa_security_group``."""

    network: Network
    efa_security_group: aws.ec2.SecurityGroup

    def __init__(
        self, name: str, args: AwsFabricNetworkArgs, opts: pulumi.ResourceOptions | None = None
    ) -> None:
        super().__init__(NETWORK_TYPE, name, None, opts)
        child = moved_child_opts(self, args.aliases_parent)
        if args.existing is not None:
            ex = args.existing
            self.network = existing_network(ex.vpc_id, ex.private_subnet_ids, ex.gpu_subnet_id)
        else:
            if args.cidr is None or args.plan is None:
                raise ValueError("AwsFabricNetworkArgs: give cidr and plan, or existing")
            self.network = create_network(args.name_prefix, args.cluster_name, args.cidr,
                                          args.plan, args.tags, child)
        self.efa_security_group = efa_security_group(
            args.name_prefix, args.cluster_name, self.network.vpc_id, args.tags, child
        )
        self.register_outputs({
            "vpc_id": self.network.vpc_id,
            "gpu_subnet_id": self.network.gpu_subnet_id,
            "efa_security_group_id": self.efa_security_group.id,
        })


@dataclass(frozen=True)
class AwsEfaNodeGroupArgs:
    """One GPU pool (``plan`` from :func:`~gpu_fabric.clouds.aws.layout.pool_plans`) on
    ``cluster`` (``aws.eks.Cluster`` or :class:`ExistingCluster`), in ``subnet_id``.

    ``cluster_security_group_id``: the EKS cluster security group every interface
    joins; ``efa_security_group_id``: an :class:`AwsFabricNetwork`'s (or yours).
    """

    name_prefix: str
    cluster: aws.eks.Cluster | ExistingCluster
    node_role_arn: pulumi.Input[str]
    subnet_id: pulumi.Input[str]
    plan: PoolPlan
    fabric: FabricDescription
    cluster_security_group_id: pulumi.Input[str]
    efa_security_group_id: pulumi.Input[str]
    kubernetes_version: str
    disk_size_gb: int | None = None
    tags: dict[str, str] = field(default_factory=dict)
    depends_on: list[pulumi.Resource] = field(default_factory=list)
    aliases_parent: pulumi.Resource | None = None


class AwsEfaNodeGroup(pulumi.ComponentResource):
    """An EFA GPU node group: ``placement_group`` (or None), ``launch_template``, ``node_group``."""

    def __init__(
        self, name: str, args: AwsEfaNodeGroupArgs, opts: pulumi.ResourceOptions | None = None
    ) -> None:
        super().__init__(NODE_GROUP_TYPE, name, None, opts)
        child = moved_child_opts(self, args.aliases_parent)
        base = args.name_prefix
        self.placement_group = None
        if args.plan.placement_group:
            self.placement_group = aws.ec2.PlacementGroup(
                f"{base}-pg", strategy="cluster",
                tags={**args.tags, "gpufabric.dev/pool": args.plan.pool},
                opts=child(),
            )
        self.launch_template = gpu_launch_template(
            base, args.plan, args.cluster_security_group_id, args.efa_security_group_id,
            self.placement_group, args.disk_size_gb, args.tags, child,
        )
        self.node_group = gpu_node_group(
            base, args.cluster, args.node_role_arn, args.subnet_id, args.plan, args.fabric,
            self.launch_template, args.kubernetes_version, args.tags,
            lambda **kw: child(depends_on=list(args.depends_on), **kw),
        )
        self.register_outputs({"node_group_name": self.node_group.node_group_name})
