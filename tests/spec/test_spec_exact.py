"""Every spec rule at its edges, with the whole message written out.

Written against the mutation run of ``components/gpu_fabric/spec`` (``scripts/mutation.py spec``,
docs/mutation.md): a rule tested only with ``in`` / ``startswith``, or only far from
its boundary, let wrong versions of it pass. Each expected problem here is the full
rendered line, ``<path>: <message> (got <value>)``, so the field, the bad value and
what is valid are all checked.

Sources of the literal facts:
- machines (GPU and fabric NIC counts, MIG profiles, fabric kinds): the catalog rows,
  themselves checked literally in tests/catalog/test_catalog.py against the provider pages;
- capacity types per cloud: GKE "About GPU obtainability" (on-demand, Spot,
  reservations, flex-start, queued provisioning), EC2 "Capacity Blocks for ML" and
  On-Demand Capacity Reservations (ids ``cr-`` + 17 hex digits), Azure Spot VMs,
  DigitalOcean GPU Droplets (on demand only), OCI capacity reservations and
  preemptible instances;
- zones: GCP zones ``<region>-<letter>``, AWS AZs ``<region><letter>``
  (docs.aws.amazon.com "Regions and Zones"), DigitalOcean has none;
- DRA API levels: resource.k8s.io/v1 is GA in Kubernetes 1.34, v1beta1 from 1.32
  (kubernetes.io "Dynamic Resource Allocation");
- sizes: nccl-tests reads -b/-e with binary K/M/G (nccl-tests src/common.cu parsesize).
- /dev/shm sizes: Kubernetes quantities, kubernetes/apimachinery pkg/api/resource/quantity.go
  at 357557a670d84c30ef3b5355f02c11d8aba5a941 ("<binarySI> ::= Ki | Mi | Gi | Ti | Pi | Ei");
  machine memory: the catalog's host_memory_gib (p5.48xlarge 2048 GiB, karpenter-provider-aws
  instance-types.md 1d92708 "instance-memory 2097152" MiB; a4-highgpu-8g 3968 GiB,
  GoogleCloudPlatform/cluster-autoscaler deprecated_machine_types_config.go 7d25050
  NewMachineTypeInfo("a4-highgpu-8g", 224, 3968); OCI shapes: no figure).
"""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import ValidationError

from gpu_fabric.errors import Problem, SpecError
from gpu_fabric.spec import (
    AcceptanceSpec,
    AddonSpec,
    CapacitySpec,
    ClusterSpec,
    FabricSpec,
    GpuNodePoolSpec,
    KubeconfigSource,
    KubernetesSpec,
    LocationSpec,
    NetworkSpec,
    load_spec,
    parse_size,
    problems_from_validation,
    spec_json_schema,
)
from tests.specs import spec_dict, with_pool


def problems(data: Any) -> list[str]:
    """The rendered problems of an invalid spec, in order."""
    with pytest.raises(SpecError) as info:
        load_spec(data)
    return [str(p) for p in info.value.problems]


def pool_data(cloud: str, **pool: Any) -> dict[str, Any]:
    return with_pool(cloud, **pool)


# -- names (DNS labels) -------------------------------------------------------------

DNS_40 = (
    "must be a lowercase DNS label: letters, digits and '-', starting with a letter, "
    "at most 40 characters"
)


def test_cluster_name_of_40_characters_is_valid_and_41_is_not() -> None:
    assert load_spec(spec_dict("gcp", name="a" * 40)).name == "a" * 40
    assert problems(spec_dict("gcp", name="a" * 41)) == [f"name: {DNS_40} (got '{'a' * 41}')"]


def test_cluster_name_with_upper_case_is_refused() -> None:
    assert problems(spec_dict("gcp", name="Bad_Name")) == [f"name: {DNS_40} (got 'Bad_Name')"]


def test_pool_name_of_40_characters_is_valid_and_41_is_not() -> None:
    assert load_spec(pool_data("gcp", name="p" * 40)).node_pools[0].name == "p" * 40
    assert problems(pool_data("gcp", name="p" * 41)) == [
        f"node_pools[0].name: {DNS_40} (got '{'p' * 41}')"
    ]


def test_team_name_of_63_characters_is_valid_and_64_is_not() -> None:
    def team(name: str) -> dict[str, Any]:
        return spec_dict("gcp", tenancy={"teams": [{"name": name, "group": "g", "gpus": 8}]})

    assert load_spec(team("t" * 63)).tenancy.teams[0].name == "t" * 63
    assert problems(team("t" * 64)) == [
        "tenancy.teams[0].name: must be a lowercase DNS label: letters, digits and '-', "
        f"starting with a letter, at most 63 characters (got '{'t' * 64}')"
    ]


def test_azure_pool_name_is_an_agent_pool_name() -> None:
    """AKS agent pool names: 1-12 lowercase letters and digits, starting with a letter."""
    message = (
        "Azure agent pool names are 1-12 lowercase letters and digits, starting with a "
        "letter (no '-')"
    )
    assert load_spec(pool_data("azure", name="a" * 12)).node_pools[0].name == "a" * 12
    assert problems(pool_data("azure", name="a" * 13)) == [
        f"node_pools[0].name: {message} (got '{'a' * 13}')"
    ]
    assert problems(pool_data("azure", name="gpu-1")) == [
        f"node_pools[0].name: {message} (got 'gpu-1')"
    ]
    # Outside Azure a '-' is fine.
    assert load_spec(pool_data("gcp", name="gpu-1")).node_pools[0].name == "gpu-1"


# -- location ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("cloud", "region", "cloud_name", "example"),
    [
        ("gcp", "us-west8", "GCP", "us-west8-c"),
        ("aws", "us-east-1", "AWS", "us-east-1a"),
        ("oci", "us-ashburn-1", "OCI", "Uocm:US-ASHBURN-AD-1"),
    ],
)
def test_zone_is_required_where_the_cloud_has_zones(
    cloud: str, region: str, cloud_name: str, example: str
) -> None:
    data = spec_dict(cloud, location={"region": region})
    assert problems(data) == [
        f"location.zone: location.zone is required on {cloud_name}: the GPU nodes and their "
        f"fabric live in one zone (e.g. {example})"
    ]


def test_azure_needs_no_zone_and_digitalocean_refuses_one() -> None:
    assert load_spec(spec_dict("azure")).location.zone is None
    data = spec_dict("digitalocean", location={"region": "nyc2", "zone": "nyc2-a"})
    assert problems(data) == [
        "location.zone: DigitalOcean has no zones; remove location.zone"
    ]


