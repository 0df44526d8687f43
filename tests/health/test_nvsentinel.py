"""NVSentinel as a pinned add-on (gpu_fabric.health.nvsentinel): the release, its values
checked against the chart at the pin, its DCGM source per cloud, cordon-only remediation
by default.

Sources: the NVSentinel chart at v1.19.0 (tests/data/upstream/values/nvsentinel/v1.19.0,
provenance in sources.json: NVIDIA/NVSentinel distros/kubernetes/nvsentinel at
e002c5dc, README "NVSENTINEL_VERSION=v1.19.0 ... helm install nvsentinel
oci://ghcr.io/nvidia/nvsentinel"); docs/configuration/fault-quarantine.md and
node-drainer.md at e002c5dc ("This module depends on the datastore being enabled");
README "1. Install cert-manager (for TLS) ... --version v1.19.1".
"""

from __future__ import annotations

import copy
from functools import cache
from pathlib import Path
from typing import Any

import pytest
import yaml

from gpu_fabric import versions
from gpu_fabric.fabric.description import describe_cluster
from gpu_fabric.fabric.layer import Layer, build_layer
from gpu_fabric.spec import load_spec
from gpu_fabric.versions import Chart
from tests.specs import CLOUDS, spec_dict
from tests.support.helm_values import check_values

UPSTREAM = Path(__file__).resolve().parents[1] / "data" / "upstream" / "values"


@cache
def built(cloud: str, remediation: str = "cordon", prometheus: bool = False) -> Layer:
    addons = {"prometheus": {"enabled": True}} if prometheus else {}
    spec = load_spec(spec_dict(cloud, health={"enabled": True, "remediation": remediation},
                               addons=addons))
    return build_layer(spec, describe_cluster(spec))


def release(layer: Layer, chart: str) -> dict[str, Any]:
    (found,) = [c for c in layer.charts() if c.chart.name == chart]
    return {"chart": found.chart, "namespace": found.namespace, "values": dict(found.values)}


def test_the_pins() -> None:
    assert Chart("oci://ghcr.io/nvidia", "nvsentinel", "v1.19.0") == versions.NVSENTINEL
    assert Chart("https://charts.jetstack.io", "cert-manager", "v1.19.1") == versions.CERT_MANAGER


@pytest.mark.parametrize("remediation", ["cordon", "drain", "off"])
@pytest.mark.parametrize("cloud", CLOUDS)
def test_every_value_we_set_is_a_key_of_the_chart_at_the_pin(cloud: str, remediation: str) -> None:
    layer = built(cloud, remediation, prometheus=True)
    for chart in layer.charts():
        assert check_values(chart.chart.name, chart.chart.version, dict(chart.values)) == []


def test_the_check_bites_on_a_key_the_chart_does_not_have() -> None:
    values = copy.deepcopy(release(built("aws"), "nvsentinel")["values"])
    values["global"]["faultQuarantine"]["enable"] = True  # typo of enabled
    assert check_values("nvsentinel", "v1.19.0", values) == [
        "nvsentinel: global.faultQuarantine.enable: not a value of the chart (no such key in "
        "its values.yaml or values.schema.json at the pinned version)"]


@pytest.mark.parametrize("cloud", CLOUDS)
def test_nvsentinel_is_on_every_cloud_in_its_own_privileged_namespace(cloud: str) -> None:
    layer = built(cloud)
    found = release(layer, "nvsentinel")
    assert (found["chart"], found["namespace"]) == (versions.NVSENTINEL, "nvsentinel")
    (ns,) = [m for m in layer.part("nvsentinel").manifests if m["kind"] == "Namespace"]
    # Node agents (syslog, NIC, GPU monitors) read host paths.
    assert ns["metadata"]["labels"]["pod-security.kubernetes.io/enforce"] == "privileged"


# Where the GPU Operator runs by default (AKS, OKE: clouds/<cloud>/kubernetes.py
# addon_defaults) NVSentinel reads its standalone DCGM; elsewhere the cloud manages the
# driver and there is no DCGM hostengine to read.
GPU_OPERATOR_CLOUDS = {"azure", "oci"}


@pytest.mark.parametrize("cloud", CLOUDS)
def test_dcgm_comes_from_the_gpu_operator_where_it_runs(cloud: str) -> None:
    layer = built(cloud)
    glob = release(layer, "nvsentinel")["values"]["global"]
    if cloud in GPU_OPERATOR_CLOUDS:
        # gpu-operator v26.7.0 assets/state-dcgm/0500_service.yaml: Service nvidia-dcgm,
        # port 5555; its values.yaml dcgm.enabled: false by default (embedded in the exporter).
        assert glob["dcgm"] == {"mode": "operator-service", "service": {
            "endpoint": "nvidia-dcgm.gpu-operator.svc", "port": 5555}}
        assert glob["gpuHealthMonitor"] == {"enabled": True}
        assert glob["metadataCollector"] == {"enabled": True}
        assert release(layer, "gpu-operator")["values"]["dcgm"] == {"enabled": True}
    else:
        assert "dcgm" not in glob
        assert glob["gpuHealthMonitor"] == {"enabled": False}
        assert glob["metadataCollector"] == {"enabled": False}  # runtimeClassName: nvidia
        assert "gpu-operator" not in layer.names
    assert glob["syslogHealthMonitor"] == {"enabled": True}  # XIDs from the kernel log
    assert glob["nicHealthMonitor"] == {"enabled": True}  # every base machine is RDMA


