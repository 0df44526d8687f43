"""What each cloud's provider, checks and region table answer, written out (mutation entry
``clouds`` in scripts/mutation.py).

Expected values are literal. Reserved addresses per subnet: GCP 4
(https://cloud.google.com/vpc/docs/subnets#unusable-ip-addresses-in-every-subnet),
AWS 5 (https://docs.aws.amazon.com/vpc/latest/userguide/subnet-sizing.html), Azure 5
(https://learn.microsoft.com/azure/virtual-network/virtual-networks-faq), OCI 3 (the
source cited in components/gpu_fabric/clouds/oci/checks.py); a GKE node takes a /24 of
the pod range at 110 pods per node
(https://cloud.google.com/kubernetes-engine/docs/how-to/flexible-pod-cidr). Zones and
regions: the sources cited in components/gpu_fabric/clouds/<cloud>/regions.py. The
"did you mean" suggestions are Python's ``difflib.get_close_matches`` (n=3, cutoff 0.6),
worked out by hand on the strings below.
"""

from __future__ import annotations

import importlib.util
import ipaddress
from typing import Any

import pytest

from gpu_fabric import addressing, preflight, regions, sdks, security
from gpu_fabric.catalog import Cloud, GpuVendor
from gpu_fabric.clouds import registry
from gpu_fabric.clouds.aws import checks as aws_checks
from gpu_fabric.clouds.azure import checks as azure_checks
from gpu_fabric.clouds.gcp import checks as gcp_checks
from gpu_fabric.clouds.oci import checks as oci_checks
from gpu_fabric.clouds.registry import provider_for
from gpu_fabric.errors import Problem, SpecError
from gpu_fabric.fabric.description import Taint
from gpu_fabric.security import ApiAccess, ApiAccessSpec, SecretsEncryptionSpec
from gpu_fabric.spec import load_spec
from tests.specs import spec_dict

Net = ipaddress.IPv4Network
FIND = (
    "find the public address `pulumi up` runs from with `curl -s https://checkip.amazonaws.com` "
    "and list it as <address>/32 (or your office/VPN range)"
)


def _spec(cloud: str, **overrides: Any) -> Any:
    return load_spec(spec_dict(cloud, **overrides))


def _with_network(spec: Any, **fields: Any) -> Any:
    """The spec with network fields replaced (bypasses the spec's own range checks)."""
    net = spec.network.model_copy(update={k: Net(v) for k, v in fields.items()})
    return spec.model_copy(update={"network": net})


def _with_options(spec: Any, **fields: Any) -> Any:
    opts = spec.options.model_copy(update=fields)
    return spec.model_copy(update={spec.cloud.value: opts})


def _gpu_nodes(spec: Any, count: int) -> Any:
    pool = spec.node_pools[0].model_copy(update={"node_count": count})
    return spec.model_copy(update={"node_pools": [pool]})


# -- addressing.holds and the node counts -------------------------------------------------


def test_holds_at_the_boundary_and_one_over() -> None:
    # /28: 16 addresses, 4 reserved -> 12 usable.
    assert addressing.holds("p", Net("10.0.0.0/28"), 4, 12, "the subnet") == []
    assert addressing.holds("p", Net("10.0.0.0/28"), 4, 13, "the subnet") == [Problem(
        "p",
        "the subnet 10.0.0.0/28 has 12 usable addresses (16 minus 4 the cloud reserves) but "
        "must hold 13 node(s): 13 addresses; use a larger range (shorter prefix)",
        "10.0.0.0/28", True,
    )]


def test_holds_per_node_blocks_and_no_negative_usable() -> None:
    # /22: 1024 addresses = 4 nodes of 256; 5 need 1280.
    assert addressing.holds("p", Net("10.8.0.0/22"), 0, 4, "r", per_node=256) == []
    assert addressing.holds("p", Net("10.8.0.0/22"), 0, 5, "r", per_node=256) == [Problem(
        "p",
        "r 10.8.0.0/22 has 1024 usable addresses (1024 minus 0 the cloud reserves) but must "
        "hold 5 node(s) (256 address(es) each): 1280 addresses; use a larger range (shorter "
        "prefix)",
        "10.8.0.0/22", True,
    )]
    # /30 with 5 reserved: 4 - 5 < 0 is shown as 0.
    assert addressing.holds("p", Net("10.0.2.0/30"), 5, 1, "s")[0].message.startswith(
        "s 10.0.2.0/30 has 0 usable addresses (4 minus 5 the cloud reserves)")


def test_node_counts_take_the_autoscaling_maximum() -> None:
    spec = _spec("gcp")  # one GPU pool of 2 nodes, 2 system nodes
    assert addressing.pool_nodes(spec.node_pools[0]) == 2
    grown = spec.node_pools[0].model_copy(update={"max_nodes": 7})
    assert addressing.pool_nodes(grown) == 7
    shrunk = spec.node_pools[0].model_copy(update={"node_count": 3, "max_nodes": 1})
    assert addressing.pool_nodes(shrunk) == 3
    assert addressing.gpu_nodes(spec) == 2
    assert addressing.gpu_nodes(spec, []) == 0
    assert addressing.all_nodes(_gpu_nodes(spec, 5)) == 7


def test_raise_problems() -> None:
    addressing.raise_problems([])
    with pytest.raises(SpecError) as info:
        addressing.raise_problems([Problem("a", "b")])
    assert info.value.problems == [Problem("a", "b")]


