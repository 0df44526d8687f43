"""Install only the fabric layer (Multus, device plugins, NADs, injection) on a running cluster.

The cluster was made elsewhere (Terraform, a console, another team). The spec
still says what the nodes are, so the layer gets the right rails and
resources; the kubeconfig is a Pulumi secret:

    pulumi config set --secret kubeconfig "$(cat ~/.kube/doks.yaml)"
"""

import pulumi
import pulumi_kubernetes as k8s

import gpu_fabric as gf

config = pulumi.Config()

spec = gf.load_spec(
    {
        "name": "doks-fabric",
        "cloud": "digitalocean",
        "location": {"region": "nyc2"},
        "node_pools": [
            {
                "name": "gpu-h200",
                "machine_type": "gpu-h200x8-1128gb-fabric-contracted",
                "node_count": 2,
                "labels": {"doks.digitalocean.com/gpu-brand": "nvidia"},
            }
        ],
        "existing": {"kubeconfig": {"config_key": "fabric-only:kubeconfig"}},
    }
)

provider = k8s.Provider("doks", kubeconfig=config.require_secret("kubeconfig"))
fabric = gf.FabricStack(
    "doks-fabric",
    gf.FabricStackArgs(spec=spec, fabrics=gf.describe_cluster(spec)),
    opts=pulumi.ResourceOptions(providers={"kubernetes": provider}),
)

# What a job's pod needs on this fabric, for teams that template their own pods.
fragment = gf.fragment_for("gpu-h200x8-1128gb-fabric-contracted", gpus=8)
pulumi.export("pod_fragment", fragment.to_dict())
