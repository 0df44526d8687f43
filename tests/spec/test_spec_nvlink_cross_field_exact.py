"""The cross-field rules of the spec (``cluster._cross_field_problems``) and the multi-node
NVLink refusals (``cluster._nvlink_problems``), each with its whole rendered problem.

Written against the survivors of the stop-40 mutation run of ``spec`` (docs/mutation.md,
"spec at stop 40"): no listed test wrote these messages out, so a changed word, field,
value, index or boundary passed. Each expected line is ``<path>: <message> (got <value>)``
and each rule is also checked at its boundary (the largest value still accepted).

Sources of the literal facts:
- machines: the catalog rows (components/gpu_fabric/catalog/, themselves checked literally
  in tests/catalog against the provider pages): a4-highgpu-8g has 8 GPUs, a4x-highgpu-4g
  4 GB200 GPUs in a GB200 NVL72 domain, Standard_ND128isr_NDR_GB200_v6 / _GB300_v6 are
  Azure's GB200 / GB300 NVL72 machines, a3-highgpu-8g / a3-megagpu-8g are GPUDirect-TCPX /
  TCPXO (GKE "Maximize GPU network bandwidth with GPUDirect-TCPX", multi-networking);
- Kubernetes 1.32 for the NVIDIA DRA driver: nvidia-dra-driver-gpu 25.12.0 Chart.yaml,
  ``kubeVersion: ">=1.32.0-0"``, as components/gpu_fabric/spec/cluster.py cites it
  (``DRA_DRIVER_MIN_VERSION``); the chart itself could not be re-read offline (only its
  values.yaml is under /work/shared/upstream);
- Azure's reserved ranges: https://learn.microsoft.com/azure/aks/configure-azure-cni
  (prerequisites: "AKS clusters may not use 169.254.0.0/16, 172.30.0.0/16, 172.31.0.0/16,
  or 192.0.2.0/24 for the Kubernetes service address range"), as the Azure provider cites;
- team quotas in one Kueue cohort: issue 34 (gpu_fabric.platform.kueue).
"""

from __future__ import annotations

from typing import Any

import pytest

from gpu_fabric.errors import SpecError
from gpu_fabric.spec import load_spec
from tests.specs import spec_dict, with_pool

DRA_OFF = {"nvidia_dra_driver": {"enabled": False}}
EXISTING = {"kubeconfig": {"path": "kubeconfig.yaml"}}


def problems(data: Any) -> list[str]:
    """The rendered problems of an invalid spec, in order."""
    with pytest.raises(SpecError) as info:
        load_spec(data)
    return [str(p) for p in info.value.problems]


def problem_dicts(data: Any) -> list[dict[str, Any]]:
    """The problems as ``plan --json`` gives them (path, message, value when shown)."""
    with pytest.raises(SpecError) as info:
        load_spec(data)
    return [p.as_dict() for p in info.value.problems]


# -- multi-node NVLink (GB200 / GB300) -----------------------------------------------

def nvlink_version(pool: str, machine: str) -> str:
    return (
        f"kubernetes.version: pool '{pool}' ({machine}) runs NCCL over multi-node NVLink, "
        "which needs an IMEX channel from a ComputeDomain of the NVIDIA DRA driver "
        "(nvidia-dra-driver-gpu 25.12.0 needs Kubernetes 1.32 or later); every fabric mode "
        "(auto, device-plugin, dra) gives it from 1.32 (got '1.31')"
    )


def nvlink_addon(pool: str, machine: str, index: int) -> str:
    return (
        f"addons.nvidia_dra_driver.enabled: pool '{pool}' ({machine}) runs NCCL over "
        f"multi-node NVLink (node_pools[{index}]): its pods need an IMEX channel, which only "
        "the NVIDIA DRA driver's ComputeDomains give on a cluster this library creates; "
        "leave the add-on on (it serves compute domains only, beside the device plugin, in "
        "device-plugin mode) (got False)"
    )


def a4x(**top: Any) -> dict[str, Any]:
    return with_pool("gcp", machine_type="a4x-highgpu-4g") | top


