"""EKS node groups: the system group and one EFA GPU group per pool.

A GPU group gets:

* a launch template with one interface per EFA network card (layout from
  :mod:`gpu_fabric.clouds.aws.layout`), security groups on every interface and
  none on the template, no subnet (the node group sets it: EKS refuses a subnet in
  the template), no public IP (EC2 refuses one with several interfaces);
* the cluster placement group, unless a reservation already fixes placement;
* the capacity settings: ODCR target, or Capacity Block (``market_type``
  capacity-block, instance type on the template, ``CAPACITY_BLOCK`` group);
* the GPU subnet only (one AZ), AL2023 NVIDIA AMI, GPU taint and labels.
"""

from __future__ import annotations

import base64
from collections.abc import Callable, Mapping
from typing import Any

import pulumi
import pulumi_aws as aws

from gpu_fabric.clouds.aws.layout import (
    DEFAULT_ROOT_GB,
    NODEADM_USER_DATA,
    Interface,
    PoolPlan,
)
from gpu_fabric.fabric.description import FabricDescription

Opts = Callable[..., pulumi.ResourceOptions]
_EFFECTS = {"NoSchedule": "NO_SCHEDULE", "NoExecute": "NO_EXECUTE",
            "PreferNoSchedule": "PREFER_NO_SCHEDULE"}


def efa_security_group(
    name: str, cluster_name: str, vpc_id: pulumi.Input[str], tags: dict[str, str], opts: Opts
) -> aws.ec2.SecurityGroup:
    """All traffic to and from itself, nothing else (EFA's SRD is matched by SG id only).

    Both directions are needed: without the self-referencing egress rule NCCL hangs
    at the EFA handshake even when egress to 0.0.0.0/0 is open.
    """
    sg = aws.ec2.SecurityGroup(
        f"{name}-efa-sg",
        vpc_id=vpc_id,
        description=f"EFA: all traffic between GPU nodes of {cluster_name}",
        # No inline rules: the rule resources below own them (no 0.0.0.0/0 default egress).
        tags={**tags, "Name": f"{cluster_name}-efa"},
        opts=opts(),
    )
    self_reference(f"{name}-efa", sg.id, "EFA", opts)
    return sg


def self_reference(
    name: str, group_id: pulumi.Input[str], what: str, opts: Opts
) -> tuple[aws.vpc.SecurityGroupIngressRule, aws.vpc.SecurityGroupEgressRule]:
    ingress = aws.vpc.SecurityGroupIngressRule(
        f"{name}-self-ingress",
        security_group_id=group_id,
        referenced_security_group_id=group_id,
        ip_protocol="-1",
        description=f"{what}: all traffic from members of this group",
        opts=opts(),
    )
    egress = aws.vpc.SecurityGroupEgressRule(
        f"{name}-self-egress",
        security_group_id=group_id,
        referenced_security_group_id=group_id,
        ip_protocol="-1",
        description=f"{what}: all traffic to members of this group",
        opts=opts(),
    )
    return ingress, egress


def interface_args(
    iface: Interface,
    cluster_sg: pulumi.Input[str],
    efa_sg: pulumi.Input[str],
) -> aws.ec2.LaunchTemplateNetworkInterfaceArgs:
    # The primary carries the node's IP traffic: the EKS cluster SG (control plane,
    # pods) and, when it is an EFA too, the EFA SG. EFA-only interfaces carry SRD only.
    if iface.is_primary:
        groups = [cluster_sg, efa_sg] if iface.is_efa else [cluster_sg]
    else:
        groups = [efa_sg]
    return aws.ec2.LaunchTemplateNetworkInterfaceArgs(
        network_card_index=iface.network_card_index,
        device_index=iface.device_index,
        interface_type=iface.interface_type,
        security_groups=groups,
        delete_on_termination="true",
        description=f"card {iface.network_card_index} {iface.interface_type}",
    )


def gpu_launch_template(
    name: str,
    plan: PoolPlan,
    cluster_sg: pulumi.Input[str],
    efa_sg: pulumi.Input[str],
    placement_group: aws.ec2.PlacementGroup | None,
    disk_size_gb: int | None,
    tags: dict[str, str],
    opts: Opts,
    placement_group_name: str | None = None,
) -> aws.ec2.LaunchTemplate:
    capacity = None
    if plan.reservation_id:
        capacity = aws.ec2.LaunchTemplateCapacityReservationSpecificationArgs(
            capacity_reservation_target=(
                aws.ec2.LaunchTemplateCapacityReservationSpecificationCapacityReservationTargetArgs(
                    capacity_reservation_id=plan.reservation_id
                )
            ),
        )
    market = (
        aws.ec2.LaunchTemplateInstanceMarketOptionsArgs(market_type=plan.market_type)
        if plan.market_type else None
    )
    # With a launch template the root size must be set in it (the node group's disk_size
    # is refused); without one the node gets the AMI's 20 GiB.
    block_devices = [aws.ec2.LaunchTemplateBlockDeviceMappingArgs(
        device_name="/dev/xvda",
        ebs=aws.ec2.LaunchTemplateBlockDeviceMappingEbsArgs(
            volume_size=disk_size_gb or DEFAULT_ROOT_GB, volume_type="gp3", encrypted="true",
            delete_on_termination="true",
        ),
    )]
    return aws.ec2.LaunchTemplate(
        f"{name}-lt",
        description=f"EFA GPU nodes of pool {plan.pool} ({plan.instance_type})",
        # Interfaces only: security groups per interface, never on the template; no
        # subnet (the node group owns it); no public IP.
        network_interfaces=[interface_args(i, cluster_sg, efa_sg) for i in plan.interfaces]
        or None,
        # Capacity Blocks need the instance type on the template, not the node group.
        instance_type=plan.instance_type if plan.market_type else None,
        placement=aws.ec2.LaunchTemplatePlacementArgs(
            group_name=placement_group.name if placement_group is not None
            else placement_group_name)
        if placement_group is not None or placement_group_name else None,
        capacity_reservation_specification=capacity,
        instance_market_options=market,
        block_device_mappings=block_devices,
        # nodeadm: RAID0 over the instance store for containerd, kubelet and pod logs.
        user_data=base64.b64encode(NODEADM_USER_DATA.encode()).decode(),
        # IMDSv2, hop limit 1 (terraform-aws-eks bef29c4 modules/eks-managed-node-group/
        # variables.tf line 314): pods on the pod network cannot reach the node's
        # credentials; the fabric daemons (EFA device plugin, aws-node, DraNet) are
        # hostNetwork and keep IMDS.
        metadata_options=aws.ec2.LaunchTemplateMetadataOptionsArgs(
            http_endpoint="enabled", http_tokens="required", http_put_response_hop_limit=1,
        ),
        tag_specifications=[aws.ec2.LaunchTemplateTagSpecificationArgs(
            resource_type="instance", tags={**tags, "gpufabric.dev/pool": plan.pool},
        )],
        update_default_version=True,
        tags=tags or None,
        opts=opts(),
    )


