"""Per-cloud building blocks (issue 22): their own component types in the plan tree, and
every resource that moved under one still answers to its old URN through an alias.

The old URNs below are literal lines of the committed lists before the blocks existed
(``tests/data/urns/<stack>.txt`` at commit 404a728 for GCP and AWS, at commit 137271c
for Azure and DigitalOcean, at commit e3ec929 for OCI; line numbers given); the lists now
record them as ``retired OLD -> NEW``, and ``test_urn_stability`` keeps checking that
each is still aliased.
"""

from __future__ import annotations

import importlib
from dataclasses import fields, replace
from typing import TYPE_CHECKING

import pytest

from gpu_fabric.cli.urns import URN_DIR
from gpu_fabric.clouds.digitalocean.blocks import (
    DigitalOceanFabricNetwork,
    DigitalOceanFabricNetworkArgs,
    DoksGpuNodePool,
    DoksGpuNodePoolArgs,
)
from gpu_fabric.clouds.oci.blocks import OciGpuNodePool, OciGpuNodePoolArgs
from gpu_fabric.fabric.description import FabricDescription, describe_cluster
from gpu_fabric.plan.runner import run_program
from gpu_fabric.plan.urns import read
from gpu_fabric.spec import GpuNodePoolSpec, load_spec
from tests.specs import spec_dict

if TYPE_CHECKING:
    from gpu_fabric.gcp import GpuNodePoolArgs as GpuNodePoolArgsType

GCP_OLD = "urn:pulumi:gcp-a4::gpu-fabric::gpufabric:gcp:GpuCluster$"
AWS_OLD = "urn:pulumi:aws-p5::gpu-fabric::gpufabric:aws:GpuCluster$"
AZURE_OLD = "urn:pulumi:azure-ndv5::gpu-fabric::gpufabric:azure:GpuCluster$"
DO_OLD = "urn:pulumi:do-h200::gpu-fabric::gpufabric:digitalocean:GpuCluster$"
OCI_OLD = "urn:pulumi:oci-h100::gpu-fabric::gpufabric:oci:GpuCluster$"
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
    "do-h200": {  # tests/data/urns/do-h200.txt @137271c
        DO_OLD + "digitalocean:index/kubernetesNodePool:KubernetesNodePool::do-h200-h200":
            "gpufabric:digitalocean:GpuNodePool",  # line 2
        DO_OLD + "digitalocean:index/vpc:Vpc::do-h200-vpc":
            "gpufabric:digitalocean:FabricNetwork",  # line 3
    },
    "oci-h100": {  # tests/data/urns/oci-h100.txt @e3ec929
        OCI_OLD + "oci:ContainerEngine/nodePool:NodePool::oci-h100-h100":
            "gpufabric:oci:GpuNodePool",  # line 21
        OCI_OLD + "oci:Core/computeCluster:ComputeCluster::oci-h100-h100-rdma":
            "gpufabric:oci:GpuNodePool",  # line 23
        OCI_OLD + "oci:Core/natGateway:NatGateway::oci-h100-nat":
            "gpufabric:oci:FabricNetwork",  # line 24
        OCI_OLD + "oci:Core/securityList:SecurityList::oci-h100-workers-sl":
            "gpufabric:oci:FabricNetwork",  # line 29
        OCI_OLD + "oci:Core/subnet:Subnet::oci-h100-workers-subnet":
            "gpufabric:oci:FabricNetwork",  # line 34
        OCI_OLD + "oci:Core/vcn:Vcn::oci-h100-vcn": "gpufabric:oci:FabricNetwork",  # line 35
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
    # The DOKS cluster holds the cluster-wide managed components (RDMA shared device
    # plugin, GPU plugin): not one pool's.
    "do-h200": [
        DO_OLD + "digitalocean:index/kubernetesCluster:KubernetesCluster::do-h200-doks",  # line 1
    ],
    # The OKE cluster and its system pool, and the launch policy every GPU pool shares
    # (one per cluster; in compute-cluster scope it names every pool's compute cluster).
    "oci-h100": [
        OCI_OLD + "oci:ContainerEngine/cluster:Cluster::oci-h100-oke",  # line 20
        OCI_OLD + "oci:ContainerEngine/nodePool:NodePool::oci-h100-system",  # line 22
        OCI_OLD + "oci:Identity/policy:Policy::oci-h100-compute-cluster-launch",  # line 36
    ],
}
BLOCKS = {
    "gcp-a4": {"gpufabric:gcp:FabricNetwork": "dranet-network",
               "gpufabric:gcp:GpuNodePool": "dranet-dranet-a4-pool"},
    "aws-p5": {"gpufabric:aws:FabricNetwork": "eks-p5-network",
               "gpufabric:aws:GpuNodeGroup": "eks-p5-p5-pool"},
    "azure-ndv5": {"gpufabric:azure:FabricNetwork": "azure-ndv5-network",
                   "gpufabric:azure:GpuNodePool": "azure-ndv5-h100-pool"},
    "do-h200": {"gpufabric:digitalocean:FabricNetwork": "do-h200-network",
                "gpufabric:digitalocean:GpuNodePool": "do-h200-h200-pool"},
    "oci-h100": {"gpufabric:oci:FabricNetwork": "oci-h100-network",
                 "gpufabric:oci:GpuNodePool": "oci-h100-h100-pool"},
}
# The cluster component's module where the stack name abbreviates it.
MODULE = {"do": "digitalocean"}


