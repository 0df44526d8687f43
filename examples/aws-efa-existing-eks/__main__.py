"""An EFA GPU node group in the VPC and EKS cluster you already run.

This program creates the EFA security group (all traffic between its members,
nothing else) in your VPC, and a p5.48xlarge node group with one EFA interface
per network card, in a cluster placement group, on your GPU subnet:

    pulumi config set vpc-id vpc-0abc...
    pulumi config set --path 'private-subnet-ids[0]' subnet-0aaa...
    pulumi config set --path 'private-subnet-ids[1]' subnet-0bbb...
    pulumi config set gpu-subnet-id subnet-0ccc...             # one AZ: EFA stays in it
    pulumi config set cluster my-eks
    pulumi config set cluster-security-group-id sg-0ddd...     # the EKS cluster SG
    pulumi config set node-role-arn arn:aws:iam::123456789012:role/my-eks-nodes
    pulumi config set vpc-cni-version v1.20.1-eksbuild.3       # the cluster's VPC CNI

The EFA interfaces are efa-only, which need VPC CNI 1.18.5 or later (EKS user
guide node-efa): read the cluster's with ``aws eks describe-addon --cluster-name
my-eks --addon-name vpc-cni`` (or the aws-node image tag); an older one is refused
before any resource is created.

Then install the fabric layer with ``gf.FabricStack`` (see examples/fabric-only).
"""

import pulumi

import gpu_fabric as gf
from gpu_fabric.aws import (
    EfaNodeGroup,
    EfaNodeGroupArgs,
    ExistingVpc,
    FabricNetwork,
    FabricNetworkArgs,
)

config = pulumi.Config()
vpc = ExistingVpc(
    vpc_id=config.require("vpc-id"),
    private_subnet_ids=config.require_object("private-subnet-ids"),
    gpu_subnet_id=config.require("gpu-subnet-id"),
)
spec = gf.load_spec({
    "name": "my-eks",
    "cloud": "aws",
    "location": {"region": "us-east-1", "zone": "us-east-1a"},
    "kubernetes": {"version": "1.34"},
    "node_pools": [{"name": "p5", "machine_type": "p5.48xlarge", "node_count": 2,
                    "disk_size_gb": 500}],
    "aws": {"existing_vpc": {"vpc_id": vpc.vpc_id, "private_subnet_ids": vpc.private_subnet_ids,
                             "gpu_subnet_id": vpc.gpu_subnet_id}},
}, creates_api_server=False)  # blocks only: this program creates no API server
(pool,) = spec.node_pools
fabric = gf.describe_cluster(spec)[pool.name]

network = FabricNetwork(
    "p5-network",
    FabricNetworkArgs(name_prefix="p5", cluster_name=config.require("cluster"), existing=vpc),
)
nodes = EfaNodeGroup(
    "p5-nodes",
    EfaNodeGroupArgs(
        name_prefix="p5", cluster_name=config.require("cluster"),
        node_role_arn=config.require("node-role-arn"), subnet_id=vpc.gpu_subnet_id,
        pool=pool, fabric=fabric,
        cluster_security_group_id=config.require("cluster-security-group-id"),
        efa_security_group_id=network.efa_security_group.id, kubernetes_version="1.34",
        vpc_cni_version=config.require("vpc-cni-version"),
    ),
)
pulumi.export("node_group", nodes.node_group.node_group_name)
pulumi.export("efa_security_group_id", network.efa_security_group.id)
