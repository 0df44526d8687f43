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
from typing import Any

import pulumi
from pulumi_oci import identity

from gpu_fabric.errors import Problem, SpecError

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


# OCI provider config keys an explicit (home-region) provider does not inherit from the
# stack's ``oci:*`` config: Pulumi's explicit providers read only their own arguments
# (and the OCI environment variables / ~/.oci/config), so they are passed through.
_CREDENTIAL_KEYS = {
    "auth": "auth", "configFileProfile": "config_file_profile", "fingerprint": "fingerprint",
    "privateKey": "private_key", "privateKeyPassword": "private_key_password",
    "privateKeyPath": "private_key_path", "tenancyOcid": "tenancy_ocid", "userOcid": "user_ocid",
}


class HomeRegionError(ValueError):
    """Neither ``oci.home_region`` nor a tenancy to look it up from."""


def lookup_tenancy(compartment_id: str, configured: str | None) -> str:
    """The tenancy whose home region is looked up: ``oci:tenancyOcid`` or a tenancy
    compartment; a clear error naming ``oci.home_region`` otherwise (before any resource)."""
    if configured:
        return configured
    if compartment_id.startswith("ocid1.tenancy."):
        return compartment_id
    raise SpecError([Problem(
        "oci.home_region", "not set, and the tenancy to look it up from is unknown (no "
        f"`oci:tenancyOcid` in the stack config, and compartment_id '{compartment_id}' is not a "
        "tenancy OCID). OCI writes IAM policies only in the tenancy's home region (a policy "
        "sent to another region fails with 403-NotAllowed 'Please go to your home region'), "
        "so the compute-cluster launch policy needs it: set oci.home_region to a region name "
        "such as us-ashburn-1 (`oci iam region-subscription list` shows is-home-region), or "
        "set `pulumi config set oci:tenancyOcid <tenancy OCID>`",
    )])


def home_region_of(subscriptions: Sequence[Any]) -> str:
    """The region name of the home-region subscription (``is_home_region``)."""
    for sub in subscriptions:
        if getattr(sub, "is_home_region", False):
            return str(sub.region_name)
    raise HomeRegionError(
        "oci.home_region: the tenancy's region subscriptions name no home region; set "
        "oci.home_region (e.g. us-ashburn-1)"
    )


def home_region_provider(
    name: str,
    home_region: str | None,
    tenancy_id: str | None,
    parent: pulumi.Resource,
) -> pulumi.ProviderResource:
    """``<name>-home``: an OCI provider in the tenancy's home region, for IAM writes.

    oracle-quickstart/oci-hpc-oke (terraform/provider.tf at 61d210a) defines
    ``provider "oci" { alias = "home" ... }`` with the region of
    ``data.oci_identity_region_subscriptions.home`` (filter ``is_home_region``), and
    terraform/iam.tf creates every ``oci_identity_policy`` with ``provider = oci.home``.
    ``home_region`` is ``oci.home_region``; without it the region is looked up from
    ``tenancy_id`` the same way.
    """
    import pulumi_oci

    region: pulumi.Input[str]
    if home_region:
        region = home_region
    else:
        assert tenancy_id is not None
        region = identity.get_region_subscriptions_output(
            tenancy_id=tenancy_id,
            filters=[identity.GetRegionSubscriptionsFilterArgs(
                name="is_home_region", values=["true"])],
            opts=pulumi.InvokeOutputOptions(parent=parent),
        ).region_subscriptions.apply(home_region_of)
    config = pulumi.Config("oci")
    credentials: dict[str, pulumi.Input[str] | None] = {
        arg: (config.get_secret(key) if key.startswith("privateKey") and key != "privateKeyPath"
              else config.get(key))
        for key, arg in _CREDENTIAL_KEYS.items()
    }
    return pulumi_oci.Provider(
        f"{name}-home",
        region=region,
        **{k: v for k, v in credentials.items() if v is not None},
        opts=pulumi.ResourceOptions(parent=parent),
    )