def azure_with(machine: str, **top: Any) -> dict[str, Any]:
    """The Azure H100 pool first, then a GB pool at index 1."""
    data = spec_dict("azure", **top)
    data["node_pools"].append({"name": "gb", "machine_type": machine, "node_count": 2})
    return data


def test_gb200_pool_on_kubernetes_1_32_and_1_33_is_valid() -> None:
    assert load_spec(a4x(kubernetes={"version": "1.32"})).kubernetes.version == "1.32"
    assert load_spec(a4x(kubernetes={"version": "1.33"})).kubernetes.version == "1.33"


def test_gb200_pool_on_kubernetes_1_31_is_refused_in_every_mode() -> None:
    expected = [nvlink_version("gpu", "a4x-highgpu-4g")]
    assert problems(a4x(kubernetes={"version": "1.31"})) == expected
    assert problems(a4x(kubernetes={"version": "1.31"},
                        fabric={"mode": "device-plugin"})) == expected


def test_gb200_pool_without_the_dra_driver_is_refused() -> None:
    assert problems(a4x(addons=DRA_OFF)) == [nvlink_addon("gpu", "a4x-highgpu-4g", 0)]


def test_both_nvlink_refusals_in_order_with_their_values() -> None:
    got = problem_dicts(a4x(kubernetes={"version": "1.31"}, addons=DRA_OFF))
    assert [(p["path"], p["value"]) for p in got] == [
        ("kubernetes.version", "1.31"),
        ("addons.nvidia_dra_driver.enabled", False),
    ]
    assert problems(a4x(kubernetes={"version": "1.31"}, addons=DRA_OFF)) == [
        nvlink_version("gpu", "a4x-highgpu-4g"),
        nvlink_addon("gpu", "a4x-highgpu-4g", 0),
    ]


def test_existing_cluster_may_turn_the_dra_driver_off_but_not_run_1_31() -> None:
    """An existing cluster installs its own driver: only the version is judged."""
    existing = a4x(gcp=None, existing=EXISTING, addons=DRA_OFF)
    assert load_spec(existing).existing is not None
    assert problems(a4x(gcp=None, existing=EXISTING, kubernetes={"version": "1.31"})) == [
        nvlink_version("gpu", "a4x-highgpu-4g"),
    ]


def test_a_pool_without_nvlink_may_turn_the_dra_driver_off_and_run_1_31() -> None:
    spec = load_spec(spec_dict("gcp", addons=DRA_OFF))
    assert spec.node_pools[0].machine_type == "a4-highgpu-8g"
    data = spec_dict("aws", kubernetes={"version": "1.31"}, addons=DRA_OFF)
    assert load_spec(data).kubernetes.version == "1.31"


def test_azure_gb300_pool_second_is_named_with_its_index() -> None:
    machine = "Standard_ND128isr_GB300_v6"
    assert problems(azure_with(machine, addons=DRA_OFF)) == [nvlink_addon("gb", machine, 1)]


def test_azure_gb200_pool_second_on_1_31() -> None:
    machine = "Standard_ND128isr_NDR_GB200_v6"
    assert problems(azure_with(machine, kubernetes={"version": "1.31"})) == [
        nvlink_version("gb", machine),
    ]


# -- the cloud section ---------------------------------------------------------------

def test_gcp_without_its_section_is_refused_and_existing_needs_none() -> None:
    assert problems(spec_dict("gcp", gcp=None)) == [
        "gcp: section 'gcp:' is required to create a GCP cluster "
        "(or set 'existing:' to use a running one)"
    ]
    assert problem_dicts(spec_dict("gcp", gcp=None))[0] == {
        "path": "gcp",
        "message": "section 'gcp:' is required to create a GCP cluster "
                   "(or set 'existing:' to use a running one)",
    }
    assert load_spec(spec_dict("gcp", gcp=None, existing=EXISTING)).options is None


def test_digitalocean_needs_no_section() -> None:
    assert load_spec(spec_dict("digitalocean")).options is None


# -- acceptance ----------------------------------------------------------------------

def test_acceptance_pool_must_exist() -> None:
    assert problems(spec_dict("gcp", acceptance={"enabled": True, "pool": "nope"})) == [
        "acceptance.pool: no node pool named 'nope' (got 'nope')"
    ]


