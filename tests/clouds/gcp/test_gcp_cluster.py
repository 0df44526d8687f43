"""GcpGpuCluster on the resource graph: networks, cluster, node pools, GKE objects."""

from __future__ import annotations

import ipaddress
import json

import pytest

from gpu_fabric.catalog import Cloud, FabricKind, machines
from gpu_fabric.errors import SpecError
from gpu_fabric.plan.values import SECRET
from tests.specs import GCP_RESERVED, spec_dict, with_pool

NETWORK = "gcp:compute/network:Network"
SUBNET = "gcp:compute/subnetwork:Subnetwork"
FIREWALL = "gcp:compute/firewall:Firewall"
CLUSTER = "gcp:container/cluster:Cluster"
POOL = "gcp:container/nodePool:NodePool"
COMPONENT = "gpufabric:gcp:GpuCluster"
SELF_DRANET = {"mode": "dra", "dranet": "self"}


def _gpu_pool(plan, pool: str = "gpu"):
    return next(r for r in plan.by_type(POOL) if r.inputs.get("name") == pool)


def _fabric_subnets(plan):
    return [r for r in plan.by_type(SUBNET) if not r.name.endswith("-sub") or "gvnic" in r.name]


# -- the seed stack ----------------------------------------------------------------------
def test_seed_stack_has_the_seeds_networks(stack_plan) -> None:
    plan = stack_plan("gcp-a4")
    names = {r.inputs["name"] for r in plan.by_type(SUBNET)}
    assert {f"dranet-rdma-sub-{i}" for i in range(8)} <= names
    assert "dranet-gvnic-sub" in names
    rdma = plan.one(NETWORK, "dranet-rdma-net")
    assert rdma.inputs["mtu"] == 8896
    assert rdma.inputs["networkProfile"] == (
        "projects/gke-dranet/global/networkProfiles/us-west8-c-vpc-roce"
    )
    ranges = {r.inputs["name"]: r.inputs["ipCidrRange"] for r in plan.by_type(SUBNET)}
    assert ranges["dranet-gvnic-sub"] == "192.168.0.0/24"
    assert [ranges[f"dranet-rdma-sub-{i}"] for i in range(8)] == [
        f"192.168.{i + 1}.0/24" for i in range(8)
    ]


def test_seed_pool_has_nine_additional_networks_and_depends_on_them(stack_plan) -> None:
    plan = stack_plan("gcp-a4")
    pool = _gpu_pool(plan, "dranet-a4")
    extra = pool.inputs["networkConfig"]["additionalNodeNetworkConfigs"]
    assert len(extra) == 9
    assert extra[0] == {"network": "dranet-gvnic-net", "subnetwork": "dranet-gvnic-sub"}
    assert [e["subnetwork"] for e in extra[1:]] == [f"dranet-rdma-sub-{i}" for i in range(8)]
    for sub in plan.by_type(SUBNET):
        if sub.inputs["name"] in {e["subnetwork"] for e in extra}:
            assert plan.depends_on(pool, sub), sub.name
    accel = pool.inputs["nodeConfig"]["guestAccelerators"][0]
    assert accel["type"] == "nvidia-b200" and accel["count"] == 8
    assert pool.inputs["nodeConfig"]["labels"]["nvidia.com/gpu.present"] == "true"
    assert pool.inputs["management"] == {"autoRepair": False, "autoUpgrade": False}
    # A specific reservation (A4 is not sold on demand) comes densely placed: no COMPACT
    # policy of our own (layout.compact_placement).
    assert "placementPolicy" not in pool.inputs


def test_cluster_settings(stack_plan) -> None:
    plan = stack_plan("gcp-a4")
    cluster = plan.one(CLUSTER)
    assert cluster.inputs["enableMultiNetworking"] is True
    assert cluster.inputs["datapathProvider"] == "ADVANCED_DATAPATH"
    assert cluster.inputs["removeDefaultNodePool"] is True
    assert cluster.inputs["workloadIdentityConfig"] == {"workloadPool": "gke-dranet.svc.id.goog"}
    assert cluster.inputs["privateClusterConfig"]["enablePrivateNodes"] is True
    assert cluster.inputs["deletionProtection"] is True
    assert plan.outputs["kubeconfig"] == SECRET