# -- GKE (components/gpu_fabric/clouds/gcp/checks.py) -------------------------------------------


def test_gke_node_range_smaller_than_a_29_is_refused() -> None:
    spec = _with_network(_spec("gcp"), cidr="10.0.0.0/30")
    assert gcp_checks.address_problems(spec, []) == [Problem(
        "network.cidr",
        "a GCP subnet range is /29 or larger; 10.0.0.0/30 cannot be a GKE node subnet (e.g. "
        "10.0.0.0/16)",
        "10.0.0.0/30", True,
    )]


def test_gke_node_range_holds_every_node_after_four_reserved() -> None:
    # /29: 8 - 4 = 4 usable = 2 GPU + 2 system nodes; /28: 12 usable.
    assert gcp_checks.address_problems(_with_network(_spec("gcp"), cidr="10.0.0.0/29"), []) == []
    spec = _gpu_nodes(_with_network(_spec("gcp"), cidr="10.0.0.0/28"), 11)
    assert gcp_checks.address_problems(spec, []) == [Problem(
        "network.cidr",
        "the GKE node subnet 10.0.0.0/28 has 12 usable addresses (16 minus 4 the cloud "
        "reserves) but must hold 13 node(s): 13 addresses; use a larger range (shorter prefix)",
        "10.0.0.0/28", True,
    )]


def test_gke_fabric_subnets_first_too_small_one_named_once() -> None:
    spec = _spec("gcp")  # 2 fabric nodes
    # /29 holds 8 - 4 = 4; each /30 holds 0. Checked in string order ("192.168.0.12/30" before
    # "192.168.0.8/30"), the first short one only.
    found = gcp_checks.address_problems(
        spec, ["192.168.0.12/30", "192.168.0.0/29", "192.168.0.8/30", "192.168.0.12/30"])
    # The spec names no prefix: GKE's default /21 (clouds/gcp/layout.py, cluster-toolkit's
    # RDMA subnet size) is the one the message names.
    assert found == [Problem(
        "network.fabric_subnet_prefix",
        "each /21 fabric subnet, e.g. 192.168.0.12/30 has 0 usable addresses (4 minus 4 the "
        "cloud reserves) but must hold 2 node(s): 2 addresses; use a larger range (shorter "
        "prefix)",
        "192.168.0.12/30", True,
    )]
    assert gcp_checks.address_problems(spec, ["192.168.0.0/29"]) == []


def test_gke_pod_range_gives_each_node_a_24() -> None:
    spec = _with_network(_spec("gcp"), pod_cidr="10.8.0.0/22")  # 4 nodes x 256 = 1024
    assert gcp_checks.address_problems(spec, []) == []
    assert gcp_checks.address_problems(_gpu_nodes(spec, 3), []) == [Problem(
        "network.pod_cidr",
        "the GKE pod range 10.8.0.0/22 has 1024 usable addresses (1024 minus 0 the cloud "
        "reserves) but must hold 5 node(s) (256 address(es) each): 1280 addresses; use a larger "
        "range (shorter prefix)",
        "10.8.0.0/22", True,
    )]


def test_gke_control_plane_range_overlapping_each_cluster_range() -> None:
    # The default control-plane range is 172.16.0.32/28 (gcp options).
    spec = _with_network(_spec("gcp"), cidr="172.16.0.0/16", pod_cidr="172.16.0.0/20",
                         service_cidr="172.16.0.32/28", fabric_cidr="172.16.0.0/12")
    msg = ("the GKE control-plane range 172.16.0.32/28 overlaps network.{} {}; choose a /28 "
           "outside every cluster range (e.g. 172.16.0.32/28)")
    assert gcp_checks.address_problems(spec, []) == [
        Problem("gcp.master_ipv4_cidr", msg.format("cidr", "172.16.0.0/16"), "172.16.0.32/28",
                True),
        Problem("gcp.master_ipv4_cidr", msg.format("pod_cidr", "172.16.0.0/20"),
                "172.16.0.32/28", True),
        Problem("gcp.master_ipv4_cidr", msg.format("service_cidr", "172.16.0.32/28"),
                "172.16.0.32/28", True),
        Problem("gcp.master_ipv4_cidr", msg.format("fabric_cidr", "172.16.0.0/12"),
                "172.16.0.32/28", True),
    ]
    # Public nodes: GKE takes no control-plane range from the spec.
    assert gcp_checks.address_problems(_with_options(spec, private_nodes=False), []) == []


def test_gke_check_infrastructure_refuses_a_short_node_range() -> None:
    spec = _gpu_nodes(_with_network(_spec("gcp"), cidr="10.0.0.0/28"), 11)
    with pytest.raises(SpecError) as info:
        gcp_checks.check_infrastructure(spec, {})
    assert [p.path for p in info.value.problems] == ["network.cidr"]
    gcp_checks.check_infrastructure(_spec("gcp"), {})


# -- EKS, AKS, OKE ------------------------------------------------------------------------------


def test_eks_gpu_subnet_holds_the_addressed_interfaces() -> None:
    one = _gpu_nodes(_spec("aws"), 1)
    # /28: 16 - 5 = 11 usable.
    assert aws_checks.address_problems(one, "10.0.0.0/28", [], {"gpu": 11}) == []
    assert aws_checks.address_problems(one, "10.0.0.0/28", [], {"gpu": 12}) == [Problem(
        "network.cidr",
        "the EKS GPU subnet 10.0.0.0/28 (1/16 of network.cidr) has 11 usable addresses but "
        "the GPU nodes' addressed interfaces need 12; use a larger network.cidr",
        "10.0.0.0/16", True,
    )]
    # A pool not in the table takes 1 address per node; 12 nodes need 12.
    assert aws_checks.address_problems(_gpu_nodes(one, 11), "10.0.0.0/28", [], {}) == []
    assert len(aws_checks.address_problems(_gpu_nodes(one, 12), "10.0.0.0/28", [], {})) == 1
    assert aws_checks.address_problems(one, None, [], {"gpu": 99}) == []


