"""What the offline planner knows about the OCI provider (pulumi-oci): the inputs that
force a replacement, the inputs the program ignores after create, and the config keys
and token shapes that are credentials (read by :mod:`gpu_fabric.plan.cloud_facts`).
"""

from __future__ import annotations

from gpu_fabric.plan.cloud_facts import PlanFacts

PLAN_FACTS = PlanFacts(
    replacing_inputs={
        "oci:ContainerEngine/cluster:Cluster": (
            "compartmentId", "vcnId", "type", "clusterPodNetworkOptions", "endpointConfig",
        ),
        "oci:ContainerEngine/nodePool:NodePool": ("clusterId", "compartmentId", "nodeShape"),
        "oci:Core/vcn:Vcn": ("compartmentId", "cidrBlocks"),
        "oci:Core/subnet:Subnet": (
            "vcnId", "cidrBlock", "availabilityDomain", "prohibitPublicIpOnVnic",
        ),
        "oci:Core/computeCluster:ComputeCluster": ("availabilityDomain", "compartmentId"),
    },
    credential_keys=frozenset({"oci:privateKey", "oci:privateKeyPassword"}),
)