def test_acceptance_nodes_up_to_the_pool_size() -> None:
    """The pool has 2 nodes (tests/specs.py): 2 is accepted, 3 is not."""
    assert load_spec(spec_dict("gcp", acceptance={"enabled": True, "nodes": 2}))
    assert problems(spec_dict("gcp", acceptance={"enabled": True, "nodes": 3})) == [
        "acceptance.nodes: pool 'gpu' has at most 2 nodes (got 3)"
    ]


def test_acceptance_nodes_count_the_autoscaled_maximum() -> None:
    pool = {"name": "gpu", "machine_type": "a4-highgpu-8g", "node_count": 2,
            "min_nodes": 2, "max_nodes": 4,
            "capacity": {"type": "reservation", "reservation": "test-reservation"}}
    assert load_spec(spec_dict("gcp", node_pools=[pool],
                               acceptance={"enabled": True, "nodes": 4}))
    assert problems(spec_dict("gcp", node_pools=[pool],
                              acceptance={"enabled": True, "nodes": 5})) == [
        "acceptance.nodes: pool 'gpu' has at most 4 nodes (got 5)"
    ]


def test_acceptance_gpus_per_node_up_to_the_machine() -> None:
    """a4-highgpu-8g: 8 GPUs (catalog)."""
    assert load_spec(spec_dict("gcp", acceptance={"enabled": True, "gpus_per_node": 8}))
    assert problems(spec_dict("gcp", acceptance={"enabled": True, "gpus_per_node": 9})) == [
        "acceptance.gpus_per_node: a4-highgpu-8g has 8 GPUs per node (got 9)"
    ]


def test_disabled_acceptance_is_not_judged() -> None:
    data = spec_dict("gcp", acceptance={"enabled": False, "pool": "nope", "nodes": 9})
    assert load_spec(data).acceptance.pool == "nope"


# -- tenancy -------------------------------------------------------------------------

def team(name: str, gpus: int, **more: Any) -> dict[str, Any]:
    return {"name": name, "group": "g", "gpus": gpus, **more}


def test_a_team_quota_up_to_its_pools_at_their_largest() -> None:
    """2 nodes x 8 GPUs = 16."""
    assert load_spec(spec_dict("gcp", tenancy={"teams": [team("ml", 16)]}))
    assert problems(spec_dict("gcp", tenancy={"teams": [team("ml", 17)]})) == [
        "tenancy.teams[0].gpus: team 'ml' is given 17 GPUs, but its pools hold at most 16 "
        "(gpu at their largest size) (got 17)"
    ]


def test_a_team_quota_counts_only_its_own_pools_at_their_maximum() -> None:
    """Pools 'a' (2 x 8, up to 3 nodes) and 'b' (1 x 8): a team of 'b' only holds 8."""
    reserved = {"type": "reservation", "reservation": "test-reservation"}
    pools = [
        {"name": "a", "machine_type": "a4-highgpu-8g", "node_count": 2,
         "min_nodes": 2, "max_nodes": 3,
         "capacity": reserved},
        {"name": "b", "machine_type": "a4-highgpu-8g", "node_count": 1, "capacity": reserved},
    ]
    teams = [team("ml", 24), team("cv", 9, node_pools=["b"])]
    assert problems(spec_dict("gcp", node_pools=pools, tenancy={"teams": teams})) == [
        "tenancy.teams[1].gpus: team 'cv' is given 9 GPUs, but its pools hold at most 8 "
        "(b at their largest size) (got 9)",
        "tenancy.teams: the teams' GPU quotas add up to 33 (ml: 24, cv: 9), but the "
        "cluster's node pools hold at most 32 GPUs at their largest size; lower the quotas "
        "or add nodes (got 33)",
    ]
    teams = [team("ml", 24), team("cv", 8, node_pools=["b"])]
    assert load_spec(spec_dict("gcp", node_pools=pools, tenancy={"teams": teams}))