def test_children_are_parented_and_named_from_the_component(stack_plan) -> None:
    plan = stack_plan("gcp-a4")
    component = plan.one(COMPONENT)
    gcp_resources = [r for r in plan.resources if r.type.startswith("gcp:")]
    assert gcp_resources
    # Directly, or through a building block the component owns (FabricNetwork, GpuNodePool).
    blocks = {r.urn for r in plan.resources
              if r.type.startswith("gpufabric:gcp:") and r.parent == component.urn}
    assert len(blocks) == 2
    for r in gcp_resources:
        assert r.parent == component.urn or r.parent in blocks, r.name
        assert r.name.startswith(f"{component.name}-"), r.name


def test_firewalls_only_allow_fabric_ranges(stack_plan) -> None:
    for stack in ("gcp-a4", "gcp-a3-mega", "gcp-a3-ultra"):
        plan = stack_plan(stack)
        subnets = {r.inputs["ipCidrRange"] for r in plan.by_type(SUBNET)}
        rules = plan.by_type(FIREWALL)
        assert rules
        master = plan.one(CLUSTER).inputs["privateClusterConfig"]["masterIpv4CidrBlock"]
        for rule in rules:
            assert "0.0.0.0/0" not in rule.inputs["sourceRanges"]
            if rule.name.endswith("-webhooks"):  # control plane -> webhook ports only
                assert rule.inputs["sourceRanges"] == [master]
                continue
            assert set(rule.inputs["sourceRanges"]) <= subnets


def test_kubeconfig_uses_the_gke_auth_plugin() -> None:
    import yaml

    from gpu_fabric.clouds.gcp.kubeconfig import kubeconfig

    doc = yaml.safe_load(kubeconfig("ctx", "203.0.113.1", "Q0E="))
    assert doc["clusters"][0]["cluster"]["server"] == "https://203.0.113.1"
    assert doc["users"][0]["user"]["exec"]["command"] == "gke-gcloud-auth-plugin"
    assert "token" not in json.dumps(doc["users"])


# -- every fabric family --------------------------------------------------------------------
FABRIC_MACHINES = [m for m in machines(Cloud.GCP) if m.has_fabric]


@pytest.mark.parametrize("machine", FABRIC_MACHINES, ids=lambda m: m.name)
def test_counts_ranges_and_mtu_follow_the_catalog(machine, spec_plan) -> None:
    fabric = SELF_DRANET if machine.fabric is FabricKind.ROCE else {}
    plan = spec_plan(spec_dict("gcp", fabric=fabric, node_pools=[
        {"name": "gpu", "machine_type": machine.name, "node_count": 2,
         "capacity": GCP_RESERVED}]))
    pool = _gpu_pool(plan)
    extra = pool.inputs["networkConfig"]["additionalNodeNetworkConfigs"]
    subnets = {r.inputs["name"]: r for r in plan.by_type(SUBNET)}
    networks = {r.inputs["name"]: r for r in plan.by_type(NETWORK)}
    if machine.fabric is FabricKind.ROCE:
        assert len(extra) == machine.fabric_nics + 1
        rdma = [s for n, s in subnets.items() if "-rdma-sub-" in n]
        assert len(rdma) == machine.fabric_nics
        assert networks["test-gcp-rdma-net"].inputs["mtu"] == machine.mtu
    else:
        assert len(extra) == machine.fabric_nics
        gpu_nets = [n for n in networks.values() if "-gpu-net-" in n.inputs["name"]]
        assert len(gpu_nets) == machine.fabric_nics
        assert {n.inputs["mtu"] for n in gpu_nets} == {machine.mtu}
    fabric_ranges = [ipaddress.IPv4Network(s.inputs["ipCidrRange"])
                     for n, s in subnets.items() if n != "test-gcp-sub"]
    for i, a in enumerate(fabric_ranges):
        assert a.subnet_of(ipaddress.IPv4Network("192.168.0.0/16"))
        for b in fabric_ranges[i + 1:]:
            assert not a.overlaps(b), (a, b)
    named = {e["subnetwork"] for e in extra}
    for sub in subnets.values():
        if sub.inputs["name"] in named:
            assert plan.depends_on(pool, sub)


