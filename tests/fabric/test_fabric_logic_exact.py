"""The fabric logic written out: every field of what it returns, literal and sourced.

Added for mutation testing (docs/mutation.md, ``scripts/mutation.py fabric-logic``):
the older tests checked parts of these values (``in``, ``startswith``, a count
recomputed with the function under test), so wrong versions of the code passed.
Each expected value below is written out and says where it comes from: the
Kubernetes API field names (core/v1 PodSpec, resource.k8s.io), the seeds in
``../shared/seeds/``, the upstream files in ``tests/data/upstream/`` at the pinned
versions, or the contract in the function's docstring.
"""

from __future__ import annotations

import copy
import json

import pytest

from gpu_fabric.catalog import Cloud, GpuVendor
from gpu_fabric.clouds.registry import provider_for
from gpu_fabric.errors import Problem, SpecError
from gpu_fabric.fabric.derive import dra_api_version, dra_classes
from gpu_fabric.fabric.injection import (
    _claim_patch,
    _pool_choice_rule,
    fabric_namespaces,
    injection_part,
    kyverno_values,
    system_namespaces,
)
from gpu_fabric.fabric.problems import refuse
from gpu_fabric.fabric.taints import GPU_TAINT_KEYS, daemonset_tolerations
from gpu_fabric.fabric.workload import (
    FragmentError,
    PodFragment,
    _default_spec,
    _merge_named,
    fragment_for,
    pod_fragment,
    scaled_mebibytes,
)
from gpu_fabric.spec import load_spec
from tests.fabric_helpers import existing, fabric_of
from tests.specs import spec_dict
from tests.support.literals import AnyOrder

# -- PodFragment.apply: the merge contract of its docstring -------------------------
# "Lists are merged by name; existing resource values for the same keys are replaced",
# requests-only entries the container already sets are kept (the user's sizing), and
# the input template is never modified. Field names are core/v1 PodSpec / Container.

_FULL = PodFragment(
    machine="m",
    gpus=2,
    annotations={"k8s.v1.cni.cncf.io/networks": "fabric0@net1"},
    node_selector={"gpufabric.dev/pool": "gpu"},
    tolerations=[{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}],
    limits={"nvidia.com/gpu": "2", "rdma/fabric0": "1"},
    env={"NCCL_NET": "IB"},
    volumes=[{"name": "shared-memory", "emptyDir": {"medium": "Memory"}}],
    volume_mounts=[{"name": "shared-memory", "mountPath": "/dev/shm"}],
    capabilities=["IPC_LOCK"],
    privileged=True,
    requests={"memory": "100Mi"},
    resource_claims=[{"name": "gpu", "resourceClaimTemplateName": "2-gpu-nic-aligned"}],
    container_claims=["gpu"],
    sidecars=[{"name": "rxdm", "image": "new"}],
    host_network=True,
)


def _rich_template() -> dict:
    return {
        "metadata": {"labels": {"app": "train"}, "annotations": {"team": "a"}},
        "spec": {
            "containers": [
                {"name": "side", "image": "s"},
                {
                    "name": "trainer",
                    "resources": {
                        "limits": {"memory": "64Gi", "nvidia.com/gpu": "1"},
                        "requests": {"memory": "32Gi", "cpu": "4"},
                        "claims": [{"name": "other"}],
                    },
                    "env": [{"name": "EPOCHS", "value": "3"},
                            {"name": "NCCL_NET", "value": "Socket"}],
                    "volumeMounts": [{"name": "data", "mountPath": "/data"},
                                     {"name": "shared-memory", "mountPath": "/old"}],
                    "securityContext": {"capabilities": {"add": ["SYS_PTRACE", "IPC_LOCK"]}},
                },
            ],
            "nodeSelector": {"zone": "a"},
            "tolerations": [
                {"key": "other", "operator": "Exists"},
                {"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"},
            ],
            "volumes": [{"name": "data", "emptyDir": {}}],
            "resourceClaims": [{"name": "gpu", "resourceClaimTemplateName": "old"}],
            "initContainers": [{"name": "rxdm", "image": "old"}],
        },
    }


def test_apply_merges_every_field_into_the_named_container() -> None:
    template = _rich_template()
    pod = _FULL.apply(template, container="trainer")
    assert pod == {
        "metadata": {"labels": {"app": "train"},
                     "annotations": {"team": "a", "k8s.v1.cni.cncf.io/networks": "fabric0@net1"}},
        "spec": {
            "containers": [
                {"name": "side", "image": "s"},
                {
                    "name": "trainer",
                    "resources": {
                        "limits": {"memory": "64Gi", "nvidia.com/gpu": "2", "rdma/fabric0": "1"},
                        # memory: the container's own request is kept; cpu untouched.
                        "requests": {"memory": "32Gi", "cpu": "4", "nvidia.com/gpu": "2",
                                     "rdma/fabric0": "1"},
                        "claims": [{"name": "other"}, {"name": "gpu"}],
                    },
                    "env": [{"name": "EPOCHS", "value": "3"}, {"name": "NCCL_NET", "value": "IB"}],
                    "volumeMounts": [{"name": "data", "mountPath": "/data"},
                                     {"name": "shared-memory", "mountPath": "/dev/shm"}],
                    "securityContext": {"capabilities": {"add": ["SYS_PTRACE", "IPC_LOCK"]},
                                        "privileged": True},
                },
            ],
            "nodeSelector": {"zone": "a", "gpufabric.dev/pool": "gpu"},
            "tolerations": [
                {"key": "other", "operator": "Exists"},
                {"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"},
            ],
            "volumes": [{"name": "data", "emptyDir": {}},
                        {"name": "shared-memory", "emptyDir": {"medium": "Memory"}}],
            "resourceClaims": [{"name": "gpu", "resourceClaimTemplateName": "2-gpu-nic-aligned"}],
            "initContainers": [{"name": "rxdm", "image": "new"}],
            "hostNetwork": True,
            "dnsPolicy": "ClusterFirstWithHostNet",
        },
    }
    assert template == _rich_template()  # the input is not modified (deep copy)