def test_eks_private_subnets_hold_the_system_nodes() -> None:
    spec = _spec("aws")  # 2 system nodes; /29: 8 - 5 = 3 usable; /30: none
    found = aws_checks.address_problems(
        spec, None, ["10.0.1.0/29", "10.0.2.0/30", "10.0.3.0/30"], {})
    assert found == [Problem(
        "network.cidr",
        "the EKS private subnet 10.0.2.0/30 has 0 usable addresses (4 minus 5 the cloud "
        "reserves) but must hold 2 node(s): 2 addresses; use a larger range (shorter prefix)",
        "10.0.2.0/30", True,
    )]


def test_aks_node_subnet_holds_every_node_after_five_reserved() -> None:
    spec = _spec("azure")  # 2 GPU + 2 system nodes
    assert azure_checks.address_problems(spec, "10.0.0.0/28") == []
    assert azure_checks.address_problems(spec, "10.0.0.0/29") == [Problem(
        "network.cidr",
        "the AKS node subnet 10.0.0.0/29 has 3 usable addresses (8 minus 5 the cloud reserves) "
        "but must hold 4 node(s): 4 addresses; use a larger range (shorter prefix)",
        "10.0.0.0/29", True,
    )]


def test_oke_worker_subnet_holds_every_node_after_three_reserved() -> None:
    spec = _spec("oci")  # 2 GPU + 2 system nodes
    assert oci_checks.address_problems(spec, Net("10.0.0.0/29")) == []
    assert oci_checks.address_problems(spec, Net("10.0.0.0/30")) == [Problem(
        "network.cidr",
        "the OKE worker subnet (first quarter of network.cidr) 10.0.0.0/30 has 1 usable "
        "addresses (4 minus 3 the cloud reserves) but must hold 4 node(s): 4 addresses; use a "
        "larger range (shorter prefix)",
        "10.0.0.0/30", True,
    )]


# -- regions and zones --------------------------------------------------------------------------


def test_unknown_region_names_the_three_closest_and_every_known_one() -> None:
    known = ["us-east-2", "us-east-4", "us-east-1", "us-east-3", "eu-west-1"]
    assert regions.unknown_region(Cloud.AWS, "us-east-3", known) == []
    # Four regions score alike against us-east-9; ties go to the larger string first.
    assert regions.unknown_region(Cloud.AWS, "us-east-9", known) == [Problem(
        "location.region",
        "'us-east-9' is not an AWS region; did you mean us-east-4 or us-east-3 or us-east-2? "
        "(known: eu-west-1, us-east-1, us-east-2, us-east-3, us-east-4; a region opened since "
        "is added to components/gpu_fabric/clouds/aws/regions.py with its source)",
        "us-east-9", True,
    )]
    # Nothing close: no suggestion.
    assert regions.unknown_region(Cloud.AZURE, "zz", ["eastus"]) == [Problem(
        "location.region",
        "'zz' is not an Azure region (known: eastus; a region opened since is added to "
        "components/gpu_fabric/clouds/azure/regions.py with its source)",
        "zz", True,
    )]


def test_unknown_zone_names_the_valid_ones() -> None:
    assert regions.unknown_zone(Cloud.GCP, "us-east1", "us-east1-a",
                                ["us-east1-b", "us-east1-c", "us-east1-d"]) == [Problem(
        "location.zone",
        "'us-east1-a' is not a zone of GCP region us-east1; did you mean us-east1-d or "
        "us-east1-c or us-east1-b? (valid: us-east1-b, us-east1-c, us-east1-d)",
        "us-east1-a", True,
    )]


def test_gcp_zones_lettered_and_ai() -> None:
    gcp = provider_for(Cloud.GCP)
    assert gcp.location_problems("us-east1", "us-east1-b") == []
    assert gcp.location_problems("us-east1", None) == []
    assert gcp.location_problems("us-west4", "us-west4-ai2b") == []
    assert [p.path for p in gcp.location_problems("us-west4", "us-west4-ai22b")] == [
        "location.zone"]
    assert [p.path for p in gcp.location_problems("us-nowhere1", "us-nowhere1-a")] == [
        "location.region"]
    # us-east1 has zones b, c, d (regions-zones page; no -a).
    assert gcp.location_problems("us-east1", "us-east1-a")[0].message.endswith(
        "(valid: us-east1-b, us-east1-c, us-east1-d)")
    assert gcp.zone_example_in("europe-west4") == "europe-west4-a"


