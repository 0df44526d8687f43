"""A team's own Pulumi program that imports gpu-fabric instead of using its stacks.

It builds a GKE cluster with two A4 pools (one on a reservation, one on
flex-start for bursts), then adds what the team owns on top through the
cluster's explicit Kubernetes provider: its namespaces. Config it reads:

    pulumi config set gcp-project my-project
    pulumi config set reservation my-a4-reservation
"""

import pulumi
import pulumi_kubernetes as k8s

import gpu_fabric as gf

config = pulumi.Config()
project = config.require("gcp-project")

spec = gf.load_spec(
    {
        "name": "team-a4",
        "cloud": "gcp",
        "location": {"region": "us-west8", "zone": "us-west8-c"},
        # Who may reach the API server: the team's office/VPN range (203.0.113.0/24 is a
        # documentation range; set config `api-cidr` to yours, e.g. <your address>/32).
        "api_access": {"authorized_cidrs": [config.get("api-cidr") or "203.0.113.0/24"]},
        "kubernetes": {"version": "1.34"},
        "node_pools": [
            {
                "name": "a4-reserved",
                "machine_type": "a4-highgpu-8g",
                "node_count": 2,
                "capacity": {
                    "type": "reservation",
                    "reservation": config.get("reservation") or "team-a4-reservation",
                },
            },
            {
                "name": "a4-burst",
                "machine_type": "a4-highgpu-8g",
                "node_count": 0,
                "min_nodes": 0,
                "max_nodes": 4,
                "capacity": {"type": "flex_start"},
            },
        ],
        "fabric": {"namespaces": ["research", "inference-eval"]},
        "gcp": {"project": project},
    }
)

cluster = gf.GcpGpuCluster("team-a4", spec)

# The team's own objects go through the cluster's explicit provider.
for ns in ("research", "inference-eval"):
    k8s.core.v1.Namespace(
        f"team-a4-ns-{ns}",
        metadata={"name": ns, "labels": {"team": "a4"}},
        opts=pulumi.ResourceOptions(provider=cluster.provider, parent=cluster),
    )

pulumi.export("kubeconfig", cluster.kubeconfig)
pulumi.export("node_pools", [p.to_output() for p in cluster.node_pools])
