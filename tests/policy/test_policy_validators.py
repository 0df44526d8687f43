"""The CrossGuard validators (policy/gpufabric_policies), called directly.

Inputs use the engine's wire names and go through the policy SDK's own
unknown-checking proxy, so the validators see what ``pulumi preview`` hands them.
"""

from __future__ import annotations

import base64
import copy
import sys
from pathlib import Path
from typing import Any

import pytest
from pulumi_policy.proxy import unknown_checking_proxy

POLICY_DIR = Path(__file__).resolve().parents[2] / "policy"
if str(POLICY_DIR) not in sys.path:
    sys.path.insert(0, str(POLICY_DIR))

from gpu_fabric.catalog import get_machine  # noqa: E402
from gpu_fabric.fabric.taints import GPU_TAINT_KEYS  # noqa: E402
from gpu_fabric.fabric.taints import daemonset_tolerations as project_tolerations  # noqa: E402
from gpufabric_policies.devices import device_counts, expected_gke_networks  # noqa: E402
from gpufabric_policies.images import image_tag, unpinned_images  # noqa: E402
from gpufabric_policies.network import is_open, open_ingress  # noqa: E402
from gpufabric_policies.taints import daemonset_tolerations, gpu_pool_taints  # noqa: E402


def sdk(props: dict[str, Any]) -> Any:
    """The props as the policy SDK passes them (Mapping/Sequence proxies, not dict/list)."""
    return unknown_checking_proxy(copy.deepcopy(props))


# -- no ingress from the world ---------------------------------------------------------


@pytest.mark.parametrize(
    "source", ["0.0.0.0/0", "::/0", " 0.0.0.0/0 ", "*", "Internet", "0.0.0.0/0.0.0.0"]
)
def test_world_sources_are_open(source: str) -> None:
    assert is_open(source)


@pytest.mark.parametrize("source", ["10.0.0.0/8", "192.168.1.0/24", "VirtualNetwork", "sg-1"])
def test_private_sources_are_not_open(source: str) -> None:
    assert not is_open(source)


OPEN_INGRESS_CASES: list[tuple[str, dict[str, Any], dict[str, Any]]] = [
    (
        "gcp:compute/firewall:Firewall",
        {"allows": [{"protocol": "all"}], "sourceRanges": ["0.0.0.0/0"]},
        {"allows": [{"protocol": "all"}], "sourceRanges": ["10.128.0.0/9"]},
    ),
    (
        "gcp:compute/firewall:Firewall",  # no source at all: GCP defaults to 0.0.0.0/0
        {"allows": [{"protocol": "tcp"}], "network": "rdma-0"},
        {"denies": [{"protocol": "all"}], "sourceRanges": ["0.0.0.0/0"]},  # deny is fine
    ),
    (
        "aws:ec2/securityGroup:SecurityGroup",
        {"ingress": [{"protocol": "-1", "cidrBlocks": ["10.0.0.0/16", "0.0.0.0/0"]}]},
        {
            "ingress": [{"protocol": "-1", "self": True}],
            "egress": [{"protocol": "-1", "cidrBlocks": ["0.0.0.0/0"]}],  # egress is fine
        },
    ),
    (
        "aws:ec2/securityGroupRule:SecurityGroupRule",
        {"type": "ingress", "ipv6CidrBlocks": ["::/0"]},
        {"type": "egress", "cidrBlocks": ["0.0.0.0/0"]},
    ),
    (
        "aws:vpc/securityGroupIngressRule:SecurityGroupIngressRule",
        {"cidrIpv4": "0.0.0.0/0", "ipProtocol": "-1"},
        {"referencedSecurityGroupId": "sg-1", "ipProtocol": "-1"},
    ),
    (
        "azure-native:network:NetworkSecurityGroup",
        {"securityRules": [{"name": "in", "direction": "Inbound", "access": "Allow",
                            "sourceAddressPrefix": "*"}]},
        {"securityRules": [{"name": "in", "direction": "Inbound", "access": "Deny",
                            "sourceAddressPrefix": "*"},
                           {"name": "vnet", "direction": "Inbound", "access": "Allow",
                            "sourceAddressPrefix": "VirtualNetwork"}]},
    ),
    (
        "azure-native:network:SecurityRule",
        {"direction": "Inbound", "access": "Allow", "sourceAddressPrefixes": ["Internet"]},
        {"direction": "Outbound", "access": "Allow", "sourceAddressPrefix": "*"},
    ),
    (
        "oci:Core/securityList:SecurityList",
        {"ingressSecurityRules": [{"protocol": "all", "source": "0.0.0.0/0"}]},
        {"ingressSecurityRules": [{"protocol": "all", "source": "10.0.0.0/16"}],
         "egressSecurityRules": [{"protocol": "all", "destination": "0.0.0.0/0"}]},
    ),
    (
        "oci:Core/networkSecurityGroupSecurityRule:NetworkSecurityGroupSecurityRule",
        {"direction": "INGRESS", "protocol": "all", "source": "0.0.0.0/0",
         "sourceType": "CIDR_BLOCK"},
        {"direction": "EGRESS", "protocol": "all", "destination": "0.0.0.0/0"},
    ),
    (
        "digitalocean:index/firewall:Firewall",
        {"inboundRules": [{"protocol": "tcp", "sourceAddresses": ["0.0.0.0/0", "::/0"]}]},
        {"inboundRules": [{"protocol": "tcp", "sourceAddresses": ["10.10.0.0/16"]}]},
    ),
]


