"""Contradictory device settings are refused, not silently ignored (issue 34).

* Two sources of nvidia.com/gpu: the kubelet keeps one device plugin endpoint per resource
  name (kubernetes pkg/kubelet/cm/devicemanager/manager.go ``PluginConnected``), and
  NVIDIA/k8s-dra-driver-gpu v25.12.0 (9c2e721bb2885980aab6cde560d962667178309b)
  deployments/helm/nvidia-dra-driver-gpu/templates/validation.yaml line 35: "this DRA driver
  cannot be deployed alongside the standard GPU device plugin on the same node".
* GKE runs its own NVIDIA device plugin unless the node carries
  gke-no-default-nvidia-gpu-device-plugin=true (clouds/gcp/fabric.py, GKE set-up-dra and
  NVIDIA's GKE guide); OKE runs its own unless oci.oraclecloud.com/disable-gpu-device-plugin
  is true (clouds/oci/fabric.py, oci-hpc-oke).
* DRA with its drivers off: fabric.mode dra asks for claims of gpu.nvidia.com (published
  only by the NVIDIA DRA driver) and of the NIC class (driver dra.net, DraNet).
* DRA with the SR-IOV / RDMA shared device plugin add-ons: DRA pools take NICs from DraNet
  claims, so those plugins would serve nothing (and k8s-rdma-shared-dev-plugin v1.5.3 exits
  on an empty configList).

tests/specs.py: the AWS spec is 2 x p5.48xlarge, the GCP one 2 x a4-highgpu-8g (auto mode on
GKE 1.34 is DRA with managed DRANet), the OCI one 2 x BM.GPU.H100.8.
"""

from __future__ import annotations

from typing import Any

import pytest

from gpu_fabric.errors import SpecError
from gpu_fabric.preflight import check_spec
from gpu_fabric.spec import load_spec
from tests.specs import spec_dict, with_pool


def _refusal(data: dict[str, Any]) -> tuple[str, str]:
    spec = load_spec(data)
    with pytest.raises(SpecError) as err:
        check_spec(spec)
    problems = err.value.problems
    assert len(problems) == 1, problems
    return problems[0].path, problems[0].message


def _accepted(data: dict[str, Any]) -> None:
    check_spec(load_spec(data))


OPERATOR_ON = {"gpu_operator": {"enabled": True}}
PLUGIN_ON = {"nvidia_device_plugin": {"enabled": True}}


@pytest.mark.parametrize(("cloud", "addons", "mode", "sources"), [
    ("aws", {**OPERATOR_ON, **PLUGIN_ON}, "auto",
     "the GPU Operator's device plugin (addons.gpu_operator) and the NVIDIA device plugin "
     "(addons.nvidia_device_plugin)"),
    ("azure", PLUGIN_ON, "auto",  # AKS: the GPU Operator is on by default
     "the GPU Operator's device plugin (addons.gpu_operator) and the NVIDIA device plugin "
     "(addons.nvidia_device_plugin)"),
    ("oci", PLUGIN_ON, "auto",
     "the GPU Operator's device plugin (addons.gpu_operator) and the NVIDIA device plugin "
     "(addons.nvidia_device_plugin)"),
    ("aws", PLUGIN_ON, "dra",
     "the NVIDIA device plugin (addons.nvidia_device_plugin) and the NVIDIA DRA driver's GPU "
     "plugin (addons.nvidia_dra_driver)"),
    ("gcp", PLUGIN_ON, "auto",
     "the NVIDIA device plugin (addons.nvidia_device_plugin) and the NVIDIA DRA driver's GPU "
     "plugin (addons.nvidia_dra_driver)"),
])
def test_two_sources_of_nvidia_gpu(cloud: str, addons: dict, mode: str, sources: str) -> None:
    path, message = _refusal(spec_dict(cloud, addons=addons, fabric={"mode": mode}))
    assert path == "addons.nvidia_device_plugin.enabled"
    assert f"would get its GPUs (nvidia.com/gpu) from 2 sources: {sources};" in message
    assert "Keep exactly one: " in message


def test_gke_own_plugin_and_ours() -> None:
    """A3 Mega (TCPXO) is device-plugin mode on GKE: GKE's plugin is on its nodes."""
    data = with_pool("gcp", machine_type="a3-megagpu-8g", capacity={"type": "on_demand"})
    path, message = _refusal({**data, "addons": PLUGIN_ON})
    assert path == "addons.nvidia_device_plugin.enabled"
    assert ("from 2 sources: GKE's own NVIDIA device plugin and the NVIDIA device plugin "
            "(addons.nvidia_device_plugin)") in message
    assert 'label the pool gke-no-default-nvidia-gpu-device-plugin: "true"' in message
    # the remedy the message names is accepted
    data["node_pools"][0]["labels"] = {"gke-no-default-nvidia-gpu-device-plugin": "true"}
    _accepted({**data, "addons": PLUGIN_ON})


def test_oke_own_plugin_and_ours() -> None:
    """Without the GPU Operator, OKE's own plugin serves the GPUs (label false)."""
    addons = {"gpu_operator": {"enabled": False}, **PLUGIN_ON}
    path, message = _refusal(spec_dict("oci", addons=addons))
    assert ("from 2 sources: OKE's own NVIDIA GPU device plugin and the NVIDIA device plugin "
            "(addons.nvidia_device_plugin)") in message and path.startswith("addons.")


