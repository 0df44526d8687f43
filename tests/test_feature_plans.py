"""Optional features PLAN (run under Pulumi's mock runtime), not only render.

Rendering builds the layer as data; planning also turns every manifest into a
Pulumi resource and wires the parts' waits. Both crashes below passed every
render test: ``tenancy.teams`` (Kueue's WorkloadPriorityClass has top-level
fields the Python CustomResource wrapper does not take) and ``addons.prometheus``
with the GPU Operator (a part waiting for a part contributed later).
"""

from __future__ import annotations

import pytest

from gpu_fabric.plan.model import PlanResult
from tests.specs import CLOUDS, spec_dict

TEAM = {"name": "vision", "group": "vision-eng", "gpus": 16, "priority": "high"}
WPC = "kubernetes:kueue.x-k8s.io/v1beta1:WorkloadPriorityClass"


@pytest.mark.parametrize("cloud", CLOUDS)
def test_teams_plan_with_kueue_workload_priority_classes(cloud: str, spec_plan) -> None:
    plan: PlanResult = spec_plan(spec_dict(cloud, tenancy={"teams": [TEAM]}))
    classes = {r.inputs["metadata"]["name"]: r.inputs for r in plan.by_type(WPC)}
    # kueue v0.14.4 config/components/crd/bases/kueue.x-k8s.io_workloadpriorityclasses.yaml:
    # `value` (required) and `description` are top-level fields, beside metadata.
    assert {n: c["value"] for n, c in classes.items()} == {
        "gpu-fabric-low": 1000, "gpu-fabric-normal": 10000, "gpu-fabric-high": 100000,
    }
    assert all("spec" not in c and c["description"] for c in classes.values())
    assert plan.by_type("kubernetes:kueue.x-k8s.io/v1beta1:ClusterQueue")
    assert plan.by_type("kubernetes:kueue.x-k8s.io/v1beta1:LocalQueue")


@pytest.mark.parametrize("cloud", CLOUDS)
def test_prometheus_with_gpu_operator_plans_and_waits_for_prometheus(
    cloud: str, spec_plan
) -> None:
    addons = {"prometheus": {"enabled": True}, "gpu_operator": {"enabled": True}}
    plan: PlanResult = spec_plan(spec_dict(cloud, addons=addons))
    operator = next(r for r in plan.by_type("kubernetes:helm.sh/v3:Release")
                    if r.inputs.get("chart") == "gpu-operator")
    prometheus = next(r for r in plan.by_type("kubernetes:helm.sh/v3:Release")
                      if r.inputs.get("chart") == "kube-prometheus-stack")
    # The GPU Operator's DCGM ServiceMonitor needs the Prometheus Operator's CRDs.
    assert prometheus.urn in operator.dependencies


@pytest.mark.parametrize("key", ["gpu_extended_resource", "ipam"])
def test_fabric_settings_that_did_nothing_are_refused_not_ignored(key: str) -> None:
    """``fabric.gpu_extended_resource`` (DeviceClass extendedResourceName is alpha,
    KEP-5004, behind a gate managed control planes do not open; nothing set it) and
    ``fabric.ipam`` (never read: each cloud's NAD type fixes its IPAM) were removed:
    writing them is an error naming the key, never a silent no-op."""
    from gpu_fabric.errors import SpecError
    from gpu_fabric.spec import load_spec

    raw = spec_dict("gcp", fabric={key: "auto" if key == "ipam" else True})
    with pytest.raises(SpecError) as err:
        load_spec(raw)
    assert f"fabric.{key}" in str(err.value) and "unknown key" in str(err.value)


@pytest.mark.parametrize(("cloud", "machine"), [
    ("aws", "p6e-gb200.36xlarge"), ("oci", "BM.GPU.GB200-v3.4"),
])
def test_gb200_dra_on_managed_control_planes_runs_the_compute_domain_controller(
    cloud: str, machine: str, spec_plan
) -> None:
    raw = spec_dict(cloud, fabric={"mode": "dra"})
    raw["node_pools"][0]["machine_type"] = machine
    if cloud == "aws":  # Capacity Blocks only (EKS user guide ml-eks-nvidia-ultraserver)
        raw["node_pools"][0]["capacity"] = {
            "type": "capacity_block", "reservation": "cr-0123456789abcdef0"}
    plan: PlanResult = spec_plan(raw)
    (driver,) = [r for r in plan.by_type("kubernetes:helm.sh/v3:Release")
                 if r.inputs.get("chart") == "nvidia-dra-driver-gpu"]
    values = driver.inputs["values"]
    assert values["resources"]["computeDomains"]["enabled"] is True
    # nvidia-dra-driver-gpu 25.12.0 values.yaml: controller.affinity requires
    # node-role.kubernetes.io/control-plane; EKS/OKE have no such node. null removes it.
    assert "affinity" in values["controller"] and values["controller"]["affinity"] is None


def test_kueue_quota_is_on_what_a_dra_job_requests() -> None:
    """A Job on a DRA pool asks for nvidia.com/gpu in its template (Kyverno turns pods,
    not Jobs, into claims): the ClusterQueue must cover that resource or Kueue never
    admits the Job; the namespace ResourceQuota counts the claims' devices."""
    from gpu_fabric.fabric.description import describe_cluster
    from gpu_fabric.fabric.layer import build_layer
    from gpu_fabric.spec import load_spec

    spec = load_spec(spec_dict("gcp", fabric={"mode": "dra"}, tenancy={"teams": [TEAM]}))
    layer = build_layer(spec, describe_cluster(spec))
    (queue,) = [m for m in layer.manifests() if m["kind"] == "ClusterQueue"]
    group = queue["spec"]["resourceGroups"][0]
    assert "nvidia.com/gpu" in group["coveredResources"]
    assert not any(r.endswith("deviceclass.resource.k8s.io/devices")
                   for r in group["coveredResources"])
    nominal = {r["name"]: r["nominalQuota"] for r in group["flavors"][0]["resources"]}
    assert nominal["nvidia.com/gpu"] == "16"
    (quota,) = [m for m in layer.manifests() if m["kind"] == "ResourceQuota"
                and m["metadata"]["name"] == "gpu-fabric"]
    assert quota["spec"]["hard"]["gpu.nvidia.com.deviceclass.resource.k8s.io/devices"] == "16"