def test_a3_mega_gets_eight_gpu_nic_vpcs_and_the_tcpxo_installer(stack_plan) -> None:
    plan = stack_plan("gcp-a3-mega")
    gpu_nets = [n for n in plan.by_type(NETWORK) if "-gpu-net-" in n.name]
    assert len(gpu_nets) == 8 and {n.inputs["mtu"] for n in gpu_nets} == {8244}
    daemonsets = {d.inputs["metadata"]["name"] for d in plan.by_type(
        "kubernetes:apps/v1:DaemonSet")}
    assert "nccl-tcpxo-installer" in daemonsets
    params = plan.by_type("kubernetes:networking.gke.io/v1:GKENetworkParamSet")
    assert sorted(p.inputs["metadata"]["name"] for p in params) == sorted(
        f"vpc{i}" for i in range(1, 9))
    assert {p.inputs["spec"]["deviceMode"] for p in params} == {"NetDevice"}


def test_a3_ultra_multinetwork_path_has_rdma_network_objects(stack_plan) -> None:
    plan = stack_plan("gcp-a3-ultra")
    params = {p.inputs["metadata"]["name"]: p.inputs["spec"] for p in plan.by_type(
        "kubernetes:networking.gke.io/v1:GKENetworkParamSet")}
    assert params["gvnic-1"]["deviceMode"] == "NetDevice"
    assert [params[f"rdma-{i}"]["vpcSubnet"] for i in range(8)] == [
        f"a3ultra-rdma-sub-{i}" for i in range(8)]
    assert {params[f"rdma-{i}"]["deviceMode"] for i in range(8)} == {"RDMA"}
    pool = _gpu_pool(plan, "a3ultra")
    affinity = pool.inputs["nodeConfig"]["reservationAffinity"]
    assert affinity["consumeReservationType"] == "SPECIFIC_RESERVATION"
    assert affinity["values"] == ["a3-ultra-reservation"]
    assert "placementPolicy" not in pool.inputs  # the reservation fixes placement


def test_managed_dranet_uses_the_accelerator_network_profile(spec_plan) -> None:
    plan = spec_plan(spec_dict("gcp", kubernetes={"version": "1.34.1-gke.1829001"},
                               fabric={"mode": "dra", "dranet": "managed"}))
    pool = _gpu_pool(plan)
    assert pool.inputs["networkConfig"] == {"acceleratorNetworkProfile": "auto"}
    assert pool.inputs["nodeConfig"]["labels"][
        "cloud.google.com/gke-networking-dra-driver"] == "true"
    assert not [n for n in plan.by_type(NETWORK) if "rdma" in n.name]


def test_flex_start_pool_scales_from_zero(spec_plan) -> None:
    plan = spec_plan(with_pool("gcp", capacity={"type": "flex_start"}, node_count=0,
                               min_nodes=0, max_nodes=4))
    pool = _gpu_pool(plan)
    assert pool.inputs["nodeConfig"]["flexStart"] is True
    assert pool.inputs["autoscaling"]["totalMaxNodeCount"] == 4
    assert "nodeCount" not in pool.inputs


def test_existing_networks_are_referenced_not_created(spec_plan) -> None:
    gcp = {"project": "test-project", "existing_networks": {
        "network": "corp", "subnetwork": "corp-sub", "gvnic_network": "g", "gvnic_subnetwork": "gs",
        "rdma_network": "r", "rdma_subnetworks": [f"r{i}" for i in range(8)]}}
    plan = spec_plan(spec_dict("gcp", gcp=gcp, fabric=SELF_DRANET))
    assert not plan.by_type(NETWORK) and not plan.by_type(SUBNET)
    extra = _gpu_pool(plan).inputs["networkConfig"]["additionalNodeNetworkConfigs"]
    assert [e["subnetwork"] for e in extra] == ["gs", *[f"r{i}" for i in range(8)]]