def test_zone_outside_its_region_names_both_and_a_zone_of_the_region() -> None:
    data = spec_dict("gcp", location={"region": "us-west8", "zone": "us-east1-b"})
    assert problems(data) == [
        "location.zone: zone 'us-east1-b' is not in region 'us-west8'; use a zone of that "
        "region (e.g. us-west8-a) (got 'us-east1-b')"
    ]
    data = spec_dict("aws", location={"region": "us-east-1", "zone": "us-west-2a"})
    assert problems(data) == [
        "location.zone: zone 'us-west-2a' is not in region 'us-east-1'; use a zone of that "
        "region (e.g. us-east-1a) (got 'us-west-2a')"
    ]


def test_oci_availability_domain_does_not_start_with_the_region() -> None:
    """OCI ADs are '<tenancy prefix>:<REGION>-AD-<n>': not prefixed by the region id."""
    spec = load_spec(spec_dict("oci"))
    assert spec.location.zone == "Uocm:US-ASHBURN-AD-1"


def test_location_without_a_cloud_checks_nothing_cloud_specific() -> None:
    assert LocationSpec(region="us-east-1").zone is None
    assert LocationSpec(region="nyc2", zone="anything").zone == "anything"


# -- Kubernetes version --------------------------------------------------------------


def test_kubernetes_130_is_the_oldest_supported() -> None:
    assert KubernetesSpec(version="1.30").version == "1.30"
    assert KubernetesSpec(version="1.30").parsed.minor == 30
    data = spec_dict("gcp", kubernetes={"version": "1.29"})
    assert problems(data) == [
        "kubernetes.version: Kubernetes 1.29 is too old; this library supports 1.30 and "
        "later (1.34+ for DRA resource.k8s.io/v1) (got '1.29')"
    ]


def test_kubernetes_version_that_is_not_one() -> None:
    data = spec_dict("gcp", kubernetes={"version": "latest"})
    assert problems(data) == [
        "kubernetes.version: 'latest' is not a Kubernetes version; write it like 1.34 or "
        "1.34.1-gke.1829001 (got 'latest')"
    ]


# -- network -------------------------------------------------------------------------


def test_cidr_with_host_bits_names_the_value_the_reason_and_the_form() -> None:
    data = spec_dict("gcp", network={"cidr": "10.0.0.1/16"})
    assert problems(data) == [
        "network.cidr: '10.0.0.1/16' is not a valid IPv4 CIDR (10.0.0.1/16 has host bits "
        "set); write it like 10.0.0.0/16 (got '10.0.0.1/16')"
    ]


def test_cidr_given_as_a_network_object_is_taken_as_is() -> None:
    import ipaddress

    net = NetworkSpec(cidr=ipaddress.IPv4Network("10.1.0.0/16"))
    assert str(net.cidr) == "10.1.0.0/16"


@pytest.mark.parametrize(
    ("network", "expected"),
    [
        (
            {"cidr": "10.0.0.0/16", "pod_cidr": "10.0.128.0/17"},
            "network.pod_cidr: network.cidr 10.0.0.0/16 overlaps network.pod_cidr "
            "10.0.128.0/17; choose disjoint ranges (got '10.0.128.0/17')",
        ),
        (
            {"pod_cidr": "10.8.0.0/14", "service_cidr": "10.9.0.0/20"},
            "network.service_cidr: network.pod_cidr 10.8.0.0/14 overlaps "
            "network.service_cidr 10.9.0.0/20; choose disjoint ranges (got '10.9.0.0/20')",
        ),
        (
            {"service_cidr": "192.168.4.0/22"},
            "network.fabric_cidr: network.service_cidr 192.168.4.0/22 overlaps "
            "network.fabric_cidr 192.168.0.0/16; choose disjoint ranges (got '192.168.0.0/16')",
        ),
        (
            {"cidr": "192.168.0.0/20"},
            "network.fabric_cidr: network.cidr 192.168.0.0/20 overlaps network.fabric_cidr "
            "192.168.0.0/16; choose disjoint ranges (got '192.168.0.0/16')",
        ),
    ],
)
def test_overlapping_ranges_name_both_fields(network: dict[str, str], expected: str) -> None:
    assert problems(spec_dict("gcp", network=network)) == [expected]


def test_disjoint_ranges_of_all_four_kinds_are_valid() -> None:
    net = NetworkSpec(
        cidr="10.0.0.0/16", pod_cidr="10.8.0.0/14", service_cidr="10.16.0.0/20",
        fabric_cidr="192.168.0.0/16",
    )
    assert str(net.service_cidr) == "10.16.0.0/20"


def test_fabric_subnet_prefix_may_equal_the_fabric_range_but_not_exceed_it() -> None:
    ok = NetworkSpec(fabric_cidr="192.168.0.0/24", fabric_subnet_prefix=24)
    assert ok.fabric_subnet_prefix == 24
    data = spec_dict("gcp", network={"fabric_cidr": "192.168.0.0/24", "fabric_subnet_prefix": 23})
    assert problems(data) == [
        "network.fabric_subnet_prefix: fabric_subnet_prefix /23 is larger than fabric_cidr "
        "192.168.0.0/24; use a prefix of at least /24 (got 23)"
    ]


# -- existing cluster ----------------------------------------------------------------

KUBECONFIG_ONE = "set exactly one of kubeconfig.config_key or kubeconfig.path"


def test_kubeconfig_source_is_exactly_one_of_key_or_path() -> None:
    assert KubeconfigSource(path="kubeconfig.yaml").path == "kubeconfig.yaml"
    assert KubeconfigSource(config_key="kc").config_key == "kc"
    for bad in ({}, {"path": "a", "config_key": "b"}):
        with pytest.raises(ValidationError) as info:
            KubeconfigSource(**bad)
        assert [e["msg"] for e in info.value.errors()] == [KUBECONFIG_ONE]


def test_existing_cluster_needs_no_cloud_section() -> None:
    data = spec_dict("gcp", gcp=None, existing={"kubeconfig": {"path": "kubeconfig.yaml"}})
    assert load_spec(data).existing is not None


# -- pools: catalog agreement ------------------------------------------------------------


def test_unknown_machine_lists_the_clouds_machines() -> None:
    assert problems(pool_data("gcp", machine_type="a4-highgpu-16g")) == [
        "node_pools[0].machine_type: 'a4-highgpu-16g' is not a GCP machine type in the "
        "catalog; valid: a3-highgpu-8g, a3-megagpu-8g, a3-ultragpu-8g, a4-highgpu-8g, "
        "a4x-highgpu-4g, a2-highgpu-8g, g2-standard-48 (got 'a4-highgpu-16g')"
    ]


def test_pool_without_a_cloud_takes_any_machine_name() -> None:
    assert GpuNodePoolSpec(name="gpu", machine_type="not-in-catalog").node_count == 2