@pytest.mark.parametrize("stack", sorted(BLOCKS))
def test_the_plan_tree_shows_the_blocks_under_the_cluster(stack: str, stack_plan) -> None:
    plan = stack_plan(stack)
    prefix = stack.split("-")[0]
    cluster = plan.one(f"gpufabric:{MODULE.get(prefix, prefix)}:GpuCluster")
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


# -- DigitalOcean blocks alone (the pool on an existing cluster: tests/test_examples.py) ----
def _do_pool() -> tuple[GpuNodePoolSpec, FabricDescription]:
    spec = load_spec(spec_dict("digitalocean"))
    return spec.pool("gpu"), describe_cluster(spec)["gpu"]


def test_do_network_block_alone_is_a_vpc_without_aliases() -> None:
    def program() -> None:
        DigitalOceanFabricNetwork("team-net", DigitalOceanFabricNetworkArgs(
            name_prefix="team", vpc_name="team-vpc", region="nyc2", ip_range="10.200.0.0/20"))

    plan = run_program(program)
    vpc = plan.one("digitalocean:index/vpc:Vpc", "team-vpc")
    assert vpc.inputs["name"] == "team-vpc" and vpc.inputs["ipRange"] == "10.200.0.0/20"
    assert vpc.parent == plan.one("gpufabric:digitalocean:FabricNetwork", "team-net").urn
    assert vpc.aliases == ()  # nothing to carry: this VPC never had another parent


@pytest.mark.parametrize("ip_range", ["10.0.0.0/12", "10.0.0.0/25", "10.0.0.1/20", "nyc2"])
def test_do_network_block_refuses_a_range_do_rejects(ip_range: str) -> None:
    # pulumi-digitalocean 4.84.1 Vpc.ip_range: "not larger than /16 or smaller than /24".
    with pytest.raises(ValueError) as info:
        DigitalOceanFabricNetwork("n", DigitalOceanFabricNetworkArgs(
            name_prefix="n", vpc_name="n-vpc", region="nyc2", ip_range=ip_range))
    message = str(info.value)
    assert message.startswith("DigitalOceanFabricNetworkArgs.ip_range: ")
    assert f"'{ip_range}'" in message and "/16 to /24" in message


def test_do_pool_block_refuses_another_pools_fabric_and_an_unknown_partition_mode() -> None:
    pool, fabric = _do_pool()
    with pytest.raises(ValueError, match=r"DoksGpuNodePoolArgs.fabric: describes pool 'other'"):
        DoksGpuNodePool("p", DoksGpuNodePoolArgs(name_prefix="p", cluster_id="id", pool=pool,
                                                 fabric=replace(fabric, pool="other")))
    with pytest.raises(ValueError, match=r"amd_gpu_partition_mode: 'SPX'.*"
                       r"AMD_PARTITION_MODE_SPX_NPS1, AMD_PARTITION_MODE_DPX_NPS2"):
        DoksGpuNodePool("p", DoksGpuNodePoolArgs(name_prefix="p", cluster_id="id", pool=pool,
                                                 fabric=fabric, amd_gpu_partition_mode="SPX"))


