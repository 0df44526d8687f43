"""Per-cloud building blocks (issue 22): their own component types in the plan tree, and
every resource that moved under one still answers to its old URN through an alias.

The old URNs below are literal lines of the committed lists before the blocks existed
(``tests/data/urns/<stack>.txt`` at commit 404a728 for GCP and AWS, at commit 137271c
for Azure, DigitalOcean and OCI; line numbers given); the lists now
record them as ``retired OLD -> NEW``, and ``test_urn_stability`` keeps checking that
each is still aliased.
"""

from __future__ import annotations

import pytest

from components.cli.urns import URN_DIR
from components.plan.urns import read

GCP_OLD = "urn:pulumi:gcp-a4::gpu-fabric::gpufabric:gcp:GpuCluster$"
AWS_OLD = "urn:pulumi:aws-p5::gpu-fabric::gpufabric:aws:GpuCluster$"
AZURE_OLD = "urn:pulumi:azure-ndv5::gpu-fabric::gpufabric:azure:GpuCluster$"
MOVED = {
    "gcp-a4": {
        # (old URN, line in gcp-a4.txt @404a728) -> the block type that now holds it
        GCP_OLD + "gcp:container/nodePool:NodePool::dranet-dranet-a4": "gpufabric:gcp:GpuNodePool",
        GCP_OLD + "gcp:compute/network:Network::dranet-rdma-net": "gpufabric:gcp:FabricNetwork",
        GCP_OLD + "gcp:compute/subnetwork:Subnetwork::dranet-rdma-sub-7":
            "gpufabric:gcp:FabricNetwork",  # line 15
        GCP_OLD + "gcp:compute/firewall:Firewall::dranet-gvnic-internal":
            "gpufabric:gcp:FabricNetwork",  # line 1
    },
    "aws-p5": {
        AWS_OLD + "aws:eks/nodeGroup:NodeGroup::eks-p5-p5-ng": "gpufabric:aws:GpuNodeGroup",
        AWS_OLD + "aws:ec2/launchTemplate:LaunchTemplate::eks-p5-p5-lt":
            "gpufabric:aws:GpuNodeGroup",  # line 3
        AWS_OLD + "aws:ec2/placementGroup:PlacementGroup::eks-p5-p5-pg":
            "gpufabric:aws:GpuNodeGroup",  # line 5
        AWS_OLD + "aws:ec2/vpc:Vpc::eks-p5-vpc": "gpufabric:aws:FabricNetwork",  # line 25
        AWS_OLD + "aws:ec2/securityGroup:SecurityGroup::eks-p5-efa-sg":
            "gpufabric:aws:FabricNetwork",  # line 19
        AWS_OLD + "aws:vpc/securityGroupIngressRule:SecurityGroupIngressRule::"
        "eks-p5-efa-self-ingress": "gpufabric:aws:FabricNetwork",  # line 38
    },
    "azure-ndv5": {  # tests/data/urns/azure-ndv5.txt @137271c
        AZURE_OLD + "azure-native:containerservice:AgentPool::azure-ndv5-pool-h100":
            "gpufabric:azure:GpuNodePool",  # line 3
        AZURE_OLD + "azure-native:network:NetworkSecurityGroup::azure-ndv5-nsg":
            "gpufabric:azure:FabricNetwork",  # line 6
        AZURE_OLD + "azure-native:network:Subnet::azure-ndv5-nodes":
            "gpufabric:azure:FabricNetwork",  # line 7
        AZURE_OLD + "azure-native:network:VirtualNetwork::azure-ndv5-vnet":
            "gpufabric:azure:FabricNetwork",  # line 8
    },
}
# Stayed direct children of the cluster (line numbers @137271c): the subscription-wide
# InfiniBand feature (one per subscription, shared by every pool) and the cluster's own
# resources.
STAYED = {
    "azure-ndv5": [
        AZURE_OLD + "azure-native:features:SubscriptionFeatureRegistration::"
        "azure-ndv5-ib-feature",  # line 5
        AZURE_OLD + "azure-native:containerservice:ManagedCluster::azure-ndv5-aks",  # line 4
        AZURE_OLD + "azure-native:authorization:RoleAssignment::"
        "azure-ndv5-subnet-access-nodes",  # line 2
    ],
}
BLOCKS = {
    "gcp-a4": {"gpufabric:gcp:FabricNetwork": "dranet-network",
               "gpufabric:gcp:GpuNodePool": "dranet-dranet-a4-pool"},
    "aws-p5": {"gpufabric:aws:FabricNetwork": "eks-p5-network",
               "gpufabric:aws:GpuNodeGroup": "eks-p5-p5-pool"},
    "azure-ndv5": {"gpufabric:azure:FabricNetwork": "azure-ndv5-network",
                   "gpufabric:azure:GpuNodePool": "azure-ndv5-h100-pool"},
}


@pytest.mark.parametrize("stack", sorted(BLOCKS))
def test_the_plan_tree_shows_the_blocks_under_the_cluster(stack: str, stack_plan) -> None:
    plan = stack_plan(stack)
    cluster = plan.one(f"gpufabric:{stack.split('-')[0]}:GpuCluster")
    for block_type, name in BLOCKS[stack].items():
        block = plan.one(block_type, name)
        assert block.parent == cluster.urn
        assert [r for r in plan.resources if r.parent == block.urn], block_type


@pytest.mark.parametrize("stack", sorted(MOVED))
def test_moved_resources_carry_their_old_urns(stack: str, stack_plan) -> None:
    plan = stack_plan(stack)
    by_alias = {a: r for r in plan.resources for a in r.aliases}
    for old, block_type in MOVED[stack].items():
        assert old not in {r.urn for r in plan.resources}
        moved = by_alias[old]  # KeyError: the alias is gone, pulumi up would replace it
        parent = next(r for r in plan.resources if r.urn == moved.parent)
        assert parent.type == block_type
        assert moved.name == old.rsplit("::", 1)[1]  # same name, new parent only
        assert read(URN_DIR / f"{stack}.txt").retired[old] == moved.urn


@pytest.mark.parametrize("stack", sorted(MOVED))
def test_every_resource_that_left_the_cluster_is_aliased(stack: str, stack_plan) -> None:
    """Nothing that was a direct child of the cluster is lost: it is still one, or aliased."""
    committed = read(URN_DIR / f"{stack}.txt")
    plan = stack_plan(stack)
    aliases = {a for r in plan.resources for a in r.aliases}
    now = {r.urn for r in plan.resources}
    assert committed.retired  # the blocks moved resources on these stacks
    for old in committed.retired:
        assert old in aliases and old not in now, old


@pytest.mark.parametrize("stack", sorted(STAYED))
def test_shared_resources_stay_under_the_cluster(stack: str, stack_plan) -> None:
    """What is not one pool's or the network's keeps its URN without an alias."""
    now = {r.urn for r in stack_plan(stack).resources}
    for urn in STAYED[stack]:
        assert urn in now, urn