def test_apply_without_a_container_name_uses_the_first_and_adds_what_is_missing() -> None:
    pod = _FULL.apply({"spec": {"containers": [{"name": "a"}, {"name": "b"}]}})
    first = pod["spec"]["containers"][0]
    assert pod["metadata"] == {"annotations": {"k8s.v1.cni.cncf.io/networks": "fabric0@net1"}}
    assert first == {
        "name": "a",
        "resources": {
            "limits": {"nvidia.com/gpu": "2", "rdma/fabric0": "1"},
            "requests": {"memory": "100Mi", "nvidia.com/gpu": "2", "rdma/fabric0": "1"},
            "claims": [{"name": "gpu"}],
        },
        "env": [{"name": "NCCL_NET", "value": "IB"}],
        "volumeMounts": [{"name": "shared-memory", "mountPath": "/dev/shm"}],
        "securityContext": {"capabilities": {"add": ["IPC_LOCK"]}, "privileged": True},
    }
    assert pod["spec"]["containers"][1] == {"name": "b"}
    assert pod["spec"]["tolerations"] == [
        {"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}]
    assert pod["spec"]["nodeSelector"] == {"gpufabric.dev/pool": "gpu"}


def test_apply_of_an_empty_fragment_drops_empty_lists() -> None:
    template = {"spec": {"containers": [{"name": "c", "env": [], "volumeMounts": []}],
                         "volumes": [], "tolerations": [], "resourceClaims": [],
                         "initContainers": []}}
    assert PodFragment("m", 1).apply(template) == {
        "metadata": {},
        "spec": {"containers": [{"name": "c", "resources": {}}]},
    }


def test_apply_keeps_an_unprivileged_container_unprivileged() -> None:
    fragment = PodFragment("m", 1, capabilities=["IPC_LOCK"])
    pod = fragment.apply({"spec": {"containers": [{"name": "c"}]}})
    assert pod["spec"]["containers"][0]["securityContext"] == {
        "capabilities": {"add": ["IPC_LOCK"]}}
    assert "hostNetwork" not in pod["spec"] and "dnsPolicy" not in pod["spec"]


def test_apply_of_a_privileged_fragment_without_capabilities() -> None:
    pod = PodFragment("m", 1, privileged=True).apply({"spec": {"containers": [{"name": "c"}]}})
    assert pod["spec"]["containers"][0]["securityContext"] == {"privileged": True}


def test_container_patch_of_a_requests_only_fragment() -> None:
    # PodFragment is public (users apply it themselves): a fragment with requests and no
    # limits (its field comment: memory beside hugepages) patches only the requests.
    fragment = PodFragment("m", 1, requests={"memory": "100Mi"})
    assert fragment.container_patch() == {"resources": {"requests": {"memory": "100Mi"}}}


def test_apply_refuses_a_template_without_containers() -> None:
    with pytest.raises(FragmentError) as raised:
        _FULL.apply({"metadata": {}})
    assert str(raised.value) == "the pod template has no containers"
    with pytest.raises(FragmentError) as raised:
        _FULL.apply({"spec": {"containers": [{"name": "a"}]}}, container="b")
    assert str(raised.value) == "no container named 'b'"


def test_merge_named_replaces_by_name_appends_the_rest_and_copies() -> None:
    into = [{"name": "a", "v": 1}, {"name": "b", "v": 2}]
    item = {"name": "b", "v": {"deep": 3}}
    new = {"name": "c", "v": {"deep": 4}}
    _merge_named(into, [item, new])
    assert into == [{"name": "a", "v": 1}, {"name": "b", "v": {"deep": 3}},
                    {"name": "c", "v": {"deep": 4}}]
    item["v"]["deep"] = 30
    new["v"]["deep"] = 40
    assert into[1]["v"] == {"deep": 3} and into[2]["v"] == {"deep": 4}


# -- scaled quantities ------------------------------------------------------------
# Hugepages scale with the GPU share and round up to a whole 2 MiB page: a
# hugepages-2Mi quantity must be a multiple of 2Mi (Kubernetes hugepages docs).
@pytest.mark.parametrize(("full", "gpus", "node", "want"), [
    ("5120Mi", 2, 8, "1280Mi"),  # awsome-distributed-training nccl-tests.yaml: 5120Mi per p5
    ("5120Mi", 8, 8, "5120Mi"),
    ("100Mi", 1, 8, "14Mi"),     # 12.5 -> 13 -> next even 14
    ("96Mi", 1, 8, "12Mi"),      # exact and even: unchanged
    ("10Mi", 1, 4, "4Mi"),       # 2.5 -> 3 -> 4
])
def test_scaled_mebibytes_rounds_up_to_whole_pages(full, gpus, node, want) -> None:
    assert scaled_mebibytes(full, gpus, node) == want


@pytest.mark.parametrize("bad", ["5Gi", "Mi", "12.5Mi", "x2Mi", "2xMi"])
def test_scaled_mebibytes_refuses_other_units(bad: str) -> None:
    with pytest.raises(FragmentError) as raised:
        scaled_mebibytes(bad, 1, 8)
    assert str(raised.value) == f"expected a quantity in Mi, got {bad!r}"


# -- fragment_for's default specs ------------------------------------------------
@pytest.mark.parametrize(("cloud", "machine", "location"), [
    (Cloud.GCP, "a4-highgpu-8g", {"region": "us-central1", "zone": "us-central1-a"}),
    (Cloud.AWS, "p5.48xlarge", {"region": "us-east-1", "zone": "us-east-1a"}),
    # OCI ADs carry the tenancy prefix (spec example Uocm:US-ASHBURN-AD-1); a bare "AD-1"
    # made fragment_for raise for every OCI machine.
    (Cloud.OCI, "BM.GPU.H100.8", {"region": "us-ashburn-1", "zone": "Uocm:US-ASHBURN-AD-1"}),
    (Cloud.AZURE, "Standard_ND96isr_H100_v5", {"region": "eastus"}),
    (Cloud.DIGITALOCEAN, "gpu-h200x8-1128gb-fabric-contracted", {"region": "nyc2"}),
])
def test_fragment_for_plans_one_existing_pool_per_cloud(cloud, machine, location) -> None:
    raw = _default_spec(cloud, machine, {"mode": "auto"})
    assert raw == {
        "name": "fragment",
        "cloud": cloud.value,
        "location": location,
        "existing": {"kubeconfig": {"path": "/dev/null"}},
        "node_pools": [{"name": "gpu", "machine_type": machine, "node_count": 1}],
        "fabric": {"mode": "auto"},
    }
    load_spec(raw)  # a valid spec


def test_fragment_for_passes_the_fabric_fields_and_the_cloud() -> None:
    # p5: 32 EFA devices per 8 GPUs (AWS p5 docs, aws-ofi-nccl p5.48xl-topo.xml).
    fragment = fragment_for("p5.48xlarge", 8, cloud="aws")
    assert fragment.machine == "p5.48xlarge" and fragment.gpus == 8
    assert fragment.limits["vpc.amazonaws.com/efa"] == "32"
    # GKE DRA seed (gke-nvidia-dra-dranet.md): the 2-GPU claim is 2-gpu-nic-aligned.
    # BM.GPU.H100.8: 16 RoCE ports, one SR-IOV VF each (shared/reference/oci.md).
    assert fragment_for("BM.GPU.H100.8", 8).limits == {"nvidia.com/gpu": "8",
                                                       "nvidia.com/rdma-vf": "16"}
    # The cloud narrows the lookup: an AWS machine is not a GCP one.
    from gpu_fabric.catalog import UnknownMachineError

    with pytest.raises(UnknownMachineError, match=r"'p5\.48xlarge' is not a GCP machine type"):
        fragment_for("p5.48xlarge", 8, cloud="gcp")
    dra = fragment_for("a4-highgpu-8g", 2, mode="dra", dranet="self")
    assert dra.resource_claims == [{"name": "gpu", "resourceClaimTemplateName":
                                    "2-gpu-nic-aligned"}]


# -- rail claims: the error texts ------------------------------------------------
def test_rails_on_a_pool_without_rail_templates_say_which_pools_have_them() -> None:
    fabric = fabric_of(existing("aws", "p5.48xlarge"))
    with pytest.raises(FragmentError) as raised:
        pod_fragment(fabric, 2, rails=(0, 1))
    assert str(raised.value) == (
        "rails: pool gpu has no rail claim templates (only DRA pools whose NIC names are "
        "known as DraNet ifNames: GKE RoCE pools with self-installed DraNet); got [0, 1]")


def test_rails_of_a_full_node_are_refused_and_named() -> None:
    fabric = fabric_of(existing("gcp", "a4-highgpu-8g", fabric={"mode": "dra", "dranet": "self"}))
    with pytest.raises(FragmentError) as raised:
        pod_fragment(fabric, 8, rails=tuple(range(8)))
    assert str(raised.value) == (
        "rails: a 8-GPU pod of pool gpu takes one of the rail sets none (a full node holds "
        "every rail); got [0, 1, 2, 3, 4, 5, 6, 7]")
    # a4-highgpu-8g: one NIC per GPU (gke-nvidia-dra-dranet.md, gpu0rdma0..gpu7rdma0).
    with pytest.raises(FragmentError) as raised:
        pod_fragment(fabric, 4, rails=(1, 2, 3, 4))
    assert str(raised.value) == (
        "rails: a 4-GPU pod of pool gpu takes one of the rail sets [0, 1, 2, 3], "
        "[4, 5, 6, 7]; got [1, 2, 3, 4]")


# -- derive: the DRA API and the device classes ----------------------------------
# resource.k8s.io/v1 is served from Kubernetes 1.34 (KEP-4381 GA); older clusters
# have v1beta1 only.
@pytest.mark.parametrize(("version", "dra_api", "want"), [
    ("1.34", None, "resource.k8s.io/v1"),
    ("1.33", None, "resource.k8s.io/v1beta1"),
    ("1.33", "v1", "resource.k8s.io/v1"),
    ("1.34", "v1beta1", "resource.k8s.io/v1beta1"),
])
def test_dra_api_version_follows_the_spec_then_the_kubernetes_version(
    version: str, dra_api: str | None, want: str
) -> None:
    fabric = {"dra_api": dra_api} if dra_api else {}
    spec = existing("gcp", "a4-highgpu-8g", kubernetes={"version": version}, fabric=fabric)
    assert dra_api_version(spec) == want


def test_dra_classes_managed_and_self_installed() -> None:
    spec = existing("gcp", "a4-highgpu-8g")
    own = dra_classes(spec, rails_by_ifname=True)
    assert (own.nic_class, own.nic_driver, own.managed_nics, own.rails_by_ifname) == (
        "dranet", "dra.net", False, True)
    managed = dra_classes(spec, managed_nics=True, managed_class="mrdma.google.com",
                          managed_driver="gke.net", rails_by_ifname=True)
    assert (managed.nic_class, managed.nic_driver, managed.managed_nics,
            managed.rails_by_ifname) == ("mrdma.google.com", "gke.net", True, False)
    # A managed NIC driver that names no driver keeps DraNet's name.
    unnamed = dra_classes(spec, managed_nics=True)
    assert (unnamed.nic_class, unnamed.nic_driver) == ("dranet", "dra.net")


# The refusal text is the project's (components/gpu_fabric/fabric/derive.py); the class names are
# upstream's: gpu.nvidia.com (NVIDIA/k8s-dra-driver-gpu DeviceClass) and gpu.amd.com
# (ROCm/k8s-gpu-dra-driver deployments/helm/k8s-gpu-dra-driver/templates/deviceclass.yaml
# at 4482249). "MI300X 192GB": components/gpu_fabric/catalog/gpus.py line 35, both machines' GPU.
@pytest.mark.parametrize(("cloud", "machine", "kind", "valid"), [
    ("azure", "Standard_ND96isr_MI300X_v5", "AKS", "auto or device-plugin"),
    ("oci", "BM.GPU.MI300X.8", "OKE", "auto, device-plugin or host-network"),
])
def test_gpu_dra_on_an_amd_pool_is_refused_with_the_valid_modes(cloud, machine, kind,
                                                                 valid) -> None:
    from gpu_fabric.fabric.derive import refuse_amd_gpu_dra

    raw = spec_dict(cloud, fabric={"mode": "dra"})
    raw["node_pools"][0]["machine_type"] = machine
    spec = load_spec(raw)
    with pytest.raises(SpecError) as raised:
        refuse_amd_gpu_dra(spec, spec.node_pools[0], kind, valid)
    assert raised.value.problems == [Problem(
        "fabric.mode",
        f"pool 'gpu' ({machine}) has AMD MI300X 192GB GPUs; GPU DRA on {kind} is the NVIDIA "
        "DRA driver (DeviceClass gpu.nvidia.com), which publishes no AMD GPU, and AMD's "
        f"driver (DeviceClass gpu.amd.com) is not installed on {kind}; valid for this pool: "
        f"fabric.mode {valid}",
        "dra", True)]


def test_gpu_dra_on_an_nvidia_pool_is_not_refused() -> None:
    from gpu_fabric.fabric.derive import refuse_amd_gpu_dra

    spec = existing("azure", "Standard_ND96isr_H100_v5", fabric={"mode": "dra"})
    assert refuse_amd_gpu_dra(spec, spec.node_pools[0], "AKS", "auto or device-plugin") is None


# -- problems --------------------------------------------------------------------
def test_refuse_raises_one_problem_with_or_without_a_value() -> None:
    with pytest.raises(SpecError) as raised:
        refuse("fabric.mode", "is not served here", "dra")
    assert raised.value.problems == [Problem("fabric.mode", "is not served here", "dra", True)]
    with pytest.raises(SpecError) as raised:
        refuse("node_pools[0]", "needs a GPU")
    assert raised.value.problems == [Problem("node_pools[0]", "needs a GPU", None, False)]


# -- taints ------------------------------------------------------------------------
@pytest.mark.parametrize(("cloud", "vendor", "key", "value"), [
    (Cloud.GCP, GpuVendor.NVIDIA, "nvidia.com/gpu", "present"),  # GKE's own GPU taint
    (Cloud.AWS, GpuVendor.NVIDIA, "nvidia.com/gpu", "true"),
    (Cloud.AZURE, GpuVendor.NVIDIA, "sku", "gpu"),               # AKS docs: sku=gpu
    (Cloud.DIGITALOCEAN, GpuVendor.AMD, "amd.com/gpu", ""),      # DOKS: key only
    (Cloud.OCI, GpuVendor.NVIDIA, "nvidia.com/gpu", "present"),
])
def test_gpu_taint_per_cloud(cloud, vendor, key, value) -> None:
    taint = provider_for(cloud).gpu_taint(vendor)
    assert (taint.key, taint.value, taint.effect) == (key, value, "NoSchedule")


def test_gpu_taint_keys_are_every_clouds_gpu_taint() -> None:
    """The one literal list of the keys (the other tests compare tolerations in any order:
    Kubernetes matches them as a set, so the tuple's order is not behaviour)."""
    assert sorted(GPU_TAINT_KEYS) == sorted([
        "nvidia.com/gpu",      # GKE (nvidia.com/gpu=present), EKS, OKE: test_gpu_taint_per_cloud
        "amd.com/gpu",         # DOKS AMD GPU nodes (DOKS docs, GPU worker nodes)
        "sku",                 # AKS GPU docs: sku=gpu:NoSchedule
        # aws-efa-k8s-device-plugin v0.5.30 values.yaml:333, the EFA node taint its
        # chart's commented tolerations name (tests/data/upstream/values/)
        "aws.amazon.com/efa",
    ])


def test_daemonset_tolerations_list_every_key_once_and_the_blanket_pair() -> None:
    from gpu_fabric.fabric.description import Toleration

    extra = (Toleration("dedicated", "Equal", "training", "NoSchedule"),
             Toleration("nvidia.com/gpu"))
    assert daemonset_tolerations(extra) == AnyOrder([
        {"key": "nvidia.com/gpu", "operator": "Exists"},
        {"key": "amd.com/gpu", "operator": "Exists"},
        {"key": "sku", "operator": "Exists"},
        {"key": "aws.amazon.com/efa", "operator": "Exists"},
        {"key": "CriticalAddonsOnly", "operator": "Exists"},
        {"key": "dedicated", "operator": "Equal", "value": "training", "effect": "NoSchedule"},
        {"operator": "Exists", "effect": "NoSchedule"},
        {"operator": "Exists", "effect": "NoExecute"},
    ])


# -- injection: the pieces of the policies -----------------------------------------
def test_claim_patch_removes_the_device_plugin_gpu_count() -> None:
    # RFC 6902 remove ops; "/" in a key is escaped as "~1" (RFC 6901).
    assert _claim_patch("nvidia.com/gpu") == [
        {"op": "remove",
         "path": "/spec/containers/{{elementIndex}}/resources/limits/nvidia.com~1gpu"},
        {"op": "remove",
         "path": "/spec/containers/{{elementIndex}}/resources/requests/nvidia.com~1gpu"},
    ]


def test_kyverno_runs_one_admission_replica() -> None:
    # tests/data/upstream/values/kyverno/3.6.1/values.yaml:843 admissionController.replicas
    # (chart default ~); one replica is enough for a cluster-local admission path.
    assert kyverno_values() == {"admissionController": {"replicas": 1}}


def _two_pools(**extra) -> dict:
    raw = spec_dict("aws", **extra)
    raw["node_pools"].append({"name": "big", "machine_type": "p5.48xlarge", "node_count": 1})
    return raw


def test_pool_choice_rule_written_out() -> None:
    spec = load_spec(_two_pools())
    fabric = fabric_of(spec, "gpu")
    rule = _pool_choice_rule(spec, fabric, ["kube-system"])
    assert rule == {
        "name": "fabric-pool-choice",
        "match": {"any": [{"resources": {"kinds": ["Pod"], "operations": ["CREATE"]}}]},
        "exclude": {"any": [
            {"resources": {"annotations": {"gpufabric.dev/inject": "false"}}},
            {"resources": {"namespaces": ["kube-system"]}},
        ]},
        "validate": {
            "failureAction": "Enforce",
            "message": (
                "This cluster has several GPU pools (gpu, big); a GPU pod names one with "
                "nodeSelector gpufabric.dev/pool: <pool> so it gets that pool's fabric "
                "(Kueue sets it from the team's flavor)."),
            "deny": {"conditions": {"all": [
                {"key": "{{ request.object.spec.containers[?resources.limits.\"nvidia.com/gpu\"]"
                        " | [0].resources.limits.\"nvidia.com/gpu\" || '' }}",
                 "operator": "NotEquals", "value": ""},
                {"key": "{{ request.object.spec.nodeSelector.\"gpufabric.dev/pool\" || '' }}",
                 "operator": "AnyNotIn", "value": ["gpu", "big"]},
            ]}},
        },
    }


def test_injection_part_written_out_for_two_created_pools() -> None:
    from gpu_fabric.fabric.addons import resolve_addons

    spec = load_spec(_two_pools())
    fabrics = {"gpu": fabric_of(spec, "gpu"), "big": fabric_of(spec, "big")}
    kyverno, injection = injection_part(spec, fabrics, resolve_addons(spec, fabrics))
    (release,) = kyverno.charts
    assert (release.release, release.namespace, dict(release.values), release.user_values) == (
        "kyverno", "kyverno", {"admissionController": {"replicas": 1}}, False)
    assert (kyverno.name, kyverno.description) == ("kyverno", "Kyverno admission controller")
    assert [m["metadata"]["name"] for m in kyverno.manifests] == ["kyverno"]
    assert (injection.name, injection.after) == ("injection", ("kyverno",))
    names = [p["metadata"]["name"] for p in injection.manifests]
    assert names == ["gpufabric-inject-gpu", "gpufabric-guard-gpu",
                     "gpufabric-inject-big", "gpufabric-guard-big"]
    guards = {p["metadata"]["name"]: [r["name"] for r in p["spec"]["rules"]]
              for p in injection.manifests if "guard" in p["metadata"]["name"]}
    # The pool-choice rule once (first pool), and both pools carry the pool condition.
    assert guards == {"gpufabric-guard-gpu": ["fabric-gpu-shape", "fabric-one-gpu-container",
                                              "fabric-pool-choice"],
                      "gpufabric-guard-big": ["fabric-gpu-shape", "fabric-one-gpu-container"]}
    # With several pools a fragment pins its pool by our pool label.
    assert pod_fragment(fabrics["big"], 8).node_selector == {"gpufabric.dev/pool": "big"}
    shape = injection.manifests[1]["spec"]["rules"][0]["validate"]["deny"]["conditions"]["all"]
    assert shape[1] == {"key": "{{ request.object.spec.nodeSelector.\"gpufabric.dev/pool\" "
                               "|| '' }}", "operator": "Equals", "value": "gpu"}
    # The pool-choice rule matches every namespace but the cluster's and the add-ons'
    # (their GPU pods are node agents): opted-out pods and the system namespaces excluded.
    choice = injection.manifests[1]["spec"]["rules"][2]
    assert (choice["name"], choice["match"], choice["exclude"]) == (
        "fabric-pool-choice", _MATCH, _EXCLUDE)


def test_injection_part_user_values_and_existing_clusters() -> None:
    from gpu_fabric.fabric.addons import resolve_addons

    spec = load_spec(_two_pools(existing={"kubeconfig": {"path": "/x"}},
                                addons={"kyverno": {"values": {"x": {"y": 1}}}}))
    fabrics = {"gpu": fabric_of(spec, "gpu"), "big": fabric_of(spec, "big")}
    kyverno, injection = injection_part(spec, fabrics, resolve_addons(spec, fabrics))
    (release,) = kyverno.charts
    assert dict(release.values) == {"admissionController": {"replicas": 1}, "x": {"y": 1}}
    assert release.user_values is True
    # Existing clusters select pools by their own labels: no pool-choice rule.
    rules = [r["name"] for p in injection.manifests for r in p["spec"]["rules"]]
    assert "fabric-pool-choice" not in rules


def test_one_pool_has_no_pool_conditions() -> None:
    from gpu_fabric.fabric.addons import resolve_addons

    spec = existing("aws", "p5.48xlarge")
    fabrics = {"gpu": fabric_of(spec)}
    _, injection = injection_part(spec, fabrics, resolve_addons(spec, fabrics))
    shape = injection.manifests[1]["spec"]["rules"][0]["validate"]["deny"]["conditions"]["all"]
    assert [c["operator"] for c in shape] == ["NotEquals", "AnyNotIn"]


def test_fabric_namespaces_add_the_teams_that_may_use_the_pool() -> None:
    teams = [
        {"name": "vision", "group": "v", "gpus": 4},                          # every pool
        {"name": "speech", "group": "s", "gpus": 4, "node_pools": ["gpu"]},
        {"name": "other", "group": "o", "gpus": 4, "node_pools": ["big"]},
        {"name": "default", "group": "d", "gpus": 4},                          # already listed
    ]
    raw = _two_pools(existing={"kubeconfig": {"path": "/x"}},
                     fabric={"namespaces": ["default"]}, tenancy={"teams": teams})
    spec = load_spec(raw)
    assert fabric_namespaces(spec, fabric_of(spec, "gpu")) == ["default", "vision", "speech"]
    assert fabric_namespaces(spec, fabric_of(spec, "big")) == ["default", "vision", "other"]


def test_system_namespaces_are_the_clusters_and_the_addons() -> None:
    # The three kube-* namespaces, then the add-on namespaces of gpu_fabric/fabric/addons/<key>.py.
    assert system_namespaces() == [
        "cert-manager", "gpu-operator", "jobset-system", "kube-node-lease", "kube-public",
        "kube-system", "kueue-system", "kyverno", "monitoring", "mpi-operator",
        "network-operator", "nvidia-device-plugin", "nvidia-dra-driver-gpu", "nvsentinel"]


def test_fragment_tolerations_are_the_pools_exact_taints() -> None:
    fabric = fabric_of(existing("aws", "p5.48xlarge"))
    assert pod_fragment(fabric, 8).tolerations == [
        {"key": "nvidia.com/gpu", "operator": "Equal", "value": "true", "effect": "NoSchedule"}]
    assert json.dumps(copy.deepcopy(pod_fragment(fabric, 8).to_dict()["sidecars"])) == "[]"


# -- the policies written out (AWS p5, existing cluster: EFA, nothing namespaced) ---
_GPUS = ("{{ request.object.spec.containers[?resources.limits.\"nvidia.com/gpu\"]"
         " | [0].resources.limits.\"nvidia.com/gpu\" || '' }}")
_COUNT = "{{ length(request.object.spec.containers[?resources.limits.\"nvidia.com/gpu\"]) }}"
_SYSTEM = ["cert-manager", "gpu-operator", "jobset-system", "kube-node-lease", "kube-public",
           "kube-system", "kueue-system", "kyverno", "monitoring", "mpi-operator",
           "network-operator", "nvidia-device-plugin", "nvidia-dra-driver-gpu", "nvsentinel"]
_MATCH = {"any": [{"resources": {"kinds": ["Pod"], "operations": ["CREATE"]}}]}
_EXCLUDE = {"any": [{"resources": {"annotations": {"gpufabric.dev/inject": "false"}}},
                    {"resources": {"namespaces": _SYSTEM}}]}


def _p5_policies() -> dict:
    from gpu_fabric.fabric.addons import resolve_addons

    spec = existing("aws", "p5.48xlarge")
    fabrics = {"gpu": fabric_of(spec)}
    _, injection = injection_part(spec, fabrics, resolve_addons(spec, fabrics))
    return {p["metadata"]["name"]: p for p in injection.manifests}


def test_p5_mutate_policy_two_gpu_rules_written_out() -> None:
    policy = _p5_policies()["gpufabric-inject-gpu"]
    assert {k: v for k, v in policy.items() if k != "spec"} == {
        "apiVersion": "kyverno.io/v1",
        "kind": "ClusterPolicy",
        "metadata": {
            "name": "gpufabric-inject-gpu",
            "labels": {"app.kubernetes.io/managed-by": "gpu-fabric"},
            "annotations": {
                "policies.kyverno.io/title": "Fabric injection for pool gpu",
                "policies.kyverno.io/description": (
                    "Gives GPU pods on p5.48xlarge the efa fabric (device resources, networks, "
                    "NCCL env) for their GPU count, in every workload namespace."),
                "pod-policies.kyverno.io/autogen-controllers": "none",
            },
        },
    }
    assert policy["spec"]["background"] is False
    rules = {r["name"]: r for r in policy["spec"]["rules"]}
    # EFA serves every count 1..8 (counted per pod), no claims: two rules per count.
    assert list(rules) == [f"fabric-{n}-gpu{s}" for n in range(1, 9) for s in ("", "-container")]
    base = {
        "match": _MATCH,
        "exclude": _EXCLUDE,
        "preconditions": {"all": [
            {"key": _GPUS, "operator": "Equals", "value": "2"},
            {"key": _COUNT, "operator": "Equals", "value": 1},
        ]},
    }
    assert rules["fabric-2-gpu"] == {"name": "fabric-2-gpu", **base, "mutate": {
        "patchStrategicMerge": {"spec": {
            # Appended to the pod's own tolerations (strategic merge would replace the list).
            "tolerations": "{{ [request.object.spec.tolerations || `[]`, `[{\"key\":"
                           "\"nvidia.com/gpu\",\"operator\":\"Equal\",\"value\":\"true\","
                           "\"effect\":\"NoSchedule\"}]`][] }}",
            "volumes": [{"name": "shared-memory",
                         "emptyDir": {"medium": "Memory", "sizeLimit": "64Gi"}}],
        }}}}
    # awsome-distributed-training nccl-tests.yaml: 5120Mi hugepages and 32000Mi memory per
    # 8 GPUs (components/gpu_fabric/clouds/aws/fabric.py), a quarter for 2 GPUs; 4 EFA per GPU (p5).
    assert rules["fabric-2-gpu-container"] == {"name": "fabric-2-gpu-container", **base,
                                               "mutate": {"foreach": [{
        "list": "request.object.spec.containers",
        "preconditions": {"all": [{"key": "{{ element.resources.limits.\"nvidia.com/gpu\" "
                                          "|| '' }}", "operator": "Equals", "value": "2"}]},
        "patchStrategicMerge": {"spec": {"containers": [{
            "name": "{{ element.name }}",
            "resources": {
                "limits": {"nvidia.com/gpu": "2", "vpc.amazonaws.com/efa": "8",
                           "hugepages-2Mi": "1280Mi"},
                # memory is requests-only: add it only if the pod sets none (+() anchor).
                "requests": {"+(memory)": "8000Mi", "nvidia.com/gpu": "2",
                             "vpc.amazonaws.com/efa": "8", "hugepages-2Mi": "1280Mi"},
            },
            # gpu_fabric/catalog/aws.py: FI_PROVIDER, NCCL_SOCKET_IFNAME; NCCL_NET pinned.
            "env": [{"name": "FI_PROVIDER", "value": "efa"},
                    {"name": "NCCL_SOCKET_IFNAME", "value": "^lo,docker,veth"},
                    {"name": "NCCL_NET", "value": "AWS Libfabric"}],
            "volumeMounts": [{"name": "shared-memory", "mountPath": "/dev/shm"}],
            "securityContext": {"capabilities": {"add": ["IPC_LOCK"]}},
        }]}},
    }]}}


def test_p5_guard_policy_written_out() -> None:
    # Every count is served: no refusal sentence, and no double space where it would be.
    policy = _p5_policies()["gpufabric-guard-gpu"]
    asks = {"key": _GPUS, "operator": "NotEquals", "value": ""}
    counts = ["1", "2", "3", "4", "5", "6", "7", "8"]
    assert policy == {
        "apiVersion": "kyverno.io/v1",
        "kind": "ClusterPolicy",
        "metadata": {"name": "gpufabric-guard-gpu",
                     "labels": {"app.kubernetes.io/managed-by": "gpu-fabric"},
                     "annotations": {"pod-policies.kyverno.io/autogen-controllers": "none"}},
        "spec": {"background": False, "rules": [
            {"name": "fabric-gpu-shape", "match": _MATCH, "exclude": _EXCLUDE, "validate": {
                "failureAction": "Enforce",
                "message": (
                    "Pool gpu (p5.48xlarge) gives the fabric to pods asking for 1, 2, 3, 4, "
                    "5, 6, 7, 8 GPUs; another count would run NCCL without it. Change the GPU "
                    "count, or set annotation gpufabric.dev/inject: \"false\" to run without "
                    "the fabric."),
                "deny": {"conditions": {"all": [
                    asks, {"key": _GPUS, "operator": "AnyNotIn", "value": counts}]}}}},
            {"name": "fabric-one-gpu-container", "match": _MATCH, "exclude": _EXCLUDE,
             "validate": {
                "failureAction": "Enforce",
                "message": (
                    "Pool gpu (p5.48xlarge): the fabric is given to one container per pod; put "
                    "every GPU of the pod in one container, or set annotation "
                    "gpufabric.dev/inject: \"false\" to run without the fabric."),
                "deny": {"conditions": {"all": [
                    asks, {"key": _COUNT, "operator": "GreaterThan", "value": 1}]}}}},
        ]},
    }


def test_scoped_guard_names_the_namespaces_and_the_refused_counts() -> None:
    from gpu_fabric.fabric.injection import guard_policy, refusals

    spec = existing("gcp", "a4-highgpu-8g", fabric={"mode": "dra", "dranet": "self",
                                                     "claim_gpu_counts": [2, 8],
                                                     "namespaces": ["training"]})
    fabric = fabric_of(spec)
    reason = ("pool gpu has ResourceClaimTemplates for 2, 8 GPUs only; add the count to "
              "fabric.claim_gpu_counts or use one of these")
    assert refusals(spec, fabric) == f"1, 3, 4, 5, 6, 7 GPUs: {reason}."
    rules = {r["name"]: r for r in guard_policy(spec, fabric, False)["spec"]["rules"]}
    # fabric-2-gpu-rails: 2-GPU pods name their rail set (rail claim templates exist).
    assert list(rules) == ["fabric-gpu-shape", "fabric-one-gpu-container", "fabric-2-gpu-rails",
                           "fabric-namespace"]
    shape = rules["fabric-gpu-shape"]
    assert shape["match"] == {"any": [{"resources": {
        "kinds": ["Pod"], "operations": ["CREATE"], "namespaces": ["training"]}}]}
    assert shape["exclude"] == {"any": [
        {"resources": {"annotations": {"gpufabric.dev/inject": "false"}}}]}
    assert shape["validate"]["message"] == (
        "Pool gpu (a4-highgpu-8g) gives the fabric to pods asking for 2, 8 GPUs; another "
        f"count would run NCCL without it. 1, 3, 4, 5, 6, 7 GPUs: {reason}. Change the GPU "
        "count, or set annotation gpufabric.dev/inject: \"false\" to run without the fabric.")
    namespace = rules["fabric-namespace"]
    assert namespace == {
        "name": "fabric-namespace",
        "match": _MATCH,
        "exclude": {"any": [
            {"resources": {"annotations": {"gpufabric.dev/inject": "false"}}},
            {"resources": {"namespaces": sorted(["training", *_SYSTEM])}}]},
        "validate": {
            "failureAction": "Enforce",
            "message": (
                "Pool gpu (a4-highgpu-8g): namespace {{ request.namespace }} does not hold "
                "the fabric's objects (NetworkAttachmentDefinitions, ResourceClaimTemplates); "
                "they exist in training (fabric.namespaces and team namespaces). Run the pod "
                "there, add the namespace to fabric.namespaces, or set annotation "
                "gpufabric.dev/inject: \"false\" to run without the fabric."),
            "deny": {"conditions": {"all": [{"key": _GPUS, "operator": "NotEquals",
                                             "value": ""}]}},
        },
    }
    # The mutate policy of a scoped pool excludes only opted-out pods and names them.
    from gpu_fabric.fabric.injection import mutate_policy

    mutate = mutate_policy(spec, fabric, False)
    assert mutate["metadata"]["annotations"]["policies.kyverno.io/description"] == (
        "Gives GPU pods on a4-highgpu-8g the roce fabric (device resources, networks, NCCL "
        "env) for their GPU count, in training.")
    claims = {r["name"]: r for r in mutate["spec"]["rules"]}["claims-2-gpu-rails-0-1"]
    (each,) = claims["mutate"]["foreach"]
    assert each["list"] == "request.object.spec.containers"
    assert each["preconditions"] == {"all": [{"key": "{{ element.resources.limits."
                                                     "\"nvidia.com/gpu\" || '' }}",
                                              "operator": "Equals", "value": "2"}]}
    assert each["patchesJson6902"] == (
        '[\n {\n  "op": "remove",\n  "path": "/spec/containers/{{elementIndex}}/resources/'
        'limits/nvidia.com~1gpu"\n },\n {\n  "op": "remove",\n  "path": "/spec/containers/'
        '{{elementIndex}}/resources/requests/nvidia.com~1gpu"\n }\n]')


# -- the policies of a scoped fabric (DOKS: its NADs are namespaced) -----------------
# shared/seeds/digitalocean-doks-multinode-gpu.md: one host-device NAD per fabric NIC in
# the workload namespace, the networks annotation roce-net-fabricN@fabricN (lines
# 120-128); only 8-GPU pods get the fabric (NICs moved whole into one pod, issues 17/19).
# Scope: fabric.namespaces, then every team that may use the pool (fabric_namespaces);
# "vision" names the pool, so the pool's name is read (a team without node_pools is not).
_DOKS_SCOPE = ["default", "training", "vision"]
_DOKS_MATCH = {"any": [{"resources": {"kinds": ["Pod"], "operations": ["CREATE"],
                                      "namespaces": _DOKS_SCOPE}}]}
# In scope, only opted-out pods are excluded: the scope holds no system namespace.
_OPT_OUT_ONLY = {"any": [{"resources": {"annotations": {"gpufabric.dev/inject": "false"}}}]}


def _doks_scoped():
    spec = existing("digitalocean", "gpu-h200x8-1128gb-fabric-contracted",
                    fabric={"namespaces": ["default", "training"]},
                    tenancy={"teams": [{"name": "vision", "group": "vision-eng", "gpus": 16,
                                        "node_pools": ["gpu"]}]})
    return spec, fabric_of(spec)


def test_doks_scoped_mutate_policy_written_out() -> None:
    from gpu_fabric.fabric.injection import mutate_policy

    spec, fabric = _doks_scoped()
    policy = mutate_policy(spec, fabric, False)
    # Several namespaces are listed with ", " in the description.
    assert policy["metadata"]["annotations"]["policies.kyverno.io/description"] == (
        "Gives GPU pods on gpu-h200x8-1128gb-fabric-contracted the roce fabric (device "
        "resources, networks, NCCL env) for their GPU count, in default, training, vision.")
    rules = {r["name"]: r for r in policy["spec"]["rules"]}
    assert list(rules) == ["fabric-8-gpu", "fabric-8-gpu-container"]
    base = {
        "match": _DOKS_MATCH,
        "exclude": _OPT_OUT_ONLY,
        "preconditions": {"all": [
            {"key": _GPUS, "operator": "Equals", "value": "8"},
            {"key": _COUNT, "operator": "Equals", "value": 1},
        ]},
    }
    # The pod-level patch carries the pod's metadata: the Multus networks annotation
    # (seed lines 120-128, joined with ", "). DOKS taints GPU nodes by key only
    # (shared/reference/digitalocean.md lines 73-75: nvidia.com/gpu, NoSchedule), so the
    # toleration is Exists.
    assert rules["fabric-8-gpu"] == {"name": "fabric-8-gpu", **base, "mutate": {
        "patchStrategicMerge": {
            "spec": {
                "tolerations": "{{ [request.object.spec.tolerations || `[]`, `[{\"key\":"
                               "\"nvidia.com/gpu\",\"operator\":\"Exists\",\"effect\":"
                               "\"NoSchedule\"}]`][] }}",
                "volumes": [{"name": "shared-memory",
                             "emptyDir": {"medium": "Memory", "sizeLimit": "64Gi"}}],
            },
            "metadata": {"annotations": {"k8s.v1.cni.cncf.io/networks": (
                "roce-net-fabric0@fabric0, roce-net-fabric1@fabric1, "
                "roce-net-fabric2@fabric2, roce-net-fabric3@fabric3, "
                "roce-net-fabric4@fabric4, roce-net-fabric5@fabric5, "
                "roce-net-fabric6@fabric6, roce-net-fabric7@fabric7")}},
        }}}
    container = rules["fabric-8-gpu-container"]
    assert {k: container[k] for k in ("match", "exclude", "preconditions")} == base


def test_doks_scoped_guard_rules_match_the_scope_only() -> None:
    from gpu_fabric.fabric.injection import guard_policy

    spec, fabric = _doks_scoped()
    rules = {r["name"]: r for r in guard_policy(spec, fabric, False)["spec"]["rules"]}
    assert list(rules) == ["fabric-gpu-shape", "fabric-one-gpu-container", "fabric-namespace"]
    assert (rules["fabric-gpu-shape"]["match"], rules["fabric-gpu-shape"]["exclude"]) == (
        _DOKS_MATCH, _OPT_OUT_ONLY)
    assert rules["fabric-one-gpu-container"] == {
        "name": "fabric-one-gpu-container",
        "match": _DOKS_MATCH,
        "exclude": _OPT_OUT_ONLY,
        "validate": {
            "failureAction": "Enforce",
            "message": (
                "Pool gpu (gpu-h200x8-1128gb-fabric-contracted): the fabric is given to one "
                "container per pod; put every GPU of the pod in one container, or set "
                "annotation gpufabric.dev/inject: \"false\" to run without the fabric."),
            "deny": {"conditions": {"all": [
                {"key": _GPUS, "operator": "NotEquals", "value": ""},
                {"key": _COUNT, "operator": "GreaterThan", "value": 1}]}},
        },
    }
    # Outside the scope: every namespace but the scope and the system ones.
    assert rules["fabric-namespace"]["exclude"]["any"][1] == {"resources": {
        "namespaces": sorted([*_DOKS_SCOPE, *_SYSTEM])}}


def test_refusals_give_one_sentence_per_reason() -> None:
    from dataclasses import replace

    from gpu_fabric.fabric.injection import refusals

    # a4 DRA with templates for 2 and 8 GPUs, narrowed by a describer to 8-GPU pods: 2 GPUs
    # has a template but is refused for the describer's reason, the others for the
    # missing template (shapes.py: the template check comes first).
    spec = existing("gcp", "a4-highgpu-8g", fabric={"mode": "dra", "dranet": "self",
                                                     "claim_gpu_counts": [2, 8]})
    narrowed = replace(fabric_of(spec), pod_gpu_counts=(8,), pod_gpu_counts_reason="why")
    assert refusals(spec, narrowed) == (
        "1, 3, 4, 5, 6, 7 GPUs: pool gpu has ResourceClaimTemplates for 2, 8 GPUs only; add "
        "the count to fabric.claim_gpu_counts or use one of these. 2 GPUs: pool gpu "
        "(a4-highgpu-8g) gives the fabric only to pods with 8 GPUs: why.")


# -- pod shapes: NIC count, alignment, refusals -------------------------------------
# NIC counts from the pairing sources cited in tests/fabric/test_fabric_counts.py::ONE_GPU_NICS:
# aws-ofi-nccl p4d-24xl-topo.xml (2 GPUs share 1 of 4 EFA), shared/reference/oci.md
# (BM.GPU.H100.8: 16 RoCE ports, 2 per GPU), gke-nvidia-dra-dranet.md (a4: 1 NIC per GPU).
_COUNTED = ("the node hands each pod its own NICs, counted per pod; below a full node "
            "they are not tied to the pod's GPUs")
_SHARED = "every NIC is shared by the pods of the node; NCCL uses each GPU's nearest"
_ALIGNED = "DRA claim: GPUs and NICs on the same PCIe root"


def _shape(fabric, gpus, claims=None):
    from gpu_fabric.fabric.shapes import pod_shape

    s = pod_shape(fabric, gpus, claims)
    return (s.pool, s.gpus, s.handout.value, s.nics, s.aligned, s.note, s.refusal, s.served)


def test_p4d_efa_counts_one_nic_per_gpu_pair() -> None:
    fabric = fabric_of(existing("aws", "p4d.24xlarge"))
    # The EFA device plugin never shares a device: eight 1-GPU pods would need 8 of the
    # 4 EFA (aws-ofi-nccl p4d-24xl-topo.xml: 2 GPUs per EFA), so 1-GPU pods are refused.
    assert _shape(fabric, 1) == (
        "gpu", 1, "counted", 0, False, "",
        "pool gpu (p4d.24xlarge) gives the fabric only to pods with 2, 3, 4, 5, 6, 7, 8 GPUs: "
        "the EFA device plugin gives each pod whole EFA devices and never shares one; "
        "p4d.24xlarge has 4 EFA for 8 GPUs, so a full node of 1-GPU pods would need more EFA "
        "than it has and some would stay Pending. Use 2-GPU pods, or fabric.mode dra (claims "
        "pair the GPUs with their PCIe root's EFA; a root's EFA still goes to one claim)",
        False)
    assert _shape(fabric, 2) == ("gpu", 2, "counted", 1, False, _COUNTED, None, True)
    assert _shape(fabric, 3) == ("gpu", 3, "counted", 2, False, _COUNTED, None, True)
    assert _shape(fabric, 8) == ("gpu", 8, "counted", 4, True, _COUNTED, None, True)


def test_oci_sriov_vfs_are_counted_per_gpu() -> None:
    fabric = fabric_of(existing("oci", "BM.GPU.H100.8"))
    assert _shape(fabric, 1) == ("gpu", 1, "counted", 2, False, _COUNTED, None, True)
    assert _shape(fabric, 8) == ("gpu", 8, "counted", 16, True, _COUNTED, None, True)
    # The SR-IOV annotation names one network per VF the pod gets (2 per GPU).
    assert pod_fragment(fabric, 1).annotations["k8s.v1.cni.cncf.io/networks"] == "rdma-vf,rdma-vf"
    assert pod_fragment(fabric, 3).annotations["k8s.v1.cni.cncf.io/networks"] == ",".join(
        ["rdma-vf"] * 6)
    assert pod_fragment(fabric, 3).limits["nvidia.com/rdma-vf"] == "6"


def test_shared_hcas_and_host_network_give_every_nic() -> None:
    # Azure ND H100 v5: 8 IB HCAs behind the RDMA shared device plugin (per-pod slots).
    azure = fabric_of(existing("azure", "Standard_ND96isr_H100_v5"))
    assert _shape(azure, 2) == ("gpu", 2, "shared", 8, True, _SHARED, None, True)
    oci = fabric_of(existing("oci", "BM.GPU.H100.8", fabric={"mode": "host-network"}))
    assert _shape(oci, 1) == ("gpu", 1, "shared", 16, True, _SHARED, None, True)


def test_dra_claims_are_aligned_or_say_they_share_a_root() -> None:
    from dataclasses import replace

    from gpu_fabric.catalog import get_machine

    a4 = fabric_of(existing("gcp", "a4-highgpu-8g", fabric={"mode": "dra", "dranet": "self"}))
    assert _shape(a4, 2) == ("gpu", 2, "claimed", 2, True, _ALIGNED, None, True)
    assert _shape(a4, 8) == ("gpu", 8, "claimed", 8, True, _ALIGNED, None, True)
    # p4d's pairing (2 GPUs per EFA) under a DRA claim: 1 GPU shares its root's NIC.
    shared = replace(a4, machine=get_machine("p4d.24xlarge"))
    assert _shape(shared, 1) == (
        "gpu", 1, "claimed", 1, False,
        "DRA claim: the 1-GPU claim shares its PCIe root's NIC with GPUs outside the pod; "
        "another pod on that root waits for it", None, True)
    assert _shape(shared, 2)[3:5] == (1, True)


def test_refusals_written_out() -> None:
    from dataclasses import replace

    from gpu_fabric.fabric.shapes import pod_shapes, served_counts

    a4 = fabric_of(existing("gcp", "a4-highgpu-8g", fabric={"mode": "dra", "dranet": "self"}))
    refused = ("gpu", 3, "claimed", 0, False, "",
               "pool gpu has ResourceClaimTemplates for 2, 8 GPUs only; add the count to "
               "fabric.claim_gpu_counts or use one of these", False)
    assert _shape(a4, 3, [2, 8]) == refused
    assert _shape(a4, 0)[6] == "a4-highgpu-8g has 8 GPUs per node"
    assert _shape(a4, 9)[6] == "a4-highgpu-8g has 8 GPUs per node"
    assert [s.gpus for s in pod_shapes(a4, [2, 8])] == [1, 2, 3, 4, 5, 6, 7, 8]
    assert served_counts(a4, [2, 8]) == [2, 8]
    assert served_counts(a4) == [1, 2, 3, 4, 5, 6, 7, 8]
    # DOKS: NICs moved whole into one pod (host-device); the generic rule without the
    # describer's declared counts.
    doks = fabric_of(existing("digitalocean", "gpu-h200x8-1128gb-fabric-contracted"))
    generic = replace(doks, pod_gpu_counts=None, pod_gpu_counts_reason="")
    assert _shape(generic, 4) == (
        "gpu", 4, "moved", 0, False, "",
        "pool gpu (gpu-h200x8-1128gb-fabric-contracted) moves each fabric NIC into one pod's "
        "network namespace (host-device attachment) and nothing on the node counts them, so "
        "a pod with 4 of 8 GPUs would take NICs another pod on the node needs; ask for 8 GPUs "
        "per pod, or set annotation gpufabric.dev/inject: \"false\" to run without the fabric",
        False)
    assert _shape(generic, 8) == ("gpu", 8, "moved", 8, True,
                                  "the pod takes every NIC of the node", None, True)
    declared = _shape(doks, 2)[6]
    assert declared.startswith("pool gpu (gpu-h200x8-1128gb-fabric-contracted) gives the "
                               "fabric only to pods with 8 GPUs: DOKS fabric NICs are moved")
    # A machine without a scale-out fabric.
    from gpu_fabric.catalog import get_machine

    plain = replace(doks, machine=get_machine("gpu-h200x8-1128gb"))
    assert _shape(plain, 8)[6] == "gpu-h200x8-1128gb has no scale-out fabric"


def test_nic_handout_per_attachment() -> None:
    from gpu_fabric.fabric.shapes import nic_handout

    cases = {
        ("gcp", "a4-highgpu-8g", "dra"): "claimed",
        ("gcp", "a3-megagpu-8g", None): "counted",
        ("oci", "BM.GPU.H100.8", "host-network"): "shared",
        ("digitalocean", "gpu-h200x8-1128gb-fabric-contracted", None): "moved",
        ("oci", "BM.GPU.H100.8", None): "counted",
        ("azure", "Standard_ND96isr_H100_v5", None): "shared",   # per-pod HCA slots
    }
    for (cloud, machine, mode), want in cases.items():
        fabric = {"mode": mode} if mode else {}
        if mode == "dra":
            fabric["dranet"] = "self"
        assert nic_handout(fabric_of(existing(cloud, machine, fabric=fabric))) == want


# -- whole fragments, per attachment ------------------------------------------------
_SHM = {"name": "shared-memory", "emptyDir": {"medium": "Memory", "sizeLimit": "64Gi"}}
_SHM_MOUNT = {"name": "shared-memory", "mountPath": "/dev/shm"}


def test_doks_full_node_fragment_written_out() -> None:
    # shared/seeds/digitalocean-doks-multinode-gpu.md: rdma/fabric0..7: 1 each (lines
    # 45-55), the networks annotation roce-net-fabricN@fabricN (lines 120-128);
    # NCCL env from DO-Solutions/slinky-on-doks (components/gpu_fabric/catalog/digitalocean.py).
    fabric = fabric_of(existing("digitalocean", "gpu-h200x8-1128gb-fabric-contracted"))
    rails = {f"rdma/fabric{i}": "1" for i in range(8)}
    assert pod_fragment(fabric, 8).to_dict() == {
        "machine": "gpu-h200x8-1128gb-fabric-contracted",
        "gpus": 8,
        "pod": {
            "spec": {
                "tolerations": [{"key": "nvidia.com/gpu", "operator": "Exists",
                                 "effect": "NoSchedule"}],
                "volumes": [_SHM],
            },
            "metadata": {"annotations": {"k8s.v1.cni.cncf.io/networks": ", ".join(
                f"roce-net-fabric{i}@fabric{i}" for i in range(8))}},
        },
        "container": {
            "resources": {"limits": {"nvidia.com/gpu": "8", **rails},
                          "requests": {"nvidia.com/gpu": "8", **rails}},
            "env": [
                {"name": "NCCL_SOCKET_IFNAME", "value": "eth0"},
                {"name": "NCCL_IB_HCA",
                 "value": "mlx5_0,mlx5_1,mlx5_2,mlx5_3,mlx5_4,mlx5_5,mlx5_6,mlx5_7"},
                {"name": "NCCL_IB_GID_INDEX", "value": "3"},
                {"name": "NCCL_NET_GDR_LEVEL", "value": "5"},
                {"name": "NCCL_NET", "value": "IB"},
            ],
            "volumeMounts": [_SHM_MOUNT],
            "securityContext": {"capabilities": {"add": ["IPC_LOCK"]}},
        },
        "sidecars": [],
    }


def test_gke_multinetwork_fragment_names_every_rail_and_mounts_host_paths() -> None:
    # shared/reference/gcp.md: default-interface eth0, TCPXO networks vpc1..vpc8 on
    # eth1..eth8 (lines 97-100); /home/kubernetes/bin/nvidia at /usr/local/nvidia,
    # read-only (line 132); RxDM's /dev/aperture_devices stays writable (line 146).
    fragment = pod_fragment(fabric_of(existing("gcp", "a3-megagpu-8g")), 8)
    interfaces = [{"interfaceName": "eth0", "network": "default"}] + [
        {"interfaceName": f"eth{i}", "network": f"vpc{i}"} for i in range(1, 9)]
    assert fragment.annotations["networking.gke.io/default-interface"] == "eth0"
    # gcp.md lines 97 and 146-150: the two multi-networking keys, and the RxDM device list.
    assert sorted(fragment.annotations) == ["devices.gke.io/container.tcpxo-daemon",
                                            "networking.gke.io/default-interface",
                                            "networking.gke.io/interfaces"]
    assert json.loads(fragment.annotations["networking.gke.io/interfaces"]) == interfaces
    assert fragment.volumes[:3] == [
        _SHM,
        {"name": "fabric-host-0", "hostPath": {"path": "/dev/aperture_devices"}},
        {"name": "fabric-host-1", "hostPath": {"path": "/home/kubernetes/bin/nvidia"}},
    ]
    assert fragment.volume_mounts == [
        _SHM_MOUNT,
        {"name": "fabric-host-0", "mountPath": "/dev/aperture_devices"},
        {"name": "fabric-host-1", "mountPath": "/usr/local/nvidia", "readOnly": True},
    ]
    assert fragment.limits == {"nvidia.com/gpu": "8"} and fragment.requests == {}
    assert [s["name"] for s in fragment.sidecars] == ["tcpxo-daemon"]
    # The RxDM sidecar's volumes follow the pod's own (gcp.md line 145: the plugin lives
    # in /home/kubernetes/bin/nvidia/lib64).
    assert fragment.volumes[3]["hostPath"] == {"path": "/home/kubernetes/bin/nvidia/lib64"}
    assert len(fragment.volumes) == 6
    # TCPXO is not RDMA: no IPC_LOCK; one pool: no node selector.
    assert fragment.capabilities == [] and fragment.node_selector == {}
    assert fragment.privileged is False and fragment.host_network is False


def test_gke_roce_multinetwork_adds_the_gvnic_then_the_rails() -> None:
    # gcp.md lines 97-99: eth0 default, eth1 the gVNIC network, eth2.. the RDMA rails.
    spec = existing("gcp", "a3-ultragpu-8g", kubernetes={"version": "1.33"})
    fabric = fabric_of(spec)
    if fabric.network_annotation_key is None:
        pytest.skip("a3-ultra uses DRA on this version")
    interfaces = json.loads(pod_fragment(fabric, 8).annotations["networking.gke.io/interfaces"])
    assert interfaces[:3] == [{"interfaceName": "eth0", "network": "default"},
                              {"interfaceName": "eth1", "network": "gvnic-1"},
                              {"interfaceName": "eth2", "network": "rdma-0"}]
    assert len(interfaces) == 10  # eth0, gVNIC, 8 RDMA rails


def test_azure_fragment_mounts_the_topology_config_map_read_only() -> None:
    fragment = pod_fragment(fabric_of(existing("azure", "Standard_ND96isr_H100_v5")), 8)
    assert fragment.volumes == [
        _SHM, {"name": "fabric-config-0", "configMap": {"name": "nccl-topology-ndv5"}}]
    assert fragment.volume_mounts == [
        _SHM_MOUNT,
        {"name": "fabric-config-0", "mountPath": "/opt/nvidia-topology", "readOnly": True}]
    # One slot of the shared HCA resource per pod (rdma/hca_shared_devices_a), not per NIC.
    assert fragment.limits == {"nvidia.com/gpu": "8", "rdma/hca_shared_devices_a": "1"}
    assert pod_fragment(fabric_of(existing("azure", "Standard_ND96isr_H100_v5")), 2).limits == {
        "nvidia.com/gpu": "2", "rdma/hca_shared_devices_a": "1"}


def test_dra_fragment_claims_instead_of_counting() -> None:
    a4 = fabric_of(existing("gcp", "a4-highgpu-8g", fabric={"mode": "dra", "dranet": "self"}))
    fragment = pod_fragment(a4, 2)
    assert fragment.limits == {}
    assert fragment.resource_claims == [{"name": "gpu",
                                         "resourceClaimTemplateName": "2-gpu-nic-aligned"}]
    assert fragment.container_claims == ["gpu"]
    assert fragment.container_patch()["resources"] == {"claims": [{"name": "gpu"}]}
    assert pod_fragment(a4, 2, rails=(2, 3)).resource_claims == [
        {"name": "gpu", "resourceClaimTemplateName": "2-gpu-nic-rails-2-3"}]
    # GB200 (a4x-highgpu-4g, NVLink domain): the ComputeDomain's IMEX channel claim too.
    a4x = fabric_of(existing("gcp", "a4x-highgpu-4g", fabric={"mode": "dra", "dranet": "self"}))
    gb = pod_fragment(a4x, 4)
    assert gb.resource_claims == [
        {"name": "gpu", "resourceClaimTemplateName": "4-gpu-nic-aligned"},
        {"name": "compute-domain-channel",
         "resourceClaimTemplateName": "gpu-compute-domain-channel"}]
    assert gb.container_claims == ["gpu", "compute-domain-channel"]


def test_fragment_without_dra_has_empty_claim_lists() -> None:
    # p5 counts GPUs and EFA through device plugins: no claim at all, and the claim
    # fields are empty lists (PodFragment's field types), not None.
    fragment = pod_fragment(fabric_of(existing("aws", "p5.48xlarge")), 8)
    assert (fragment.resource_claims, fragment.container_claims) == ([], [])


def test_fragment_sidecars_are_copies_of_the_pools() -> None:
    # A caller editing a fragment's sidecar (or a sidecar volume) must not change the pool's
    # description, hence the next fragment. shared/reference/gcp.md lines 147-151: the
    # tcpxo-daemon has caps NET_ADMIN + NET_BIND_SERVICE and mounts /sys and /proc/sys.
    fabric = fabric_of(existing("gcp", "a3-megagpu-8g"))
    first = pod_fragment(fabric, 8)
    first.sidecars[0]["securityContext"]["capabilities"]["add"].append("SYS_ADMIN")
    first.volumes[-1]["hostPath"]["path"] = "/"
    again = pod_fragment(fabric, 8)
    assert again.sidecars[0]["securityContext"] == {
        "capabilities": {"add": ["NET_ADMIN", "NET_BIND_SERVICE"]}}
    assert again.volumes[-1] == {"name": "rxdm-proc-sys", "hostPath": {"path": "/proc/sys"}}


def test_host_network_fragment_is_privileged_on_the_host_network() -> None:
    fabric = fabric_of(existing("oci", "BM.GPU.H100.8", fabric={"mode": "host-network"}))
    fragment = pod_fragment(fabric, 8)
    patch = fragment.pod_patch()["spec"]
    assert (patch["hostNetwork"], patch["dnsPolicy"]) == (True, "ClusterFirstWithHostNet")
    assert fragment.container_patch()["securityContext"] == {
        "capabilities": {"add": ["IPC_LOCK"]}, "privileged": True}
    assert fragment.limits == {"nvidia.com/gpu": "8"}


def test_non_strict_fragment_reads_per_gpu_amounts_of_a_refused_count() -> None:
    doks = fabric_of(existing("digitalocean", "gpu-h200x8-1128gb-fabric-contracted"))
    with pytest.raises(FragmentError):
        pod_fragment(doks, 4)
    assert pod_fragment(doks, 4, strict=False).limits["nvidia.com/gpu"] == "4"
    with pytest.raises(FragmentError) as raised:
        pod_fragment(doks, 9, strict=False)
    assert str(raised.value) == (
        "gpus must be 1..8 on gpu-h200x8-1128gb-fabric-contracted (pool gpu), got 9")


def test_one_created_pool_gets_no_pool_choice_rule() -> None:
    from gpu_fabric.fabric.addons import resolve_addons

    spec = load_spec(spec_dict("aws"))  # a cluster this library creates, one GPU pool
    fabrics = {"gpu": fabric_of(spec)}
    _, injection = injection_part(spec, fabrics, resolve_addons(spec, fabrics))
    assert injection.description == "Fabric injection policies (from the pod fragment helper)"
    guard = injection.manifests[1]
    assert [r["name"] for r in guard["spec"]["rules"]] == ["fabric-gpu-shape",
                                                           "fabric-one-gpu-container"]


def test_rail_sets_need_a_pairing_and_a_count_that_splits_the_node() -> None:
    from dataclasses import replace

    from gpu_fabric.catalog import get_machine
    from gpu_fabric.fabric.naming import rail_sets

    a4 = fabric_of(existing("gcp", "a4-highgpu-8g", fabric={"mode": "dra", "dranet": "self"}))
    # a4: one NIC per GPU (gke-nvidia-dra-dranet.md gpu0rdma0..gpu7rdma0).
    assert rail_sets(a4, 2) == [(0, 1), (2, 3), (4, 5), (6, 7)]
    assert rail_sets(a4, 0) == [] and rail_sets(a4, 3) == []
    no_pairing = replace(a4, machine=get_machine("gpu-h200x8-1128gb"))  # no fabric NICs
    assert rail_sets(no_pairing, 2) == []


# -- derive: labels, taints, MTU of a pool ---------------------------------------
def test_pool_labels_and_taints_written_out() -> None:
    from gpu_fabric.catalog import get_machine
    from gpu_fabric.fabric.derive import fabric_mtu, pool_labels, pool_taints
    from gpu_fabric.fabric.description import Taint

    raw = spec_dict("aws")
    raw["node_pools"][0].update(labels={"team": "vision"}, gpu_taint=False,
                                taints=[{"key": "dedicated", "value": "training",
                                         "effect": "NoExecute"}])
    spec = load_spec(raw)
    pool = spec.node_pools[0]
    # nvidia.com/gpu.present=true: what the NVIDIA DRA kubelet plugin schedules on (GKE
    # DRA seed, gke-nvidia-dra-dranet.md); only with DRA.
    assert pool_labels(pool, dra=True) == {"gpufabric.dev/pool": "gpu",
                                           "gpufabric.dev/fabric": "efa",
                                           "nvidia.com/gpu.present": "true",
                                           "team": "vision"}
    assert pool_labels(pool, dra=False) == {"gpufabric.dev/pool": "gpu",
                                            "gpufabric.dev/fabric": "efa", "team": "vision"}
    # gpu_taint: false drops our GPU taint; the pool's own taints are kept as written.
    aws_taint = provider_for(Cloud.AWS).gpu_taint(pool.machine.gpu.vendor)
    assert pool_taints(spec, pool, aws_taint) == (Taint("dedicated", "training", "NoExecute"),)
    raw["node_pools"][0]["gpu_taint"] = True
    tainted = load_spec(raw)
    assert pool_taints(tainted, tainted.node_pools[0], aws_taint) == (
        Taint("nvidia.com/gpu", "true", "NoSchedule"),
        Taint("dedicated", "training", "NoExecute"))
    # AWS EFA: MTU 9001 (catalog, AWS jumbo frames) unless the spec sets one.
    p5 = get_machine("p5.48xlarge")
    assert fabric_mtu(spec, p5) == 9001
    raw["fabric"] = {"mtu": 1500}
    assert fabric_mtu(load_spec(raw), p5) == 1500


def test_claim_template_names_without_dra_and_with_several_gpu_counts() -> None:
    from dataclasses import replace

    from gpu_fabric.fabric.naming import claim_template_name

    p5 = fabric_of(existing("aws", "p5.48xlarge"))
    assert claim_template_name(p5, 2) == "2-gpu"
    doks = fabric_of(existing("digitalocean", "gpu-h200x8-1128gb-fabric-contracted"))
    narrowed = replace(doks, pod_gpu_counts=(4, 8), pod_gpu_counts_reason="why")
    assert _shape(narrowed, 2)[6] == (
        "pool gpu (gpu-h200x8-1128gb-fabric-contracted) gives the fabric only to pods with "
        "4, 8 GPUs: why")
