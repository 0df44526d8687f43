"""DO spec section, DOKS-managed component choices and the layer defaults they imply (pure)."""

from __future__ import annotations

from typing import Any

import pytest

from gpu_fabric.clouds.digitalocean.kubernetes import addon_defaults
from gpu_fabric.clouds.digitalocean.managed import managed_components
from gpu_fabric.errors import SpecError
from gpu_fabric.fabric.description import describe_cluster
from gpu_fabric.spec import ClusterSpec, load_spec
from tests.specs import spec_dict

MI300X = "gpu-mi300x8-1536gb-fabric-contracted"


def _spec(machine: str | None = None, **overrides: Any) -> ClusterSpec:
    data = spec_dict("digitalocean", **overrides)
    if machine:
        data["node_pools"][0]["machine_type"] = machine
    return load_spec(data)


def _defaults(spec: ClusterSpec) -> dict[str, bool]:
    return addon_defaults(spec, describe_cluster(spec))


def test_nvidia_fabric_defaults() -> None:
    spec = _spec()
    assert managed_components(spec) == {
        "rdma_shared_device_plugin": True, "nvidia_gpu_device_plugin": True,
    }
    defaults = _defaults(spec)
    assert defaults["multus"] is True
    assert defaults["rdma_shared_device_plugin"] is False
    assert defaults["nvidia_device_plugin"] is False
    assert defaults["gpu_operator"] is False


def test_amd_pool_gets_amd_blocks_only() -> None:
    spec = _spec(MI300X, fabric={"mode": "dra"})
    assert managed_components(spec) == {
        "rdma_shared_device_plugin": True,
        "amd_gpu_dra_driver": True,
        "amd_gpu_device_metrics_exporter_plugin": False,
    }
    fabric = describe_cluster(spec)["gpu"]
    assert fabric.dra is not None and fabric.dra.gpu_class == "gpu.amd.com"
    assert "nvidia.com/gpu.present" not in fabric.node_labels


def test_doks_gpu_plugin_off_hands_it_to_the_layer() -> None:
    spec = _spec(digitalocean={"components": {"gpu_device_plugin": False}})
    assert managed_components(spec)["nvidia_gpu_device_plugin"] is False
    assert _defaults(spec)["nvidia_device_plugin"] is True
    with_operator = _spec(digitalocean={"components": {"gpu_device_plugin": False}},
                          addons={"gpu_operator": {"enabled": True}})
    assert _defaults(with_operator)["nvidia_device_plugin"] is False


def test_explicit_dra_driver_without_dra_mode() -> None:
    spec = _spec(digitalocean={"components": {"gpu_dra_driver": True}})
    assert managed_components(spec) == {
        "rdma_shared_device_plugin": True, "nvidia_gpu_dra_driver": True,
    }
    assert describe_cluster(spec)["gpu"].gpu_dra is True


@pytest.mark.parametrize(
    ("section", "overrides", "path"),
    [
        ({"components": {"gpu_device_plugin": True, "gpu_dra_driver": True}}, {},
         "digitalocean.components"),
        ({"components": {"gpu_dra_driver": False}}, {"fabric": {"mode": "dra"}},
         "digitalocean.components.gpu_dra_driver"),
        ({"components": {"amd_device_metrics_exporter": True}}, {},
         "digitalocean.components.amd_device_metrics_exporter"),
        ({"components": {"unknown": True}}, {}, "digitalocean.components.unknown"),
    ],
)
def test_contradictions_are_refused_with_the_field(section, overrides, path) -> None:
    with pytest.raises(SpecError) as info:
        spec = _spec(digitalocean=section, **overrides)
        describe_cluster(spec)
        managed_components(spec)
    assert path in [p.path for p in info.value.problems]


def test_nvidia_pools_carry_the_device_plugin_charts_node_label(spec_plan) -> None:
    """NVIDIA/k8s-device-plugin deployments/helm/nvidia-device-plugin/values.yaml (v0.18.2,
    fb1242ad) lines 64-85: the DaemonSet's affinity requires
    ``feature.node.kubernetes.io/pci-10de.present=true``,
    ``feature.node.kubernetes.io/cpu-model.vendor_id=NVIDIA`` or
    ``nvidia.com/gpu.present=true``. With DOKS's plugin off and the chart on (what the
    refusal in clouds/digitalocean/kubernetes.py suggests) and NFD off, only the last can
    hold, so the pool sets it, as EKS node groups do."""
    data = spec_dict("digitalocean", digitalocean={"components": {"gpu_device_plugin": False}})
    plan = spec_plan(data)
    pool = plan.one("digitalocean:index/kubernetesNodePool:KubernetesNodePool")
    assert pool.inputs["labels"]["nvidia.com/gpu.present"] == "true"
    release = next(r for r in plan.by_type("kubernetes:helm.sh/v3:Release")
                   if r.inputs["chart"] == "nvidia-device-plugin")
    assert release.inputs["values"]["gfd"] == {"enabled": False}
    # AMD pools do not get it.
    assert "nvidia.com/gpu.present" not in describe_cluster(_spec(MI300X))["gpu"].node_labels
