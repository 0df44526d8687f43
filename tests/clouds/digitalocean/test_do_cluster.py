"""DigitalOceanGpuCluster on the resource graph: DOKS, pools, managed components, seed NADs."""

from __future__ import annotations

import json
from typing import Any

import pytest

from gpu_fabric.errors import SpecError
from gpu_fabric.plan.diff import diff_plans
from gpu_fabric.plan.model import PlanResult
from gpu_fabric.plan.values import SECRET, UNKNOWN
from tests.specs import spec_dict, with_pool

CLUSTER = "digitalocean:index/kubernetesCluster:KubernetesCluster"
NODE_POOL = "digitalocean:index/kubernetesNodePool:KubernetesNodePool"
VPC = "digitalocean:index/vpc:Vpc"
NAD = "kubernetes:k8s.cni.cncf.io/v1:NetworkAttachmentDefinition"
DAEMONSET = "kubernetes:apps/v1:DaemonSet"
RELEASE = "kubernetes:helm.sh/v3:Release"
COMPONENT = "gpufabric:digitalocean:GpuCluster"
H200 = "gpu-h200x8-1128gb-fabric-contracted"
B300 = "gpu-b300x8-2304gb-fabric-contracted"
MI300X = "gpu-mi300x8-1536gb-fabric-contracted"
PINNED = {"version": "1.34.1-do.0"}


def _nads(plan: PlanResult) -> dict[str, dict[str, Any]]:
    """NAD name -> its CNI config, for the default namespace."""
    out = {}
    for r in plan.by_type(NAD):
        meta = r.inputs["metadata"]
        if meta.get("namespace", "default") == "default":
            out[meta["name"]] = json.loads(r.inputs["spec"]["config"])
    return out


def _spec(**pool: Any) -> dict[str, Any]:
    data = with_pool("digitalocean", **pool)
    data["kubernetes"] = dict(PINNED)
    return data


def _daemonsets(plan: PlanResult) -> list[str]:
    return [r.inputs["metadata"]["name"] for r in plan.by_type(DAEMONSET)]


# -- the seed, end to end ------------------------------------------------------------
def test_h200_stack_has_the_seeds_eight_host_device_nads(stack_plan) -> None:
    plan = stack_plan("do-h200")
    nads = _nads(plan)
    assert sorted(nads) == sorted(f"roce-net-fabric{i}" for i in range(8))
    for i in range(8):
        assert nads[f"roce-net-fabric{i}"] == {
            "cniVersion": "0.3.1", "type": "host-device", "device": f"fabric{i}",
        }


def test_nads_wait_for_the_multus_crd(stack_plan) -> None:
    plan = stack_plan("do-h200")
    crds = plan.by_type("kubernetes:apiextensions.k8s.io/v1:CustomResourceDefinition")
    crd = next(r for r in crds
               if r.inputs["metadata"]["name"] == "network-attachment-definitions.k8s.cni.cncf.io")
    assert all(plan.depends_on(nad, crd) for nad in plan.by_type(NAD))


def test_h200_stack_resources(stack_plan) -> None:
    plan = stack_plan("do-h200")
    counts = plan.type_counts()
    assert counts[VPC] == 1 and counts[CLUSTER] == 1 and counts[NODE_POOL] == 1
    pool = plan.one(NODE_POOL).inputs
    assert pool["size"] == H200
    assert pool["nodeCount"] == 2
    # Multus thick from the layer; the RDMA plugin and GPU plugin come from DOKS.
    daemonsets = _daemonsets(plan)
    assert "kube-multus-ds" in daemonsets
    assert not [d for d in daemonsets if "rdma" in d]
    assert not [r for r in plan.by_type(RELEASE) if "gpu-operator" in r.name]
    cluster = plan.one(CLUSTER).inputs
    assert cluster["rdmaSharedDevicePlugin"] == {"enabled": True}
    assert cluster["nvidiaGpuDevicePlugin"] == {"enabled": True}
    assert "nvidiaGpuDraDriver" not in cluster


def test_b300_gets_sixteen_nads_and_its_size(spec_plan) -> None:
    plan = spec_plan(_spec(machine_type=B300))
    assert sorted(_nads(plan)) == sorted(f"roce-net-fabric{i}" for i in range(16))
    assert plan.one(NODE_POOL).inputs["size"] == B300


