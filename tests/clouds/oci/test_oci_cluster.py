"""OCI: the OKE resource graph (network, cluster, compute clusters, IAM, node pools)."""

from __future__ import annotations

import base64
import ipaddress

import pytest

from gpu_fabric import versions
from gpu_fabric.errors import SpecError
from gpu_fabric.plan.model import PlannedResource, PlanResult
from gpu_fabric.spec import load_spec
from tests.specs import spec_dict, with_pool

NODE_POOL = "oci:ContainerEngine/nodePool:NodePool"
COMPUTE_CLUSTER = "oci:Core/computeCluster:ComputeCluster"
POLICY = "oci:Identity/policy:Policy"
SECURITY_LIST = "oci:Core/securityList:SecurityList"
CLUSTER = "oci:ContainerEngine/cluster:Cluster"
COMPONENT = "gpufabric:oci:GpuCluster"


def _pool(plan: PlanResult, name: str) -> PlannedResource:
    return plan.one(NODE_POOL, name)


# -- node pools in compute clusters ------------------------------------------------
@pytest.mark.parametrize(("stack", "pool"), [("oci-h100", "h100"), ("oci-a100", "a100")])
def test_gpu_pool_launches_into_its_compute_cluster(stack_plan, stack: str, pool: str) -> None:
    plan = stack_plan(stack)
    node_pool = _pool(plan, f"{stack}-{pool}")
    cc = plan.one(COMPUTE_CLUSTER, f"{stack}-{pool}-rdma")
    details = node_pool.inputs["nodeConfigDetails"]
    assert details["computeClusterId"].startswith("ocid1.computecluster.")
    assert details["computeClusterId"] == plan.outputs["compute_cluster_ids"][pool]
    assert cc.urn in node_pool.dependencies
    # Same AD for the compute cluster and the placement (RDMA cannot cross ADs).
    ads = {p["availabilityDomain"] for p in details["placementConfigs"]}
    assert ads == {cc.inputs["availabilityDomain"]}


def test_system_pool_is_not_in_a_compute_cluster(stack_plan) -> None:
    system = _pool(stack_plan("oci-h100"), "oci-h100-system")
    assert "computeClusterId" not in system.inputs["nodeConfigDetails"]
    assert not system.inputs["nodeShape"].startswith("BM.GPU")


def test_iam_policy_lets_node_pools_launch_into_the_compute_cluster(stack_plan) -> None:
    plan = stack_plan("oci-h100")
    policy = plan.one(POLICY)
    statements = policy.inputs["statements"]
    assert statements and all("{COMPUTE_CLUSTER_LAUNCH_INSTANCE}" in s for s in statements)
    assert all("request.principal.type = 'nodepool'" in s for s in statements)
    # Least privilege: one permission, this compartment, no "manage"/"use" verbs.
    compartment = policy.inputs["compartmentId"]
    assert all(f"compartment id {compartment}" in s for s in statements)
    assert not any(" manage " in s or " use " in s for s in statements)
    # The pool waits for the policy (else the first launch is refused).
    assert plan.depends_on(_pool(plan, "oci-h100-h100"), policy)


def test_compute_cluster_scoped_policy_names_the_compute_cluster(spec_plan) -> None:
    data = spec_dict("oci")
    data["oci"]["compute_cluster_policy"] = "compute-cluster"
    plan = spec_plan(data)
    cc_id = _pool(plan, "test-oci-gpu").inputs["nodeConfigDetails"]["computeClusterId"]
    (statement,) = plan.one(POLICY).inputs["statements"]
    assert f"target.resource.id = '{cc_id}'" in statement


def test_gpu_pool_shape_image_labels_and_taints(stack_plan) -> None:
    plan = stack_plan("oci-h100")
    pool = _pool(plan, "oci-h100-h100")
    assert pool.inputs["nodeShape"] == "BM.GPU.H100.8"
    assert pool.inputs["nodeSourceDetails"]["imageId"].startswith("ocid1.image.")
    labels = {x["key"]: x["value"] for x in pool.inputs["initialNodeLabels"]}
    assert labels["gpufabric.dev/pool"] == "h100"
    assert labels["oci.oraclecloud.com/disable-gpu-device-plugin"] == "true"
    user_data = base64.b64decode(pool.inputs["nodeMetadata"]["user_data"]).decode()
    assert "--register-with-taints=nvidia.com/gpu=present:NoSchedule" in user_data