def test_aws_zone_is_the_region_and_one_letter() -> None:
    aws = provider_for(Cloud.AWS)
    assert aws.location_problems("us-east-1", "us-east-1f") == []
    assert aws.location_problems("us-east-1", None) == []
    assert aws.location_problems("us-east-1", "us-east-2a") == [Problem(
        "location.zone",
        "'us-east-2a' is not a zone of AWS region us-east-1; did you mean us-east-1a or "
        "us-east-1f or us-east-1e? (valid: us-east-1a, us-east-1b, us-east-1c, us-east-1d, "
        "us-east-1e, us-east-1f)",
        "us-east-2a", True,
    )]
    # No region has a seventh AZ (AWS_ZONE_LETTERS: us-east-1 has six, a to f), so a letter
    # past f is refused, not accepted and then suggested back (issue 36).
    assert [p.value for p in aws.location_problems("us-east-1", "us-east-1z")] == [
        "us-east-1z"]
    assert [p.value for p in aws.location_problems("us-east-1", "us-east-1g")] == [
        "us-east-1g"]
    assert [p.path for p in aws.location_problems("us-east-9", "us-east-9a")] == [
        "location.region"]
    assert aws.zone_example_in("eu-west-1") == "eu-west-1a"


def test_oci_zone_is_an_ad_of_the_region_with_any_tenancy_prefix() -> None:
    oci = provider_for(Cloud.OCI)
    assert oci.location_problems("us-ashburn-1", "Uocm:US-ASHBURN-AD-3") == []
    assert oci.location_problems("us-ashburn-1", "US-ASHBURN-AD-2") == []
    assert oci.location_problems("us-ashburn-1", None) == []
    found = oci.location_problems("us-ashburn-1", "Uocm:US-ASHBURN-AD-4")
    assert [p.path for p in found] == ["location.zone"]
    assert found[0].message.endswith(
        "(valid: <tenancy prefix>:US-ASHBURN-AD-1, <tenancy prefix>:US-ASHBURN-AD-2, "
        "<tenancy prefix>:US-ASHBURN-AD-3)")
    assert [p.path for p in oci.location_problems("us-ashburn-9", None)] == ["location.region"]


def test_zoneless_clouds_check_the_region_only() -> None:
    assert provider_for(Cloud.AZURE).location_problems("eastus", "anything") == []
    assert provider_for(Cloud.DIGITALOCEAN).location_problems("nyc2", None) == []
    assert [p.path for p in provider_for(Cloud.DIGITALOCEAN).location_problems("nyc9", None)] \
        == ["location.region"]


# -- API access per cloud -----------------------------------------------------------------------

PRIVATE = ApiAccessSpec(private_endpoint=True)
LISTED = ApiAccessSpec(authorized_cidrs=["203.0.113.0/24"])


def test_gke_private_endpoint_needs_private_nodes() -> None:
    gcp = provider_for(Cloud.GCP)
    public_nodes = _with_options(_spec("gcp"), private_nodes=False)
    assert gcp.api_access_problems(public_nodes, PRIVATE) == [Problem(
        "api_access.private_endpoint",
        "a GKE private endpoint needs private nodes; remove gcp.private_nodes: false",
        True, True,
    )]
    assert gcp.api_access_problems(public_nodes, LISTED) == []
    assert gcp.api_access_problems(_spec("gcp"), PRIVATE) == []


def test_oke_endpoint_public_contradicts_a_private_endpoint() -> None:
    oci = provider_for(Cloud.OCI)
    public = _with_options(_spec("oci"), endpoint_public=True)
    assert oci.api_access_problems(public, PRIVATE) == [Problem(
        "oci.endpoint_public", "contradicts api_access.private_endpoint: true; remove one",
        True, True,
    )]
    assert oci.api_access_problems(public, LISTED) == []
    assert oci.api_access_problems(_spec("oci"), PRIVATE) == []


def test_doks_has_no_private_endpoint() -> None:
    do = provider_for(Cloud.DIGITALOCEAN)
    assert do.api_access_problems(_spec("digitalocean"), PRIVATE) == [Problem(
        "api_access.private_endpoint",
        "DOKS has no private-only API endpoint; list authorized_cidrs instead (they become the "
        "cluster's control-plane firewall)",
        True, True,
    )]
    assert do.api_access_problems(_spec("digitalocean"), LISTED) == []


def test_cloud_switches_for_the_public_endpoint() -> None:
    aws, oci = provider_for(Cloud.AWS), provider_for(Cloud.OCI)
    aws_opts = _spec("aws").options
    assert aws.public_endpoint(aws_opts, True) is True
    assert aws.public_endpoint(aws_opts, False) is False
    assert aws.public_endpoint(aws_opts.model_copy(update={"endpoint_public_access": False}),
                               True) is False
    assert aws.public_endpoint(None, True) is True
    oci_opts = _spec("oci").options
    assert oci.public_endpoint(oci_opts, False) is False
    assert oci.public_endpoint(oci_opts, True) is True
    assert oci.public_endpoint(oci_opts.model_copy(update={"endpoint_public": True}),
                               False) is True
    assert oci.public_endpoint(None, False) is False


def test_legacy_per_cloud_ranges() -> None:
    gcp_opts = _spec("gcp").options.model_copy(
        update={"master_authorized_networks": [Net("198.51.100.0/24"), Net("192.0.2.7/32")]})
    assert provider_for(Cloud.GCP).legacy_api_cidrs(gcp_opts) == [
        "198.51.100.0/24", "192.0.2.7/32"]
    assert provider_for(Cloud.GCP).legacy_api_cidrs(None) == []
    oci_opts = _spec("oci").options.model_copy(update={"endpoint_allowed_cidrs": ["192.0.2.0/24"]})
    assert provider_for(Cloud.OCI).legacy_api_cidrs(oci_opts) == ["192.0.2.0/24"]
    assert provider_for(Cloud.OCI).legacy_api_cidrs(None) == []


