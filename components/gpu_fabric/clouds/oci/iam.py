"""The IAM policy that lets OKE node pools launch instances into RDMA compute clusters.

Node pools launch instances as the ``nodepool`` principal, so the policy grants
exactly ``COMPUTE_CLUSTER_LAUNCH_INSTANCE`` to that principal type (oci-hpc-oke's
statement). It is one per cluster (or per program), shared by every GPU pool, so it
is not part of a pool block: :class:`~gpu_fabric.clouds.oci.cluster.OciGpuCluster`
creates it as its own child, a program that uses the pool block alone calls
:func:`launch_policy` itself (or relies on a policy its tenancy already has).
"""

from __future__ import annotations

from collections.abc import Sequence

import pulumi
from pulumi_oci import identity

SCOPES = ("compartment", "compute-cluster")


def launch_policy_statements(
    compartment_id: str, compute_cluster_ids: list[str], scope: str
) -> list[str]:
    """IAM statements letting OKE node pools launch instances into compute clusters."""
    principal = "request.principal.type = 'nodepool'"
    if scope == "compartment":
        return [
            "Allow any-user to {COMPUTE_CLUSTER_LAUNCH_INSTANCE} in compartment id "
            f"{compartment_id} where {principal}"
        ]
    return [
        "Allow any-user to {COMPUTE_CLUSTER_LAUNCH_INSTANCE} in compartment id "
        f"{compartment_id} where all {{{principal}, target.resource.id = '{cc}'}}"
        for cc in compute_cluster_ids
    ]


def launch_policy(
    name: str,
    display_name: str,
    compartment_id: str,
    compute_cluster_ids: Sequence[pulumi.Input[str]],
    scope: str = "compartment",
    tags: dict[str, str] | None = None,
    opts: pulumi.ResourceOptions | None = None,
) -> identity.Policy:
    """The policy ``<name>-compute-cluster-launch`` (its OCI name starts with ``display_name``).

    ``scope`` ``compartment`` (oci-hpc-oke's statement) needs no compute cluster id;
    ``compute-cluster`` names each of ``compute_cluster_ids``.
    """
    if scope not in SCOPES:
        raise ValueError(f"scope: '{scope}' is not a launch policy scope; valid: "
                         f"{', '.join(SCOPES)}")
    if scope == "compute-cluster" and not compute_cluster_ids:
        raise ValueError("compute_cluster_ids: scope 'compute-cluster' names each compute "
                         "cluster, none given; pass their OCIDs or use scope 'compartment'")
    return identity.Policy(
        f"{name}-compute-cluster-launch",
        compartment_id=compartment_id,
        name=f"{display_name}-compute-cluster-launch",
        description=f"OKE node pools of {display_name} launch into its RDMA compute clusters",
        statements=pulumi.Output.all(*compute_cluster_ids).apply(
            lambda resolved: launch_policy_statements(compartment_id, list(resolved), scope)
        ),
        freeform_tags=tags or {},
        # Policy names are unique in the tenancy: a replacement deletes first.
        opts=pulumi.ResourceOptions.merge(opts, pulumi.ResourceOptions(delete_before_replace=True)),
    )