# -- OCI: the GPU node pool block alone -------------------------------------------------
def _oci_pool_args(**change: object) -> OciGpuNodePoolArgs:
    spec = load_spec(spec_dict("oci"))
    (pool,) = spec.node_pools
    args = OciGpuNodePoolArgs(
        name_prefix="team", display_prefix="team", compartment_id="ocid1.compartment.oc1..aaaatest",
        cluster_id="ocid1.cluster.oc1.iad.mine", availability_domain="Uocm:US-ASHBURN-AD-1",
        pool=pool, fabric=describe_cluster(spec)[pool.name], kubernetes_version="v1.34.1",
        worker_subnet_id="ocid1.subnet.oc1.iad.workers", image_id="ocid1.image.oc1.iad.aaaatest",
        pod_subnet_id="ocid1.subnet.oc1.iad.pods",
    )
    return replace(args, **change)


@pytest.mark.parametrize(("change", "words"), [
    ({"pod_subnet_id": None}, ("pod_subnet_id", "npn", "flannel")),
    ({"cni": "calico"}, ("cni", "'calico'", "npn, flannel")),
    ({"kubernetes_version": "1.34"}, ("kubernetes_version", "'1.34'", "v1.34.1")),
])
def test_oci_pool_block_refuses_bad_args_before_any_resource(change, words) -> None:
    """Raised before the component registers (no Pulumi runtime is needed to see it)."""
    with pytest.raises(ValueError) as info:
        OciGpuNodePool("team-h100", _oci_pool_args(**change))
    for word in words:
        assert word in str(info.value), word


# -- Args: keyword-only, and what each block takes instead of the whole spec -----------
BLOCK_ARGS = [
    ("gcp", "FabricNetworkArgs"), ("gcp", "GpuNodePoolArgs"),
    ("aws", "FabricNetworkArgs"), ("aws", "EfaNodeGroupArgs"),
    ("azure", "FabricNetworkArgs"), ("azure", "NdAgentPoolArgs"),
    ("digitalocean", "FabricNetworkArgs"), ("digitalocean", "GpuNodePoolArgs"),
    ("oci", "FabricNetworkArgs"), ("oci", "GpuNodePoolArgs"),
]


def _public(cloud: str, name: str) -> type:
    return getattr(importlib.import_module(f"gpu_fabric.{cloud}"), name)  # type: ignore[no-any-return]


@pytest.mark.parametrize(("cloud", "name"), BLOCK_ARGS)
def test_block_args_are_keyword_only(cloud: str, name: str) -> None:
    args = _public(cloud, name)
    assert [f.name for f in fields(args) if not f.kw_only] == []
    with pytest.raises(TypeError, match="positional argument"):
        args("team")


@pytest.mark.parametrize(("cloud", "name"), BLOCK_ARGS)
def test_block_args_take_no_cluster_spec_and_no_resource_but_waits(cloud: str, name: str) -> None:
    """A pool and its fabric, not the whole spec (whose api_access a program adding a
    pool to a cluster it does not create has no business setting); ids and names, not
    resources, except the resources a child must wait for."""
    for f in fields(_public(cloud, name)):
        annotation = str(f.type)
        assert "ClusterSpec" not in annotation, (name, f.name)
        assert "Callable" not in annotation, (name, f.name)  # plain data, serialisable
        assert "Resource" not in annotation or f.name == "depends_on", (name, f.name)


def _gcp_pool_args(**change: object) -> GpuNodePoolArgsType:
    from gpu_fabric.gcp import GpuNodePoolArgs

    spec = load_spec(spec_dict("gcp", fabric={"mode": "dra", "dranet": "self"}))
    (pool,) = spec.node_pools
    fields_ = {"name_prefix": "team", "project": "team-proj", "zone": "us-west8-c",
               "cluster_name": "my-gke", "pool": pool, "fabric": describe_cluster(spec)["gpu"],
               "service_account": "nodes@team-proj.iam.gserviceaccount.com"}
    return GpuNodePoolArgs(**{**fields_, **change})  # type: ignore[arg-type]


