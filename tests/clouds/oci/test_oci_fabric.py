"""OCI: fabric descriptions and the Kubernetes layer follow the catalog (16 vs 8 RDMA ports)."""

from __future__ import annotations

import json

import pytest

from gpu_fabric.catalog import Cloud, machine_names
from gpu_fabric.errors import SpecError
from gpu_fabric.fabric.description import Attach, describe_cluster
from gpu_fabric.fabric.layer import Layer, build_layer
from gpu_fabric.fabric.workload import pod_fragment
from gpu_fabric.spec import load_spec
from tests.specs import spec_dict, with_pool

VF = "nvidia.com/rdma-vf"
# Reference sheet (oci-hpc-oke): one VF per RDMA port, 16 on the dual-port shapes and 8 on
# the single-port ones. Independent of the catalog, so a catalog typo fails here.
PORTS = {
    "BM.GPU4.8": 16,
    "BM.GPU.B4.8": 16,
    "BM.GPU.A100-v2.8": 16,
    "BM.GPU.H100.8": 16,
    "BM.GPU.H200.8": 8,
    "BM.GPU.B200.8": 8,
    "BM.GPU.MI300X.8": 8,
}


def _spec(shape: str, **fabric: str):
    data = with_pool("oci", machine_type=shape)
    if fabric:
        data["fabric"] = fabric
    return load_spec(data)


def _layer(shape: str, **fabric: str) -> Layer:
    spec = _spec(shape, **fabric)
    return build_layer(spec, describe_cluster(spec))


def _kind(layer: Layer, kind: str) -> list[dict]:
    return [m for m in layer.manifests() if m["kind"] == kind]


def test_every_oci_rdma_shape_is_in_the_reference_table() -> None:
    fabric_shapes = set(machine_names(Cloud.OCI, fabric_only=True))
    assert set(PORTS) <= fabric_shapes


