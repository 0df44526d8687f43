"""Add an RDMA GPU node pool to an OKE cluster you already run.

Your cluster, its VCN, worker and pod subnets stay yours; this program creates a
compute cluster (the RDMA network group: only its members share the RDMA fabric)
in your availability domain, the IAM policy that lets OKE node pools launch into
it, a BM.GPU.H100.8 managed node pool launched into it (16 RoCE ports per node,
cloud-init that registers each node with its taints), and the Kubernetes fabric
layer (NVIDIA Network Operator with SR-IOV VFs, GPU Operator, NCCL topology,
injection). RDMA pools boot custom images only: import one with DOCA-OFED and the
NVIDIA driver (the oci-hpc-oke GPU images).

    pulumi config set compartment-id ocid1.compartment.oc1..aaaa...
    pulumi config set cluster-id ocid1.cluster.oc1.iad.aaaa...    # enhanced, VCN-native pods
    pulumi config set availability-domain Uocm:US-ASHBURN-AD-1
    pulumi config set worker-subnet-id ocid1.subnet.oc1.iad.aaaa...
    pulumi config set pod-subnet-id ocid1.subnet.oc1.iad.bbbb...
    pulumi config set image-id ocid1.image.oc1.iad.aaaa...        # RDMA (DOCA-OFED) GPU image
    pulumi config set --secret kubeconfig "$(cat ~/.kube/my-oke.yaml)"  # ce create-kubeconfig

If your tenancy already grants node pools ``COMPUTE_CLUSTER_LAUNCH_INSTANCE`` in the
compartment, drop ``launch_policy`` and the pool's ``depends_on``. OCI writes IAM policies
only in the tenancy's home region, so the policy goes through a provider there
(``pulumi config set home-region us-ashburn-1``; oci-hpc-oke's ``provider = oci.home``).
"""

import pulumi
import pulumi_kubernetes as k8s
import pulumi_oci as oci

import gpu_fabric as gf
from gpu_fabric.oci import GpuNodePool, GpuNodePoolArgs, launch_policy, oke_version

config = pulumi.Config()
compartment = config.require("compartment-id")
image = config.require("image-id")

spec = gf.load_spec({
    "name": "train",
    "cloud": "oci",
    "location": {"region": "us-ashburn-1", "zone": config.require("availability-domain")},
    "kubernetes": {"version": "1.34"},
    "network": {"fabric_cidr": "192.168.0.0/16"},
    "node_pools": [{"name": "h100", "machine_type": "BM.GPU.H100.8", "node_count": 2,
                    "disk_size_gb": 500}],
    "oci": {"compartment_id": compartment, "gpu_image_id": image, "cni": "npn"},
}, creates_api_server=False)  # blocks only: this program creates no API server
(pool,) = spec.node_pools
fabric = gf.describe_cluster(spec)[pool.name]

# Compartment scope (oci-hpc-oke's statement): node-pool principals only, one permission.
home = oci.Provider("train-home", region=config.require("home-region"))
policy = launch_policy("train", "train", compartment, [], "compartment",
                       opts=pulumi.ResourceOptions(provider=home))
h100 = GpuNodePool(
    "train-h100",
    GpuNodePoolArgs(
        name_prefix="train", display_prefix="train", compartment_id=compartment,
        cluster_id=config.require("cluster-id"), availability_domain=str(spec.location.zone),
        pool=pool, fabric=fabric, kubernetes_version=oke_version(spec.kubernetes.version),
        worker_subnet_id=config.require("worker-subnet-id"), image_id=image, cni="npn",
        pod_subnet_id=config.require("pod-subnet-id"), depends_on=[policy],
    ),
)

provider = k8s.Provider("my-oke", kubeconfig=config.require_secret("kubeconfig"))
gf.FabricStack(
    "train-fabric",
    gf.FabricStackArgs(spec=spec, fabrics={pool.name: fabric}),
    opts=pulumi.ResourceOptions(providers={"kubernetes": provider}, depends_on=[h100]),
)
pulumi.export("node_pool_id", h100.node_pool.id)
pulumi.export("compute_cluster_id", h100.compute_cluster.id if h100.compute_cluster else None)
