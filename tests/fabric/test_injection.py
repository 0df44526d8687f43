"""Kyverno injection policies: built from the pod fragments, scoped to the namespaces
that hold what they inject, matching every GPU pod by its GPU container.

What a pod gets after admission (running the policies) is checked in
tests/fabric/test_pod_admission.py; here the policies are checked as data.
"""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

from gpu_fabric.fabric.injection import allowed_counts
from gpu_fabric.fabric.shapes import NicHandout, nic_handout, pod_shape
from gpu_fabric.fabric.workload import FragmentError, pod_fragment
from tests.fabric_helpers import existing, fabric_of, layer_of
from tests.specs import spec_dict

H200_DO = "gpu-h200x8-1128gb-fabric-contracted"
TEAM = {"name": "vision", "group": "vision-eng", "gpus": 16}


def _policies(spec):
    return {p["metadata"]["name"]: p for p in layer_of(spec).part("injection").manifests}


def _rules(policy):
    return {r["name"]: r for r in policy["spec"]["rules"]}


def test_mutate_rules_carry_the_fragment_for_each_gpu_count() -> None:
    spec = existing("aws", "p5.48xlarge")
    fabric = fabric_of(spec)
    rules = _rules(_policies(spec)["gpufabric-inject-gpu"])
    assert set(rules) == {f"fabric-{n}-gpu{s}" for n in range(1, 9)
                          for s in ("", "-container")}
    for n in range(1, 9):
        (each,) = rules[f"fabric-{n}-gpu-container"]["mutate"]["foreach"]
        assert each["list"] == "request.object.spec.containers"
        (container,) = each["patchStrategicMerge"]["spec"]["containers"]
        assert container["name"] == "{{ element.name }}"
        assert container["resources"]["limits"] == pod_fragment(fabric, n).limits
        condition = each["preconditions"]["all"][0]
        assert condition["value"] == str(n) and '"nvidia.com/gpu"' in condition["key"]


def test_the_gpu_container_is_found_by_its_request_not_its_position() -> None:
    spec = existing("azure", "Standard_ND96isr_H100_v5")
    for policy in _policies(spec).values():
        text = json.dumps(policy)
        assert "containers[0]" not in text and "containers/0/" not in text
    rule = _rules(_policies(spec)["gpufabric-inject-gpu"])["fabric-8-gpu"]
    keys = [c["key"] for c in rule["preconditions"]["all"]]
    assert keys[0] == ("{{ request.object.spec.containers[?resources.limits.\"nvidia.com/gpu\"]"
                       " | [0].resources.limits.\"nvidia.com/gpu\" || '' }}")


def test_every_gpu_pod_is_matched_not_only_job_pods() -> None:
    # Plain Pods and StatefulSet pods carry no Job/JobSet/Kubeflow label: matching by
    # labels left them on TCP. The match is every Pod CREATE in scope.
    spec = existing("gcp", "a3-ultragpu-8g")
    for policy in _policies(spec).values():
        for rule in policy["spec"]["rules"]:
            for entry in rule["match"]["any"]:
                assert entry["resources"]["kinds"] == ["Pod"]
                assert "selector" not in entry["resources"]
                assert "annotations" not in entry["resources"]
        # Kyverno's autogen would rewrite Job templates too; pods are what get the fabric.
        assert policy["metadata"]["annotations"][
            "pod-policies.kyverno.io/autogen-controllers"] == "none"