@pytest.mark.parametrize(("shape", "ports"), sorted(PORTS.items()))
def test_vf_count_per_node_follows_the_ports(shape: str, ports: int) -> None:
    (fabric,) = describe_cluster(_spec(shape)).values()
    assert fabric.attach is Attach.DEVICE_PLUGIN
    assert fabric.pooled_resources == {VF: ports}
    full = pod_fragment(fabric, fabric.machine.gpus)
    assert full.limits[VF] == str(ports)
    assert full.annotations["k8s.v1.cni.cncf.io/networks"].split(",") == ["rdma-vf"] * ports
    half = pod_fragment(fabric, fabric.machine.gpus // 2)
    assert half.limits[VF] == str(ports // 2)


@pytest.mark.parametrize(("shape", "ports"), sorted(PORTS.items()))
def test_vf_policy_selects_every_port_once(shape: str, ports: int) -> None:
    (policy,) = _kind(_layer(shape), "SriovNetworkNodePolicy")
    spec = policy["spec"]
    assert spec["numVfs"] == 1 and spec["isRdma"] is True and spec["externallyManaged"] is True
    assert len(spec["nicSelector"]["pfNames"]) == ports
    assert len(set(spec["nicSelector"]["pfNames"])) == ports
    assert spec["resourceName"] == "rdma-vf"
    assert spec["nodeSelector"] == {"gpufabric.dev/pool": "gpu"}
    (pool,) = _kind(_layer(shape), "IPPool")
    assert pool["spec"]["perNodeBlockSize"] >= ports


@pytest.mark.parametrize(("shape", "ports"), sorted(PORTS.items()))
def test_host_network_uses_the_exact_hca_list(shape: str, ports: int) -> None:
    (fabric,) = describe_cluster(_spec(shape, mode="host-network")).values()
    hca = fabric.nccl_env["NCCL_IB_HCA"]
    assert hca.startswith("=")
    assert hca[1:].split(",") == list(fabric.machine.hca_names)
    assert len(hca[1:].split(",")) == ports
    frag = pod_fragment(fabric, fabric.machine.gpus)
    assert frag.host_network and VF not in frag.limits


def test_nccl_env_pins_roce_settings() -> None:
    (fabric,) = describe_cluster(_spec("BM.GPU.H100.8")).values()
    env = fabric.nccl_env
    assert env["NCCL_IB_GID_INDEX"] == "3"
    assert env["NCCL_IB_TC"] == "41"
    assert env["NCCL_NET"] == "IB"  # fail closed: no silent TCP fallback
    assert env["NCCL_IB_HCA"] == "mlx5"  # VFs get new mlx5_* names inside the pod


def test_sriov_nad_network_operator_and_ordering() -> None:
    layer = _layer("BM.GPU.H100.8")
    (nad,) = _kind(layer, "NetworkAttachmentDefinition")
    assert nad["metadata"]["name"] == "rdma-vf"
    assert nad["metadata"]["annotations"]["k8s.v1.cni.cncf.io/resourceName"] == VF
    plugins = [p["type"] for p in json.loads(nad["spec"]["config"])["plugins"]]
    assert plugins[0] == "sriov" and "rdma" in plugins
    ipam = json.loads(nad["spec"]["config"])["plugins"][0]["ipam"]
    assert ipam == {"type": "nv-ipam", "poolName": "rdma-vf"}
    (pool,) = _kind(layer, "IPPool")
    assert pool["metadata"]["name"] == "rdma-vf"
    (ncp,) = _kind(layer, "NicClusterPolicy")
    assert "nvIpam" in ncp["spec"] and "multus" not in ncp["spec"]["secondaryNetwork"]
    # CRs wait for the chart that ships their CRDs.
    assert layer.part("nic-cluster-policy").after == ("network-operator",)
    assert layer.part("rdma-vf-policies").after == ("network-operator",)
    (chart,) = layer.part("network-operator").charts
    assert chart.values["sriovNetworkOperator"]["enabled"] is True
    assert chart.values["sriov-network-operator"]["operator"]["resourcePrefix"] == "nvidia.com"


def test_gpu_operator_uses_the_image_driver_with_peermem() -> None:
    (chart,) = _layer("BM.GPU.H100.8").part("gpu-operator").charts
    assert chart.values["driver"]["enabled"] is False
    assert chart.values["driver"]["rdma"] == {"enabled": True, "useHostMofed": True}


def test_amd_pool_gets_no_gpu_operator_and_no_oke_plugin_label() -> None:
    spec = _spec("BM.GPU.MI300X.8")
    (fabric,) = describe_cluster(spec).values()
    assert "oci.oraclecloud.com/disable-gpu-device-plugin" not in fabric.node_labels
    assert "gpu-operator" not in build_layer(spec, describe_cluster(spec)).names


def test_host_network_mode_installs_no_sriov_stack() -> None:
    names = _layer("BM.GPU.H100.8", mode="host-network").names
    assert not {"network-operator", "rdma-vf-policies", "nads"} & set(names)


def test_addon_mode_skips_the_chart_but_keeps_the_policies() -> None:
    data = spec_dict("oci")
    data["oci"]["network_operator"] = "addon"
    spec = load_spec(data)
    layer = build_layer(spec, describe_cluster(spec))
    # The add-on (created by OciGpuCluster) is the network-operator part: no chart.
    assert layer.part("network-operator").installed_by
    assert not layer.part("network-operator").charts
    (policy,) = _kind(layer, "SriovNetworkNodePolicy")
    assert policy["metadata"]["namespace"] == "nvidia-network-operator"


def test_rdma_shared_device_plugin_is_refused_with_the_reason() -> None:
    with pytest.raises(SpecError) as info:
        describe_cluster(_spec("BM.GPU.H100.8", device_plugin="rdma-shared"))
    (problem,) = info.value.problems
    assert problem.path == "fabric.device_plugin"
    assert "GID" in problem.message and "host-network" in problem.message
