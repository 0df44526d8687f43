"""DRA: the GKE seed's DeviceClass and aligned claim template, in resource.k8s.io/v1."""

from __future__ import annotations

import pytest

from gpu_fabric.catalog import machines
from gpu_fabric.fabric.manifests import dra
from gpu_fabric.fabric.workload import pod_fragment
from tests.fabric_helpers import existing, fabric_of, layer_of

A4 = "a4-highgpu-8g"


def _objects(spec, kind):
    return [m for m in layer_of(spec).manifests() if m["kind"] == kind]


def test_seed_device_class_in_v1() -> None:
    spec = existing("gcp", A4, fabric={"mode": "dra", "dranet": "self"})
    classes = {c["metadata"]["name"]: c for c in _objects(spec, "DeviceClass")}
    dranet = classes["dranet"]
    assert dranet["apiVersion"] == "resource.k8s.io/v1"
    assert dranet["spec"]["selectors"] == [{"cel": {"expression": 'device.driver == "dra.net"'}}]


def test_seed_aligned_claim_template_in_v1() -> None:
    spec = existing("gcp", A4, fabric={"mode": "dra", "dranet": "self"})
    templates = {t["metadata"]["name"]: t for t in _objects(spec, "ResourceClaimTemplate")}
    # The seed's name family is kept; partial claims also get per-rail templates
    # (tests/fabric/test_dra_rails.py).
    assert {n for n in templates if n.endswith("-aligned")} == {
        "1-gpu-nic-aligned", "2-gpu-nic-aligned", "4-gpu-nic-aligned", "8-gpu-nic-aligned"}
    seed = templates["2-gpu-nic-aligned"]
    assert seed["apiVersion"] == "resource.k8s.io/v1"
    devices = seed["spec"]["spec"]["devices"]
    assert devices["requests"] == [
        {"name": "gpu", "exactly": {"deviceClassName": "gpu.nvidia.com",
                                    "allocationMode": "ExactCount", "count": 2}},
        {"name": "nic", "exactly": {
            "deviceClassName": "dranet", "allocationMode": "ExactCount", "count": 2,
            "selectors": [{"cel": {"expression": 'device.attributes["dra.net"].rdma == true'}}],
        }},
    ]
    assert devices["constraints"] == [
        {"requests": ["gpu", "nic"], "matchAttribute": "resource.kubernetes.io/pcieRoot"}
    ]


def test_larger_claims_align_each_group_on_its_own_root() -> None:
    spec = existing("gcp", A4, fabric={"mode": "dra", "dranet": "self"})
    eight = next(t for t in _objects(spec, "ResourceClaimTemplate")
                 if t["metadata"]["name"] == "8-gpu-nic-aligned")
    devices = eight["spec"]["spec"]["devices"]
    gpus = sum(r["exactly"]["count"] for r in devices["requests"] if r["name"].startswith("gpu"))
    nics = sum(r["exactly"]["count"] for r in devices["requests"] if r["name"].startswith("nic"))
    assert (gpus, nics) == (8, 8)
    assert len(devices["constraints"]) == 4  # A4: 2 GPUs + 2 NICs per PCIe root
    for c in devices["constraints"]:
        assert len(c["requests"]) == 2 and c["matchAttribute"] == dra.PCIE_ROOT


def test_v1beta1_when_the_spec_opts_in_on_older_kubernetes() -> None:
    spec = existing("gcp", A4, kubernetes={"version": "1.33"},
                    fabric={"mode": "dra", "dranet": "self", "dra_api": "v1beta1"})
    templates = _objects(spec, "ResourceClaimTemplate")
    assert templates and all(t["apiVersion"] == "resource.k8s.io/v1beta1" for t in templates)
    request = templates[0]["spec"]["spec"]["devices"]["requests"][0]
    assert "exactly" not in request and request["deviceClassName"] == "gpu.nvidia.com"


def test_device_class_names_are_arguments() -> None:
    spec = existing("gcp", A4, fabric={"mode": "dra", "dranet": "self",
                                       "nic_device_class": "rdma", "gpu_device_class": "gpu"})
    assert "rdma" in {c["metadata"]["name"] for c in _objects(spec, "DeviceClass")}
    template = _objects(spec, "ResourceClaimTemplate")[0]
    classes = {r["exactly"]["deviceClassName"]
               for r in template["spec"]["spec"]["devices"]["requests"]}
    assert classes == {"gpu", "rdma"}