# -- refusals before any resource ----------------------------------------------------------
@pytest.mark.parametrize(
    ("data", "path"),
    [
        (spec_dict("gcp", gcp={"project": "test-project", "multi_networking": False}),
         "gcp.multi_networking"),
        (spec_dict("gcp", network={"fabric_cidr": "192.168.0.0/24", "fabric_subnet_prefix": 27},
                   fabric=SELF_DRANET), "network.fabric_subnet_prefix"),
        (with_pool("gcp", name="system"), "node_pools[0].name"),
        (with_pool("gcp", capacity={"type": "flex_start"}, auto_repair=True),
         "node_pools[0].auto_repair"),
        # REGULAR is the default channel; a pool that turns auto-upgrade off is refused.
        (with_pool("gcp", auto_upgrade=False), "node_pools[0].auto_upgrade"),
        (spec_dict("gcp", fabric=SELF_DRANET, gcp={"project": "test-project",
                   "existing_networks": {"network": "n", "subnetwork": "s",
                                         "gvnic_network": "g", "gvnic_subnetwork": "gs",
                                         "rdma_network": "r", "rdma_subnetworks": ["r0"]}}),
         "gcp.existing_networks.rdma_subnetworks"),
    ],
)
def test_invalid_input_is_refused_before_any_resource(data, path, spec_plan) -> None:
    from gpu_fabric.plan import run_spec

    with pytest.raises(SpecError) as info:
        run_spec(data)
    assert path in str(info.value)


# -- cluster-toolkit's network defaults (1047080375af) -------------------------------------
def test_roce_machines_get_jumbo_primary_and_gvnic_vpcs(stack_plan) -> None:
    """modules/network/vpc/variables.tf line 82: ``mtu`` default 8896, which
    examples/gke-a4 / gke-a3-ultragpu keep for net-0 (primary) and net-1 (gVNIC)."""
    for stack, name in (("gcp-a4", "dranet"), ("gcp-a3-ultra", "a3ultra")):
        networks = {r.inputs["name"]: r.inputs for r in stack_plan(stack).by_type(NETWORK)}
        assert networks[f"{name}-net"]["mtu"] == 8896
        assert networks[f"{name}-gvnic-net"]["mtu"] == 8896
        assert networks[f"{name}-rdma-net"]["mtu"] == 8896


def test_rdma_subnets_default_to_slash_21_like_cluster_toolkit(stack_plan) -> None:
    """examples/gke-a3-ultragpu: a /18 ``ip_range`` for 8 RDMA subnets, which
    modules/network/gpu-rdma-vpc/main.tf lines 23/32 cut with
    ``cidrsubnet(ip_range, ceil(log(8, 2)), i)``: eight /21s (2,044 nodes each).
    gcp-a3-ultra sets no prefix; gcp-a4 keeps the seed's /24s explicitly."""
    subnets = {r.inputs["name"]: r.inputs["ipCidrRange"]
               for r in stack_plan("gcp-a3-ultra").by_type(SUBNET)}
    assert subnets["a3ultra-gvnic-sub"] == "192.168.0.0/21"
    assert [subnets[f"a3ultra-rdma-sub-{i}"] for i in range(8)] == [
        "192.168.8.0/21", "192.168.16.0/21", "192.168.24.0/21", "192.168.32.0/21",
        "192.168.40.0/21", "192.168.48.0/21", "192.168.56.0/21", "192.168.64.0/21"]
    seed = {r.inputs["name"]: r.inputs["ipCidrRange"]
            for r in stack_plan("gcp-a4").by_type(SUBNET)}
    assert seed["dranet-rdma-sub-0"] == "192.168.1.0/24"