def gpu_node_group(
    name: str,
    cluster_name: pulumi.Input[str],
    node_role_arn: pulumi.Input[str],
    subnet_id: pulumi.Input[str],
    plan: PoolPlan,
    fabric: FabricDescription,
    template: aws.ec2.LaunchTemplate,
    version: str,
    tags: dict[str, str],
    opts: Opts,
) -> aws.eks.NodeGroup:
    return aws.eks.NodeGroup(
        f"{name}-ng",
        cluster_name=cluster_name,
        node_group_name=f"{plan.pool}",
        node_role_arn=node_role_arn,
        # One subnet, in the GPU AZ: EFA does not cross AZs, and a cluster placement
        # group spans one AZ.
        subnet_ids=[subnet_id],
        ami_type=plan.ami_type,
        capacity_type=plan.capacity_type,
        instance_types=None if plan.market_type else [plan.instance_type],
        version=version,
        scaling_config=aws.eks.NodeGroupScalingConfigArgs(
            min_size=plan.min_size, desired_size=plan.desired_size, max_size=plan.max_size,
        ),
        # Replace GPU nodes one at a time: a training job spans all of them.
        update_config=aws.eks.NodeGroupUpdateConfigArgs(
            max_unavailable=1, update_strategy=update_strategy(plan)),
        launch_template=aws.eks.NodeGroupLaunchTemplateArgs(
            id=template.id, version=template.latest_version.apply(str),
        ),
        labels=dict(fabric.node_labels),
        taints=[
            aws.eks.NodeGroupTaintArgs(key=t.key, value=t.value or None,
                                       effect=_EFFECTS[t.effect])
            for t in fabric.taints
        ] or None,
        tags=tags or None,
        # Fixed node_group_name: a replacement deletes first (plan_facts UNIQUE_NAMES).
        opts=opts(ignore_changes=["scalingConfig.desiredSize"], delete_before_replace=True),
    )


def update_strategy(plan: PoolPlan) -> str | None:
    """``MINIMAL`` on reserved capacity (an ODCR or a Capacity Block), else the default.

    EKS's default update launches the new nodes first: it raises the Auto Scaling
    group's max and desired size by up to two instances per AZ or ``maxUnavailable``
    (https://docs.aws.amazon.com/eks/latest/userguide/managed-node-update-behavior.html,
    "Scale up phase"). A full reservation or Capacity Block has no spare instance, so
    the launch fails (NodeCreationFailure) and the update stalls. ``MINIMAL`` terminates
    old instances first and never scales beyond the group's size (AWS::EKS::Nodegroup
    UpdateConfig ``UpdateStrategy``, https://docs.aws.amazon.com/AWSCloudFormation/
    latest/TemplateReference/aws-properties-eks-nodegroup-updateconfig.html): with
    ``maxUnavailable`` 1 one node is down at a time and no spare capacity is needed.
    """
    reserved = plan.reservation_id is not None or plan.capacity_type == "CAPACITY_BLOCK"
    return "MINIMAL" if reserved else None


def system_node_group(
    name: str,
    cluster: aws.eks.Cluster,
    node_role_arn: pulumi.Input[str],
    subnet_ids: list[pulumi.Input[str]],
    instance_type: str,
    count: int,
    version: str,
    tags: Mapping[str, str],
    opts: Opts,
    depends_on: list[pulumi.Resource],
) -> aws.eks.NodeGroup:
    kwargs: dict[str, Any] = {}
    return aws.eks.NodeGroup(
        f"{name}-system",
        cluster_name=cluster.name,
        node_group_name="system",
        node_role_arn=node_role_arn,
        subnet_ids=subnet_ids,
        ami_type="AL2023_x86_64_STANDARD",
        capacity_type="ON_DEMAND",
        instance_types=[instance_type],
        version=version,
        scaling_config=aws.eks.NodeGroupScalingConfigArgs(
            min_size=count, desired_size=count, max_size=count + 1,
        ),
        labels={"gpufabric.dev/role": "system"},
        tags=dict(tags) or None,
        # Fixed name: a replacement deletes first (plan_facts UNIQUE_NAMES).
        opts=opts(depends_on=depends_on, delete_before_replace=True),
        **kwargs,
    )