def test_operator_device_plugin_beside_dra_gpus() -> None:
    """The user's values turn the operator's plugin back on in DRA mode."""
    addons = {"gpu_operator": {"enabled": True, "values": {"devicePlugin": {"enabled": True}}}}
    path, message = _refusal(spec_dict("aws", addons=addons, fabric={"mode": "dra"}))
    assert path == "addons.gpu_operator"
    assert ("from 2 sources: the GPU Operator's device plugin (addons.gpu_operator) and the "
            "NVIDIA DRA driver's GPU plugin (addons.nvidia_dra_driver)") in message


@pytest.mark.parametrize(("cloud", "addons", "mode"), [
    ("aws", {}, "auto"), ("aws", OPERATOR_ON, "auto"), ("aws", {}, "dra"),
    ("aws", PLUGIN_ON, "auto"),  # EKS: the plugin alone is the default's one source
    ("azure", {}, "auto"), ("oci", {}, "auto"), ("gcp", {}, "auto"),
    ("oci", {"gpu_operator": {"enabled": False}}, "auto"),  # OKE's own plugin alone
])
def test_one_source_passes(cloud: str, addons: dict, mode: str) -> None:
    _accepted(spec_dict(cloud, addons=addons, fabric={"mode": mode}))


@pytest.mark.parametrize(("cloud", "addon", "says"), [
    ("aws", "nvidia_dra_driver", "pool 'gpu' (p5.48xlarge) gets its GPUs from DRA claims "
                                 "(fabric.mode: dra), which only the NVIDIA DRA driver "
                                 "publishes; with addons.nvidia_dra_driver off every claim "
                                 "stays Pending"),
    ("oci", "nvidia_dra_driver", "pool 'gpu' (BM.GPU.H100.8) gets its GPUs from DRA claims"),
    ("gcp", "nvidia_dra_driver", "pool 'gpu' (a4-highgpu-8g) gets its GPUs from DRA claims"),
    ("aws", "dranet", "pool 'gpu' (p5.48xlarge) attaches its fabric NICs through DRA claims of "
                      "DeviceClass 'dranet' (driver dra.net), which only DraNet publishes"),
    ("oci", "dranet", "pool 'gpu' (BM.GPU.H100.8) attaches its fabric NICs through DRA claims"),
])
def test_dra_with_its_driver_off(cloud: str, addon: str, says: str) -> None:
    data = spec_dict(cloud, fabric={"mode": "dra"}, addons={addon: {"enabled": False}})
    path, message = _refusal(data)
    assert path == f"addons.{addon}.enabled"
    assert says in message and "use fabric.mode device-plugin" in message


def test_dra_driver_off_is_fine_where_the_cloud_serves_the_claims() -> None:
    """GKE-managed DRANet publishes the NICs itself (fabric.dranet managed on 1.34), and
    DOKS runs its own GPU DRA driver: turning the add-on off contradicts nothing."""
    _accepted(spec_dict("gcp", fabric={"mode": "dra"}, addons={"dranet": {"enabled": False}}))
    _accepted(spec_dict("digitalocean", fabric={"mode": "dra"},
                        addons={"nvidia_dra_driver": {"enabled": False}}))


def test_dra_driver_off_outside_dra_mode_is_fine() -> None:
    _accepted(spec_dict("aws", addons={"nvidia_dra_driver": {"enabled": False},
                                       "dranet": {"enabled": False}}))


@pytest.mark.parametrize(("cloud", "addon"), [
    ("aws", "sriov_device_plugin"), ("aws", "rdma_shared_device_plugin"),
    ("oci", "sriov_device_plugin"), ("oci", "rdma_shared_device_plugin"),
    ("gcp", "sriov_device_plugin"),
])
def test_dra_with_a_nic_device_plugin_addon(cloud: str, addon: str) -> None:
    path, message = _refusal(spec_dict(cloud, fabric={"mode": "dra"},
                                       addons={addon: {"enabled": True}}))
    assert path == f"addons.{addon}.enabled"
    assert "no node pool's fabric uses the" in message


@pytest.mark.parametrize(("cloud", "fabric", "machine"), [
    ("aws", {"device_plugin": "sriov"}, "p5.48xlarge"),
    ("gcp", {"device_plugin": "rdma-shared"}, "a4-highgpu-8g"),
    ("oci", {"nad_type": "sriov"}, "BM.GPU.H100.8"),
    ("aws", {"nad_type": "host-device"}, "p5.48xlarge"),
])
def test_device_plugin_settings_dra_would_ignore(cloud: str, fabric: dict, machine: str) -> None:
    """On EKS, GKE and OKE, fabric.mode dra hands every fabric pool's NICs out through
    DraNet claims: no device plugin or NetworkAttachmentDefinition is made for them."""
    ((field, value),) = fabric.items()
    path, message = _refusal(spec_dict(cloud, fabric={"mode": "dra", **fabric}))
    assert path == f"fabric.{field}"
    assert message.startswith(
        f"'{value}' chooses how device-plugin mode hands out NICs, but with fabric.mode dra the "
        f"pools 'gpu' ({machine}) take their NICs from DRA claims (DraNet), so it would be "
        "ignored; remove it")


def test_device_plugin_settings_where_dra_keeps_nics_on_a_plugin() -> None:
    """AKS in DRA mode: GPUs from claims, the InfiniBand NICs still from the device plugin
    (the Network Operator's), so the setting is used and passes."""
    _accepted(spec_dict("azure", fabric={"mode": "dra", "device_plugin": "rdma-shared"}))
