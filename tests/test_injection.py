"""Kyverno injection policies are built from the pod fragments (one source of truth)."""

from __future__ import annotations

import json

from components.fabric.injection import allowed_counts
from components.fabric.workload import pod_fragment
from tests.fabric_helpers import existing, fabric_of, layer_of


def _policies(spec):
    return {p["metadata"]["name"]: p for p in layer_of(spec).part("injection").manifests}


def test_mutate_rules_carry_the_fragment_for_each_gpu_count() -> None:
    spec = existing("aws", "p5.48xlarge")
    fabric = fabric_of(spec)
    policy = _policies(spec)["gpufabric-inject-gpu"]
    rules = {r["name"]: r for r in policy["spec"]["rules"]}
    assert set(rules) == {f"fabric-{n}-gpu" for n in range(1, 9)}
    for n in range(1, 9):
        patch = rules[f"fabric-{n}-gpu"]["mutate"]["patchStrategicMerge"]
        container = patch["spec"]["containers"][0]
        assert container["resources"]["limits"] == pod_fragment(fabric, n).limits
        condition = rules[f"fabric-{n}-gpu"]["preconditions"]["all"][0]
        assert condition["value"] == str(n) and '"nvidia.com/gpu"' in condition["key"]


def test_dra_rules_swap_the_gpu_count_for_the_aligned_claim() -> None:
    spec = existing("gcp", "a4-highgpu-8g", fabric={"mode": "dra", "dranet": "self"})
    policy = _policies(spec)["gpufabric-inject-gpu"]
    rules = {r["name"]: r for r in policy["spec"]["rules"]}
    patch = json.loads(rules["claims-2-gpu"]["mutate"]["patchesJson6902"])
    assert {"op": "remove", "path": "/spec/containers/0/resources/limits/nvidia.com~1gpu"} in patch
    claims = next(p for p in patch if p["path"] == "/spec/resourceClaims")
    assert claims["value"][0]["resourceClaimTemplateName"] == "2-gpu-nic-aligned"
    assert set(allowed_counts(spec, fabric_of(spec))) == {1, 2, 4, 8}


def test_guard_rejects_counts_without_a_fabric_shape() -> None:
    spec = existing("gcp", "a4-highgpu-8g", fabric={"mode": "dra", "dranet": "self"})
    guard = _policies(spec)["gpufabric-guard-gpu"]
    rule = guard["spec"]["rules"][0]
    assert guard["spec"]["validationFailureAction"] == "Enforce"
    assert rule["validate"]["deny"]["conditions"]["all"][0]["value"] == ["1", "2", "4", "8"]


def test_policies_match_training_pods_and_nemo_annotation() -> None:
    spec = existing("azure", "Standard_ND96isr_H100_v5")
    rule = _policies(spec)["gpufabric-inject-gpu"]["spec"]["rules"][0]
    selectors = [m["resources"].get("selector") for m in rule["match"]["any"]]
    keys = {s["matchExpressions"][0]["key"] for s in selectors if s}
    assert {"batch.kubernetes.io/job-name", "jobset.sigs.k8s.io/jobset-name",
            "training.kubeflow.org/job-name"} <= keys
    assert any(m["resources"].get("annotations") == {
        "nmp.nvidia.com/enable-multi-node-networking": "true"} for m in rule["match"]["any"])


def test_injection_waits_for_kyverno() -> None:
    layer = layer_of(existing("digitalocean", "gpu-h200x8-1128gb-fabric-contracted"))
    assert layer.part("injection").after == ("kyverno",)
    assert layer.part("kyverno").charts[0].chart.name == "kyverno"