@pytest.mark.parametrize(("cloud", "machine", "scoped"), [
    ("digitalocean", H200_DO, True),      # NADs are namespaced
    ("oci", "BM.GPU.H100.8", True),       # the SR-IOV NAD
    ("gcp", "a4-highgpu-8g", True),       # ResourceClaimTemplates (DRA)
    ("azure", "Standard_ND96isr_H100_v5", True),  # NCCL topology ConfigMap
    ("aws", "p5.48xlarge", False),        # EFA: nothing namespaced
    ("gcp", "a3-megagpu-8g", False),      # GKE Network objects are cluster-scoped
])
def test_mutation_is_scoped_to_namespaces_holding_the_fabric_objects(
    cloud: str, machine: str, scoped: bool
) -> None:
    raw = spec_dict(cloud, existing={"kubeconfig": {"path": "/x"}},
                    fabric={"namespaces": ["default", "training"]},
                    tenancy={"teams": [TEAM]})
    raw["node_pools"][0]["machine_type"] = machine
    from gpu_fabric.spec import load_spec

    spec = load_spec(raw)
    policies = _policies(spec)
    mutate = policies["gpufabric-inject-gpu"]["spec"]["rules"][0]
    guard = _rules(policies["gpufabric-guard-gpu"])
    namespaces = mutate["match"]["any"][0]["resources"].get("namespaces")
    if scoped:
        assert namespaces == ["default", "training", "vision"]
        rule = guard["fabric-namespace"]
        excluded = rule["exclude"]["any"][1]["resources"]["namespaces"]
        assert {"default", "training", "vision", "kube-system"} <= set(excluded)
        assert "does not hold the fabric's objects" in rule["validate"]["message"]
        assert "default, training, vision" in rule["validate"]["message"]
    else:
        assert namespaces is None
        assert "fabric-namespace" not in guard
        excluded = mutate["exclude"]["any"][1]["resources"]["namespaces"]
        assert "kube-system" in excluded and "gpu-operator" in excluded


def test_dra_rules_swap_the_gpu_count_for_the_rail_pinned_claim() -> None:
    """Partial-node pods on a pool with rail claim templates (GKE A4, self-installed DraNet)
    get the rail template their ``gpufabric.dev/rails`` annotation names, never the
    any-root ``N-gpu-nic-aligned`` one: pods of one job then use the same rails on every
    node (NCCL_CROSS_NIC=0). A4: GPU0/GPU1 + 2 NICs share a PCIe root (the seed, dranet
    site/content/docs/user/nvidia-dranet.md at f258477c), so 2-GPU pods take rails 0-1,
    2-3, 4-5 or 6-7. Full-node pods keep the aligned claim (they hold every rail)."""
    spec = existing("gcp", "a4-highgpu-8g", fabric={"mode": "dra", "dranet": "self"})
    rules = _rules(_policies(spec)["gpufabric-inject-gpu"])
    assert "fabric-2-gpu" not in rules
    (each,) = rules["claims-2-gpu-rails-2-3"]["mutate"]["foreach"]
    patch = json.loads(each["patchesJson6902"])
    assert {"op": "remove",
            "path": "/spec/containers/{{elementIndex}}/resources/limits/nvidia.com~1gpu"} in patch
    rule = rules["fabric-2-gpu-rails-2-3"]
    pod = rule["mutate"]["patchStrategicMerge"]
    assert pod["spec"]["resourceClaims"] == [
        {"name": "gpu", "resourceClaimTemplateName": "2-gpu-nic-rails-2-3"}]
    assert {"key": "{{ request.object.metadata.annotations.\"gpufabric.dev/rails\" || '' }}",
            "operator": "Equals", "value": "2,3"} in rule["preconditions"]["all"]
    assert [n for n in rules if n.startswith("fabric-2-gpu-rails-") and
            not n.endswith("-container")] == [
        "fabric-2-gpu-rails-0-1", "fabric-2-gpu-rails-2-3", "fabric-2-gpu-rails-4-5",
        "fabric-2-gpu-rails-6-7"]
    full = rules["fabric-8-gpu"]["mutate"]["patchStrategicMerge"]
    assert full["spec"]["resourceClaims"] == [
        {"name": "gpu", "resourceClaimTemplateName": "8-gpu-nic-aligned"}]
    assert set(allowed_counts(spec, fabric_of(spec))) == {1, 2, 4, 8}
    # The claim rule runs after the rules whose preconditions read the GPU limit.
    names = list(rules)
    assert names.index("claims-2-gpu-rails-2-3") > names.index("fabric-2-gpu-rails-2-3-container")


