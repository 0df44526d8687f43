"""Add an A4 pool with its RDMA networks to a GKE cluster you already run.

Your cluster, its VPC and its node service account stay yours; this program
creates the A4 machine's extra networks (second gVNIC VPC, RoCE VPC with one
subnet per NIC, internal firewall rules), the GPU node pool attached to them,
and the Kubernetes fabric layer (DRA driver, DraNet, claim templates, injection):

    pulumi config set gcp-project my-project
    pulumi config set cluster my-gke            # multi-networking + Dataplane V2 on
    pulumi config set network my-vpc
    pulumi config set subnetwork my-subnet
    pulumi config set node-service-account gke-nodes@my-project.iam.gserviceaccount.com
    pulumi config set --secret kubeconfig "$(cat ~/.kube/my-gke.yaml)"
"""

import pulumi
import pulumi_kubernetes as k8s

import gpu_fabric as gf
from gpu_fabric.clouds.gcp.blocks import (
    ExistingCluster,
    GcpFabricNetwork,
    GcpFabricNetworkArgs,
    GcpGpuNodePool,
    GcpGpuNodePoolArgs,
    layout_on_existing_vpc,
)
from gpu_fabric.clouds.gcp.nodepool import gpu_driver_version

config = pulumi.Config()
project = config.require("gcp-project")

spec = gf.load_spec({
    "name": "train",
    "cloud": "gcp",
    "location": {"region": "us-west8", "zone": "us-west8-c"},
    "api_access": {"authorized_cidrs": ["203.0.113.0/24"]},
    "kubernetes": {"version": "1.34"},
    "network": {"fabric_cidr": "192.168.0.0/16", "fabric_subnet_prefix": 24},
    "node_pools": [{"name": "a4", "machine_type": "a4-highgpu-8g", "node_count": 2}],
    "fabric": {"mode": "dra", "dranet": "self"},
    "gcp": {"project": project},
})
pool = spec.node_pools[0]
fabric = gf.describe_cluster(spec)[pool.name]
layout = layout_on_existing_vpc(spec, config.require("network"), config.require("subnetwork"))

networks = GcpFabricNetwork(
    "train-a4-networks",
    GcpFabricNetworkArgs(layout, project, spec.location.region, name_prefix="train"),
)
a4 = GcpGpuNodePool(
    "train-a4",
    GcpGpuNodePoolArgs(
        spec, pool, fabric, ExistingCluster(config.require("cluster")), layout, networks.vpcs,
        zone=str(spec.location.zone), service_account=config.require("node-service-account"),
        driver_version=gpu_driver_version(None, gpu_operator=False, dra=fabric.gpu_dra),
        name_prefix="train",
    ),
)

provider = k8s.Provider("my-gke", kubeconfig=config.require_secret("kubeconfig"))
gf.FabricStack(
    "train-fabric",
    gf.FabricStackArgs(spec=spec, fabrics={pool.name: fabric}),
    opts=pulumi.ResourceOptions(providers={"kubernetes": provider}, depends_on=[a4]),
)
pulumi.export("node_pool", a4.node_pool.name)
pulumi.export("rdma_network", networks.vpcs["rdma-net"].name)