@pytest.mark.parametrize(("chosen", "planned"), [
    # GKE "Prepare GKE infrastructure for DRA workloads": "Automatic GPU driver
    # installation isn't supported with DRA" (an A4 pool with DraNet self-installed).
    (None, "INSTALLATION_DISABLED"),
    ("LATEST", "LATEST"),  # given: passed through as is
])
def test_gcp_pool_block_alone_on_a_cluster_it_does_not_create(chosen, planned) -> None:
    from gpu_fabric.gcp import GpuNodePool

    def program() -> None:
        GpuNodePool("team-a4", _gcp_pool_args(gpu_driver_version=chosen))

    plan = run_program(program)
    pool = plan.one("gcp:container/nodePool:NodePool", "team-gpu")
    assert pool.inputs["cluster"] == "my-gke" and pool.inputs["location"] == "us-west8-c"
    (accelerator,) = pool.inputs["nodeConfig"]["guestAccelerators"]
    assert accelerator["gpuDriverInstallationConfig"] == {"gpuDriverVersion": planned}
    assert "networkConfig" not in pool.inputs  # no node_networks given, none attached
    assert pool.aliases == ()


def test_aws_node_group_block_refuses_an_unknown_interface_layout() -> None:
    from gpu_fabric.aws import EfaNodeGroup, EfaNodeGroupArgs

    spec = load_spec(spec_dict("aws"))
    args = EfaNodeGroupArgs(
        name_prefix="p5", cluster_name="my-eks", node_role_arn="arn:aws:iam::1:role/n",
        subnet_id="subnet-0ccc", pool=spec.pool("gpu"), fabric=describe_cluster(spec)["gpu"],
        cluster_security_group_id="sg-0ddd", efa_security_group_id="sg-0eee",
        kubernetes_version="1.34", efa_interface_layout="efa-only",
    )
    with pytest.raises(ValueError) as info:
        EfaNodeGroup("p5-nodes", args)
    assert str(info.value) == (
        "AwsEfaNodeGroupArgs.efa_interface_layout: 'efa-only' is not an interface layout; "
        "use one of ena-primary, efa-primary")


def test_azure_pool_block_names_its_own_zone_field() -> None:
    from gpu_fabric.azure import NdAgentPool, NdAgentPoolArgs
    from gpu_fabric.errors import SpecError

    spec = load_spec(spec_dict("azure"))
    args = NdAgentPoolArgs(
        name_prefix="train", cluster_name="my-aks", resource_group="my-aks-rg",
        pool=spec.pool("gpu"), fabric=describe_cluster(spec)["gpu"], kubernetes_version="1.34",
        node_subnet_id="/subscriptions/0/subnets/nodes", zone="4",
    )
    with pytest.raises(SpecError) as info:
        NdAgentPool("train-gpu", args)
    (problem,) = info.value.problems
    assert problem.path == "AzureNdAgentPoolArgs.zone" and problem.value == "4"


def test_a_block_under_a_component_of_yours_carries_no_alias() -> None:
    """Only a GpuCluster's blocks alias their children (to the cluster they moved from)."""
    import pulumi

    from gpu_fabric.digitalocean import FabricNetwork, FabricNetworkArgs

    def program() -> None:
        team = pulumi.ComponentResource("team:index:Infra", "team")
        FabricNetwork("team-net", FabricNetworkArgs(
            name_prefix="team", vpc_name="team-vpc", region="nyc2", ip_range="10.200.0.0/20"),
            opts=pulumi.ResourceOptions(parent=team))

    plan = run_program(program)
    vpc = plan.one("digitalocean:index/vpc:Vpc", "team-vpc")
    assert vpc.parent == plan.one("gpufabric:digitalocean:FabricNetwork", "team-net").urn
    assert vpc.aliases == ()


def test_aws_network_block_needs_a_new_vpc_or_yours() -> None:
    from gpu_fabric.aws import FabricNetwork, FabricNetworkArgs

    with pytest.raises(ValueError) as info:
        FabricNetwork("n", FabricNetworkArgs(name_prefix="n", cluster_name="c",
                                             cidr="10.0.0.0/16"))
    assert str(info.value) == ("AwsFabricNetworkArgs: give cidr and plan (a new VPC), or "
                               "existing (your VPC's ids)")