def test_effective_api_access_merges_and_deduplicates() -> None:
    spec = _with_options(
        _spec("gcp", api_access={"authorized_cidrs": ["203.0.113.0/24", "198.51.100.7/32"]}),
        master_authorized_networks=[Net("198.51.100.7/32"), Net("192.0.2.0/24")],
    )
    assert security.effective_api_access(spec) == ApiAccess(
        public=True, cidrs=("203.0.113.0/24", "198.51.100.7/32", "192.0.2.0/24"),
        open_to_internet=False,
    )


def test_effective_api_access_open_on_purpose_drops_the_open_range() -> None:
    spec = _spec("gcp", api_access={"authorized_cidrs": ["0.0.0.0/0", "192.0.2.0/24"],
                                    "allow_public_internet": True})
    access = security.effective_api_access(spec)
    assert access == ApiAccess(public=True, cidrs=("192.0.2.0/24",), open_to_internet=True)
    assert access.public_cidrs == ["0.0.0.0/0"]
    # EKS's own switch closes the endpoint: nothing is open then.
    aws = _with_options(_spec("aws", api_access={"authorized_cidrs": ["0.0.0.0/0"],
                                                 "allow_public_internet": True}),
                        endpoint_public_access=False)
    assert security.effective_api_access(aws) == ApiAccess(
        public=False, cidrs=(), open_to_internet=False)


def test_effective_api_access_private_and_none() -> None:
    oci = _spec("oci")  # private_endpoint: true
    assert security.effective_api_access(oci) == ApiAccess(
        public=False, cidrs=(), open_to_internet=False)
    none = _spec("gcp").model_copy(update={"api_access": None})
    assert security.effective_api_access(none) == ApiAccess(
        public=True, cidrs=(), open_to_internet=False)
    assert ApiAccess(True, ("192.0.2.0/24",), False).public_cidrs == ["192.0.2.0/24"]


def test_internet_wide_below_a_slash_8() -> None:
    assert security.internet_wide(Net("0.0.0.0/7")) is True
    assert security.internet_wide(Net("10.0.0.0/8")) is False


def test_missing_api_access_is_refused_only_when_an_api_server_is_created() -> None:
    spec = _spec("gcp").model_copy(update={"api_access": None})
    missing = [Problem(
        "api_access",
        "required: say who may reach the Kubernetes API server. Set api_access."
        f"authorized_cidrs ({FIND}), or api_access.private_endpoint: true and run `pulumi up` "
        "from inside the network; api_access.allow_public_internet: true opens it to everyone "
        "on purpose",
    )]
    assert security.missing_api_access(spec) == missing
    assert security.security_problems(spec) == missing
    with security.loading_for(False):
        assert security.security_problems(spec) == []
    assert security.security_problems(_spec("gcp")) == []


def test_wide_per_cloud_ranges_need_the_named_opt_in() -> None:
    spec = _with_options(_spec("gcp"),
                         master_authorized_networks=[Net("0.0.0.0/1"), Net("192.0.2.0/24"),
                                                     Net("128.0.0.0/1")])
    assert security.security_problems(spec) == [Problem(
        "gcp",
        "per-cloud authorized ranges 0.0.0.0/1, 128.0.0.0/1 open the API server to the "
        "internet; list your own networks, or set api_access.allow_public_internet: true on "
        "purpose",
        ["0.0.0.0/1", "128.0.0.0/1"], True,
    )]
    opted = spec.model_copy(update={"api_access": ApiAccessSpec(
        authorized_cidrs=["192.0.2.0/24"], allow_public_internet=True)})
    assert security.security_problems(opted) == []


def test_api_access_checked_per_cloud_only_when_the_cluster_is_created() -> None:
    spec = _with_options(_spec("gcp"), private_nodes=False).model_copy(
        update={"api_access": PRIVATE})
    assert [p.path for p in security.security_problems(spec)] == ["api_access.private_endpoint"]


def test_encryption_key_per_cloud() -> None:
    aws = _spec("aws")  # us-east-1
    key = "arn:aws:kms:eu-west-1:123456789012:key/abcd-1234"
    enc = SecretsEncryptionSpec(kms_key=key)
    assert security.security_problems(aws.model_copy(update={"secrets_encryption": enc})) == [
        Problem("secrets_encryption.kms_key",
                "EKS needs a KMS key in the cluster's region us-east-1", key, True)]
    good = "arn:aws:kms:us-east-1:123456789012:key/abcd-1234"
    assert provider_for(Cloud.AWS).key_problems(aws, good) == []


def test_encryption_of_an_existing_cluster_is_refused() -> None:
    spec = _spec("gcp")
    existing = spec.model_copy(update={
        "existing": object(),
        "secrets_encryption": SecretsEncryptionSpec(
            kms_key="projects/p/locations/us-west8/keyRings/r/cryptoKeys/k"),
    })
    assert security.security_problems(existing) == [Problem(
        "secrets_encryption",
        "only applies to clusters this stack creates; configure encryption on the running "
        "cluster instead",
    )]


def test_azure_gpu_taint_is_sku_gpu() -> None:
    # AKS GPU docs: sku=gpu:NoSchedule (comment in clouds/azure/provider.py).
    assert provider_for(Cloud.AZURE).gpu_taint(GpuVendor.NVIDIA) == Taint("sku", "gpu")
    assert provider_for(Cloud.AZURE).gpu_taint(GpuVendor.AMD) == Taint(
        "sku", "gpu", "NoSchedule")


# -- SDK extras (pyproject.toml [project.optional-dependencies]) ----------------------------------