def test_mi300x_stack_uses_the_amd_components_and_taint(stack_plan) -> None:
    plan = stack_plan("do-mi300x")
    cluster = plan.one(CLUSTER).inputs
    assert cluster["amdGpuDevicePlugin"] == {"enabled": True}
    assert cluster["amdGpuDeviceMetricsExporterPlugin"] == {"enabled": True}
    assert not [k for k in cluster if k.startswith("nvidia")]
    pool = plan.one(NODE_POOL).inputs
    assert pool["taints"] == [{"key": "amd.com/gpu", "value": "", "effect": "NoSchedule"}]
    assert len(_nads(plan)) == 8


def test_non_fabric_size_in_a_multi_node_pool_is_refused(spec_plan) -> None:
    with pytest.raises(SpecError) as info:
        spec_plan(_spec(machine_type="gpu-h100x8-640gb", node_count=2))
    problem = info.value.problems[0]
    assert problem.path == "node_pools[0].machine_type"
    assert "gpu-h100x8-640gb" in problem.message and H200 in problem.message


def test_single_non_fabric_node_is_allowed_without_fabric_objects(spec_plan) -> None:
    plan = spec_plan(_spec(machine_type="gpu-h100x8-640gb", node_count=1))
    assert plan.by_type(NAD) == []
    assert "kube-multus-ds" not in _daemonsets(plan)
    assert plan.one(CLUSTER).inputs["rdmaSharedDevicePlugin"] == {"enabled": False}


# -- children, names, outputs ----------------------------------------------------------
def test_children_are_parented_and_named_after_the_component(stack_plan) -> None:
    plan = stack_plan("do-h200")
    component = plan.one(COMPONENT)
    assert component.name == "do-h200"
    cloud = [r for r in plan.resources if r.type.startswith("digitalocean:")]
    assert {r.name for r in cloud} == {"do-h200-vpc", "do-h200-doks", "do-h200-h200"}
    # The cluster directly; the VPC and the GPU pool through the building blocks it owns
    # (tests/clouds/test_building_blocks.py checks their types and aliases).
    parents = {r.name: r.parent for r in cloud}
    assert parents["do-h200-doks"] == component.urn
    blocks = {r.urn: r.name for r in plan.resources
              if r.type.startswith("gpufabric:digitalocean:") and r.parent == component.urn}
    assert blocks[parents["do-h200-vpc"]] == "do-h200-network"
    assert blocks[parents["do-h200-h200"]] == "do-h200-h200-pool"


def test_cluster_inputs_from_the_spec(stack_plan) -> None:
    plan = stack_plan("do-h200")
    cluster = plan.one(CLUSTER)
    inputs = cluster.inputs
    assert inputs["name"] == "do-h200" and inputs["region"] == "nyc2"
    # "1.34" resolved by getKubernetesVersions(version_prefix="1.34."): the offline fake's
    # newest 1.34 slug (clouds/digitalocean/fakes.py OFFERED_VERSIONS).
    assert inputs["version"] == "1.34.2-do.1"
    assert inputs["ha"] is True and inputs["autoUpgrade"] is False
    assert inputs["nodePool"]["name"] == "system"
    assert inputs["nodePool"]["size"] == "s-4vcpu-8gb"
    vpc = plan.one(VPC)
    assert vpc.inputs["ipRange"] == "10.120.0.0/20"
    assert plan.depends_on(cluster, vpc)
    pool = plan.one(NODE_POOL)
    assert plan.depends_on(pool, cluster)
    assert pool.inputs["labels"]["gpufabric.dev/pool"] == "h200"
    assert pool.inputs["taints"] == [{"key": "nvidia.com/gpu", "value": "", "effect": "NoSchedule"}]


def test_kubeconfig_is_a_secret_everywhere(stack_plan) -> None:
    for plan in (stack_plan("do-h200"), stack_plan("do-h200", preview=True)):
        assert plan.outputs["kubeconfig"] == SECRET
        provider = plan.one("pulumi:providers:kubernetes")
        assert provider.inputs["kubeconfig"] in (SECRET, UNKNOWN)
        assert provider.parent == plan.one(COMPONENT).urn