def test_managed_dranet_uses_the_gke_class_and_creates_none() -> None:
    spec = existing("gcp", A4, kubernetes={"version": "1.34.1-gke.1829001"},
                    fabric={"mode": "dra"})
    assert fabric_of(spec).dra.nic_class == "mrdma.google.com"
    assert not [c for c in _objects(spec, "DeviceClass")
                if c["metadata"]["name"] == "mrdma.google.com"]
    assert not layer_of(spec).addons.on("dranet")


def test_older_gke_version_uses_self_installed_dranet() -> None:
    spec = existing("gcp", A4, kubernetes={"version": "1.34.1-gke.1000"},
                    fabric={"mode": "dra"})
    assert fabric_of(spec).dra.nic_class == "dranet"
    assert layer_of(spec).addons.on("dranet")


def test_pod_fragment_uses_the_claim_not_the_gpu_resource() -> None:
    spec = existing("gcp", A4, fabric={"mode": "dra", "dranet": "self"})
    fragment = pod_fragment(fabric_of(spec), 2)
    assert fragment.resource_claims == [
        {"name": "gpu", "resourceClaimTemplateName": "2-gpu-nic-aligned"}
    ]
    assert fragment.container_claims == ["gpu"]
    assert "nvidia.com/gpu" not in fragment.limits
    assert fragment.capabilities == ["IPC_LOCK"]
    assert fragment.env["NCCL_NET"] == "gIB"


@pytest.mark.parametrize("m", [m for m in machines() if m.nvlink_domain], ids=lambda m: m.name)
def test_gb200_machines_get_a_compute_domain(m) -> None:
    """With our DRA driver (chart 25.12.0, IMEXDaemonsWithDNSNames on by default) numNodes
    is 0, the value the ComputeDomain CRD recommends in that mode
    (tests/data/upstream/crds/resource.nvidia.com/resource.nvidia.com_computedomains.yaml,
    ``numNodes`` description); its spec is immutable (``self == oldSelf``), so the pool's
    size must not be in it."""
    spec = existing(m.cloud.value, m.name, fabric={"mode": "dra"})
    domains = _objects(spec, "ComputeDomain")
    assert len(domains) == 1
    assert domains[0]["spec"]["numNodes"] == 0


@pytest.mark.parametrize("m", [m for m in machines() if m.nvlink_domain], ids=lambda m: m.name)
def test_gb200_compute_domain_keeps_the_pool_size_with_a_driver_we_do_not_install(m) -> None:
    """A driver installed by someone else may run with IMEXDaemonsWithDNSNames=false, where
    numNodes "must be set to the expected number of worker nodes" (same CRD description):
    the test spec's pool has 2 nodes (tests/specs.py)."""
    spec = existing(m.cloud.value, m.name, fabric={"mode": "dra"},
                    addons={"nvidia_dra_driver": {"enabled": False}})
    domains = _objects(spec, "ComputeDomain")
    assert len(domains) == 1
    assert domains[0]["spec"]["numNodes"] == 2


def test_dranet_chart_gets_the_clouds_provider_hint_under_args() -> None:
    """The chart's schema forbids unknown top-level keys: the hint lives in ``args``."""
    spec = existing("gcp", A4, fabric={"mode": "dra", "dranet": "self"})
    [release] = layer_of(spec).part("dranet").charts
    assert release.values["args"] == {"cloudProviderHint": "GCE"}
    assert "cloudProviderHint" not in release.values


# Each cloud's DraNet provider plug-in: dranet v1.4.0 cmd/dranet/app.go and the chart's
# values.schema.json allow AWS, GCE, AZURE, OKE, ALIBABA, webhook, NONE; DigitalOcean
# has no plug-in. The cloud's describer says which (the fabric layer names no cloud).
@pytest.mark.parametrize(("cloud", "machine", "hint"), [
    ("gcp", A4, "GCE"),
    ("aws", None, "AWS"),
    ("azure", None, "AZURE"),
    ("oci", None, "OKE"),
    ("digitalocean", "gpu-h200x8-1128gb-fabric-contracted", "NONE"),
])
def test_each_clouds_describer_names_its_dranet_provider_hint(
    cloud: str, machine: str | None, hint: str
) -> None:
    spec = existing(cloud, machine, addons={"dranet": {"enabled": True}})
    assert fabric_of(spec).dranet_provider_hint == hint
    [release] = layer_of(spec).part("dranet").charts
    assert release.values["args"] == {"cloudProviderHint": hint}


def test_dranet_values_refuse_a_hint_the_chart_does_not_know() -> None:
    from gpu_fabric.fabric.manifests import dranet

    with pytest.raises(ValueError, match=r"'GKE' is not a DraNet cloudProviderHint; "
                       r"valid: AWS, GCE, AZURE, OKE, ALIBABA, webhook, NONE"):
        dranet.values("GKE")