def test_install_hint_and_message() -> None:
    assert sdks.install_hint(Cloud.OCI) == "pip install 'gpu-fabric[oci]'"
    assert sdks.missing_message(Cloud.AZURE) == (
        "the azure cloud needs its Pulumi SDK (pulumi_azure_native), which is not installed: "
        "pip install 'gpu-fabric[azure]' (or 'gpu-fabric[all]' for every cloud)"
    )


def test_require_sdk_raises_with_the_module_name(monkeypatch: pytest.MonkeyPatch) -> None:
    sdks.require_sdk(Cloud.AWS)  # installed in the dev venv
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *a: None if name == "pulumi_oci" else real(name, *a))
    assert sdks.is_installed(Cloud.OCI) is False
    assert sdks.is_installed(Cloud.AWS) is True
    with pytest.raises(sdks.CloudSdkMissing) as info:
        sdks.require_sdk(Cloud.OCI)
    assert info.value.name == "pulumi_oci"
    assert str(info.value) == (
        "the oci cloud needs its Pulumi SDK (pulumi_oci), which is not installed: "
        "pip install 'gpu-fabric[oci]' (or 'gpu-fabric[all]' for every cloud)"
    )


def test_cloud_of_missing_reads_the_top_module() -> None:
    assert sdks.cloud_of_missing(ModuleNotFoundError(name="pulumi_aws.ec2")) is Cloud.AWS
    assert sdks.cloud_of_missing(ModuleNotFoundError(name="pulumi_digitalocean")) is \
        Cloud.DIGITALOCEAN
    assert sdks.cloud_of_missing(ModuleNotFoundError(name="yaml")) is None
    assert sdks.cloud_of_missing(ModuleNotFoundError("no name")) is None


# -- the registry -------------------------------------------------------------------------------


def test_registry_order_and_lookup() -> None:
    assert registry.clouds() == (Cloud.GCP, Cloud.AWS, Cloud.AZURE, Cloud.DIGITALOCEAN, Cloud.OCI)
    assert list(registry.PROVIDERS) == list(registry.clouds())
    assert len(registry.PROVIDERS) == 5
    assert registry.PROVIDERS[Cloud.OCI] is provider_for(Cloud.OCI)
    assert [p.cloud for p in registry.providers()] == list(registry.clouds())


def test_registry_unknown_cloud_is_a_key_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(registry, "PROVIDER_MODULES", {Cloud.GCP: "gpu_fabric.clouds.gcp.provider"})
    with pytest.raises(KeyError):
        registry.PROVIDERS[Cloud.AWS]
    assert len(registry.PROVIDERS) == 1


# -- preflight ----------------------------------------------------------------------------------


def test_preflight_reports_every_problem_once_with_its_source() -> None:
    data = spec_dict("gcp", network={"cidr": "10.0.0.0/28"}, api_access=None)
    data["node_pools"][0]["node_count"] = 11
    spec = load_spec(data, creates_api_server=False)
    with pytest.raises(SpecError) as info:
        preflight.check_spec(spec, "c", source="stack.yaml")
    assert info.value.source == "stack.yaml"
    assert [p.path for p in info.value.problems] == ["api_access", "network.cidr"]
    with pytest.raises(SpecError) as info:
        preflight.check_spec(spec)
    assert info.value.source is None


def test_preflight_passes_a_good_spec_of_each_cloud() -> None:
    for cloud in ("gcp", "aws", "azure", "digitalocean", "oci"):
        good = _spec(cloud)
        assert preflight.check_spec(good) is None
        # The same spec without api_access is refused by the same call: it did check.
        with pytest.raises(SpecError) as info:
            preflight.check_spec(good.model_copy(update={"api_access": None}))
        assert [p.path for p in info.value.problems] == ["api_access"]


# -- check_infrastructure: the layout's subnets against the nodes -----------------------------


def _infrastructure_paths(cloud: str, cidr: str, gpu_nodes: int) -> list[str]:
    spec = _gpu_nodes(_with_network(_spec(cloud), cidr=cidr), gpu_nodes)
    check = {"aws": aws_checks, "azure": azure_checks, "oci": oci_checks}[cloud]
    try:
        check.check_infrastructure(spec, {})
    except SpecError as exc:
        return [str(p) for p in exc.problems]
    return []


def test_eks_gpu_subnet_is_the_eighth_sixteenth_of_the_vpc() -> None:
    # 10.0.0.0/20 in 16 /24 blocks; the GPU subnet is block 7, 10.0.7.0/24: 256 - 5 = 251.
    # A p5 node takes 1 address (ena-primary: the EFAs are efa-only, clouds/aws/layout.py).
    assert _infrastructure_paths("aws", "10.0.0.0/20", 251) == []
    assert _infrastructure_paths("aws", "10.0.0.0/20", 252) == [
        "network.cidr: the EKS GPU subnet 10.0.7.0/24 (1/16 of network.cidr) has 251 usable "
        "addresses but the GPU nodes' addressed interfaces need 252; use a larger network.cidr "
        "(got '10.0.0.0/20')"
    ]


def test_aks_node_subnet_is_the_first_sixteenth_of_the_vnet() -> None:
    # 10.0.0.0/20 -> node subnet 10.0.0.0/24: 256 - 5 = 251 usable = 249 GPU + 2 system nodes.
    assert _infrastructure_paths("azure", "10.0.0.0/20", 249) == []
    assert _infrastructure_paths("azure", "10.0.0.0/20", 250) == [
        "network.cidr: the AKS node subnet 10.0.0.0/24 has 251 usable addresses (256 minus 5 the "
        "cloud reserves) but must hold 252 node(s): 252 addresses; use a larger range (shorter "
        "prefix) (got '10.0.0.0/24')"
    ]