def test_non_fabric_pool_gets_no_compute_cluster(spec_plan) -> None:
    data = spec_dict("oci")
    data["node_pools"].append({"name": "a10", "machine_type": "VM.GPU.A10.2", "node_count": 1})
    plan = spec_plan(data)
    assert [r.name for r in plan.by_type(COMPUTE_CLUSTER)] == ["test-oci-gpu-rdma"]
    assert "computeClusterId" not in _pool(plan, "test-oci-a10").inputs["nodeConfigDetails"]


def test_reservation_goes_to_the_placement(spec_plan) -> None:
    ocid = "ocid1.capacityreservation.oc1.iad.aaaatest"
    plan = spec_plan(with_pool("oci", capacity={"type": "reservation", "reservation": ocid}))
    (placement,) = _pool(plan, "test-oci-gpu").inputs["nodeConfigDetails"]["placementConfigs"]
    assert placement["capacityReservationId"] == ocid


# -- cluster, kubeconfig, names ------------------------------------------------------
def test_enhanced_cluster_with_pinned_version_and_cni(stack_plan, spec_plan) -> None:
    cluster = stack_plan("oci-h100").one(CLUSTER)
    assert cluster.inputs["type"] == "ENHANCED_CLUSTER"
    assert cluster.inputs["kubernetesVersion"] == versions.OKE_KUBERNETES_VERSIONS["1.34"]
    assert cluster.inputs["clusterPodNetworkOptions"] == [{"cniType": "OCI_VCN_IP_NATIVE"}]
    assert cluster.inputs["endpointConfig"]["isPublicIpEnabled"] is False
    data = spec_dict("oci", kubernetes={"version": "1.33"})
    data["oci"]["cni"] = "flannel"
    flannel = spec_plan(data)
    assert flannel.one(CLUSTER).inputs["clusterPodNetworkOptions"] == [
        {"cniType": "FLANNEL_OVERLAY"}
    ]
    assert flannel.one(CLUSTER).inputs["kubernetesVersion"] == "v1.33.1"
    assert not [r for r in flannel.by_type("oci:Core/subnet:Subnet") if "pods" in r.name]


def test_kubeconfig_is_a_secret_output(stack_plan) -> None:
    plan = stack_plan("oci-h100")
    assert plan.outputs["kubeconfig"] == "[secret]"
    provider = plan.one("pulumi:providers:kubernetes")
    assert provider.inputs["kubeconfig"] == "[secret]"


def test_child_names_derive_from_the_component_name(spec_plan) -> None:
    plan = spec_plan(spec_dict("oci", name="other"))
    component = plan.one(COMPONENT)
    oci_children = [r for r in plan.resources if r.type.startswith("oci:")]
    assert oci_children
    # Directly, or through a building block the component owns (FabricNetwork, GpuNodePool).
    blocks = {r.urn for r in plan.resources
              if r.type.startswith("gpufabric:oci:") and r.parent == component.urn}
    assert len(blocks) == 2
    for res in oci_children:
        assert res.parent == component.urn or res.parent in blocks, res.name
        assert res.name.startswith(f"{component.name}-"), res.name


# -- network ------------------------------------------------------------------------
def _ingress_sources(plan: PlanResult) -> dict[str, list[str]]:
    return {
        sl.name: [rule["source"] for rule in sl.inputs.get("ingressSecurityRules", [])]
        for sl in plan.by_type(SECURITY_LIST)
    }


def test_no_security_list_admits_the_internet(stack_plan) -> None:
    sources = _ingress_sources(stack_plan("oci-h100"))
    assert set(sources) == {f"oci-h100-{r}-sl" for r in ("endpoint", "workers", "pods", "lb")}
    vcn = ipaddress.IPv4Network("10.0.0.0/16")
    for name, found in sources.items():
        for source in found:
            assert ipaddress.IPv4Network(source).subnet_of(vcn), (name, source)


def test_public_endpoint_is_open_only_to_the_listed_networks(spec_plan) -> None:
    data = spec_dict("oci", api_access={"authorized_cidrs": ["203.0.113.0/24"]})
    plan = spec_plan(data)
    endpoint = plan.one(SECURITY_LIST, "test-oci-endpoint-sl")
    outside = [r for r in endpoint.inputs["ingressSecurityRules"]
               if not ipaddress.IPv4Network(r["source"]).subnet_of(
                   ipaddress.IPv4Network("10.0.0.0/16"))]
    assert [(r["source"], r["tcpOptions"]) for r in outside] == [
        ("203.0.113.0/24", {"min": 6443, "max": 6443})
    ]
    assert plan.one("oci:Core/internetGateway:InternetGateway")
    workers = _ingress_sources(plan)["test-oci-workers-sl"]
    assert "0.0.0.0/0" not in workers