@pytest.mark.parametrize(("type_", "bad", "good"), OPEN_INGRESS_CASES)
def test_open_ingress_flagged_and_private_passes(
    type_: str, bad: dict[str, Any], good: dict[str, Any]
) -> None:
    problems = open_ingress(type_, sdk(bad))
    assert len(problems) == 1, problems
    assert "ingress" in problems[0]
    assert open_ingress(type_, sdk(good)) == []


def test_open_ingress_names_the_rule_and_source() -> None:
    props = {"ingress": [{"cidrBlocks": ["10.0.0.0/8"]}, {"cidrBlocks": ["0.0.0.0/0"]}]}
    (problem,) = open_ingress("aws:ec2/securityGroup:SecurityGroup", sdk(props))
    assert problem.startswith("ingress[1]") and "0.0.0.0/0" in problem


def test_open_ingress_ignores_other_types() -> None:
    assert open_ingress("aws:s3/bucket:Bucket", sdk({"cidrBlocks": ["0.0.0.0/0"]})) == []


# -- device counts ----------------------------------------------------------------------


def _efa_template(instance: str, count: int, start_card: int = 0) -> dict[str, Any]:
    nics = [
        {"deviceIndex": 0 if i == 0 else 1, "networkCardIndex": float(start_card + i),
         "interfaceType": "efa" if i == 0 else "efa-only"}
        for i in range(count)
    ]
    return {"instanceType": instance, "networkInterfaces": nics}


@pytest.mark.parametrize("instance", ["p5.48xlarge", "p5en.48xlarge", "p4d.24xlarge"])
def test_launch_template_with_catalog_efa_count_passes(instance: str) -> None:
    machine = get_machine(instance, "aws")
    props = _efa_template(instance, machine.fabric_nics)
    assert device_counts("aws:ec2/launchTemplate:LaunchTemplate", sdk(props)) == []


def test_launch_template_missing_one_efa_fails() -> None:
    machine = get_machine("p5.48xlarge", "aws")
    props = _efa_template("p5.48xlarge", machine.fabric_nics - 1)
    (problem,) = device_counts("aws:ec2/launchTemplate:LaunchTemplate", sdk(props))
    assert f"{machine.fabric_nics - 1} EFA" in problem and str(machine.fabric_nics) in problem


def test_launch_template_card_index_beyond_the_machine_fails() -> None:
    machine = get_machine("p5en.48xlarge", "aws")
    assert machine.network_cards is not None
    props = _efa_template("p5en.48xlarge", machine.fabric_nics, start_card=1)
    problems = device_counts("aws:ec2/launchTemplate:LaunchTemplate", sdk(props))
    assert any("out of range" in p for p in problems), problems