def test_outputs_name_the_cluster_and_its_managed_components(stack_plan) -> None:
    outputs = stack_plan("do-h200").outputs
    assert outputs["cluster_urn"].startswith("do:kubernetes:")
    assert outputs["endpoint"].endswith(".k8s.ondigitalocean.com")
    assert outputs["managed_components"] == {
        "rdma_shared_device_plugin": True, "nvidia_gpu_device_plugin": True,
    }


def test_fabric_layer_waits_for_the_cluster(stack_plan) -> None:
    plan = stack_plan("do-h200")
    stack = plan.one("gpufabric:kubernetes:FabricStack")
    assert plan.depends_on(stack, plan.one(CLUSTER))


# -- choices -----------------------------------------------------------------------------
def test_existing_vpc_creates_no_vpc(spec_plan) -> None:
    data = _spec()
    data["digitalocean"] = {"vpc_uuid": "c0ffee00-1234-4abc-8def-0123456789ab"}
    plan = spec_plan(data)
    assert plan.by_type(VPC) == []
    assert plan.one(CLUSTER).inputs["vpcUuid"] == "c0ffee00-1234-4abc-8def-0123456789ab"


def test_dra_mode_switches_doks_to_its_gpu_dra_driver(spec_plan) -> None:
    data = _spec()
    data["fabric"] = {"mode": "dra"}
    plan = spec_plan(data)
    cluster = plan.one(CLUSTER).inputs
    assert cluster["nvidiaGpuDraDriver"] == {"enabled": True}
    assert "nvidiaGpuDevicePlugin" not in cluster  # never both blocks (mutually exclusive)
    # DOKS runs the driver: the layer adds claim templates, not a second driver.
    assert not [r for r in plan.by_type(RELEASE) if "dra" in r.name]
    claims = plan.by_type("kubernetes:resource.k8s.io/v1:ResourceClaimTemplate")
    assert sorted(r.inputs["metadata"]["name"] for r in claims) == [
        "1-gpu", "2-gpu", "4-gpu", "8-gpu",
    ]
    # NICs still come from rdma/fabricN and Multus.
    assert len(_nads(plan)) == 8
    labels = plan.one(NODE_POOL).inputs["labels"]
    assert labels["nvidia.com/gpu.present"] == "true"


def test_rdma_plugin_off_in_doks_means_the_layer_installs_it(spec_plan) -> None:
    data = _spec()
    data["digitalocean"] = {"components": {"rdma_shared_device_plugin": False}}
    plan = spec_plan(data)
    assert plan.one(CLUSTER).inputs["rdmaSharedDevicePlugin"] == {"enabled": False}
    config_maps = [r for r in plan.by_type("kubernetes:core/v1:ConfigMap")
                   if r.inputs["metadata"]["name"] == "rdma-devices"]
    assert len(config_maps) == 1
    config = json.loads(config_maps[0].inputs["data"]["config.json"])
    assert [c["resourceName"] for c in config["configList"]] == [f"fabric{i}" for i in range(8)]


def test_gpu_operator_on_request_leaves_drivers_and_plugin_to_doks(spec_plan) -> None:
    data = _spec()
    data["addons"] = {"gpu_operator": {"enabled": True}}
    plan = spec_plan(data)
    release = next(r for r in plan.by_type(RELEASE) if r.inputs.get("chart") == "gpu-operator")
    values = release.inputs["values"]
    assert values["driver"]["enabled"] is False
    assert values["toolkit"]["enabled"] is False
    assert values["devicePlugin"]["enabled"] is False


def test_autoscaling_pool_leaves_the_count_to_do(spec_plan) -> None:
    plan = spec_plan(_spec(node_count=2, min_nodes=2, max_nodes=4))
    pool = plan.one(NODE_POOL).inputs
    assert pool["autoScale"] is True and pool["minNodes"] == 2 and pool["maxNodes"] == 4
    assert "nodeCount" not in pool