def test_gpus_per_node_must_match_the_catalog() -> None:
    """p5.48xlarge: 8 H100 GPUs, 32 EFA interfaces (catalog)."""
    assert load_spec(pool_data("aws", gpus_per_node=8)).node_pools[0].gpus_per_node == 8
    assert problems(pool_data("aws", gpus_per_node=4)) == [
        "node_pools[0].gpus_per_node: gpus_per_node 4 does not match p5.48xlarge, which has "
        "8 GPUs; remove it or set 8 (got 4)"
    ]


def test_fabric_nics_must_match_the_catalog() -> None:
    assert load_spec(pool_data("aws", fabric_nics=32)).node_pools[0].fabric_nics == 32
    assert problems(pool_data("aws", fabric_nics=8)) == [
        "node_pools[0].fabric_nics: fabric_nics 8 does not match p5.48xlarge, which has 32 "
        "fabric NICs; remove it or set 32 (got 8)"
    ]


SHM_SHAPE = ("is not a Kubernetes binary quantity: a whole number followed by Ki, Mi, Gi or "
             "Ti, e.g. 250Gi")


def test_shm_size_defaults_to_64gi_and_takes_a_binary_quantity() -> None:
    assert load_spec(pool_data("aws")).node_pools[0].shm_size == "64Gi"
    assert load_spec(pool_data("aws", shm_size="250Gi")).node_pools[0].shm_size == "250Gi"
    assert load_spec(pool_data("aws", shm_size="1Ki")).node_pools[0].shm_size == "1Ki"
    assert load_spec(pool_data("aws", shm_size="512Mi")).node_pools[0].shm_size == "512Mi"


@pytest.mark.parametrize("value", ["250GB", "250G", "250gi", "1.5Ti", "-1Gi", "250",
                                   "1Pi", "Gi", "250 Gi", "\u0662\u0665\u0660Gi"])
def test_shm_size_that_is_no_binary_quantity_is_refused(value: str) -> None:
    assert problems(pool_data("aws", shm_size=value)) == [
        f"node_pools[0].shm_size: shm_size '{value}' {SHM_SHAPE} (got '{value}')"
    ]


def test_shm_size_written_as_a_number_is_refused_with_the_shape() -> None:
    assert problems(pool_data("aws", shm_size=250)) == [
        f"node_pools[0].shm_size: shm_size 250 {SHM_SHAPE} (got 250)"
    ]


def test_shm_size_of_zero_is_refused() -> None:
    assert problems(pool_data("aws", shm_size="0Gi")) == [
        "node_pools[0].shm_size: shm_size '0Gi' must be above zero, e.g. 64Gi (got '0Gi')"
    ]


def test_shm_size_is_at_most_the_machines_memory() -> None:
    """p5.48xlarge: 2048 GiB; a4-highgpu-8g: 3968 GiB (catalog host_memory_gib)."""
    assert load_spec(pool_data("aws", shm_size="2048Gi")).node_pools[0].shm_size == "2048Gi"
    assert load_spec(pool_data("aws", shm_size="2Ti")).node_pools[0].shm_size == "2Ti"
    assert problems(pool_data("aws", shm_size="2049Gi")) == [
        "node_pools[0].shm_size: shm_size 2049Gi is more than the 2048Gi of memory of "
        "p5.48xlarge; the memory-backed /dev/shm is charged to the pod's memory: set at "
        "most 2048Gi (got '2049Gi')"
    ]
    assert load_spec(pool_data("gcp", shm_size="3968Gi")).node_pools[0].shm_size == "3968Gi"
    assert problems(pool_data("gcp", shm_size="4Ti")) == [
        "node_pools[0].shm_size: shm_size 4Ti is more than the 3968Gi of memory of "
        "a4-highgpu-8g; the memory-backed /dev/shm is charged to the pod's memory: set at "
        "most 3968Gi (got '4Ti')"
    ]


def test_shm_size_without_a_memory_figure_gets_the_quantity_check_only() -> None:
    """The catalog has no host memory for OCI's BM.GPU.H100.8 (None)."""
    assert load_spec(pool_data("oci", shm_size="64Ti")).node_pools[0].shm_size == "64Ti"
    assert problems(pool_data("oci", shm_size="64TB")) == [
        f"node_pools[0].shm_size: shm_size '64TB' {SHM_SHAPE} (got '64TB')"
    ]


NO_FABRIC_GCP = (
    "node_pools[0].machine_type: g2-standard-48 has no scale-out GPU fabric, so a "
    "multi-node pool of it would run NCCL over plain TCP; use a fabric machine "
    "(a3-highgpu-8g, a3-megagpu-8g, a3-ultragpu-8g, a4-highgpu-8g, a4x-highgpu-4g) or "
    "node_count 1 (got 'g2-standard-48')"
)


def test_two_nodes_of_a_machine_without_fabric_are_refused() -> None:
    assert problems(pool_data("gcp", machine_type="g2-standard-48", node_count=2)) == [
        NO_FABRIC_GCP
    ]


def test_one_node_of_a_machine_without_fabric_is_valid_even_autoscaled_to_one() -> None:
    spec = load_spec(pool_data("gcp", machine_type="g2-standard-48", node_count=1))
    assert spec.node_pools[0].node_count == 1
    spec = load_spec(pool_data(
        "gcp", machine_type="g2-standard-48", node_count=1, min_nodes=1, max_nodes=1
    ))
    assert spec.node_pools[0].max_nodes == 1
    assert spec.fabric_pools == []


def test_autoscaling_to_two_nodes_of_a_machine_without_fabric_is_refused() -> None:
    data = pool_data("gcp", machine_type="g2-standard-48", node_count=1, min_nodes=1,
                     max_nodes=2)
    assert problems(data) == [NO_FABRIC_GCP]


def test_node_count_0_without_autoscaling_is_refused() -> None:
    assert problems(pool_data("aws", node_count=0)) == [
        "node_pools[0].node_count: node_count 0 without autoscaling makes a pool that never "
        "has a node; set node_count >= 1, or min_nodes: 0 and max_nodes: N for a pool that "
        "scales up from zero when jobs wait for it (got 0)"
    ]


@pytest.mark.parametrize(("low", "count", "high"), [(2, 2, 2), (1, 2, 3), (0, 0, 4)])
def test_node_count_within_the_autoscaling_bounds_is_valid(
    low: int, count: int, high: int
) -> None:
    pool = load_spec(pool_data("aws", min_nodes=low, node_count=count, max_nodes=high))
    assert pool.node_pools[0].min_nodes == low


@pytest.mark.parametrize(("low", "count", "high"), [(3, 2, 4), (1, 5, 4)])
def test_node_count_outside_the_autoscaling_bounds_is_refused(
    low: int, count: int, high: int
) -> None:
    assert problems(pool_data("aws", min_nodes=low, node_count=count, max_nodes=high)) == [
        f"node_pools[0].node_count: need min_nodes <= node_count <= max_nodes (got {low} <= "
        f"{count} <= {high}) (got {count})"
    ]