def test_launch_template_shared_card_fails() -> None:
    props = _efa_template("p4d.24xlarge", 4)
    props["networkInterfaces"][1]["networkCardIndex"] = 0
    problems = device_counts("aws:ec2/launchTemplate:LaunchTemplate", sdk(props))
    assert any("share a networkCardIndex" in p for p in problems), problems


def test_launch_template_of_unknown_or_fabricless_machine_is_not_judged() -> None:
    for instance in ("m7i.large", "g5.48xlarge"):
        props = _efa_template(instance, 1)
        assert device_counts("aws:ec2/launchTemplate:LaunchTemplate", sdk(props)) == []


def _gke_pool(machine_type: str, networks: int, **network: Any) -> dict[str, Any]:
    configs = [{"network": f"net-{i}", "subnetwork": f"sub-{i}"} for i in range(networks)]
    return {
        "nodeConfig": {"machineType": machine_type},
        "networkConfig": {"additionalNodeNetworkConfigs": configs, **network},
    }


def test_gke_expected_networks_come_from_the_catalog() -> None:
    a4 = get_machine("a4-highgpu-8g", "gcp")
    assert expected_gke_networks(a4) == a4.fabric_nics + 1  # extra gVNIC + one per RDMA NIC
    a3 = get_machine("a3-megagpu-8g", "gcp")
    assert expected_gke_networks(a3) == a3.fabric_nics  # TCPXO: one gVNIC per fabric NIC


@pytest.mark.parametrize("machine_type", ["a4-highgpu-8g", "a3-ultragpu-8g", "a3-highgpu-8g"])
def test_gke_pool_with_catalog_network_count_passes(machine_type: str) -> None:
    expected = expected_gke_networks(get_machine(machine_type, "gcp"))
    props = _gke_pool(machine_type, expected)
    assert device_counts("gcp:container/nodePool:NodePool", sdk(props)) == []


@pytest.mark.parametrize("delta", [-1, 1])
def test_gke_pool_with_wrong_network_count_fails(delta: int) -> None:
    expected = expected_gke_networks(get_machine("a4-highgpu-8g", "gcp"))
    props = _gke_pool("a4-highgpu-8g", expected + delta)
    (problem,) = device_counts("gcp:container/nodePool:NodePool", sdk(props))
    assert f"has {expected + delta} network(s)" in problem and f"needs {expected}" in problem


def test_gke_pool_on_managed_dranet_needs_no_networks() -> None:
    props = _gke_pool("a4-highgpu-8g", 0, acceleratorNetworkProfile="auto")
    assert device_counts("gcp:container/nodePool:NodePool", sdk(props)) == []
    assert device_counts("gcp:container/nodePool:NodePool", sdk(_gke_pool("a4-highgpu-8g", 0)))


# -- GPU pool taints --------------------------------------------------------------------

NO_SCHEDULE = {"key": "nvidia.com/gpu", "value": "true", "effect": "NO_SCHEDULE"}


def _oke_user_data(script: str) -> dict[str, str]:
    return {"user_data": base64.b64encode(script.encode()).decode()}


