"""What the offline planner knows about the DigitalOcean provider (pulumi-digitalocean):
the inputs that force a replacement, and the config keys and token shapes that are
credentials (read by :mod:`gpu_fabric.plan.cloud_facts`).
"""

from __future__ import annotations

from gpu_fabric.plan.cloud_facts import NodeUpdate, PlanFacts
from gpu_fabric.plan.replacing_data import replacing_blocks, replacing_prefixes

PLAN_FACTS = PlanFacts(
    # The providers' own ForceNew marks, extracted from the Terraform sources with
    # their commits and lines (plan/data/replacing_inputs.json,
    # scripts/extract_replacing_inputs.py; issue 32).
    replacing_inputs=replacing_prefixes("digitalocean"),
    replacing_blocks=replacing_blocks("digitalocean"),
    credential_keys=frozenset({"digitalocean:token", "digitalocean:spacesSecretKey"}),
    # Personal access tokens: dop_v1_ and 64 hex characters (20+ matched).
    token_patterns=("dop_v1_[0-9a-f]{20,}",),
    # DOKS cluster and VPC names are unique in the account (and VPC names in the
    # region), node pool names in their cluster (422 "name is already in use").
    roles={
        "digitalocean:index/kubernetesCluster:KubernetesCluster": "cluster",
        "digitalocean:index/kubernetesNodePool:KubernetesNodePool": "pool",
        "digitalocean:index/vpc:Vpc": "network",
    },
    # A DOKS version upgrade replaces every node of every pool; with surge upgrades new
    # nodes are created first (spare capacity), without them one node at a time
    # (https://docs.digitalocean.com/products/kubernetes/how-to/upgrade-cluster/).
    node_updates={
        "digitalocean:index/kubernetesCluster:KubernetesCluster": NodeUpdate(
            rolling_inputs=("version",), surge_default="a batch", unavailable_default=0,
            no_surge_when=("surgeUpgrade", False),
            source="https://docs.digitalocean.com/products/kubernetes/how-to/upgrade-cluster/",
        ),
    },
    runbook="doks",
    unique_names={
        "digitalocean:index/kubernetesCluster:KubernetesCluster": ("name",),
        "digitalocean:index/kubernetesNodePool:KubernetesNodePool": ("name",),
        "digitalocean:index/vpc:Vpc": ("name",),
    },
)