@pytest.mark.parametrize("bound", [{"min_nodes": 1}, {"max_nodes": 4}])
def test_one_autoscaling_bound_alone_is_refused(bound: dict[str, int]) -> None:
    assert problems(pool_data("aws", **bound)) == [
        "node_pools[0].min_nodes: set both min_nodes and max_nodes, or neither"
    ]


def test_mig_on_a_gpu_without_mig_is_refused() -> None:
    """The catalog lists no MIG profile for the MI300X (AMD) of BM.GPU.MI300X.8."""
    data = pool_data("oci", machine_type="BM.GPU.MI300X.8", mig={"profile": "1g.10gb"})
    assert problems(data) == [
        "node_pools[0].mig: MI300X 192GB (BM.GPU.MI300X.8) does not support MIG in this "
        "catalog; remove mig"
    ]


def test_mig_profile_of_another_gpu_lists_the_valid_ones() -> None:
    """H100 80GB profiles (NVIDIA MIG user guide, "H100 MIG profiles")."""
    data = pool_data("oci", machine_type="BM.GPU.H100.8", mig={"profile": "1g.5gb"})
    assert problems(data) == [
        "node_pools[0].mig.profile: MIG profile '1g.5gb' does not exist on H100 80GB; "
        "valid: 1g.10gb, 1g.10gb+me, 1g.20gb, 2g.20gb, 3g.40gb, 4g.40gb, 7g.80gb "
        "(got '1g.5gb')"
    ]


def test_labels_and_taints_are_kubernetes_names() -> None:
    """apimachinery content/kube.go IsLabelKey / IsLabelValue (gpu_fabric.spec.values)."""
    assert problems(pool_data("gcp", labels={"bad key!": "x"})) == [
        "node_pools[0].labels.bad key!: node label key 'bad key!' name part must be "
        "letters, digits, '-', '_' or '.', starting and ending with a letter or digit "
        "(got 'x')"
    ]
    assert problems(pool_data("gcp", labels={"team": "a b"})) == [
        "node_pools[0].labels.team: node label value 'a b' of 'team' must be empty or "
        "letters, digits, '-', '_' or '.', starting and ending with a letter or digit "
        "(got 'a b')"
    ]
    assert problems(pool_data("gcp", taints=[{"key": "-bad"}])) == [
        "node_pools[0].taints[0].key: taint key name part must be letters, digits, '-', "
        "'_' or '.', starting and ending with a letter or digit (a taint key is a "
        "Kubernetes label key: [DNS-subdomain prefix/]name) (got '-bad')"
    ]
    ok = load_spec(pool_data(
        "gcp", labels={"example.com/team": "ml", "tier": ""}, taints=[{"key": "example.com/x"}]
    ))
    assert ok.node_pools[0].labels == {"example.com/team": "ml", "tier": ""}


# -- capacity --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("cloud", "capacity", "expected"),
    [
        ("azure", "reservation",
         "capacity type 'reservation' is not available on Azure; valid: on_demand, spot"),
        ("digitalocean", "spot",
         "capacity type 'spot' is not available on DigitalOcean; valid: on_demand"),
        ("gcp", "capacity_block",
         "capacity type 'capacity_block' is not available on GCP; valid: on_demand, spot, "
         "reservation, flex_start, queued"),
        ("aws", "flex_start",
         "capacity type 'flex_start' is not available on AWS; valid: on_demand, spot, "
         "reservation, capacity_block"),
        ("oci", "queued",
         "capacity type 'queued' is not available on OCI; valid: on_demand, reservation, spot"),
    ],
)
def test_capacity_type_must_exist_on_the_cloud(cloud: str, capacity: str, expected: str) -> None:
    data = pool_data(cloud, capacity={"type": capacity, "reservation": "cr-0123456789abcdef0"})
    assert problems(data) == [f"node_pools[0].capacity.type: {expected} (got '{capacity}')"]


@pytest.mark.parametrize("capacity", ["reservation", "capacity_block"])
def test_reserved_capacity_needs_the_reservation(capacity: str) -> None:
    assert problems(pool_data("aws", capacity={"type": capacity})) == [
        f"node_pools[0].capacity.reservation: capacity type '{capacity}' needs "
        "capacity.reservation (the reservation name or id)"
    ]
    spec = load_spec(pool_data(
        "aws", capacity={"type": capacity, "reservation": "cr-0123456789abcdef0"}
    ))
    assert spec.node_pools[0].capacity.reservation == "cr-0123456789abcdef0"


def test_a_reservation_with_on_demand_capacity_is_refused() -> None:
    data = pool_data("gcp", capacity={"type": "spot", "reservation": "r1"})
    assert problems(data) == [
        "node_pools[0].capacity.reservation: capacity.reservation is only used with type "
        "reservation or capacity_block (type is 'spot') (got 'r1')"
    ]


def test_aws_reservation_ids_start_with_cr() -> None:
    data = pool_data("aws", capacity={"type": "reservation", "reservation": "my-reservation"})
    assert problems(data) == [
        "node_pools[0].capacity.reservation: AWS capacity reservations and Capacity Blocks "
        "have ids like cr-0123456789abcdef0 (got 'my-reservation')"
    ]
    # A GCP specific reservation is a plain name.
    spec = load_spec(pool_data("gcp", capacity={"type": "reservation", "reservation": "res-a"}))
    assert spec.node_pools[0].capacity.reservation == "res-a"


def test_capacity_without_a_cloud_checks_only_the_reservation() -> None:
    assert CapacitySpec(type="queued").type == "queued"
    assert CapacitySpec(type="reservation", reservation="anything").reservation == "anything"


# -- fabric ----------------------------------------------------------------------------


def fabric_data(cloud: str, version: str | None, **fabric: Any) -> dict[str, Any]:
    data = spec_dict(cloud, fabric=fabric)
    if version is None:
        data.pop("kubernetes")
    else:
        data["kubernetes"] = {"version": version}
    return data


def test_dra_v1_needs_134() -> None:
    assert problems(fabric_data("gcp", "1.33", mode="dra", dra_api="v1")) == [
        "fabric.dra_api: resource.k8s.io/v1 needs Kubernetes 1.34+ (cluster is 1.33); use "
        "dra_api v1beta1 or a newer version (got 'v1')"
    ]
    assert load_spec(fabric_data("gcp", "1.34", mode="dra", dra_api="v1")).fabric.dra_api == "v1"


