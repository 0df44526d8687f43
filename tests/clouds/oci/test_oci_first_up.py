"""OKE: what a first ``pulumi up`` and the first job hit (issue 18, OCI).

Expected values are literal, from oracle-quickstart/oci-hpc-oke at 61d210a.
"""

from __future__ import annotations

import base64
import json

import yaml

from gpu_fabric import versions
from gpu_fabric.fabric.workload import pod_fragment
from tests.fabric_helpers import existing, fabric_of, layer_of

H100 = "BM.GPU.H100.8"
A100 = "BM.GPU.A100-v2.8"
POOL = "oci:ContainerEngine/nodePool:NodePool"


def _nad(spec) -> dict:
    (nad,) = {json.dumps(m, sort_keys=True): m for m in layer_of(spec).manifests()
              if m["kind"] == "NetworkAttachmentDefinition"}.values()
    return json.loads(nad["spec"]["config"])


def test_vf_network_matches_the_reference_sriov_network() -> None:
    """terraform/files/nvidia-network-operator/sriov-network.yaml: spoofChk "off" and
    the tuning sysctls, then rdma and sbr."""
    plugins = _nad(existing("oci", H100))["plugins"]
    assert [p["type"] for p in plugins] == ["sriov", "tuning", "rdma", "sbr"]
    assert plugins[0]["spoofchk"] == "off"
    assert plugins[1]["sysctl"] == {
        "net.ipv4.conf.all.arp_announce": "2",
        "net.ipv4.conf.all.arp_filter": "1",
        "net.ipv4.conf.all.arp_ignore": "1",
        "net.ipv4.conf.all.rp_filter": "0",
        "net.ipv4.conf.all.accept_local": "1",
    }
    assert plugins[1]["mtu"] == 4220


def test_vf_ip_pool_has_a_gateway() -> None:
    """terraform/via-provider-nvidia-network-operator.tf IPPool: subnet, perNodeBlockSize,
    gateway (default 192.168.0.1 for 192.168.0.0/16: the first host)."""
    spec = existing("oci", H100, network={"fabric_cidr": "192.168.0.0/16"})
    (pool,) = [m for m in layer_of(spec).manifests() if m["kind"] == "IPPool"]
    assert pool["spec"]["subnet"] == "192.168.0.0/16"
    assert pool["spec"]["gateway"] == "192.168.0.1"


def test_vf_pods_mount_dev_infiniband_and_bootstrap_over_eth0() -> None:
    """manifests/nccl-tests/kueue/virtual-functions/*.yaml mount hostPath /dev/infiniband;
    the H100/B200/B300 ones pass NCCL_SOCKET_IFNAME=eth0 (A100-v2 lacked it here)."""
    fragment = pod_fragment(fabric_of(existing("oci", A100)), 8)
    assert {"name": "fabric-host-0", "hostPath": {"path": "/dev/infiniband"}} in (
        fragment.volumes)
    assert {"name": "fabric-host-0", "mountPath": "/dev/infiniband"} in fragment.volume_mounts
    assert fragment.env["NCCL_SOCKET_IFNAME"] == "eth0"
    assert fragment.env["NCCL_IB_HCA"] == "mlx5"


def test_one_nfd_and_the_network_operator_after_the_gpu_operator() -> None:
    """terraform/oke-addons.tf: one NodeFeatureDiscovery, the GPU Operator, then the
    Network Operator after the toolkit rollout (crio restart strands nv-ipam)."""
    layer = layer_of(existing("oci", H100))
    charts = {c.chart.name: c.values for c in layer.charts()}
    assert charts["gpu-operator"]["nfd"]["enabled"] is True
    assert charts["network-operator"]["nfd"]["enabled"] is False
    part = next(p for p in layer.parts if p.name == "network-operator")
    assert "gpu-operator" in part.after
    assert layer.names.index("gpu-operator") < layer.names.index("network-operator")