def test_amd_partition_mode_reaches_the_pool(spec_plan) -> None:
    data = _spec(machine_type=MI300X)
    data["digitalocean"] = {"amd_gpu_partition_mode": "AMD_PARTITION_MODE_DPX_NPS2"}
    pool = spec_plan(data).one(NODE_POOL).inputs
    assert pool["gpuPartitionMode"] == "AMD_PARTITION_MODE_DPX_NPS2"


def test_changing_the_amd_partition_mode_replaces_the_pool(spec_plan) -> None:
    """``gpu_partition_mode`` is ForceNew (digitalocean/terraform-provider-digitalocean
    v2.99.1 digitalocean/kubernetes/kubernetes.go L101-109, ForceNew L104; the pinned
    pulumi-digitalocean 4.84.1 bridges it or later: plan/data/replacing_inputs.json
    providers.digitalocean.pin_evidence). v2.96.0, which the older chain read, had no such
    argument, and the diff called this change in place."""
    def plan(mode: str) -> dict[str, Any]:
        data = _spec(machine_type=MI300X)
        data["digitalocean"] = {"amd_gpu_partition_mode": mode}
        return spec_plan(data).to_json()

    diff = diff_plans(plan("AMD_PARTITION_MODE_SPX_NPS1"), plan("AMD_PARTITION_MODE_DPX_NPS2"))
    (pool,) = [c for c in diff.changes if c.type == NODE_POOL]
    assert pool.action == "replace"
    assert pool.replacing_paths == ("gpuPartitionMode",)
    assert pool.verdict is not None and pool.verdict.kind == "replace"
    assert [c.type for c in diff.replacements] == [NODE_POOL]


@pytest.mark.parametrize(
    ("version", "expected"),
    [("1.34.1-do.0", "1.34.1-do.0"), ("1.34", "1.34.2-do.1"), ("1.34.1", "1.34.1-do.0")],
)
def test_kubernetes_version_maps_to_a_doks_slug(spec_plan, version: str, expected: str) -> None:
    data = spec_dict("digitalocean", kubernetes={"version": version})
    assert spec_plan(data).one(CLUSTER).inputs["version"] == expected


def _problem_paths(data: dict[str, Any], spec_plan) -> list[str]:
    with pytest.raises(SpecError) as info:
        spec_plan(data)
    return [p.path for p in info.value.problems]


@pytest.mark.parametrize(
    ("override", "path"),
    [
        ({"kubernetes": {"version": "1.34.1-gke.100"}}, "kubernetes.version"),
        ({"network": {"cidr": "10.0.0.0/12"}}, "network.cidr"),
        ({"digitalocean": {"vpc_uuid": "my-vpc"}}, "digitalocean.vpc_uuid"),
        ({"digitalocean": {"amd_gpu_partition_mode": "AMD_PARTITION_MODE_SPX_NPS1"}},
         "digitalocean.amd_gpu_partition_mode"),
        ({"digitalocean": {"components": {"gpu_device_plugin": True, "gpu_dra_driver": True}}},
         "digitalocean.components"),
        ({"fabric": {"mode": "dra"}, "digitalocean": {"components": {"gpu_device_plugin": True}}},
         "digitalocean.components.gpu_device_plugin"),
        ({"fabric": {"mode": "host-network"}}, "fabric.mode"),
        ({"fabric": {"nad_type": "macvlan"}}, "fabric.nad_type"),
    ],
)
def test_bad_do_specs_are_refused_before_any_resource(spec_plan, override, path) -> None:
    data = spec_dict("digitalocean", **override)
    assert path in _problem_paths(data, spec_plan)



@pytest.mark.parametrize("stack", ["do-h200", "do-mi300x"])
def test_committed_do_stacks_name_a_minor_not_a_patch_slug(stack: str) -> None:
    """DOKS creates clusters only from its current version list (``doctl kubernetes options
    versions``; https://docs.digitalocean.com/products/kubernetes/details/supported-releases/):
    a pinned patch slug such as 1.34.1-do.0 drops off it and `pulumi up` then fails. The
    stacks use the minor, which the program resolves to the newest slug at deploy time."""
    from gpu_fabric.plan import load_stack_file

    assert load_stack_file(stack).cluster["kubernetes"]["version"] == "1.34"