def test_aks_vnet_smaller_than_a_20_names_the_size_it_needs() -> None:
    # The node subnet is the VNet's first /(prefix + 4) and must leave room for pods: a /20
    # (clouds/azure/layout.py). The message said "/24" while refusing /21 to /24.
    assert _infrastructure_paths("azure", "10.0.0.0/21", 2) == [
        "network.cidr: the VNet range needs at least /20 on AKS (a node subnet plus room for "
        "pods) (got '10.0.0.0/21')"
    ]


def test_oke_worker_subnet_is_the_first_quarter() -> None:
    # 10.0.0.0/20 (OKE takes /20 or larger) -> workers 10.0.0.0/22: 1024 - 3 = 1021 usable
    # = 1019 GPU + 2 system nodes.
    assert _infrastructure_paths("oci", "10.0.0.0/20", 1019) == []
    assert _infrastructure_paths("oci", "10.0.0.0/20", 1020) == [
        "network.cidr: the OKE worker subnet (first quarter of network.cidr) 10.0.0.0/22 has "
        "1021 usable addresses (1024 minus 3 the cloud reserves) but must hold 1022 node(s): "
        "1022 addresses; use a larger range (shorter prefix) (got '10.0.0.0/22')"
    ]


def _preflight_paths(data: dict[str, Any]) -> list[str]:
    try:
        preflight.check_spec(load_spec(data))
    except SpecError as exc:
        return [p.path for p in exc.problems]
    return []


def test_preflight_names_a_problem_two_steps_find_once() -> None:
    # describe_cluster and GKE's layout both refuse hostNetwork; the short node range is
    # not reached (the layout stops at the first refusal).
    data = spec_dict("gcp", network={"cidr": "10.0.0.0/28"}, fabric={"mode": "host-network"})
    data["node_pools"][0]["node_count"] = 11
    assert _preflight_paths(data) == ["fabric.mode"]


def test_preflight_skips_the_aks_address_plan_without_the_fabrics() -> None:
    # AKS sizes its subnets from the pools' fabrics (infrastructure_needs_fabrics): a pool
    # that cannot be described leaves the address plan unchecked.
    bad = spec_dict("azure", network={"cidr": "10.0.0.0/28"}, fabric={"mode": "host-network"})
    assert _preflight_paths(bad) == ["fabric.mode"]
    assert _preflight_paths(spec_dict("azure", network={"cidr": "10.0.0.0/28"})) == [
        "network.cidr"]


def test_preflight_runs_the_layer() -> None:
    # An rdma-shared plugin no pool uses is refused by the Kubernetes layer (build_layer).
    data = spec_dict("gcp", addons={"rdma_shared_device_plugin": {"enabled": True}})
    assert _preflight_paths(data) == ["addons.rdma_shared_device_plugin.enabled"]


def test_preflight_of_an_existing_cluster_reads_its_kubeconfig_only(tmp_path: Any) -> None:
    bad = tmp_path / "kubeconfig.yaml"
    bad.write_text("not: [a kubeconfig")

    def existing(path: str) -> dict[str, Any]:
        # A /30 would be refused for a cluster this stack creates; an existing cluster's
        # network is the team's.
        return spec_dict("gcp", gcp=None, api_access=None, network={"cidr": "10.0.0.0/30"},
                         existing={"kubeconfig": {"path": path}})

    assert _preflight_paths(existing(str(bad))) == ["existing.kubeconfig.path"]
    # A kubeconfig that does not exist yet is planned with a placeholder.
    assert _preflight_paths(existing(str(tmp_path / "absent.yaml"))) == []


def test_preflight_plans_the_acceptance_job_only_when_enabled() -> None:
    # The pool has 2 nodes; a 3-node NCCL test is refused by plan_acceptance (nccl/manifests.py).
    assert _preflight_paths(spec_dict("gcp", acceptance={"enabled": True, "nodes": 3})) == [
        "acceptance.nodes"]
    assert _preflight_paths(spec_dict("gcp", acceptance={"enabled": False, "nodes": 3})) == []
    assert _preflight_paths(spec_dict("gcp", acceptance={"enabled": True, "nodes": 2})) == []


def test_gke_existing_networks_check_only_the_pod_range() -> None:
    from gpu_fabric.clouds.gcp.options import GcpExistingNetworks

    nets = GcpExistingNetworks(network="team-vpc", subnetwork="team-subnet")
    spec = _with_options(_gpu_nodes(_with_network(_spec("gcp"), cidr="10.0.0.0/30",
                                                  pod_cidr="10.8.0.0/22"), 3),
                         existing_networks=nets, private_nodes=False)
    # The /30 node range and the /30 fabric subnet are the team's; 5 nodes x 256 > 1024.
    assert [p.path for p in gcp_checks.address_problems(spec, ["192.168.0.0/30"])] == [
        "network.pod_cidr"]


