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
from gpu_fabric.gcp import (
    FabricNetwork,
    FabricNetworkArgs,
    GpuNodePool,
    GpuNodePoolArgs,
    layout_on_existing_vpc,
)

config = pulumi.Config()
project = config.require("gcp-project")

spec = gf.load_spec({
    "name": "train",
    "cloud": "gcp",
    "location": {"region": "us-west8", "zone": "us-west8-c"},
    "kubernetes": {"version": "1.34"},
    "network": {"fabric_cidr": "192.168.0.0/16", "fabric_subnet_prefix": 24},
    # A4 is sold reserved, flex-start or Spot, never on demand
    # (https://cloud.google.com/ai-hypercomputer/docs/consumption-models).
    "node_pools": [{"name": "a4", "machine_type": "a4-highgpu-8g", "node_count": 2,
                    "capacity": {"type": "reservation",
                                 "reservation": config.get("reservation") or "train-a4"}}],
    "fabric": {"mode": "dra", "dranet": "self"},
    "gcp": {"project": project},
}, creates_api_server=False)  # blocks only: this program creates no API server
pool = spec.node_pools[0]
fabric = gf.describe_cluster(spec)[pool.name]
layout = layout_on_existing_vpc(spec, config.require("network"), config.require("subnetwork"))

networks = FabricNetwork(
    "train-a4-networks",
    FabricNetworkArgs(layout=layout, project=project, region=spec.location.region,
                      name_prefix="train"),
)
a4 = GpuNodePool(
    "train-a4",
    GpuNodePoolArgs(
        name_prefix="train", project=project, zone=str(spec.location.zone),
        cluster_name=config.require("cluster"), pool=pool, fabric=fabric,
        service_account=config.require("node-service-account"),
        # The second gVNIC and the 8 RoCE subnets, in NIC order.
        node_networks=networks.node_networks(fabric),
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