TAINT_CASES: list[tuple[str, dict[str, Any], dict[str, Any]]] = [
    (
        "aws:eks/nodeGroup:NodeGroup",
        {"instanceTypes": ["p5.48xlarge"], "taints": []},
        {"instanceTypes": ["p5.48xlarge"], "taints": [NO_SCHEDULE]},
    ),
    (
        "aws:eks/nodeGroup:NodeGroup",  # GPU by AMI type, taint only PreferNoSchedule
        {"amiType": "AL2023_x86_64_NVIDIA",
         "taints": [{**NO_SCHEDULE, "effect": "PREFER_NO_SCHEDULE"}]},
        {"amiType": "AL2023_x86_64_NVIDIA",
         "taints": [{"key": "aws.amazon.com/efa", "value": "true", "effect": "NO_SCHEDULE"}]},
    ),
    (
        "azure-native:containerservice:AgentPool",
        {"vmSize": "Standard_ND96isr_H100_v5", "nodeTaints": ["dedicated=train:NoSchedule"]},
        {"vmSize": "Standard_ND96isr_H100_v5", "nodeTaints": ["sku=gpu:NoSchedule"]},
    ),
    (
        "azure-native:containerservice:ManagedCluster",
        {"agentPoolProfiles": [{"vmSize": "Standard_D4s_v5"},
                               {"vmSize": "Standard_ND96isr_H100_v5"}]},
        {"agentPoolProfiles": [{"vmSize": "Standard_D4s_v5"},
                               {"vmSize": "Standard_ND96isr_H100_v5",
                                "nodeTaints": ["sku=gpu:NoSchedule"]}]},
    ),
    (
        "oci:ContainerEngine/nodePool:NodePool",
        {"nodeShape": "BM.GPU.H100.8",
         "nodeMetadata": _oke_user_data("#!/bin/bash\noke bootstrap")},
        {"nodeShape": "BM.GPU.H100.8", "nodeMetadata": _oke_user_data(
            "#!/bin/bash\noke bootstrap --kubelet-extra-args "
            "'--register-with-taints=nvidia.com/gpu=present:NoSchedule'")},
    ),
]


@pytest.mark.parametrize(("type_", "bad", "good"), TAINT_CASES)
def test_gpu_pool_without_gpu_taint_fails(
    type_: str, bad: dict[str, Any], good: dict[str, Any]
) -> None:
    problems = gpu_pool_taints(type_, sdk(bad))
    assert len(problems) == 1, problems
    assert "GPU node pool has no" in problems[0]
    assert gpu_pool_taints(type_, sdk(good)) == []


def test_cpu_pools_need_no_taint() -> None:
    cpu = sdk({"instanceTypes": ["m7i.large"]})
    assert gpu_pool_taints("aws:eks/nodeGroup:NodeGroup", cpu) == []
    assert gpu_pool_taints(
        "azure-native:containerservice:AgentPool", sdk({"vmSize": "Standard_D8s_v5"})
    ) == []


@pytest.mark.parametrize(
    ("type_", "props"),
    [
        ("gcp:container/nodePool:NodePool", {"nodeConfig": {"machineType": "a4-highgpu-8g"}}),
        ("digitalocean:index/kubernetesNodePool:KubernetesNodePool",
         {"size": "gpu-h200x8-1128gb-fabric-contracted"}),
        ("digitalocean:index/kubernetesCluster:KubernetesCluster",
         {"nodePool": {"size": "gpu-h100x1-80gb"}}),
    ],
)
def test_self_tainting_clouds_trusted_by_default_and_checked_on_request(
    type_: str, props: dict[str, Any]
) -> None:
    assert gpu_pool_taints(type_, sdk(props)) == []
    (problem,) = gpu_pool_taints(type_, sdk(props), trusted_clouds=())
    assert "no NoSchedule/NoExecute taint" in problem
    tainted = copy.deepcopy(props)
    pool = tainted.get("nodeConfig") or tainted.get("nodePool") or tainted
    pool["taints"] = [{"key": "nvidia.com/gpu", "value": "", "effect": "NoSchedule"}]
    assert gpu_pool_taints(type_, sdk(tainted), trusted_clouds=()) == []


# -- DaemonSet tolerations --------------------------------------------------------------

FABRIC_URN = (
    "urn:pulumi:s::p::gpufabric:gcp:GpuCluster$gpufabric:kubernetes:FabricStack"
    "$kubernetes:apps/v1:DaemonSet::x"
)


def _daemonset(tolerations: list[dict[str, Any]], labels: dict[str, str] | None = None) -> dict:
    return {
        "metadata": {"name": "agent", "namespace": "kube-system", "labels": labels or {}},
        "spec": {"template": {"spec": {"tolerations": tolerations, "containers": []}}},
    }


def test_project_tolerations_satisfy_the_policy() -> None:
    props = _daemonset(project_tolerations())
    assert daemonset_tolerations("kubernetes:apps/v1:DaemonSet", sdk(props), FABRIC_URN) == []


