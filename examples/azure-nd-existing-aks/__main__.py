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
from gpu_fabric.clouds.azure.blocks import AzureNdAgentPool, AzureNdAgentPoolArgs, ExistingCluster
from gpu_fabric.clouds.azure.feature import infiniband_feature
from gpu_fabric.clouds.azure.kubernetes import operator_installs_driver
from gpu_fabric.clouds.azure.layout import plan_layout

config = pulumi.Config()
group = config.require("resource-group")

spec = gf.load_spec({
    "name": "train",
    "cloud": "azure",
    "location": {"region": "eastus"},
    "api_access": {"authorized_cidrs": ["203.0.113.0/24"]},
    "kubernetes": {"version": "1.34"},
    "node_pools": [{"name": "h100", "machine_type": "Standard_ND96isr_H100_v5",
                    "node_count": 2}],
    "fabric": {"mode": "device-plugin", "device_plugin": "rdma-shared"},
    "azure": {"resource_group": group, "existing_subnet_id": config.require("node-subnet-id"),
              "infiniband_feature": "check"},
})
(pool,) = spec.node_pools
fabrics = gf.describe_cluster(spec)
layout = plan_layout(spec, fabrics, operator_installs_driver(spec, fabrics))
waits_for, gate = infiniband_feature("train", layout.feature_mode, layout.feature_state, None)

h100 = AzureNdAgentPool(
    "train-h100",
    AzureNdAgentPoolArgs(
        "train", ExistingCluster(config.require("cluster")), group, layout.pools[0],
        fabrics[pool.name], spec.kubernetes.version,
        node_subnet_id=config.require("node-subnet-id"), node_count=pool.node_count,
        disk_size_gb=pool.disk_size_gb, feature_gate=gate, depends_on=waits_for,
    ),
)

provider = k8s.Provider("my-aks", kubeconfig=config.require_secret("kubeconfig"))
gf.FabricStack(
    "train-fabric",
    gf.FabricStackArgs(spec=spec, fabrics=fabrics),
    opts=pulumi.ResourceOptions(providers={"kubernetes": provider}, depends_on=[h100]),
)
pulumi.export("agent_pool", h100.agent_pool.name)