def test_dra_auto_before_134_asks_to_opt_in_to_the_beta_api() -> None:
    assert problems(fabric_data("gcp", "1.33", mode="dra")) == [
        "fabric.dra_api: DRA on Kubernetes 1.33 uses the beta API resource.k8s.io/v1beta1; "
        "set fabric.dra_api: v1beta1 to opt in, or use Kubernetes 1.34+ (got 'auto')"
    ]


def test_dra_beta_works_from_132() -> None:
    spec = load_spec(fabric_data("gcp", "1.32", mode="dra", dra_api="v1beta1"))
    assert spec.fabric.dra_api == "v1beta1"
    assert problems(fabric_data("gcp", "1.31", mode="dra", dra_api="v1beta1")) == [
        "fabric.mode: DRA needs Kubernetes 1.32 or later (got 'dra')"
    ]


def test_without_a_kubernetes_section_the_default_134_allows_dra_v1() -> None:
    spec = load_spec(fabric_data("gcp", None, mode="dra"))
    assert spec.kubernetes.version == "1.34"


def test_a_kubernetes_section_without_a_version_means_134() -> None:
    data = fabric_data("gcp", None, mode="dra")
    data["kubernetes"] = {"auto_upgrade": True}
    assert load_spec(data).kubernetes.version == "1.34"


def test_the_kubernetes_version_of_a_model_instance_is_used_for_dra() -> None:
    data = fabric_data("gcp", None, mode="dra")
    data["kubernetes"] = KubernetesSpec(version="1.33")
    with pytest.raises(ValidationError) as info:
        ClusterSpec(**data)
    assert [e["loc"] for e in info.value.errors()] == [("fabric",)]


def test_dra_rules_do_not_apply_to_other_modes_or_without_a_version() -> None:
    spec = load_spec(fabric_data("gcp", "1.31", mode="device-plugin", dra_api="v1"))
    assert spec.fabric.dra_api == "v1"
    assert FabricSpec(mode="dra", dra_api="v1").dra_api == "v1"


def test_managed_dranet_is_gke_only_and_needs_dra() -> None:
    assert problems(fabric_data("aws", "1.34", mode="dra", dranet="managed")) == [
        "fabric.dranet: managed DRANet is a GKE feature; on AWS use dranet: self "
        "(got 'managed')"
    ]
    assert problems(fabric_data("gcp", "1.34", dranet="managed")) == [
        "fabric.dranet: dranet: managed needs fabric.mode: dra"
    ]
    spec = load_spec(fabric_data("gcp", "1.34", mode="dra", dranet="managed"))
    assert spec.fabric.dranet == "managed"


def test_efa_device_plugin_is_aws_only() -> None:
    assert problems(fabric_data("gcp", "1.34", device_plugin="efa")) == [
        "fabric.device_plugin: the EFA device plugin exists only on AWS (got 'efa')"
    ]
    assert load_spec(fabric_data("aws", "1.34", device_plugin="efa")).fabric.device_plugin == "efa"
    assert FabricSpec(device_plugin="efa", dranet="managed", mode="dra").dranet == "managed"


def test_fabric_namespaces_and_device_classes_are_kubernetes_names() -> None:
    assert problems(spec_dict("gcp", fabric={"namespaces": ["ml", "ml"]})) == [
        "fabric.namespaces: fabric.namespaces lists a namespace twice (got ['ml', 'ml'])"
    ]
    assert problems(spec_dict("gcp", fabric={"namespaces": ["ML"]})) == [
        "fabric.namespaces: must be a lowercase DNS label: letters, digits and '-', starting "
        "with a letter, at most 63 characters (got ['ML'])"
    ]
    assert problems(spec_dict("gcp", fabric={"gpu_device_class": "GPU"})) == [
        "fabric.gpu_device_class: 'GPU' is not a valid DeviceClass name (must be a "
        "lowercase RFC 1123 subdomain: dot-separated labels of a-z, 0-9 and '-', each "
        "starting and ending with a letter or digit) (got 'GPU')"
    ]
    spec = load_spec(spec_dict("gcp", fabric={
        "namespaces": ["ml", "research"], "nic_device_class": "mrdma.google.com"
    }))
    assert spec.fabric.namespaces == ["ml", "research"]


@pytest.mark.parametrize("counts", [[], [0, 1], [2, 2]])
def test_claim_counts_are_distinct_and_positive(counts: list[int]) -> None:
    assert problems(spec_dict("gcp", fabric={"claim_gpu_counts": counts})) == [
        "fabric.claim_gpu_counts: claim_gpu_counts needs distinct positive GPU counts "
        f"(got {counts})"
    ]


def test_claim_counts_are_sorted() -> None:
    spec = load_spec(spec_dict("gcp", fabric={"claim_gpu_counts": [8, 1, 2]}))
    assert spec.fabric.claim_gpu_counts == [1, 2, 8]


def test_dra_on_gpudirect_tcpx_machines_is_refused() -> None:
    """a3-highgpu-8g is GPUDirect-TCPX, a3-megagpu-8g TCPXO (catalog; GKE docs)."""
    for machine in ("a3-highgpu-8g", "a3-megagpu-8g"):
        data = pool_data("gcp", machine_type=machine)
        data["fabric"] = {"mode": "dra"}
        assert problems(data) == [
            "fabric.mode: GPUDirect-TCPX/TCPXO machines (A3 High / A3 Mega) use GKE "
            "multi-networking, not DRA; use mode device-plugin or auto (got 'dra')"
        ]
    data = pool_data("gcp", machine_type="a3-ultragpu-8g")
    data["fabric"] = {"mode": "dra"}
    assert load_spec(data).fabric.mode == "dra"


# -- add-ons ---------------------------------------------------------------------------


def test_addon_version_must_be_pinned() -> None:
    assert problems(spec_dict("gcp", addons={"kueue": {"version": "latest"}})) == [
        "addons.kueue.version: 'latest' is not a pinned version; give an exact release such "
        "as v1.2.3 (not latest/stable/ranges) (got 'latest')"
    ]
    assert AddonSpec(version="v0.13.4").version == "v0.13.4"
    assert AddonSpec().version is None


# -- tenancy and acceptance ------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "size"),
    [("8", 8), ("64K", 65536), ("1M", 1048576), ("8G", 8589934592), ("3K", 3072)],
)
def test_sizes_are_binary_multiples(text: str, size: int) -> None:
    assert parse_size(text) == size


@pytest.mark.parametrize("text", ["1T", "1.5G", "K", "8g", " 8"])
def test_a_size_that_is_not_one_is_refused(text: str) -> None:
    with pytest.raises(ValueError) as info:
        parse_size(text)
    assert str(info.value) == f"'{text}' is not a size like 64K, 1M or 8G"


def acceptance(**fields: Any) -> dict[str, Any]:
    return spec_dict("gcp", acceptance={"enabled": True, **fields})