@pytest.mark.parametrize(("cloud", "assumed"), [
    ("gcp", True), ("aws", True), ("digitalocean", True),
    ("azure", False),  # the operator installs the driver on AKS (driver.enabled: true)
    ("oci", True),     # OKE GPU images ship the driver: the operator's driver is off
])
def test_the_labeler_assumes_the_driver_where_no_driver_pod_runs(cloud: str, assumed: bool) -> None:
    values = release(built(cloud), "nvsentinel")["values"]
    assert values["labeler"] == {"assumeDriverInstalled": assumed}


def test_remediation_is_cordon_only_by_default() -> None:
    layer = built("aws")
    glob = release(layer, "nvsentinel")["values"]["global"]
    assert {k: glob[k] for k in ("faultQuarantine", "nodeDrainer", "faultRemediation",
                                 "mongodbStore")} == {
        "faultQuarantine": {"enabled": True}, "nodeDrainer": {"enabled": False},
        "faultRemediation": {"enabled": False}, "mongodbStore": {"enabled": True}}
    assert release(layer, "cert-manager")["values"] == {"crds": {"enabled": True}}
    assert layer.part("nvsentinel").after == ("cert-manager",)
    # The chart's default rule sets cordon and never taint (fault-quarantine values.yaml).
    rules = yaml.safe_load((UPSTREAM / "nvsentinel" / "v1.19.0" / "charts" / "fault-quarantine"
                            / "values.yaml").read_text())["ruleSets"]
    assert {r["name"] for r in rules if "taint" in r} == set()
    assert all(r["cordon"] == {"shouldCordon": True} for r in rules)


def test_drain_and_off_are_the_users_choice() -> None:
    drain = release(built("aws", "drain"), "nvsentinel")["values"]["global"]
    assert (drain["faultQuarantine"], drain["nodeDrainer"]) == ({"enabled": True},
                                                                {"enabled": True})
    layer = built("aws", "off")
    off = release(layer, "nvsentinel")["values"]["global"]
    assert (off["faultQuarantine"], off["nodeDrainer"], off["mongodbStore"]) == (
        {"enabled": False}, {"enabled": False}, {"enabled": False})
    assert "cert-manager" not in layer.names  # no datastore, no certificates


def test_the_spec_values_win_and_an_existing_cert_manager_is_kept() -> None:
    spec = load_spec(spec_dict("aws", health={"enabled": True}, addons={
        "nvsentinel": {"values": {"global": {"faultRemediation": {"enabled": True}}}},
        "cert_manager": {"enabled": False}}))
    layer = build_layer(spec, describe_cluster(spec))
    glob = release(layer, "nvsentinel")["values"]["global"]
    assert glob["faultRemediation"] == {"enabled": True}
    assert glob["faultQuarantine"] == {"enabled": True}
    assert "cert-manager" not in layer.names
    assert layer.part("nvsentinel").after == ()


def test_the_podmonitor_follows_monitoring() -> None:
    # values.yaml podMonitor.enabled: true needs the Prometheus Operator's CRDs.
    assert release(built("aws"), "nvsentinel")["values"]["podMonitor"] == {"enabled": False}
    with_prom = built("aws", prometheus=True)
    assert release(with_prom, "nvsentinel")["values"]["podMonitor"] == {"enabled": True}
    assert with_prom.part("nvsentinel").after == ("cert-manager", "prometheus")


def test_health_off_installs_nothing() -> None:
    spec = load_spec(spec_dict("aws"))
    layer = build_layer(spec, describe_cluster(spec))
    assert not {"nvsentinel", "cert-manager", "fabric-health"} & set(layer.names)
    assert not layer.addons.on("nvsentinel")


def test_nvidia_pools_are_labelled_gpu_present_for_nvsentinel() -> None:
    # fault-quarantine values.yaml gpuNodeLabel "nvidia.com/gpu.present=true"; the labeler
    # (docs/labeler.md) manages nodes with that label. DOKS pools have it from nowhere else.
    spec = load_spec(spec_dict("digitalocean", health={"enabled": True}))
    fabric = describe_cluster(spec)["gpu"]
    assert fabric.node_labels["nvidia.com/gpu.present"] == "true"
    # Issue 29 labels every DOKS NVIDIA pool (k8s-device-plugin values.yaml lines 64-85 at
    # fb1242ad select on it), so the label no longer depends on health being on.
    plain = describe_cluster(load_spec(spec_dict("digitalocean")))["gpu"]
    assert plain.node_labels["nvidia.com/gpu.present"] == "true"
