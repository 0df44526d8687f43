"""What the offline planner knows about the GCP provider (pulumi-gcp): the inputs that
force a replacement, the inputs the program ignores after create, and the config keys
and token shapes that are credentials (read by :mod:`gpu_fabric.plan.cloud_facts`).
"""

from __future__ import annotations

from gpu_fabric.plan.cloud_facts import NodeUpdate, PlanFacts
from gpu_fabric.plan.replacing_data import replacing_blocks, replacing_prefixes

PLAN_FACTS = PlanFacts(
    # The providers' own ForceNew marks, extracted from the Terraform sources with
    # their commits and lines (plan/data/replacing_inputs.json,
    # scripts/extract_replacing_inputs.py; issue 32).
    replacing_inputs=replacing_prefixes("gcp"),
    replacing_blocks=replacing_blocks("gcp"),
    credential_keys=frozenset({"gcp:credentials", "gcp:accessToken"}),
    # Names unique in their project (networks, firewalls, accounts), region (subnets,
    # routers, resource policies), router (NAT), location (clusters) or cluster (pools):
    # GKE answers 409 "already exists" to a second create.
    unique_names={
        "gcp:container/cluster:Cluster": ("name",),
        "gcp:container/nodePool:NodePool": ("name",),
        "gcp:compute/network:Network": ("name",),
        "gcp:compute/subnetwork:Subnetwork": ("name",),
        "gcp:compute/firewall:Firewall": ("name",),
        "gcp:compute/router:Router": ("name",),
        "gcp:compute/routerNat:RouterNat": ("name",),
        "gcp:compute/resourcePolicy:ResourcePolicy": ("name",),
        "gcp:serviceaccount/account:Account": ("accountId",),
    },
    roles={
        "gcp:container/cluster:Cluster": "cluster",
        "gcp:container/nodePool:NodePool": "pool",
        "gcp:compute/network:Network": "network",
        "gcp:compute/subnetwork:Subnetwork": "network",
    },
    # Surge upgrades: default maxSurge 1, maxUnavailable 0 ("Surge upgrades",
    # https://cloud.google.com/kubernetes-engine/docs/concepts/node-pool-upgrade-strategies);
    # node version and image type recreate nodes with the pool's strategy ("Manual changes
    # that recreate the nodes", https://cloud.google.com/kubernetes-engine/docs/concepts/
    # managing-clusters#manual-changes-strategy). GPU pools set surge 0 / unavailable 1.
    node_updates={
        "gcp:container/nodePool:NodePool": NodeUpdate(
            rolling_inputs=("version", "nodeConfig.imageType", "nodeConfig.kubeletConfig",
                            "nodeConfig.linuxNodeConfig", "nodeConfig.gcfsConfig"),
            surge_path="upgradeSettings.maxSurge", surge_default=1,
            unavailable_path="upgradeSettings.maxUnavailable", unavailable_default=0,
            source="https://cloud.google.com/kubernetes-engine/docs/concepts/"
                   "node-pool-upgrade-strategies",
        ),
    },
    control_plane_inputs={"gcp:container/cluster:Cluster": ("minMasterVersion",)},
    runbook="gke",
    free_names={
        "gcp:projects/iAMMember:IAMMember": (
            "no name: its identity (project, role, member) is its replacing inputs"),
    },
)
