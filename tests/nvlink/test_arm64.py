"""GB200/GB300 hosts are arm64: every add-on that runs on their nodes has an arm64 build
recorded at its pinned version (upstream files cited in each add-on's ``arm64``), and
what has none is refused before any resource."""

from __future__ import annotations

import dataclasses

import pytest

from gpu_fabric.errors import SpecError
from gpu_fabric.fabric.addons import ADDONS
from gpu_fabric.fabric.description import describe_cluster
from gpu_fabric.fabric.layer import build_layer
from gpu_fabric.nccl.manifests import plan_acceptance
from gpu_fabric.spec import load_spec
from tests.support.variants import gb200_spec

# Each add-on that runs pods on GPU nodes, and the upstream file (at the pinned tag) that
# says its images are built for arm64.
RECORDED = {
    "nvidia_dra_driver":
        "NVIDIA/k8s-dra-driver-gpu v25.12.0 deployments/container/Makefile line 46",
    "nvidia_device_plugin":
        "NVIDIA/k8s-device-plugin v0.18.2 deployments/container/multi-arch.mk line 17",
    "dranet": "kubernetes-sigs/dranet v1.4.0 Makefile line 74",
    "gpu_operator":
        "NVIDIA/gpu-operator v26.7.0 .github/workflows/image-builds.yaml lines 78-171",
    "network_operator":
        "Mellanox/network-operator v26.4.1 .github/workflows/ci.yaml line 80",
    "multus": "k8snetworkplumbingwg/multus-cni v4.3.0 "
              ".github/workflows/image-push-release.yml lines 35-45",
    "efa_device_plugin":
        "aws/eks-charts aws-efa-k8s-device-plugin chart v0.5.30 values.yaml line 216",
    "nccl_installer": "GoogleCloudPlatform/cluster-toolkit 1047080375af "
                      "examples/gke-a4x/gke-a4x.yaml",
    "rdma_shared_device_plugin": "Mellanox/k8s-rdma-shared-dev-plugin v1.5.3 "
                                 ".github/workflows/release.yaml",
    "sriov_device_plugin": "k8snetworkplumbingwg/sriov-network-device-plugin v3.9.0 "
                           ".github/workflows/image-push-release.yml",
    "prometheus": "prometheus/node_exporter a7dcc3a Makefile line 18",
}


def test_every_add_on_on_gpu_nodes_records_its_arm64_build() -> None:
    on_gpu_nodes = {key for key, addon in ADDONS.items() if addon.gpu_nodes}
    assert on_gpu_nodes == set(RECORDED)
    for key, source in RECORDED.items():
        assert ADDONS[key].arm64.startswith(source), key


def test_an_add_on_without_an_arm64_build_is_refused_on_gb200(monkeypatch) -> None:
    from gpu_fabric.fabric.addons import registry

    spec = load_spec(gb200_spec("oci"))
    monkeypatch.setitem(registry.ADDONS, "gpu_operator",
                        dataclasses.replace(ADDONS["gpu_operator"], arm64=""))
    with pytest.raises(SpecError) as err:
        build_layer(spec, describe_cluster(spec))
    assert str(err.value).endswith(
        "addons.gpu_operator.enabled: pool(s) gpu (BM.GPU.GB200-v3.4) run arm64 hosts and "
        "gpu_operator runs pods on them, but no arm64 build of its pinned version is "
        "recorded; turn it off on this cluster (got True)")


def test_another_version_than_the_recorded_pin_is_refused_on_gb200() -> None:
    raw = gb200_spec("azure")
    raw["addons"] = {"network_operator": {"version": "25.4.0"}}
    spec = load_spec(raw)
    with pytest.raises(SpecError) as err:
        build_layer(spec, describe_cluster(spec))
    assert ("addons.network_operator.version: pool(s) gpu (Standard_ND128isr_NDR_GB200_v6) "
            "run arm64 hosts; network_operator's arm64 build is recorded for its pinned "
            "26.4.1") in str(err.value)
    # The same override on an amd64 pool is the user's choice.
    from tests.specs import spec_dict

    other = load_spec(spec_dict("azure", addons={"network_operator": {"version": "25.4.0"}}))
    build_layer(other, describe_cluster(other))


def test_the_acceptance_test_image_on_arm64() -> None:
    """IB/RoCE GB200 pools run coreweave's multi-arch tag (coreweave/nccl-tests f443305
    README.md: "Each image is multi-arch"); EKS GB200 has no pinned arm64 EFA image
    (awsome-distributed-training 7217859 micro-benchmarks/nccl-tests/README.md line 71)."""
    raw = gb200_spec("oci")
    raw["acceptance"] = {"enabled": True}
    spec = load_spec(raw)
    plan = plan_acceptance(spec, describe_cluster(spec), "nccl")
    assert plan.image.ref == (
        "ghcr.io/coreweave/nccl-tests:12.8.1-devel-ubuntu22.04-nccl2.27.6-1-7c12c62")
    raw = gb200_spec("aws")
    raw["acceptance"] = {"enabled": True}
    spec = load_spec(raw)
    with pytest.raises(SpecError) as err:
        plan_acceptance(spec, describe_cluster(spec), "nccl")
    assert "acceptance.enabled: p6e-gb200.36xlarge runs arm64 hosts and no pinned arm64 " \
        "build of the EFA nccl-tests image is published" in str(err.value)