def test_addon_mode_leaves_nfd_to_the_oke_addon() -> None:
    from gpu_fabric.clouds.oci.kubernetes import chart_values
    from gpu_fabric.spec import load_spec
    from tests.specs import spec_dict

    data = spec_dict("oci")
    data["oci"]["network_operator"] = "addon"
    spec = load_spec(data)
    assert chart_values("gpu_operator", spec, {})["nfd"] == {"enabled": False}


def _user_data(plan) -> dict:
    gpu = next(r for r in plan.by_type(POOL) if not r.name.endswith("-system"))
    return yaml.safe_load(base64.b64decode(gpu.inputs["nodeMetadata"]["user_data"]))


def test_rdma_nodes_bootstrap_like_the_reference(stack_plan) -> None:
    """terraform/oke-workers.tf write_files (networkd.conf) and
    files/oke-ubuntu-cloud-init.sh (oci-oke-node-all-<version> when `oke` is missing)."""
    config = _user_data(stack_plan("oci-h100"))
    files = {f["path"]: f["content"] for f in config["write_files"]}
    assert files["/etc/systemd/networkd.conf"] == (
        "[Network]\nManageForeignRoutes=no\nManageForeignRoutingPolicyRules=no\n")
    script = files["/var/run/gpufabric-oke-bootstrap.sh"]
    assert "apt-get -y install oci-oke-node-all-1.34.1" in script
    assert "if ! command -v oke" in script
    assert "systemctl restart systemd-networkd" in script
    flags = ("'--register-with-taints=nvidia.com/gpu=present:NoSchedule "
             "--topology-manager-policy=restricted'")
    assert f"--kubelet-extra-args {flags}" in script


def test_max_pods_per_node_is_set(stack_plan) -> None:
    """terraform/variables.tf max_pods_per_node 110 (OKE's npn default is 31); Flex
    system pools (4 OCPUs): (4 - 1) x 31 = 93 (terraform/oke-workers.tf)."""
    plan = stack_plan("oci-h100")
    found = {r.name.rsplit("-", 1)[-1]:
             r.inputs["nodeConfigDetails"]["nodePoolPodNetworkOptionDetails"]["maxPodsPerNode"]
             for r in plan.by_type(POOL)}
    assert found.pop("system") == 93
    assert set(found.values()) == {110}


def test_dra_on_an_amd_pool_is_refused_at_validate_time() -> None:
    """BM.GPU.MI300X.8 has AMD GPUs: OKE's DRA mode installs the NVIDIA DRA driver
    (DeviceClass gpu.nvidia.com), which publishes none of them; AMD's is
    ROCm/k8s-gpu-dra-driver (DeviceClass gpu.amd.com, deviceclass.yaml at 4482249)."""
    import pytest

    from gpu_fabric.errors import SpecError
    from gpu_fabric.preflight import check_spec
    from gpu_fabric.spec import load_spec
    from tests.specs import spec_dict

    data = spec_dict("oci", fabric={"mode": "dra"})
    data["node_pools"][0]["machine_type"] = "BM.GPU.MI300X.8"
    with pytest.raises(SpecError) as info:
        check_spec(load_spec(data))
    (problem,) = info.value.problems
    assert (problem.path, problem.value) == ("fabric.mode", "dra")
    assert "AMD MI300X 192GB GPUs" in problem.message
    assert "DeviceClass gpu.amd.com" in problem.message
    assert problem.message.endswith(
        "valid for this pool: fabric.mode auto, device-plugin or host-network")


# -- add-on mode: the Network Operator add-on after the GPU Operator's toolkit ------------
ADDON = "oci:ContainerEngine/addon:Addon"
JOB = "kubernetes:batch/v1:Job"
RELEASE = "kubernetes:helm.sh/v3:Release"


def _addon_mode(**oci) -> dict:
    from tests.specs import spec_dict

    data = spec_dict("oci")
    data["oci"].update(network_operator="addon", **oci)
    return data