def test_gke_fabric_subnets_hold_the_fabric_pools_nodes_only() -> None:
    # a4-highgpu-8g has fabric NICs, g2-standard-48 none (catalog/gcp.py): a /29 fabric subnet
    # (4 usable) holds the 2 a4 nodes; the 3 g2 nodes take no fabric address.
    spec = _spec("gcp")
    plain = spec.node_pools[0].model_copy(update={
        "name": "plain", "machine_type": "g2-standard-48", "node_count": 3})
    two = spec.model_copy(update={"node_pools": [spec.node_pools[0], plain]})
    assert [p.name for p in two.fabric_pools] == ["gpu"]
    assert gcp_checks.address_problems(two, ["192.168.0.0/29"]) == []


def test_zone_refusals_name_the_zone_given() -> None:
    oci = provider_for(Cloud.OCI).location_problems("us-ashburn-1", "Uocm:US-ASHBURN-AD-4")
    assert (oci[0].value, oci[0].has_value) == ("Uocm:US-ASHBURN-AD-4", True)
    assert oci[0].message.startswith(
        "'Uocm:US-ASHBURN-AD-4' is not a zone of OCI region us-ashburn-1")
    gcp = provider_for(Cloud.GCP).location_problems("us-east1", "us-east1-a")
    assert (gcp[0].value, gcp[0].has_value) == ("us-east1-a", True)
    assert gcp[0].message.startswith("'us-east1-a' is not a zone of GCP region us-east1")


def test_an_existing_cluster_keeps_its_api_access() -> None:
    # DOKS refuses a private endpoint only for a cluster this stack creates.
    existing = _spec("digitalocean").model_copy(update={"existing": object(),
                                                        "api_access": PRIVATE})
    assert security.security_problems(existing) == []


def test_registry_key_error_names_the_cloud(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(registry, "PROVIDER_MODULES", {Cloud.GCP: "gpu_fabric.clouds.gcp.provider"})
    with pytest.raises(KeyError) as info:
        registry.PROVIDERS[Cloud.AWS]
    assert info.value.args == (Cloud.AWS,)


# -- each refusal is added to the others, and what an existing network skips ----------------


def test_gke_reports_node_fabric_and_pod_ranges_together() -> None:
    spec = _gpu_nodes(_with_network(_spec("gcp"), cidr="10.0.0.0/28", pod_cidr="10.8.0.0/22"),
                      11)
    assert [p.path for p in gcp_checks.address_problems(spec, ["192.168.0.0/30"])] == [
        "network.cidr", "network.fabric_subnet_prefix", "network.pod_cidr"]


def test_eks_reports_gpu_and_private_subnets_together() -> None:
    spec = _spec("aws")
    found = aws_checks.address_problems(spec, "10.0.0.0/28", ["10.0.2.0/30"], {"gpu": 6})
    assert [p.value for p in found] == ["10.0.0.0/16", "10.0.2.0/30"]


def test_api_access_and_encryption_refusals_together() -> None:
    spec = _with_options(_spec("gcp"), private_nodes=False).model_copy(update={
        "api_access": PRIVATE, "secrets_encryption": SecretsEncryptionSpec(kms_key="not-a-key")})
    assert [p.path for p in security.security_problems(spec)] == [
        "api_access.private_endpoint", "secrets_encryption.kms_key"]


def test_eks_node_without_efa_takes_one_address() -> None:
    # g5.48xlarge has no EFA (catalog/aws.py, fabric NONE): its only interface is the
    # primary ENA, 1 address per node; the /24 GPU subnet of a /20 holds 251.
    g5 = _spec("aws")
    pool = g5.node_pools[0].model_copy(update={"machine_type": "g5.48xlarge"})
    g5 = _with_network(g5.model_copy(update={"node_pools": [pool]}), cidr="10.0.0.0/20")
    aws_checks.check_infrastructure(_gpu_nodes(g5, 251), {})
    with pytest.raises(SpecError) as info:
        aws_checks.check_infrastructure(_gpu_nodes(g5, 252), {})
    assert "need 252;" in info.value.problems[0].message


def test_an_existing_vpc_or_vcn_is_the_teams() -> None:
    from gpu_fabric.clouds.aws.options import AwsExistingVpc
    from gpu_fabric.clouds.oci.options import OciExistingNetwork

    vpc = AwsExistingVpc.model_construct(
        vpc_id="vpc-0abc", private_subnet_ids=["subnet-a", "subnet-b"],
        gpu_subnet_id="subnet-g")
    aws = _with_options(_gpu_nodes(_with_network(_spec("aws"), cidr="10.0.0.0/20"), 252),
                        existing_vpc=vpc)
    assert aws_checks.check_infrastructure(aws, {}) is None  # the team's subnets
    planned = _with_options(aws, existing_vpc=None)  # 252 nodes do not fit a planned /24
    with pytest.raises(SpecError) as info:
        aws_checks.check_infrastructure(planned, {})
    assert [p.path for p in info.value.problems] == ["network.cidr"]
    vcn = OciExistingNetwork.model_construct(
        vcn_id="ocid1.vcn.oc1..a", endpoint_subnet_id="ocid1.subnet.oc1..e",
        worker_subnet_id="ocid1.subnet.oc1..w", pod_subnet_id="ocid1.subnet.oc1..p",
        lb_subnet_id=None)
    oci = _with_options(_gpu_nodes(_with_network(_spec("oci"), cidr="10.0.0.0/20"), 1020),
                        existing_network=vcn)
    assert oci_checks.check_infrastructure(oci, {}) is None  # the team's subnets
    planned = _with_options(oci, existing_network=None)  # 1022 nodes: not a planned /22
    with pytest.raises(SpecError) as info:
        oci_checks.check_infrastructure(planned, {})
    assert [p.path for p in info.value.problems] == ["network.cidr"]
