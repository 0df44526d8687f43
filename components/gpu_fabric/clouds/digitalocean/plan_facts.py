"""What the offline planner knows about the DigitalOcean provider (pulumi-digitalocean):
the inputs that force a replacement, and the config keys and token shapes that are
credentials (read by :mod:`gpu_fabric.plan.cloud_facts`).
"""

from __future__ import annotations

from gpu_fabric.plan.cloud_facts import PlanFacts

PLAN_FACTS = PlanFacts(
    replacing_inputs={
        "digitalocean:index/kubernetesCluster:KubernetesCluster": (
            "name", "region", "vpcUuid", "clusterSubnet", "serviceSubnet",
        ),
        "digitalocean:index/kubernetesNodePool:KubernetesNodePool": (
            "clusterId", "name", "size",
        ),
        "digitalocean:index/vpc:Vpc": ("region", "ipRange"),
    },
    credential_keys=frozenset({"digitalocean:token", "digitalocean:spacesSecretKey"}),
    # Personal access tokens: dop_v1_ and 64 hex characters (20+ matched).
    token_patterns=("dop_v1_[0-9a-f]{20,}",),
    # DOKS cluster and VPC names are unique in the account (and VPC names in the
    # region), node pool names in their cluster (422 "name is already in use").
    unique_names={
        "digitalocean:index/kubernetesCluster:KubernetesCluster": ("name",),
        "digitalocean:index/kubernetesNodePool:KubernetesNodePool": ("name",),
        "digitalocean:index/vpc:Vpc": ("name",),
    },
)
