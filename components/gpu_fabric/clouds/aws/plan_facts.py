"""What the offline planner knows about the AWS provider (pulumi-aws): the inputs that
force a replacement, the inputs the program ignores after create, and the config keys
and token shapes that are credentials (read by :mod:`gpu_fabric.plan.cloud_facts`).
"""

from __future__ import annotations

from gpu_fabric.plan.cloud_facts import NodeUpdate, PlanFacts
from gpu_fabric.plan.replacing_data import replacing_blocks, replacing_prefixes

_AUTONAMED = "autonamed: no name input, Pulumi appends a random suffix"

PLAN_FACTS = PlanFacts(
    # The provider's own ForceNew / RequiresReplace marks, read from
    # hashicorp/terraform-provider-aws with the commit, file and line of each
    # (plan/data/replacing_inputs.json, scripts/extract_replacing_inputs.py AWS_FILES;
    # issue 32). Its "pin_gap" says which Terraform release pulumi-aws 7.51.1 bridges
    # could not be established offline.
    replacing_inputs=replacing_prefixes("aws"),
    replacing_blocks=replacing_blocks("aws"),
    credential_keys=frozenset({"aws:secretKey", "aws:accessKey", "aws:token"}),
    # Access key ids: long-term AKIA..., temporary (STS) ASIA..., 16 more characters.
    token_patterns=("AKIA[0-9A-Z]{16}", "ASIA[0-9A-Z]{16}"),
    # Secret access keys (issue 34), after awslabs/git-secrets ``git-secrets`` at
    # 79a73d8ade413f4e15f24f935bc903d53d3fbaf2, register_aws(): 40 characters of
    # [A-Za-z0-9/+=] assigned to an (AWS_)(SECRET_)(ACCESS_)KEY name; here the name must
    # say "secret" (a bare "key = ..." is too common). Alone, the shape is too common to
    # refuse; beside an access key id (same mapping or list) it is the pair's secret: 40
    # base64 characters with an upper-case and a lower-case letter and a digit, '/' or
    # '+' (a hex digest has no upper case).
    secret_patterns=((
        r"(?i:(aws)?_?secret_?(access)?_?key)[\"']?\s*(:|=>|=)\s*[\"']?[A-Za-z0-9/+=]{40}"
        r"(?![A-Za-z0-9/+=])",
        "an AWS secret access key",
    ),),
    paired_secrets=((
        "(A3T[A-Z0-9]|AKIA|ASIA)[A-Z0-9]{16}",
        "(?=[A-Za-z0-9/+]*[A-Z])(?=[A-Za-z0-9/+]*[a-z])(?=[A-Za-z0-9/+]*[0-9/+])"
        "[A-Za-z0-9/+]{40}",
        "an AWS secret access key (40 characters beside an access key id)",
    ),),
    # The cluster name is unique in the account and region, a node group's in its
    # cluster (EKS: ResourceInUseException). VPCs, subnets and gateways have no
    # unique name (their Name tag is a tag); roles, security groups, launch templates
    # and placement groups are autonamed (no name input, the test checks).
    unique_names={
        "aws:eks/cluster:Cluster": ("name",),
        "aws:eks/nodeGroup:NodeGroup": ("nodeGroupName",),
    },
    roles={
        "aws:eks/cluster:Cluster": "cluster",
        "aws:eks/nodeGroup:NodeGroup": "pool",
        "aws:ec2/vpc:Vpc": "network",
        "aws:ec2/subnet:Subnet": "network",
    },
    # A version/AMI release/launch template change replaces every node: the default
    # strategy launches up to two new instances per AZ first (GPU groups: one AZ), then
    # drains maxUnavailable (default 1) at a time; MINIMAL terminates first
    # (https://docs.aws.amazon.com/eks/latest/userguide/managed-node-update-behavior.html).
    node_updates={
        "aws:eks/nodeGroup:NodeGroup": NodeUpdate(
            rolling_inputs=("version", "releaseVersion", "launchTemplate"),
            surge_default=2, unavailable_path="updateConfig.maxUnavailable",
            unavailable_default=1,
            no_surge_when=("updateConfig.updateStrategy", "MINIMAL"),
            # "When upgrading a managed node group with Capacity Blocks, make sure to set
            # the desired node group size to 0" (https://docs.aws.amazon.com/eks/latest/
            # userguide/capacity-blocks-mng.html, Considerations).
            warn_when=("capacityType", "CAPACITY_BLOCK",
                       "Capacity Block: scale the group to 0 before this update "
                       "(docs/day2.md#eks-upgrade-kubernetes)"),
            source="https://docs.aws.amazon.com/eks/latest/userguide/"
                   "managed-node-update-behavior.html",
        ),
    },
    # The GPU node group follows its launch template's latest version: a template change
    # is a new version, and EKS replaces every node of the group with it (the
    # managed-node-update-behavior page above, "Setup phase").
    rolls_through={
        "aws:ec2/launchTemplate:LaunchTemplate": (
            "a new launch template version: EKS rolls every node of the node group using it, "
            "with that group's updateConfig"),
    },
    control_plane_inputs={"aws:eks/cluster:Cluster": ("version",)},
    runbook="eks",
    free_names={
        "aws:eks/addon:Addon": "identity (clusterName, addonName) is its replacing inputs",
        "aws:eks/accessEntry:AccessEntry": (
            "identity (clusterName, principalArn) is its replacing inputs"),
        "aws:iam/role:Role": _AUTONAMED,
        "aws:iam/rolePolicyAttachment:RolePolicyAttachment": (
            "identity (role, policyArn) is its replacing inputs"),
        "aws:iam/openIdConnectProvider:OpenIdConnectProvider": (
            "identity (url, unique per account) is its only replacing input"),
        "aws:ec2/securityGroup:SecurityGroup": _AUTONAMED,
        "aws:ec2/launchTemplate:LaunchTemplate": _AUTONAMED,
        "aws:ec2/placementGroup:PlacementGroup": _AUTONAMED,
        "aws:ec2/vpc:Vpc": "no name (the Name tag need not be unique)",
        "aws:ec2/subnet:Subnet": "no name (the Name tag need not be unique)",
        "aws:ec2/eip:Eip": "no name",
        "aws:ec2/internetGateway:InternetGateway": "no name",
        "aws:ec2/natGateway:NatGateway": "no name",
        "aws:ec2/routeTable:RouteTable": "no name",
        "aws:ec2/vpcEndpoint:VpcEndpoint": "no name (the Name tag need not be unique)",
        "aws:ec2/route:Route": (
            "identity (routeTableId, destination) is its replacing inputs"),
        "aws:ec2/routeTableAssociation:RouteTableAssociation": (
            "identity (subnetId) is its replacing input"),
        "aws:vpc/securityGroupIngressRule:SecurityGroupIngressRule": (
            "no name; replaced only with its security group"),
        "aws:vpc/securityGroupEgressRule:SecurityGroupEgressRule": (
            "no name; replaced only with its security group"),
    },
)
