"""What the offline planner knows about the OCI provider (pulumi-oci): the inputs that
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
    replacing_inputs=replacing_prefixes("oci"),
    replacing_blocks=replacing_blocks("oci"),
    credential_keys=frozenset({"oci:privateKey", "oci:privateKeyPassword"}),
    # OCI identifies resources by OCID; display names need not be unique. IAM policy
    # names are the exception: unique in the tenancy.
    unique_names={"oci:Identity/policy:Policy": ("name",)},
    roles={
        "oci:ContainerEngine/cluster:Cluster": "cluster",
        "oci:ContainerEngine/nodePool:NodePool": "pool",
        "oci:Core/vcn:Vcn": "network",
        "oci:Core/subnet:Subnet": "network",
    },
    # A node pool's version or image applies to new nodes only, unless node cycling is
    # on: then maximumSurge (default 1) new nodes first, maximumUnavailable (default 0)
    # down (https://docs.oracle.com/en-us/iaas/Content/ContEng/Tasks/
    # contengupgradingimageworkernode_topic-cycling-managed-nodes.htm).
    node_updates={
        "oci:ContainerEngine/nodePool:NodePool": NodeUpdate(
            rolling_inputs=("kubernetesVersion", "nodeSourceDetails"),
            surge_path="nodePoolCyclingDetails.maximumSurge", surge_default="1",
            unavailable_path="nodePoolCyclingDetails.maximumUnavailable",
            unavailable_default="0",
            only_when="nodePoolCyclingDetails.isNodeCyclingEnabled",
            source="https://docs.oracle.com/en-us/iaas/Content/ContEng/Tasks/"
                   "contengupgradingimageworkernode_topic-cycling-managed-nodes.htm",
        ),
    },
    control_plane_inputs={"oci:ContainerEngine/cluster:Cluster": ("kubernetesVersion",)},
    runbook="oke",
    free_names={
        t: "OCID identity; the display name need not be unique" for t in (
            "oci:ContainerEngine/cluster:Cluster", "oci:ContainerEngine/nodePool:NodePool",
            "oci:Core/computeCluster:ComputeCluster", "oci:Core/natGateway:NatGateway",
            "oci:Core/routeTable:RouteTable", "oci:Core/securityList:SecurityList",
            "oci:Core/serviceGateway:ServiceGateway", "oci:Core/subnet:Subnet",
            "oci:Core/vcn:Vcn", "oci:Core/internetGateway:InternetGateway",
        )
    },
)
