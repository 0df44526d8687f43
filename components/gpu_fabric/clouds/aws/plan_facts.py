"""What the offline planner knows about the AWS provider (pulumi-aws): the inputs that
force a replacement, the inputs the program ignores after create, and the config keys
and token shapes that are credentials (read by :mod:`gpu_fabric.plan.cloud_facts`).
"""

from __future__ import annotations

from gpu_fabric.plan.cloud_facts import PlanFacts

PLAN_FACTS = PlanFacts(
    replacing_inputs={
        "aws:eks/cluster:Cluster": (
            "name", "roleArn", "vpcConfig.subnetIds",
            "accessConfig.bootstrapClusterCreatorAdminPermissions",
        ),
        "aws:eks/nodeGroup:NodeGroup": (
            "clusterName", "nodeGroupName", "nodeRoleArn", "subnetIds", "instanceTypes",
            "amiType", "capacityType", "diskSize", "remoteAccess",
        ),
        "aws:ec2/vpc:Vpc": ("cidrBlock",),
        "aws:ec2/subnet:Subnet": ("vpcId", "cidrBlock", "availabilityZone"),
        "aws:ec2/placementGroup:PlacementGroup": ("name", "strategy"),
        "aws:ec2/securityGroup:SecurityGroup": ("name", "vpcId", "description"),
    },
    # The node group's desired size is the autoscaler's (ignore_changes).
    ignored_inputs={"aws:eks/nodeGroup:NodeGroup": ("scalingConfig.desiredSize",)},
    credential_keys=frozenset({"aws:secretKey", "aws:accessKey", "aws:token"}),
    # Access key ids: long-term AKIA..., temporary (STS) ASIA..., 16 more characters.
    token_patterns=("AKIA[0-9A-Z]{16}", "ASIA[0-9A-Z]{16}"),
)