def test_addon_mode_installs_the_network_operator_after_the_toolkit_rollout(spec_plan) -> None:
    """terraform/oke-addons.tf (61d210a): NodeFeatureDiscovery, NvidiaGpuOperator, then
    null_resource.wait_for_gpu_operator_toolkit (`kubectl -n gpu-operator rollout status
    daemonset/nvidia-container-toolkit-daemonset`), then NvidiaNetworkOperator. Before,
    the add-on was created with the cluster and the whole layer (GPU Operator included)
    waited for it: the reverse order."""
    plan = spec_plan(_addon_mode())
    addons = {r.inputs["addonName"]: r for r in plan.by_type(ADDON)}
    operator, nfd = addons["NvidiaNetworkOperator"], addons["NodeFeatureDiscovery"]
    (job,) = plan.by_type(JOB)
    gpu_operator = next(r for r in plan.by_type(RELEASE) if r.inputs["name"] == "gpu-operator")
    assert plan.depends_on(job, gpu_operator)
    assert plan.depends_on(operator, job) and plan.depends_on(operator, nfd)
    assert not plan.depends_on(gpu_operator, operator)
    # No NicClusterPolicy of ours in add-on mode (issue 31): the VF policy and the NAD
    # wait for the add-on.
    nad = next(r for r in plan.resources if r.type.endswith(":NetworkAttachmentDefinition"))
    vf_policy = next(r for r in plan.resources if r.type.endswith(":SriovNetworkNodePolicy"))
    assert plan.depends_on(nad, operator) and plan.depends_on(vf_policy, operator)


def test_the_toolkit_wait_job_waits_for_every_nvidia_gpu_node() -> None:
    """kubectl wait --for=create, then numberAvailable = the spec's 2 BM.GPU.H100.8 nodes
    (tests/specs.py); image registry.k8s.io/kubectl:v1.34.1; a Role for that one
    DaemonSet only."""
    from gpu_fabric.spec import load_spec

    layer = layer_of(load_spec(_addon_mode()))
    assert layer.names.index("gpu-operator") < layer.names.index("gpu-toolkit-rollout") \
        < layer.names.index("network-operator") < layer.names.index("rdma-vf-policies")
    part = layer.part("gpu-toolkit-rollout")
    kinds = {m["kind"]: m for m in part.manifests}
    assert set(kinds) == {"ServiceAccount", "Role", "RoleBinding", "Job"}
    assert kinds["Role"]["rules"] == [{
        "apiGroups": ["apps"], "resources": ["daemonsets"], "verbs": ["get", "list", "watch"],
        "resourceNames": ["nvidia-container-toolkit-daemonset"]}]
    job = kinds["Job"]
    assert job["metadata"]["namespace"] == "gpu-operator"
    assert job["metadata"]["annotations"] == {"pulumi.com/timeoutSeconds": "3600"}
    pod = job["spec"]["template"]["spec"]
    (created,), (ready,) = pod["initContainers"], pod["containers"]
    assert created["image"] == ready["image"] == versions.KUBECTL.ref
    assert created["args"] == [
        "wait", "--for=create", "daemonset/nvidia-container-toolkit-daemonset",
        "-n", "gpu-operator", "--timeout=3300s", "--cache-dir=/tmp/kube-cache"]
    assert ready["args"] == [
        "wait", "--for=jsonpath={.status.numberAvailable}=2",
        "daemonset/nvidia-container-toolkit-daemonset",
        "-n", "gpu-operator", "--timeout=3300s", "--cache-dir=/tmp/kube-cache"]
    addon = layer.part("network-operator")
    assert addon.after == ("gpu-toolkit-rollout",) and addon.installed_by
    assert not addon.manifests and not addon.charts


def test_no_toolkit_wait_without_a_toolkit_or_on_an_existing_cluster() -> None:
    from gpu_fabric.spec import load_spec

    data = _addon_mode()
    data["addons"] = {"gpu_operator": {"values": {"toolkit": {"enabled": False}}}}
    layer = layer_of(load_spec(data))
    assert "gpu-toolkit-rollout" not in layer.names
    assert layer.part("network-operator").after == ("gpu-operator",)
    amd_only = _addon_mode()
    amd_only["node_pools"][0]["machine_type"] = "BM.GPU.MI300X.8"
    amd_only["addons"] = {"gpu_operator": {"enabled": True}}
    assert "gpu-toolkit-rollout" not in layer_of(load_spec(amd_only)).names
    on_existing = layer_of(existing("oci", H100, oci={**_addon_mode()["oci"]}))
    assert "gpu-toolkit-rollout" not in on_existing.names
    # The existing cluster's add-on: an empty part (nothing to install or wait for).
    running = on_existing.part("network-operator")
    assert not running.installed_by and not running.manifests and not running.charts