def test_blanket_exists_toleration_passes() -> None:
    props = _daemonset([{"operator": "Exists"}])
    assert daemonset_tolerations("kubernetes:apps/v1:DaemonSet", sdk(props), FABRIC_URN) == []


@pytest.mark.parametrize("dropped", GPU_TAINT_KEYS)
def test_missing_any_gpu_key_fails(dropped: str) -> None:
    tolerations = [{"key": k, "operator": "Exists"} for k in GPU_TAINT_KEYS if k != dropped]
    (problem,) = daemonset_tolerations(
        "kubernetes:apps/v1:DaemonSet", sdk(_daemonset(tolerations)), FABRIC_URN
    )
    assert dropped in problem


def test_equal_or_noexecute_tolerations_do_not_count() -> None:
    tolerations = [{"key": k, "operator": "Equal", "value": "present"} for k in GPU_TAINT_KEYS]
    tolerations += [{"operator": "Exists", "effect": "NoExecute"}]
    (problem,) = daemonset_tolerations(
        "kubernetes:apps/v1:DaemonSet", sdk(_daemonset(tolerations)), FABRIC_URN
    )
    assert all(k in problem for k in GPU_TAINT_KEYS)


def test_only_fabric_daemonsets_are_judged() -> None:
    props = _daemonset([])
    other = "urn:pulumi:s::p::kubernetes:apps/v1:DaemonSet::fluent-bit"
    assert daemonset_tolerations("kubernetes:apps/v1:DaemonSet", sdk(props), other) == []
    labelled = _daemonset([], {"app.kubernetes.io/managed-by": "gpu-fabric"})
    assert daemonset_tolerations("kubernetes:apps/v1:DaemonSet", sdk(labelled), other)


# -- pinned images ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("image", "tag"),
    [
        ("nginx", None),
        ("nginx:1.27", "1.27"),
        ("registry.local:5000/team/agent", None),
        ("registry.local:5000/team/agent:v2", "v2"),
        ("ghcr.io/x/y@sha256:abc", "@sha256:abc"),
    ],
)
def test_image_tag_parsing(image: str, tag: str | None) -> None:
    assert image_tag(image) == tag


def test_unpinned_images_in_any_pod_template_fail() -> None:
    props = {
        "spec": {"jobTemplate": {"spec": {"template": {"spec": {
            "initContainers": [{"name": "init", "image": "busybox"}],
            "containers": [{"name": "main", "image": "nvcr.io/nvidia/pytorch:latest"},
                           {"name": "ok", "image": "nvcr.io/nvidia/pytorch:25.01-py3"}],
        }}}}}
    }
    problems = unpinned_images("kubernetes:batch/v1:CronJob", sdk(props))
    assert len(problems) == 2, problems
    assert any("busybox" in p and "no tag" in p for p in problems)
    assert any(":latest" in p and "containers[0]" in p for p in problems)


def test_pinned_images_pass() -> None:
    props = _daemonset([])
    props["spec"]["template"]["spec"]["containers"] = [
        {"name": "a", "image": "ghcr.io/k8snetworkplumbingwg/multus-cni:v4.3.0-thick"},
        {"name": "b", "image": "ghcr.io/x/y@sha256:0123"},
    ]
    assert unpinned_images("kubernetes:apps/v1:DaemonSet", sdk(props)) == []


def test_helm_release_needs_a_version_and_no_latest_tags() -> None:
    release = "kubernetes:helm.sh/v3:Release"
    good = {"chart": "kyverno", "version": "3.6.1", "values": {"image": {"tag": "v1.2.3"}}}
    assert unpinned_images(release, sdk(good)) == []
    bad = {"chart": "kyverno", "values": {"driver": {"image": {"tag": "latest"}}}}
    problems = unpinned_images(release, sdk(bad))
    assert any("no version" in p for p in problems)
    assert any("values.driver.image.tag" in p for p in problems)
    assert unpinned_images(release, sdk({"chart": "./charts/local"})) == []
