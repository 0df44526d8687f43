"""The DigitalOcean seed, exactly: 8 host-device NADs, rdma/fabricN resources, the annotation."""

from __future__ import annotations

import json

from gpu_fabric.fabric.workload import pod_fragment
from tests.fabric_helpers import existing, fabric_of, layer_of

H200 = "gpu-h200x8-1128gb-fabric-contracted"
B300 = "gpu-b300x8-2304gb-fabric-contracted"
SEED_ANNOTATION = (
    "roce-net-fabric0@fabric0, roce-net-fabric1@fabric1, roce-net-fabric2@fabric2, "
    "roce-net-fabric3@fabric3, roce-net-fabric4@fabric4, roce-net-fabric5@fabric5, "
    "roce-net-fabric6@fabric6, roce-net-fabric7@fabric7"
)


def test_eight_host_device_nads_exactly_as_the_seed() -> None:
    nads = [m for m in layer_of(existing("digitalocean", H200)).manifests()
            if m["kind"] == "NetworkAttachmentDefinition"]
    assert [n["metadata"]["name"] for n in nads] == [f"roce-net-fabric{i}" for i in range(8)]
    for i, nad in enumerate(nads):
        assert nad["apiVersion"] == "k8s.cni.cncf.io/v1"
        assert json.loads(nad["spec"]["config"]) == {
            "cniVersion": "0.3.1", "type": "host-device", "device": f"fabric{i}",
        }


def test_seed_resources_and_annotation() -> None:
    fragment = pod_fragment(fabric_of(existing("digitalocean", H200)), 8)
    expected = {"nvidia.com/gpu": "8"} | {f"rdma/fabric{i}": "1" for i in range(8)}
    assert fragment.limits == expected
    assert fragment.container_patch()["resources"]["requests"] == expected
    assert fragment.annotations == {"k8s.v1.cni.cncf.io/networks": SEED_ANNOTATION}
    assert fragment.env["NCCL_SOCKET_IFNAME"] == "eth0"


def test_amd_machine_uses_amd_gpu_resource_and_taint() -> None:
    fabric = fabric_of(existing("digitalocean", "gpu-mi300x8-1536gb-fabric-contracted"))
    fragment = pod_fragment(fabric, 8)
    assert fragment.limits["amd.com/gpu"] == "8"
    assert "nvidia.com/gpu" not in fragment.limits
    assert any(t["key"] == "amd.com/gpu" for t in fragment.tolerations)


def test_sixteen_nics_on_b300() -> None:
    spec = existing("digitalocean", B300)
    nads = [m for m in layer_of(spec).manifests() if m["kind"] == "NetworkAttachmentDefinition"]
    assert len(nads) == 16
    fragment = pod_fragment(fabric_of(spec), 8)
    assert sorted(k for k in fragment.limits if k.startswith("rdma/")) == sorted(
        f"rdma/fabric{i}" for i in range(16)
    )
    assert fragment.annotations["k8s.v1.cni.cncf.io/networks"].count("@fabric") == 16


def test_nads_go_to_every_workload_namespace_after_multus() -> None:
    spec = existing("digitalocean", H200, fabric={"namespaces": ["default", "team-a"]})
    layer = layer_of(spec)
    nad_part = layer.part("nads")
    assert {m["metadata"]["namespace"] for m in nad_part.manifests} == {"default", "team-a"}
    assert len(nad_part.manifests) == 16
    assert set(nad_part.after) == {"namespaces", "multus"}
    assert any(m["metadata"]["name"] == "team-a" for m in layer.part("namespaces").manifests)