def test_a_fabric_stack_without_the_addon_installer_says_so() -> None:
    import pulumi
    import pytest

    from gpu_fabric.fabric.stack import _install
    from gpu_fabric.spec import load_spec

    spec = load_spec(_addon_mode())
    part = layer_of(spec).part("network-operator")
    with pytest.raises(ValueError, match=r"FabricStackArgs\.installers needs a "
                       r"'network-operator' entry"):
        _install(part, {}, [])
    made: list[pulumi.Resource] = []
    assert _install(part, {"network-operator": lambda waits: made}, []) == []


def test_chart_mode_installs_the_network_operator_after_the_toolkit_rollout(spec_plan) -> None:
    """The same order in chart mode: terraform/oke-addons.tf (61d210a) runs
    null_resource.wait_for_gpu_operator_toolkit before the Network Operator whichever
    way it is installed. Before, the network-operator release waited for the
    gpu-operator release only, which is ready before the operator has even created
    nvidia-container-toolkit-daemonset."""
    from tests.specs import spec_dict

    data = spec_dict("oci")
    data["oci"]["network_operator"] = "chart"
    plan = spec_plan(data)
    releases = {r.inputs["name"]: r for r in plan.by_type(RELEASE)}
    (job,) = plan.by_type(JOB)
    assert job.inputs["metadata"]["name"] == "gpufabric-toolkit-rollout"
    assert plan.depends_on(job, releases["gpu-operator"])
    assert plan.depends_on(releases["network-operator"], job)
    assert not plan.depends_on(releases["gpu-operator"], releases["network-operator"])


def test_chart_mode_on_an_existing_cluster_waits_for_the_release_only() -> None:
    """An existing cluster's node counts are not the spec's to own: a wrong count would
    hold the wait Job until its 3600 s timeout, so there the chart waits for the GPU
    Operator release, as before."""
    layer = layer_of(existing("oci", H100))
    assert "gpu-toolkit-rollout" not in layer.names
    assert layer.part("network-operator").after == ("gpu-operator",)


def test_addon_mode_configures_the_addon_and_runs_no_second_policy_or_multus(spec_plan) -> None:
    """oci-hpc-oke terraform/oke-addons.tf at 61d210a, lines 190-210: the add-on gets
    ``sriovNetworkOperator.enabled = "true"`` and ``nicClusterPolicy.tolerations`` (its
    own NicClusterPolicy runs Multus, CNI plugins and nv-ipam); upstream deploys no
    NicClusterPolicy and no Multus of its own. Before issue 31 the layer added both."""
    import json

    from gpu_fabric.spec import load_spec

    layer = layer_of(load_spec(_addon_mode()))
    assert "nic-cluster-policy" not in layer.names
    assert "multus" not in layer.names
    assert not [m for m in layer.manifests() if m["kind"] == "NicClusterPolicy"]
    assert layer.part("nads").after == ("network-operator",)
    plan = spec_plan(_addon_mode())
    operator = next(r for r in plan.by_type(ADDON)
                    if r.inputs["addonName"] == "NvidiaNetworkOperator")
    config = {c["key"]: c["value"] for c in operator.inputs["configurations"]}
    assert config["sriovNetworkOperator.enabled"] == "true"
    tolerations = json.loads(config["nicClusterPolicy.tolerations"])
    # The reference's two tolerations are among ours.
    assert {"key": "nvidia.com/gpu", "operator": "Exists"} in tolerations
    assert {"key": "amd.com/gpu", "operator": "Exists"} in tolerations
    assert not plan.by_type("kubernetes:mellanox.com/v1alpha1:NicClusterPolicy")
    assert not [r for r in plan.by_type("kubernetes:apps/v1:DaemonSet")
                if "multus" in r.name]