def test_acceptance_max_bytes_of_1g_is_the_smallest() -> None:
    assert load_spec(acceptance(max_bytes="1G")).acceptance.max_bytes == "1G"
    assert problems(acceptance(max_bytes="1023M")) == [
        "acceptance.max_bytes: max_bytes must be at least 1G: the verdict judges rows >= "
        "1 GiB (got 1023M) (got '1023M')"
    ]


def test_acceptance_min_bytes_may_equal_max_bytes_but_not_exceed_it() -> None:
    assert load_spec(acceptance(min_bytes="1G", max_bytes="1G")).acceptance.min_bytes == "1G"
    assert problems(acceptance(min_bytes="2G", max_bytes="1G")) == [
        "acceptance.min_bytes: min_bytes is larger than max_bytes (got '2G')"
    ]


def test_acceptance_size_that_is_not_one() -> None:
    assert problems(acceptance(min_bytes="1T")) == [
        "acceptance.min_bytes: '1T' is not a size like 64K, 1M or 8G (got '1T')"
    ]
    assert AcceptanceSpec(min_bytes="1K", max_bytes="2G").max_bytes == "2G"


def test_acceptance_nodes_fit_the_pool_including_its_autoscaling_maximum() -> None:
    assert load_spec(acceptance(nodes=2)).acceptance.nodes == 2
    assert problems(acceptance(nodes=3)) == [
        "acceptance.nodes: pool 'gpu' has at most 2 nodes (got 3)"
    ]
    data = acceptance(nodes=4)
    data["node_pools"][0].update(min_nodes=1, node_count=2, max_nodes=4)
    assert load_spec(data).acceptance.nodes == 4
    data["acceptance"]["nodes"] = 5
    assert problems(data) == ["acceptance.nodes: pool 'gpu' has at most 4 nodes (got 5)"]


def test_acceptance_gpus_per_node_fit_the_machine() -> None:
    """a4-highgpu-8g has 8 B200 GPUs (catalog)."""
    assert load_spec(acceptance(gpus_per_node=8)).acceptance.gpus_per_node == 8
    assert problems(acceptance(gpus_per_node=9)) == [
        "acceptance.gpus_per_node: a4-highgpu-8g has 8 GPUs per node (got 9)"
    ]


def test_acceptance_pool_must_exist_and_defaults_to_the_first() -> None:
    assert problems(acceptance(pool="missing")) == [
        "acceptance.pool: no node pool named 'missing' (got 'missing')"
    ]
    data = acceptance(nodes=3)
    data["node_pools"].append({"name": "big", "machine_type": "a4-highgpu-8g", "node_count": 3})
    # The first pool (2 nodes) is the default target, not the larger second one.
    assert problems(data) == ["acceptance.nodes: pool 'gpu' has at most 2 nodes (got 3)"]
    data["acceptance"]["pool"] = "big"
    assert load_spec(data).acceptance.pool == "big"


def test_disabled_acceptance_is_not_checked() -> None:
    data = spec_dict("gcp", acceptance={"enabled": False, "pool": "missing", "nodes": 9})
    assert load_spec(data).acceptance.nodes == 9


def team(name: str, *pools: str) -> dict[str, Any]:
    return {"name": name, "group": f"{name}@example.com", "gpus": 8, "node_pools": list(pools)}


def test_team_pools_must_exist_and_the_message_lists_the_pools() -> None:
    data = spec_dict("gcp", tenancy={"teams": [team("ml", "gpu"), team("cv", "zeta", "gpu")]})
    data["node_pools"].append({"name": "alpha", "machine_type": "a4-highgpu-8g"})
    assert problems(data) == [
        "tenancy.teams[1].node_pools: no node pool named 'zeta'; pools: alpha, gpu "
        "(got 'zeta')"
    ]


def test_team_names_must_be_unique() -> None:
    data = spec_dict("gcp", tenancy={"teams": [team("ml"), team("ml")]})
    assert problems(data) == ["tenancy.teams: team names must be unique"]


def test_several_cross_field_problems_are_reported_together_and_summarised() -> None:
    data = spec_dict("gcp", tenancy={"teams": [team("ml"), team("ml")]},
                     acceptance={"enabled": True, "pool": "missing"})
    assert problems(data) == [
        "acceptance.pool: no node pool named 'missing' (got 'missing')",
        "tenancy.teams: team names must be unique",
    ]
    with pytest.raises(ValidationError) as info:
        ClusterSpec(**data)
    [error] = info.value.errors()
    assert error["msg"] == (
        "acceptance.pool: no node pool named 'missing' (got 'missing'); "
        "tenancy.teams: team names must be unique"
    )


# -- the cluster ----------------------------------------------------------------------


def test_pools_must_exist_and_have_unique_names() -> None:
    assert problems(spec_dict("gcp", node_pools=[])) == [
        "node_pools: node_pools is empty; declare at least one GPU node pool (got [])"
    ]
    pools = [{"name": n, "machine_type": "a4-highgpu-8g"} for n in ("b", "a", "c", "b", "a")]
    assert problems(spec_dict("gcp", node_pools=pools)) == [
        "node_pools: pool names must be unique; repeated: a, b (got [{'name': 'b', "
        "'machine_type': 'a4-highgpu-8g'}, {'name': 'a', 'machine_type'...)"
    ]


def test_pool_lookup_names_the_pools() -> None:
    data = spec_dict("gcp")
    data["node_pools"].append({"name": "second", "machine_type": "a4-highgpu-8g"})
    spec = load_spec(data)
    assert spec.pool("second").name == "second"
    with pytest.raises(KeyError) as info:
        spec.pool("third")
    assert info.value.args == ("no node pool 'third'; pools: gpu, second",)


def test_section_of_another_cloud_is_refused_by_name() -> None:
    data = spec_dict("aws")
    data["gcp"] = {"project": "p"}
    assert problems(data) == [
        "gcp: section 'gcp' is for another cloud: this cluster's cloud is 'aws'; move its "
        "settings to 'aws:' or remove it (got {'project': 'p'})"
    ]


# The article by sound (issue 36: "a AWS"): a GCP, an AWS, an Azure, an OCI.
@pytest.mark.parametrize(("cloud", "name"), [("gcp", "a GCP"), ("aws", "an AWS"),
                                             ("azure", "an Azure"), ("oci", "an OCI")])
def test_created_cluster_needs_its_cloud_section(cloud: str, name: str) -> None:
    assert problems(spec_dict(cloud, **{cloud: None})) == [
        f"{cloud}: section '{cloud}:' is required to create {name} cluster (or set "
        "'existing:' to use a running one)"
    ]


def test_digitalocean_needs_no_section() -> None:
    assert load_spec(spec_dict("digitalocean")).options is None


