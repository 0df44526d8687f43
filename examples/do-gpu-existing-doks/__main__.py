"""Add a GPU node pool with its fabric NICs to a DOKS cluster you already run.

Your cluster, its VPC and its system pool stay yours; this program creates one
node pool of the contracted H200 fabric size (8 GPUs, fabric NICs ``fabric0..7``
next to ``eth0``/``eth1``), labelled and tainted for the fabric, and the
Kubernetes fabric layer (Multus thick, one ``host-device`` NAD ``roce-net-fabricN``
per NIC, injection), as in DO's multi-node GPU guide. DOKS wires the fabric into
the droplets and runs the RDMA shared device plugin (``rdma/fabricN``) on clusters
with fabric nodes by default; if your cluster turned it off, add
``"digitalocean": {"components": {"rdma_shared_device_plugin": False}}`` to the spec
and the layer installs its own.

    pulumi config set --secret digitalocean:token "$DIGITALOCEAN_TOKEN"
    pulumi config set cluster-id "$(doctl kubernetes cluster get my-doks --format ID --no-header)"
    pulumi config set --secret kubeconfig "$(doctl kubernetes cluster kubeconfig show my-doks)"
"""

import pulumi
import pulumi_kubernetes as k8s

import gpu_fabric as gf
from gpu_fabric.digitalocean import GpuNodePool, GpuNodePoolArgs, do_tags

config = pulumi.Config()

spec = gf.load_spec({
    "name": "train",
    "cloud": "digitalocean",
    "location": {"region": "nyc2"},
    "kubernetes": {"version": "1.34"},
    "node_pools": [{"name": "h200", "machine_type": "gpu-h200x8-1128gb-fabric-contracted",
                    "node_count": 2}],
}, creates_api_server=False)  # blocks only: this program creates no API server
(pool,) = spec.node_pools
fabrics = gf.describe_cluster(spec)

h200 = GpuNodePool(
    "train-h200",
    GpuNodePoolArgs(
        name_prefix="train", cluster_id=config.require("cluster-id"), pool=pool,
        fabric=fabrics[pool.name], tags=do_tags(spec.name, spec.tags),
    ),
)

provider = k8s.Provider("my-doks", kubeconfig=config.require_secret("kubeconfig"))
gf.FabricStack(
    "train-fabric",
    gf.FabricStackArgs(spec=spec, fabrics=fabrics),
    opts=pulumi.ResourceOptions(providers={"kubernetes": provider}, depends_on=[h200]),
)
pulumi.export("node_pool", h200.node_pool.name)
