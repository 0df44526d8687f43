"""The GPU Operator on GKE, configured as NVIDIA's GKE guide says.

Source: NVIDIA "NVIDIA GPU Operator with Google GKE", "Using the Google Driver Installer"
(NVIDIA/cloud-native-docs gpu-operator/google-gke.rst, commit 305025848fdb):
node pools with ``--node-labels="gke-no-default-nvidia-gpu-device-plugin=true"`` and
``--accelerator type=...,gpu-driver-version=disabled``; Google's driver installer
DaemonSet (nvidia-driver-installer/cos/daemonset-preloaded.yaml) on Container-Optimized
OS; the operator with ``hostPaths.driverInstallDir=/home/kubernetes/bin/nvidia``,
``toolkit.installDir=/home/kubernetes/bin/nvidia``, ``cdi.enabled=true``,
``driver.enabled=false``; and the ResourceQuota of
gpu-operator/manifests/input/google-gke-gpu-operator-quota.yaml (f419407d), 100 pods.

The quota is widened past 100 on larger clusters: gpu-operator chart v26.7.0 values.yaml
(charts/gpu-operator-v26.7.0.tgz) runs with ``system-node-critical`` the operand
DaemonSets (``daemonsets.priorityClassName``, line 44; enabled with the driver off:
toolkit, devicePlugin, dcgmExporter, gfd, migManager and the validator: 6 per GPU node),
NFD's worker on every node (line 619), the operator, NFD's master and gc (3 once).
"""

from __future__ import annotations

import pytest

from gpu_fabric.errors import SpecError
from gpu_fabric.plan import run_spec
from tests.specs import with_pool

POOL = "gcp:container/nodePool:NodePool"
RELEASE = "kubernetes:helm.sh/v3:Release"
DAEMONSET = "kubernetes:apps/v1:DaemonSet"
OPERATOR = {"gpu_operator": {"enabled": True}}


def _operator_plan(spec_plan, machine: str = "a3-megagpu-8g"):
    return spec_plan(with_pool("gcp", machine_type=machine) | {"addons": OPERATOR})


def test_operator_values_follow_nvidias_gke_guide(spec_plan) -> None:
    plan = _operator_plan(spec_plan)
    release = next(r for r in plan.by_type(RELEASE) if r.inputs["chart"] == "gpu-operator")
    values = release.inputs["values"]
    assert values["driver"]["enabled"] is False
    assert values["hostPaths"]["driverInstallDir"] == "/home/kubernetes/bin/nvidia"
    assert values["toolkit"]["installDir"] == "/home/kubernetes/bin/nvidia"
    assert values["cdi"]["enabled"] is True
    assert values["extraObjects"] == [{
        "apiVersion": "v1",
        "kind": "ResourceQuota",
        "metadata": {"name": "gpu-operator-quota"},
        "spec": {
            "hard": {"pods": 100},
            "scopeSelector": {"matchExpressions": [{
                "operator": "In", "scopeName": "PriorityClass",
                "values": ["system-node-critical", "system-cluster-critical"],
            }]},
        },
    }]


def test_the_quota_admits_every_operand_pod_of_a_larger_cluster(spec_plan) -> None:
    # 16 GPU nodes x 6 operand pods + 18 NFD workers (16 + the 2 system nodes) + 3 = 117.
    data = with_pool("gcp", machine_type="a3-megagpu-8g", node_count=16)
    data["system_pool"] = {"node_count": 2}
    plan = spec_plan(data | {"addons": OPERATOR})
    release = next(r for r in plan.by_type(RELEASE) if r.inputs["chart"] == "gpu-operator")
    [quota] = release.inputs["values"]["extraObjects"]
    assert quota["spec"]["hard"] == {"pods": 117}


def test_operator_pools_turn_off_gke_driver_and_device_plugin(spec_plan) -> None:
    plan = _operator_plan(spec_plan)
    pool = plan.one(POOL, "test-gcp-gpu")
    config = pool.inputs["nodeConfig"]
    assert config["labels"]["gke-no-default-nvidia-gpu-device-plugin"] == "true"
    assert config["guestAccelerators"][0]["gpuDriverInstallationConfig"] == {
        "gpuDriverVersion": "INSTALLATION_DISABLED"}
    names = {d.inputs["metadata"]["name"] for d in plan.by_type(DAEMONSET)}
    assert "nvidia-driver-installer" in names


def test_without_the_operator_gke_keeps_its_own_device_plugin(spec_plan) -> None:
    plan = spec_plan(with_pool("gcp", machine_type="a3-megagpu-8g"))
    labels = plan.one(POOL, "test-gcp-gpu").inputs["nodeConfig"]["labels"]
    assert "gke-no-default-nvidia-gpu-device-plugin" not in labels


def test_operator_on_ubuntu_pools_is_refused() -> None:
    data = with_pool("gcp", machine_type="a3-megagpu-8g", os_image="UBUNTU_CONTAINERD")
    with pytest.raises(SpecError) as info:
        run_spec(data | {"addons": OPERATOR})
    text = str(info.value)
    assert "node_pools[0].os_image" in text
    assert "Google's COS driver installer" in text