def test_unknown_cloud_is_the_only_problem_reported() -> None:
    data = {**spec_dict("gcp"), "cloud": "gce"}
    assert problems(data) == [
        "cloud: Input should be 'gcp', 'aws', 'azure', 'digitalocean' or 'oci' (got 'gce')"
    ]


def test_options_are_the_clouds_section() -> None:
    spec = load_spec(spec_dict("gcp"))
    assert spec.options is spec.gcp
    assert spec.options.project == "test-project"


# -- loading -------------------------------------------------------------------------


def test_non_mapping_names_the_top_level_and_the_source() -> None:
    with pytest.raises(SpecError) as info:
        load_spec(["a"], source="Pulumi.x.yaml")
    assert info.value.source == "Pulumi.x.yaml"
    assert [str(p) for p in info.value.problems] == [
        "(top level): the cluster spec must be a mapping of keys to values (got ['a'])"
    ]
    with pytest.raises(SpecError) as info:
        load_spec({"name": "x"}, source="Pulumi.y.yaml")
    assert info.value.source == "Pulumi.y.yaml"


def test_unknown_keys_list_the_valid_keys_of_their_model() -> None:
    data = with_pool("aws")
    data["node_pools"][0]["mig"] = {"profile": "1g.10gb", "strategi": "single"}
    data["nodepool"] = {}
    assert problems(data) == [
        "node_pools[0].mig.strategi: unknown key 'strategi'; valid keys here: strategy, profile",
        "nodepool: unknown key 'nodepool'; valid keys here: name, cloud, location, kubernetes, "
        "network, system_pool, node_pools, fabric, addons, tenancy, acceptance, health, "
        "existing, tags, api_access, secrets_encryption, gcp, aws, azure, digitalocean, oci",
    ]


def test_unknown_key_under_a_model_inside_a_list() -> None:
    data = spec_dict("gcp", tenancy={"teams": [{**team("ml"), "quota": 1}]})
    assert problems(data) == [
        "tenancy.teams[0].quota: unknown key 'quota'; valid keys here: name, group, gpus, "
        "node_pools, priority"
    ]


def test_missing_keys_are_named() -> None:
    assert problems({"cloud": "gcp"}) == [
        "name: required key is missing",
        "location: required key is missing",
        "node_pools: required key is missing",
    ]


def test_value_error_prefix_is_dropped_and_input_shown() -> None:
    """Errors raised as ValueError reach users without pydantic's "Value error, " prefix."""
    error = ValidationError.from_exception_data(
        "ClusterSpec",
        [
            {"type": "value_error", "loc": ("tags",), "input": {"a": 1},
             "ctx": {"error": ValueError("tags are bad")}},
        ],
    )
    assert problems_from_validation(error) == [Problem("tags", "tags are bad", {"a": 1}, True)]


def test_a_model_level_error_pointing_at_a_field_of_the_top_level() -> None:
    from pydantic_core import PydanticCustomError

    from gpu_fabric.spec.base import _fail

    failure = _fail("k", "bad {x}", at="name", got="N", x=1)
    assert isinstance(failure, PydanticCustomError)
    assert failure.context == {"x": 1, "at": "name", "got": "N"}
    error = ValidationError.from_exception_data(
        "ClusterSpec",
        [{"type": failure, "loc": (), "input": {}}],
    )
    assert problems_from_validation(error) == [Problem("name", "bad 1", "N", True)]
    bare = _fail("k", "plain")
    assert bare.context is None and bare.message() == "plain"


def test_unknown_key_where_no_model_is_known_has_no_hint() -> None:
    error = ValidationError.from_exception_data(
        "ClusterSpec",
        [{"type": "extra_forbidden", "loc": ("tags", "x"), "input": 1}],
    )
    assert problems_from_validation(error) == [Problem("tags.x", "unknown key 'x'")]


def test_unknown_key_below_a_dict_field_has_no_hint() -> None:
    from gpu_fabric.spec.loading import _valid_keys

    assert _valid_keys(("tags",)) == []
    assert _valid_keys(("nope",)) == []
    assert _valid_keys(("node_pools", 0, "capacity")) == ["type", "reservation"]
    assert _valid_keys(("existing", "kubeconfig")) == ["config_key", "path", "context"]
    assert _valid_keys(("name",)) == []


def test_json_schema_has_its_id_and_title() -> None:
    schema = spec_json_schema()
    assert schema["$id"] == "https://gpu-fabric.dev/schemas/cluster.schema.json"
    assert schema["title"] == "gpu-fabric:cluster"
    assert schema["required"] == ["name", "cloud", "location", "node_pools"]


# -- error kinds -----------------------------------------------------------------------
# A program that builds ClusterSpec directly reads pydantic's ``errors()``: each rule's
# error type is its stable name (loading itself keys on "cross_field").


def _with(cloud: str, **changes: Any) -> dict[str, Any]:
    data = spec_dict(cloud)
    for key, value in changes.items():
        if key.startswith("pool_"):
            data["node_pools"][0][key.removeprefix("pool_")] = value
        else:
            data[key] = value
    return data


