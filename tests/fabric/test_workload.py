"""The pod fragment merges into real pod templates without clobbering what is there."""

from __future__ import annotations

import pytest

from gpu_fabric.fabric.workload import FragmentError, fragment_for, pod_fragment
from tests.fabric_helpers import existing, fabric_of


def _template() -> dict:
    return {
        "metadata": {"labels": {"app": "train"}, "annotations": {"team": "a"}},
        "spec": {
            "containers": [
                {"name": "trainer", "image": "example/train:1",
                 "resources": {"limits": {"memory": "64Gi"}},
                 "env": [{"name": "EPOCHS", "value": "3"}]},
            ],
            "tolerations": [{"key": "other", "operator": "Exists"}],
        },
    }


def test_apply_merges_resources_env_volumes_and_annotations() -> None:
    fragment = fragment_for("gpu-h200x8-1128gb-fabric-contracted", 8)
    pod = fragment.apply(_template())
    main = pod["spec"]["containers"][0]
    assert main["resources"]["limits"]["memory"] == "64Gi"
    assert main["resources"]["limits"]["rdma/fabric7"] == "1"
    env = {e["name"]: e["value"] for e in main["env"]}
    assert env["EPOCHS"] == "3" and env["NCCL_NET"] == "IB"
    assert pod["metadata"]["annotations"]["team"] == "a"
    assert "k8s.v1.cni.cncf.io/networks" in pod["metadata"]["annotations"]
    assert {t["key"] for t in pod["spec"]["tolerations"]} == {"other", "nvidia.com/gpu"}
    assert any(v["name"] == "shared-memory" for v in pod["spec"]["volumes"])
    assert main["securityContext"]["capabilities"]["add"] == ["IPC_LOCK"]
    assert _template()["spec"]["containers"][0].get("volumeMounts") is None  # input untouched


def test_apply_twice_is_idempotent() -> None:
    fragment = fragment_for("p5.48xlarge", 8)
    once = fragment.apply(_template())
    assert fragment.apply(once) == once


def test_apply_targets_the_named_container() -> None:
    template = _template()
    template["spec"]["containers"].insert(0, {"name": "sidecar", "image": "x"})
    pod = fragment_for("p5.48xlarge", 8).apply(template, container="trainer")
    assert "resources" not in pod["spec"]["containers"][0]
    assert pod["spec"]["containers"][1]["resources"]["limits"]["vpc.amazonaws.com/efa"] == "32"
    with pytest.raises(FragmentError, match="no container named"):
        fragment_for("p5.48xlarge", 8).apply(template, container="missing")


def test_efa_fragment_has_hugepages_and_per_gpu_efa() -> None:
    fragment = fragment_for("p5.48xlarge", 2)
    # Hugepages scale with the GPU share: 5120Mi per full node (awsome nccl-tests.yaml).
    assert fragment.limits == {"nvidia.com/gpu": "2", "vpc.amazonaws.com/efa": "8",
                               "hugepages-2Mi": "1280Mi"}


def test_azure_fragment_mounts_the_topology_file() -> None:
    fragment = fragment_for("Standard_ND96isr_H100_v5", 8)
    assert fragment.env["NCCL_TOPO_FILE"].endswith("topo.xml")
    assert any("configMap" in v for v in fragment.volumes)


def test_oci_host_network_mode_uses_the_exact_hca_list() -> None:
    fabric = fabric_of(existing("oci", "BM.GPU.H100.8", fabric={"mode": "host-network"}))
    fragment = pod_fragment(fabric, 8)
    assert fragment.host_network and fragment.privileged
    assert fragment.env["NCCL_IB_HCA"].startswith("=mlx5_0,mlx5_1,mlx5_3")