def test_a_team_pool_must_exist() -> None:
    data = spec_dict("gcp", tenancy={"teams": [team("ml", 1, node_pools=["x"])]})
    assert problems(data) == [
        "tenancy.teams[0].node_pools: no node pool named 'x'; pools: gpu (got 'x')"
    ]


def test_quotas_together_up_to_the_cluster() -> None:
    """Two teams in one Kueue cohort (issue 34): 8 + 8 fit 16 GPUs, 9 + 8 do not."""
    fits = {"teams": [team("ml", 8), team("cv", 8)]}
    assert load_spec(spec_dict("gcp", tenancy=fits))
    over = {"teams": [team("ml", 9), team("cv", 8)]}
    assert problems(spec_dict("gcp", tenancy=over)) == [
        "tenancy.teams: the teams' GPU quotas add up to 17 (ml: 9, cv: 8), but the "
        "cluster's node pools hold at most 16 GPUs at their largest size; lower the quotas "
        "or add nodes (got 17)"
    ]


def test_team_names_must_be_unique() -> None:
    teams = {"teams": [team("ml", 1), team("ml", 1)]}
    assert problems(spec_dict("gcp", tenancy=teams)) == ["tenancy.teams: team names must be unique"]
    assert problem_dicts(spec_dict("gcp", tenancy=teams)) == [
        {"path": "tenancy.teams", "message": "team names must be unique"}
    ]


# -- network, tags, labels, mode -----------------------------------------------------

@pytest.mark.parametrize("cidr", ["172.30.0.0/16", "172.31.0.0/16"])
def test_azure_reserved_service_ranges(cidr: str) -> None:
    assert problems(spec_dict("azure", network={"service_cidr": cidr})) == [
        f"network.service_cidr: overlaps {cidr}, which Azure reserves (got '{cidr}')"
    ]


def test_azure_reserved_pod_range_and_its_neighbour() -> None:
    assert problems(spec_dict("azure", network={"pod_cidr": "172.31.128.0/17"})) == [
        "network.pod_cidr: overlaps 172.31.0.0/16, which Azure reserves (got '172.31.128.0/17')"
    ]
    assert load_spec(spec_dict("azure", network={"pod_cidr": "172.29.0.0/16"}))


def test_aws_reserved_tag_prefix_is_named_with_the_cloud() -> None:
    assert problems(spec_dict("aws", tags={"aws:x": "x"})) == [
        "tags.aws:x: AWS the prefix aws: is reserved by the cloud (got 'x')"
    ]


def test_tags_of_an_existing_cluster_are_not_judged() -> None:
    data = spec_dict("aws", aws=None, existing=EXISTING, tags={"aws:x": "x"})
    assert load_spec(data).tags == {"aws:x": "x"}


def test_kubelet_refused_node_label() -> None:
    assert problems(with_pool("gcp", labels={"kubernetes.io/x": "y"})) == [
        "node_pools[0].labels.kubernetes.io/x: node label is in a kubernetes.io / k8s.io "
        "namespace the kubelet refuses to set on its node (only [*.]node.kubernetes.io/ and "
        "[*.]kubelet.kubernetes.io/ are allowed); e.g. node-role.kubernetes.io/* must be set "
        "by an admin after the node joins (got 'kubernetes.io/x')"
    ]
    existing = with_pool("gcp", labels={"kubernetes.io/x": "y"}) | {
        "gcp": None, "existing": EXISTING,
    }
    assert load_spec(existing).node_pools[0].labels == {"kubernetes.io/x": "y"}


TCPX_DRA = (
    "fabric.mode: GPUDirect-TCPX/TCPXO machines (A3 High / A3 Mega) use GKE "
    "multi-networking, not DRA; use mode device-plugin or auto (got 'dra')"
)


@pytest.mark.parametrize("machine", ["a3-highgpu-8g", "a3-megagpu-8g"])
def test_tcpx_machines_refuse_dra_mode(machine: str) -> None:
    base = with_pool("gcp", machine_type=machine, capacity={"type": "on_demand"})
    assert problems(base | {"fabric": {"mode": "dra"}}) == [TCPX_DRA]
    assert load_spec(base | {"fabric": {"mode": "device-plugin"}}).fabric.mode.value == (
        "device-plugin"
    )