def test_guard_refuses_partial_pods_that_name_no_rail_set() -> None:
    spec = existing("gcp", "a4-highgpu-8g", fabric={"mode": "dra", "dranet": "self"})
    rules = _rules(_policies(spec)["gpufabric-guard-gpu"])
    rule = rules["fabric-2-gpu-rails"]
    last = rule["validate"]["deny"]["conditions"]["all"][-1]
    assert last == {
        "key": "{{ request.object.metadata.annotations.\"gpufabric.dev/rails\" || '' }}",
        "operator": "AnyNotIn", "value": ["0,1", "2,3", "4,5", "6,7"]}
    assert "gpufabric.dev/rails: one of 0,1 | 2,3 | 4,5 | 6,7" in rule["validate"]["message"]
    assert "fabric-8-gpu-rails" not in rules  # a full node holds every rail


def test_guard_rejects_counts_without_a_fabric_shape() -> None:
    spec = existing("gcp", "a4-highgpu-8g", fabric={"mode": "dra", "dranet": "self",
                                                     "claim_gpu_counts": [2, 8]})
    rule = _rules(_policies(spec)["gpufabric-guard-gpu"])["fabric-gpu-shape"]
    assert rule["validate"]["failureAction"] == "Enforce"
    assert rule["validate"]["deny"]["conditions"]["all"][-1]["value"] == ["2", "8"]
    message = rule["validate"]["message"]
    assert "1, 3, 4, 5, 6, 7 GPUs: pool gpu has ResourceClaimTemplates for 2, 8 GPUs" in message


def test_moved_nics_serve_only_whole_nodes_and_say_why() -> None:
    # DOKS: Multus host-device moves fabric0..7 into one pod; a 4-GPU pod would take
    # NICs the node's other pod needs (issues 17/19). Refused at admission and in the helper.
    spec = existing("digitalocean", H200_DO)
    fabric = fabric_of(spec)
    assert allowed_counts(spec, fabric) == [8]
    rule = _rules(_policies(spec)["gpufabric-guard-gpu"])["fabric-gpu-shape"]
    assert "1, 2, 3, 4, 5, 6, 7 GPUs: pool gpu" in rule["validate"]["message"]
    assert "moved whole into one pod by host-device" in rule["validate"]["message"]
    with pytest.raises(FragmentError, match="only to pods with 8 GPUs"):
        pod_fragment(fabric, 4)
    # The generic rule holds without the cloud's declaration: a host-device NAD fabric
    # (NICs moved, counted by nothing) serves whole nodes only.
    generic = replace(fabric, pod_gpu_counts=None, pod_gpu_counts_reason="")
    assert nic_handout(generic) is NicHandout.MOVED
    shape = pod_shape(generic, 4)
    assert shape.refusal is not None and "ask for 8 GPUs per pod" in shape.refusal
    assert pod_shape(generic, 8).served and pod_shape(generic, 8).nics == 8


def test_several_pools_need_a_pool_choice() -> None:
    raw = spec_dict("aws", node_pools=[
        {"name": "p5", "machine_type": "p5.48xlarge", "node_count": 2},
        {"name": "p4d", "machine_type": "p4d.24xlarge", "node_count": 2},
    ])
    from gpu_fabric.spec import load_spec

    policies = _policies(load_spec(raw))
    choice = _rules(policies["gpufabric-guard-p5"])["fabric-pool-choice"]
    assert choice["validate"]["deny"]["conditions"]["all"][1]["value"] == ["p5", "p4d"]
    assert "fabric-pool-choice" not in _rules(policies["gpufabric-guard-p4d"])
    mutate = _rules(policies["gpufabric-inject-p4d"])["fabric-8-gpu"]
    assert {"key": "{{ request.object.spec.nodeSelector.\"gpufabric.dev/pool\" || '' }}",
            "operator": "Equals", "value": "p4d"} in mutate["preconditions"]["all"]


def test_injection_waits_for_kyverno() -> None:
    layer = layer_of(existing("digitalocean", H200_DO))
    assert layer.part("injection").after == ("kyverno",)
    assert layer.part("kyverno").charts[0].chart.name == "kyverno"