def test_private_cluster_has_no_internet_gateway(stack_plan) -> None:
    assert stack_plan("oci-h100").by_type("oci:Core/internetGateway:InternetGateway") == []


def test_existing_network_creates_no_network(spec_plan) -> None:
    data = spec_dict("oci")
    data["oci"]["existing_network"] = {
        "vcn_id": "ocid1.vcn.oc1.iad.aaaa",
        "endpoint_subnet_id": "ocid1.subnet.oc1.iad.endpoint",
        "worker_subnet_id": "ocid1.subnet.oc1.iad.workers",
        "pod_subnet_id": "ocid1.subnet.oc1.iad.pods",
    }
    plan = spec_plan(data)
    assert not [r for r in plan.resources if r.type.startswith("oci:Core/") and
                r.type != COMPUTE_CLUSTER]
    assert plan.one(CLUSTER).inputs["vcnId"] == "ocid1.vcn.oc1.iad.aaaa"
    placement = _pool(plan, "test-oci-gpu").inputs["nodeConfigDetails"]["placementConfigs"][0]
    assert placement["subnetId"] == "ocid1.subnet.oc1.iad.workers"


def test_network_operator_as_oke_addon(spec_plan) -> None:
    data = spec_dict("oci")
    data["oci"]["network_operator"] = "addon"
    plan = spec_plan(data)
    addons = {r.inputs["addonName"] for r in plan.by_type("oci:ContainerEngine/addon:Addon")}
    assert addons == {"NodeFeatureDiscovery", "NvidiaNetworkOperator"}
    charts = [r.name for r in plan.by_type("kubernetes:helm.sh/v3:Release")]
    assert not any("network-operator" in name for name in charts)


# -- refusals -----------------------------------------------------------------------
def _problems(data: dict) -> list[str]:
    with pytest.raises(SpecError) as info:
        load_spec(data)
    return [f"{p.path}: {p.message}" for p in info.value.problems]


def test_non_rdma_shape_in_a_multi_node_pool_is_refused() -> None:
    problems = _problems(with_pool("oci", machine_type="VM.GPU.A10.2", node_count=2))
    (problem,) = problems
    assert problem.startswith("node_pools[0].machine_type")
    assert "VM.GPU.A10.2" in problem and "BM.GPU.H100.8" in problem


def test_rdma_pool_without_an_rdma_image_is_refused_before_any_resource(spec_plan) -> None:
    data = spec_dict("oci")
    del data["oci"]["gpu_image_id"]
    with pytest.raises(SpecError, match=r"oci\.gpu_image_id.*DOCA-OFED"):
        spec_plan(data)


@pytest.mark.parametrize(
    ("change", "path"),
    [
        ({"kubernetes": {"version": "1.30"}}, "oci"),
        ({"oci": {"compartment_id": "ocid1.compartment.oc1..x", "endpoint_public": True}},
         "oci"),
        ({"oci": {"compartment_id": "ocid1.compartment.oc1..x", "endpoint_public": True,
                  "endpoint_allowed_cidrs": ["0.0.0.0/0"]}}, "oci.endpoint_allowed_cidrs"),
        ({"oci": {"compartment_id": "ocid1.compartment.oc1..x",
                  "existing_network": {"vcn_id": "ocid1.vcn.oc1..v",
                                       "endpoint_subnet_id": "ocid1.subnet.oc1..e",
                                       "worker_subnet_id": "ocid1.subnet.oc1..w"}}}, "oci"),
    ],
)
def test_bad_oci_options_name_the_field(change: dict, path: str) -> None:
    problems = _problems(spec_dict("oci", **change))
    assert any(p.startswith(path) for p in problems), problems


def test_autoscaling_bounds_are_refused_not_ignored() -> None:
    with pytest.raises(SpecError) as info:
        load_spec_and_describe(with_pool("oci", min_nodes=1, node_count=2, max_nodes=4))
    (problem,) = info.value.problems
    assert problem.path == "node_pools[0].max_nodes" and "fixed size" in problem.message


def load_spec_and_describe(data: dict) -> None:
    from gpu_fabric.fabric.description import describe_cluster

    describe_cluster(load_spec(data))


def test_small_vcn_is_refused(spec_plan) -> None:
    with pytest.raises(SpecError, match=r"network\.cidr.*/20"):
        spec_plan(spec_dict("oci", network={"cidr": "10.0.0.0/24"}))

