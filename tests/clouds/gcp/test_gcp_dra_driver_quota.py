"""The NVIDIA DRA driver keeps its chart's priority classes; on GKE a quota admits them.

Sources:
* cluster-toolkit (GoogleCloudPlatform/cluster-toolkit, commit 1047080375af)
  examples/gke-a4x/nvidia-dra-driver.yaml lines 19-33: ResourceQuota
  ``nvidia-dra-driver-gpu-quota`` in namespace ``nvidia-dra-driver-gpu``, ``hard.pods: 100``,
  scopeSelector ``PriorityClass In [system-node-critical, system-cluster-critical]``;
  modules/management/kubectl-apply/main.tf lines 317-376: the chart installed after that
  manifest (``depends_on = [module.kubectl_apply_manifests, ...]``, line 319) with values
  that set no ``priorityClassName``.
* nvidia-dra-driver-gpu 25.12.0 values.yaml (charts/nvidia-dra-driver-gpu-25.12.0.tgz):
  ``controller.priorityClassName: "system-node-critical"`` (line 188),
  ``kubeletPlugin.priorityClassName: "system-node-critical"`` (line 214),
  ``webhook.priorityClassName: "system-cluster-critical"`` (line 141). Clouds other than
  GKE admit those classes in any namespace, so they get the chart's classes and no quota.
"""

from __future__ import annotations

from typing import Any

from tests.specs import with_pool
from tests.support.variants import gb200_spec

QUOTA = "kubernetes:core/v1:ResourceQuota"
RELEASE = "kubernetes:helm.sh/v3:Release"
# ``pods: 100`` in the blueprint's YAML; the typed SDK (pulumi-kubernetes 4.34.2
# ResourceQuotaSpecArgs.hard: Mapping[str, str]) takes the Quantity as a string.
BLUEPRINT_QUOTA_SPEC = {
    "hard": {"pods": "100"},
    "scopeSelector": {"matchExpressions": [{
        "operator": "In", "scopeName": "PriorityClass",
        "values": ["system-node-critical", "system-cluster-critical"],
    }]},
}


def _driver(plan: Any) -> Any:
    return next(r for r in plan.by_type(RELEASE) if r.inputs["chart"] == "nvidia-dra-driver-gpu")


def _driver_quotas(plan: Any) -> list[Any]:
    return [r for r in plan.by_type(QUOTA)
            if r.inputs["metadata"]["namespace"] == "nvidia-dra-driver-gpu"]


def test_gke_quota_is_the_blueprints_and_the_release_waits_for_it(stack_plan) -> None:
    plan = stack_plan("gcp-a4")
    [quota] = _driver_quotas(plan)
    assert quota.inputs["metadata"] == {"name": "nvidia-dra-driver-gpu-quota",
                                        "namespace": "nvidia-dra-driver-gpu"}
    assert quota.inputs["spec"] == BLUEPRINT_QUOTA_SPEC
    release = _driver(plan)
    # The release waits for the quota (and its namespace), as the blueprint's helm
    # module depends on the manifest that creates them.
    assert quota.urn in release.dependencies
    assert any(u.endswith("-namespace-nvidia-dra-driver-gpu") for u in release.dependencies)
    values = release.inputs["values"]
    assert "priorityClassName" not in values["controller"]
    assert "priorityClassName" not in values["kubeletPlugin"]


def test_a4x_on_gke_gets_the_quota(spec_plan) -> None:
    plan = spec_plan(gb200_spec("gcp"))
    [quota] = _driver_quotas(plan)
    assert quota.inputs["spec"] == BLUEPRINT_QUOTA_SPEC
    assert quota.urn in _driver(plan).dependencies


def test_other_clouds_keep_the_classes_without_a_quota(spec_plan) -> None:
    # EKS p6e-gb200: the driver serves ComputeDomains; EKS has no such admission rule.
    plan = spec_plan(gb200_spec("aws"))
    values = _driver(plan).inputs["values"]
    assert _driver_quotas(plan) == []
    assert "priorityClassName" not in values["controller"]
    assert "priorityClassName" not in values["kubeletPlugin"]


def test_more_gpu_nodes_than_the_blueprints_100_pods_widen_the_quota(spec_plan) -> None:
    # One kubelet-plugin pod per GPU node: 120 nodes + the controller, its surge and the
    # webhook (3) = 123 pods; the blueprint's 100 would refuse the plugin on 22 nodes.
    raw = with_pool("gcp", machine_type="a4-highgpu-8g", node_count=120,
                    capacity={"type": "reservation", "reservation": "r1"})
    raw["fabric"] = {"mode": "dra"}
    [quota] = _driver_quotas(spec_plan(raw))
    assert quota.inputs["spec"]["hard"] == {"pods": "123"}
