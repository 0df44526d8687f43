"""What a fabric pod refers to exists in its namespace; host libraries are read-only;
GB200 pods on DRA join their pool's ComputeDomain."""

from __future__ import annotations

from gpu_fabric.fabric.workload import pod_fragment
from gpu_fabric.spec import load_spec
from tests.fabric_helpers import existing, fabric_of, layer_of
from tests.specs import spec_dict

TEAM = {"name": "vision", "group": "vision-eng", "gpus": 8}


def _objects(layer, kind: str) -> list[tuple[str, str]]:
    return sorted((m["metadata"].get("namespace", ""), m["metadata"]["name"])
                  for m in layer.manifests() if m["kind"] == kind)


def test_host_library_paths_are_read_only_device_dirs_are_not() -> None:
    # container-engine-accelerators gpudirect-tcpxo examples mount /usr/local/nvidia
    # readOnly and /dev/aperture_devices writable; same split here.
    mounts = {m["mountPath"]: m.get("readOnly", False)
              for m in pod_fragment(fabric_of(existing("gcp", "a3-megagpu-8g")), 8).volume_mounts}
    assert mounts["/usr/local/nvidia"] is True
    assert mounts["/dev/aperture_devices"] is False
    gib = pod_fragment(fabric_of(existing("gcp", "a4-highgpu-8g")), 8).volume_mounts
    assert {m["mountPath"]: m.get("readOnly", False) for m in gib}["/usr/local/gib"] is True


def test_gb200_dra_pods_get_the_compute_domain_channel_claim() -> None:
    for cloud, machine in (("aws", "p6e-gb200.36xlarge"), ("oci", "BM.GPU.GB200-v3.4")):
        spec = existing(cloud, machine, fabric={"mode": "dra"}, tenancy={"teams": [TEAM]})
        fragment = pod_fragment(fabric_of(spec), 4)
        channel = {"name": "compute-domain-channel",
                   "resourceClaimTemplateName": "gpu-compute-domain-channel"}
        assert channel in fragment.resource_claims
        assert "compute-domain-channel" in fragment.container_claims
        # The ComputeDomain that creates that template exists in the fabric namespace and
        # in the team's (NVIDIA k8s-dra-driver-gpu: spec.channel.resourceClaimTemplate.name).
        layer = layer_of(spec)
        domains = [m for m in layer.manifests() if m["kind"] == "ComputeDomain"]
        assert sorted(d["metadata"]["namespace"] for d in domains) == ["default", "vision"]
        assert {d["spec"]["channel"]["resourceClaimTemplate"]["name"] for d in domains} == {
            "gpu-compute-domain-channel"}


def test_team_namespaces_get_the_fabric_objects_automatically() -> None:
    do = existing("digitalocean", "gpu-h200x8-1128gb-fabric-contracted",
                  tenancy={"teams": [TEAM]})
    nads = _objects(layer_of(do), "NetworkAttachmentDefinition")
    assert ("vision", "roce-net-fabric0") in nads and ("default", "roce-net-fabric0") in nads
    azure = load_spec(spec_dict("azure", existing={"kubeconfig": {"path": "/x"}},
                                tenancy={"teams": [TEAM]}))
    maps = [m for m in _objects(layer_of(azure), "ConfigMap") if "topo" in m[1]]
    assert {ns for ns, _ in maps} == {"default", "vision"}