KINDS: list[tuple[str, dict[str, Any], list[tuple[str, tuple[Any, ...]]]]] = [
    ("unpinned", _with("gcp", addons={"kueue": {"version": "latest"}}),
     [("unpinned", ("addons", "kueue", "version"))]),
    ("dns_label", _with("gcp", name="Bad"), [("dns_label", ("name",))]),
    ("kubeconfig_source", _with("gcp", existing={"kubeconfig": {}}),
     [("kubeconfig_source", ("existing", "kubeconfig"))]),
    ("zone_required", _with("gcp", location={"region": "us-west8"}),
     [("zone_required", ("location",))]),
    ("zone_region", _with("gcp", location={"region": "us-west8", "zone": "us-east1-b"}),
     [("zone_region", ("location",))]),
    ("zone_unsupported", _with("digitalocean", location={"region": "nyc2", "zone": "a"}),
     [("zone_unsupported", ("location",))]),
    ("cidr_overlap", _with("gcp", network={"cidr": "192.168.0.0/20"}),
     [("cidr_overlap", ("network",))]),
    ("fabric_prefix", _with("gcp", network={"fabric_subnet_prefix": 16,
                                            "fabric_cidr": "192.168.0.0/20"}),
     [("fabric_prefix", ("network",))]),
    ("cidr", _with("gcp", network={"cidr": "10.0.0.1/16"}), [("cidr", ("network", "cidr"))]),
    ("wrong_section", _with("aws", gcp={"project": "p"}), [("wrong_section", ("gcp",))]),
    ("k8s_version_old", _with("gcp", kubernetes={"version": "1.29"}),
     [("k8s_version_old", ("kubernetes", "version"))]),
    ("k8s_version", _with("gcp", kubernetes={"version": "x"}),
     [("k8s_version", ("kubernetes", "version"))]),
    ("duplicate_pool",
     _with("gcp", node_pools=[{"name": "a", "machine_type": "a4-highgpu-8g"}] * 2),
     [("duplicate_pool", ("node_pools",))]),
    ("empty_pools", _with("gcp", node_pools=[]), [("empty_pools", ("node_pools",))]),
    ("dranet_managed", _with("aws", fabric={"mode": "dra", "dranet": "managed"}),
     [("dranet_managed", ("fabric",))]),
    ("dranet_mode", _with("gcp", fabric={"dranet": "managed"}), [("dranet_mode", ("fabric",))]),
    ("device_plugin", _with("gcp", fabric={"device_plugin": "efa"}),
     [("device_plugin", ("fabric",))]),
    ("dra_api v1", _with("gcp", kubernetes={"version": "1.33"},
                         fabric={"mode": "dra", "dra_api": "v1"}),
     [("dra_api", ("fabric",))]),
    ("dra_api auto", _with("gcp", kubernetes={"version": "1.33"}, fabric={"mode": "dra"}),
     [("dra_api", ("fabric",))]),
    ("dra_version", _with("gcp", kubernetes={"version": "1.31"},
                          fabric={"mode": "dra", "dra_api": "v1beta1"}),
     [("dra_version", ("fabric",))]),
    ("device_class", _with("gcp", fabric={"gpu_device_class": "GPU"}),
     [("device_class", ("fabric", "gpu_device_class"))]),
    ("duplicate", _with("gcp", fabric={"namespaces": ["a", "a"]}),
     [("duplicate", ("fabric", "namespaces"))]),
    ("claim_counts", _with("gcp", fabric={"claim_gpu_counts": []}),
     [("claim_counts", ("fabric", "claim_gpu_counts"))]),
    ("capacity_type", _with("azure", pool_capacity={"type": "queued"}),
     [("capacity_type", ("node_pools", 0, "capacity"))]),
    ("reservation_missing", _with("aws", pool_capacity={"type": "reservation"}),
     [("reservation_missing", ("node_pools", 0, "capacity"))]),
    ("reservation_unused", _with("aws", pool_capacity={"type": "spot", "reservation": "cr-1"}),
     [("reservation_unused", ("node_pools", 0, "capacity"))]),
    ("aws_reservation", _with("aws", pool_capacity={"type": "reservation", "reservation": "r"}),
     [("aws_reservation", ("node_pools", 0, "capacity"))]),
    ("empty_pool", _with("aws", pool_node_count=0), [("empty_pool", ("node_pools", 0))]),
    ("autoscaling range", _with("aws", pool_min_nodes=3, pool_max_nodes=4),
     [("autoscaling", ("node_pools", 0))]),
    ("autoscaling pair", _with("aws", pool_min_nodes=1), [("autoscaling", ("node_pools", 0))]),
    ("mig_unsupported", _with("oci", pool_machine_type="BM.GPU.MI300X.8",
                              pool_mig={"profile": "1g.10gb"}),
     [("mig_unsupported", ("node_pools", 0))]),
    ("mig_profile", _with("oci", pool_mig={"profile": "1g.5gb"}),
     [("mig_profile", ("node_pools", 0))]),
    ("gpu_count", _with("aws", pool_gpus_per_node=4), [("gpu_count", ("node_pools", 0))]),
    ("nic_count", _with("aws", pool_fabric_nics=4), [("nic_count", ("node_pools", 0))]),
    ("no_fabric", _with("aws", pool_machine_type="g5.48xlarge"),
     [("no_fabric", ("node_pools", 0))]),
    ("machine_type", _with("aws", pool_machine_type="p9"),
     [("machine_type", ("node_pools", 0, "machine_type"))]),
    ("label_key", _with("aws", pool_labels={"-": "x"}),
     [("label_key", ("node_pools", 0, "labels"))]),
    ("label_value", _with("aws", pool_labels={"a": "-"}),
     [("label_value", ("node_pools", 0, "labels"))]),
    ("azure_pool_name", _with("azure", pool_name="gpu-pool-1"),
     [("azure_pool_name", ("node_pools", 0, "name"))]),
    ("max_bytes", _with("gcp", acceptance={"max_bytes": "1M"}),
     [("max_bytes", ("acceptance",))]),
    ("size_range", _with("gcp", acceptance={"min_bytes": "4G", "max_bytes": "2G"}),
     [("size_range", ("acceptance",))]),
    ("size", _with("gcp", acceptance={"min_bytes": "1T"}),
     [("size", ("acceptance", "min_bytes"))]),
]


@pytest.mark.parametrize(("data", "expected"), [k[1:] for k in KINDS], ids=[k[0] for k in KINDS])
def test_each_rule_raises_its_own_error_type(
    data: dict[str, Any], expected: list[tuple[str, tuple[Any, ...]]]
) -> None:
    with pytest.raises(ValidationError) as info:
        ClusterSpec(**data)
    assert [(e["type"], e["loc"]) for e in info.value.errors()] == expected


def test_location_problems_of_the_region_tables_are_reported_with_the_others() -> None:
    """us-east-1-a starts with its region but is no AWS AZ name: <region><letter>
    (docs.aws.amazon.com "Regions and Zones"); the AWS provider
    (components/gpu_fabric/clouds/aws/provider.py) refuses it, together with the missing
    api_access (components/gpu_fabric/security.py)."""
    data = spec_dict("aws", api_access=None, location={"region": "us-east-1",
                                                       "zone": "us-east-1-a"})
    lines = problems(data)
    assert [line.split(":")[0] for line in lines] == ["api_access", "location.zone"]
    assert lines[1] == (
        "location.zone: 'us-east-1-a' is not a zone of AWS region us-east-1; did you mean "
        "us-east-1a or us-east-1f or us-east-1e? (valid: us-east-1a, us-east-1b, us-east-1c, "
        "us-east-1d, us-east-1e, us-east-1f) (got 'us-east-1-a')"
    )


def test_machine_names_are_unique_across_clouds() -> None:
    """``GpuNodePoolSpec.machine`` looks the name up without the cloud: a name listed by
    two clouds would give a pool the other cloud's machine."""
    from gpu_fabric import catalog

    names = [m.name for m in catalog.MACHINES]
    assert len(names) == len(set(names))


def test_every_cloud_title_takes_the_article_it_is_read_with() -> None:
    """Issue 36: "is not a AWS machine type". By sound: "ay", "oh", "azh" take "an"."""
    from gpu_fabric.catalog import Cloud

    assert {c.value: c.a_display for c in Cloud} == {
        "gcp": "a GCP", "aws": "an AWS", "azure": "an Azure",
        "digitalocean": "a DigitalOcean", "oci": "an OCI",
    }
