"""Add an ND H100 v5 pool with InfiniBand to an AKS cluster you already run.

Your cluster, its resource group, VNet and node subnet stay yours; this program
creates one ND96isr H100 v5 agent pool (one VM scale set, so one InfiniBand
fabric: 8x 400 Gb/s NDR per node) on your node subnet, and the Kubernetes fabric
layer (NVIDIA Network Operator with the RDMA shared device plugin, GPU Operator,
NCCL topology, injection). The subscription feature AKSInfinibandSupport is
checked, not registered (``check``): it is subscription-wide, so your platform
team owns it (``az feature register --namespace Microsoft.ContainerService
--name AKSInfinibandSupport``); the pool is not created while it is unregistered.

    pulumi config set azure-native:location eastus
    pulumi config set resource-group my-aks-rg
    pulumi config set cluster my-aks                     # Azure CNI overlay
    pulumi config set node-subnet-id /subscriptions/.../subnets/nodes
    pulumi config set --secret kubeconfig "$(az aks get-credentials -g my-aks-rg -n my-aks -f -)"
"""

import pulumi
import pulumi_kubernetes as k8s

import gpu_fabric as gf
from gpu_fabric.azure import NdAgentPool, NdAgentPoolArgs, infiniband_feature

config = pulumi.Config()
group = config.require("resource-group")

spec = gf.load_spec({
    "name": "train",
    "cloud": "azure",
    "location": {"region": "eastus"},
    "kubernetes": {"version": "1.34"},
    "node_pools": [{"name": "h100", "machine_type": "Standard_ND96isr_H100_v5",
                    "node_count": 2}],
    "fabric": {"mode": "device-plugin", "device_plugin": "rdma-shared"},
    "azure": {"resource_group": group, "existing_subnet_id": config.require("node-subnet-id"),
              "infiniband_feature": "check"},
}, creates_api_server=False)  # blocks only: this program creates no API server
(pool,) = spec.node_pools
fabrics = gf.describe_cluster(spec)
# Check only (no registration resource): the pool's VM size waits until the
# subscription's state is read and is Registered, and fails the update otherwise.
waits_for, gate = infiniband_feature("train", "check", "registered", None)

h100 = NdAgentPool(
    "train-h100",
    NdAgentPoolArgs(
        name_prefix="train", cluster_name=config.require("cluster"), resource_group=group,
        pool=pool, fabric=fabrics[pool.name], kubernetes_version=spec.kubernetes.version,
        node_subnet_id=config.require("node-subnet-id"),
        # The GPU Operator installs the NVIDIA driver (the fabric layer's default here).
        aks_installs_driver=False, feature_gate=gate, depends_on=waits_for,
    ),
)

provider = k8s.Provider("my-aks", kubeconfig=config.require_secret("kubeconfig"))
gf.FabricStack(
    "train-fabric",
    gf.FabricStackArgs(spec=spec, fabrics=fabrics),
    opts=pulumi.ResourceOptions(providers={"kubernetes": provider}, depends_on=[h100]),
)
pulumi.export("agent_pool", h100.agent_pool.name)
