"""GKE: what `pulumi up` needs to succeed the first time (egress, DRA driver mode).

Sources:
* cluster-toolkit modules/network/vpc/main.tf (1047080375af): one Cloud Router
  ``${network_name}-router`` with a Cloud NAT ``cloud-nat-${region}`` per subnet region.
* GKE "Prepare GKE infrastructure for DRA workloads"
  (cloud.google.com/kubernetes-engine/docs/how-to/set-up-dra): "Automatic GPU driver
  installation isn't supported with DRA"; pools use ``gpu-driver-version=disabled`` and
  the ``gke-no-default-nvidia-gpu-device-plugin=true`` label.
* container-engine-accelerators nvidia-driver-installer/cos/daemonset-preloaded.yaml
  (f2cf4197a5c3): the driver DaemonSet, installer image ``cos-nvidia-installer:fixed``
  preloaded on the node (imagePullPolicy Never).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from gpu_fabric.clouds.gcp.egress import image_route, registry_host
from gpu_fabric.errors import SpecError
from tests.specs import GCP_RESERVED, spec_dict, with_pool

ROUTER = "gcp:compute/router:Router"
NAT = "gcp:compute/routerNat:RouterNat"
SUBNET = "gcp:compute/subnetwork:Subnetwork"
CLUSTER = "gcp:container/cluster:Cluster"
POOL = "gcp:container/nodePool:NodePool"
DAEMONSET = "kubernetes:apps/v1:DaemonSet"
RELEASE = "kubernetes:helm.sh/v3:Release"
COMPONENT = "gpufabric:gcp:GpuCluster"
GCP_STACKS = ("gcp-a4", "gcp-a3-mega", "gcp-a3-ultra")
CHART_IMAGES = json.loads(
    (Path(__file__).parents[2] / "data" / "gcp" / "chart_images.json").read_text()
)


# -- egress -----------------------------------------------------------------------------
def test_seed_stack_gets_a_router_and_nat_for_the_node_subnet(stack_plan) -> None:
    plan = stack_plan("gcp-a4")
    component = plan.one(COMPONENT)
    router = plan.one(ROUTER)
    nat = plan.one(NAT)
    # cluster-toolkit modules/network/vpc: "${network_name}-router", "cloud-nat-${region}".
    assert router.inputs["name"] == "dranet-net-router"
    assert router.inputs["region"] == "us-west8"
    assert router.inputs["network"] == "projects/gke-dranet/global/networks/dranet-net"
    assert nat.inputs["name"] == "cloud-nat-us-west8"
    assert nat.inputs["router"] == "dranet-net-router"
    assert nat.inputs["natIpAllocateOption"] == "AUTO_ONLY"
    assert nat.inputs["sourceSubnetworkIpRangesToNat"] == "LIST_OF_SUBNETWORKS"
    assert nat.inputs["subnetworks"] == [{
        "name": "projects/gke-dranet/regions/us-west8/subnetworks/dranet-sub",
        "sourceIpRangesToNats": ["ALL_IP_RANGES"],
    }]
    network = plan.one("gpufabric:gcp:FabricNetwork")
    assert network.parent == component.urn
    for r in (router, nat):
        assert r.parent == network.urn
        assert r.name.startswith("dranet-")
    # The Kubernetes layer (Helm releases pulling from nvcr.io...) waits for the NAT: its
    # component depends on it (Pulumi applies a component's depends_on to its children).
    for release in plan.by_type(RELEASE):
        assert any(plan.depends_on(r, nat) for r in (release, *plan.ancestors(release))), (
            release.name)


def _images(resource_inputs: Any) -> list[tuple[str, str | None]]:
    """(image, imagePullPolicy) of every container and init container in a manifest."""
    found: list[tuple[str, str | None]] = []

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            for key in ("containers", "initContainers"):
                for c in node.get(key) or []:
                    if isinstance(c, dict) and "image" in c:
                        found.append((c["image"], c.get("imagePullPolicy")))
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    walk(resource_inputs)
    return found


@pytest.mark.parametrize("stack", GCP_STACKS)
def test_every_image_the_layer_deploys_has_a_route(stack, stack_plan) -> None:
    plan = stack_plan(stack)
    cluster = plan.one(CLUSTER)
    private = cluster.inputs["privateClusterConfig"]["enablePrivateNodes"]
    node_subnet = cluster.inputs["subnetwork"]
    subnet = next(s for s in plan.by_type(SUBNET) if node_subnet.endswith(s.inputs["name"]))
    nat_subnets = {s["name"] for n in plan.by_type(NAT) for s in n.inputs["subnetworks"]}
    images = [img for r in plan.resources if r.type.startswith("kubernetes:")
              for img, policy in _images(r.inputs) if policy != "Never"]
    for release in plan.by_type(RELEASE):
        images += CHART_IMAGES[f"{release.inputs['name']}@{release.inputs['version']}"]
    assert images
    no_route = [
        img for img in images
        if image_route(img, private_nodes=private,
                       google_access=subnet.inputs["privateIpGoogleAccess"],
                       nat=node_subnet in nat_subnets) is None
    ]
    assert no_route == []


def test_routes_by_registry() -> None:
    # Private Google Access reaches gcr.io and Artifact Registry (*.pkg.dev) only.
    route = {"private_nodes": True, "google_access": True, "nat": False}
    assert image_route("us-docker.pkg.dev/gce-ai-infra/gpudirect-gib/nccl-plugin-gib:v1.1.1",
                       **route) == "private-google-access"
    assert image_route("gke.gcr.io/pause:3.8", **route) == "private-google-access"
    assert image_route("nvcr.io/nvidia/k8s-dra-driver-gpu", **route) is None
    assert image_route("ubuntu:24.04", **route) is None
    assert registry_host("ubuntu:24.04") == "docker.io"
    assert image_route("registry.k8s.io/pause:3.10", **(route | {"nat": True})) == "cloud-nat"


def test_without_nat_private_nodes_cannot_pull_from_nvcr(spec_plan) -> None:
    plan = spec_plan(spec_dict("gcp", gcp={"project": "test-project", "cloud_nat": False}))
    assert plan.by_type(NAT) == [] and plan.by_type(ROUTER) == []


def test_existing_networks_get_no_nat_unless_asked(spec_plan) -> None:
    existing = {"network": "n", "subnetwork": "s"}
    machine = [{"name": "gpu", "machine_type": "g2-standard-48", "node_count": 1}]
    plan = spec_plan(spec_dict("gcp", node_pools=machine,
                               gcp={"project": "test-project", "existing_networks": existing}))
    assert plan.by_type(NAT) == []
    plan = spec_plan(spec_dict("gcp", node_pools=machine, gcp={
        "project": "test-project", "existing_networks": existing, "cloud_nat": True}))
    assert plan.one(ROUTER).inputs["network"] == "n"
    assert plan.one(NAT).inputs["subnetworks"][0]["name"] == "s"


# -- DRA driver mode ----------------------------------------------------------------------
def test_dra_pools_disable_gke_driver_install_and_get_the_driver_daemonset(stack_plan) -> None:
    plan = stack_plan("gcp-a4")
    pool = next(p for p in plan.by_type(POOL) if p.inputs["name"] == "dranet-a4")
    accel = pool.inputs["nodeConfig"]["guestAccelerators"][0]
    assert accel["gpuDriverInstallationConfig"] == {"gpuDriverVersion": "INSTALLATION_DISABLED"}
    assert pool.inputs["nodeConfig"]["labels"]["gke-no-default-nvidia-gpu-device-plugin"] == (
        "true"
    )
    ds = next(d for d in plan.by_type(DAEMONSET)
              if d.inputs["metadata"]["name"] == "nvidia-driver-installer")
    spec = ds.inputs["spec"]["template"]["spec"]
    installer = spec["initContainers"][0]
    assert installer["image"] == "cos-nvidia-installer:fixed"
    assert installer["imagePullPolicy"] == "Never"
    terms = spec["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]
    assert {"key": "cloud.google.com/gke-gpu-driver-version", "operator": "DoesNotExist"} in (
        terms["nodeSelectorTerms"][0]["matchExpressions"]
    )


def _driver_daemonsets(plan) -> dict[str, dict]:
    return {d.inputs["metadata"]["name"]: d.inputs["spec"]["template"]["spec"]
            for d in plan.by_type(DAEMONSET)
            if d.inputs["metadata"]["name"].startswith("nvidia-driver-installer")}


def test_a4x_dra_pools_get_upstreams_a4x_driver_daemonset(spec_plan) -> None:
    """container-engine-accelerators nvidia-driver-installer/cos/
    daemonset-preloaded-latest-a4x.yaml (2dd8fc9b04257ff3010b4c9112fa559f1a8f19a7):
    instance types a4x-highgpu-4g / a4x-highgpu-4g-nolssd (lines 48-52), installer
    ``/cos-gpu-installer install --version=latest`` then ``chmod 755
    /root/home/kubernetes/bin/nvidia`` (lines 125-126), no partition-gpus container."""
    plan = spec_plan(with_pool("gcp", machine_type="a4x-highgpu-4g")
                     | {"fabric": {"mode": "dra", "dranet": "self"}})
    found = _driver_daemonsets(plan)
    assert sorted(found) == ["nvidia-driver-installer-a4x"]
    spec = found["nvidia-driver-installer-a4x"]
    assert [c["name"] for c in spec["initContainers"]] == ["nvidia-driver-installer"]
    installer = spec["initContainers"][0]
    assert installer["image"] == "cos-nvidia-installer:fixed"
    assert installer["imagePullPolicy"] == "Never"
    script = installer["args"][0]
    assert "/cos-gpu-installer install --version=latest || exit 1" in script
    assert "chmod 755 /root/home/kubernetes/bin/nvidia" in script
    terms = spec["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]
    assert terms["nodeSelectorTerms"][0]["matchExpressions"] == [
        {"key": "node.kubernetes.io/instance-type", "operator": "In",
         "values": ["a4x-highgpu-4g", "a4x-highgpu-4g-nolssd"]},
        {"key": "cloud.google.com/gke-accelerator", "operator": "Exists"},
        {"key": "cloud.google.com/gke-gpu-driver-version", "operator": "DoesNotExist"},
    ]


def test_a4_and_a4x_dra_pools_get_one_driver_daemonset_each(spec_plan) -> None:
    data = spec_dict("gcp", fabric={"mode": "dra", "dranet": "self"}, node_pools=[
        {"name": "a4", "machine_type": "a4-highgpu-8g", "node_count": 2,
         "capacity": GCP_RESERVED},
        {"name": "a4x", "machine_type": "a4x-highgpu-4g", "node_count": 2,
         "capacity": GCP_RESERVED}])
    found = _driver_daemonsets(spec_plan(data))
    assert sorted(found) == ["nvidia-driver-installer", "nvidia-driver-installer-a4x"]
    generic = found["nvidia-driver-installer"]["affinity"]["nodeAffinity"][
        "requiredDuringSchedulingIgnoredDuringExecution"]["nodeSelectorTerms"][0]
    assert {"key": "node.kubernetes.io/instance-type", "operator": "NotIn",
            "values": ["a4x-highgpu-4g", "a4x-highgpu-4g-nolssd"]} in generic["matchExpressions"]


def test_device_plugin_pools_keep_gke_installed_driver(stack_plan) -> None:
    plan = stack_plan("gcp-a3-mega")
    pool = next(p for p in plan.by_type(POOL) if p.inputs["name"] == "a3mega")
    accel = pool.inputs["nodeConfig"]["guestAccelerators"][0]
    assert accel["gpuDriverInstallationConfig"] == {"gpuDriverVersion": "DEFAULT"}
    names = {d.inputs["metadata"]["name"] for d in plan.by_type(DAEMONSET)}
    assert "nvidia-driver-installer" not in names


@pytest.mark.parametrize(
    ("data", "path", "words"),
    [
        (spec_dict("gcp", fabric={"mode": "dra"},
                   gcp={"project": "test-project", "gpu_driver_version": "DEFAULT"}),
         "gcp.gpu_driver_version", "not support automatic GPU driver installation with DRA"),
        (with_pool("gcp", os_image="UBUNTU_CONTAINERD") | {"fabric": {"mode": "dra"}},
         "node_pools[0].os_image", "COS_CONTAINERD"),
    ],
)
def test_dra_driver_conflicts_are_refused(data, path, words) -> None:
    from gpu_fabric.plan import run_spec

    with pytest.raises(SpecError) as info:
        run_spec(data)
    assert path in str(info.value) and words in str(info.value)
