"""A4X (arm64) pods tolerate the Arm taint GKE puts on the pool's nodes itself.

Sources:
* GKE container API, TaintConfig.ArchitectureTaintBehavior
  (https://docs.cloud.google.com/dotnet/docs/reference/Google.Cloud.Container.V1/latest/
  Google.Cloud.Container.V1.TaintConfig.Types.ArchitectureTaintBehavior): "Unspecified:
  defaults to ARM"; "Arm: taints all the nodes in the node pool with the default ARM taint".
* cluster-toolkit (GoogleCloudPlatform/cluster-toolkit 1047080375af)
  examples/gke-a4x/gke-a4x.yaml lines 302-306: the A4X job template tolerates
  ``kubernetes.io/arch`` ``Equal`` ``arm64`` ``NoSchedule``; modules/management/kubectl-apply/
  main.tf lines 366-370 give the DRA kubelet plugin the same toleration.
"""

from __future__ import annotations

from gpu_fabric.fabric.workload import pod_fragment
from gpu_fabric.spec import load_spec
from tests.specs import with_pool
from tests.support.variants import gb200_spec

ARM = {"key": "kubernetes.io/arch", "operator": "Equal", "value": "arm64",
       "effect": "NoSchedule"}
GPU = {"key": "nvidia.com/gpu", "operator": "Equal", "value": "present",
       "effect": "NoSchedule"}


def _fragment(raw: dict) -> object:
    from gpu_fabric.fabric.description import describe_cluster

    spec = load_spec(raw)
    fabric = describe_cluster(spec)[spec.node_pools[0].name]
    return pod_fragment(fabric, gpus=fabric.machine.gpus)


def test_a4x_pods_tolerate_the_arm_taint_and_the_pool_does_not_set_it() -> None:
    from gpu_fabric.fabric.description import describe_cluster

    spec = load_spec(gb200_spec("gcp"))
    fabric = describe_cluster(spec)["gpu"]
    assert [t.key for t in fabric.taints] == ["nvidia.com/gpu"]  # set on the pool
    assert _fragment(gb200_spec("gcp")).tolerations == [GPU, ARM]


def test_the_injection_and_health_checks_tolerate_it(spec_plan) -> None:
    plan = spec_plan(gb200_spec("gcp"))
    [pool] = [r for r in plan.by_type("gcp:container/nodePool:NodePool")
              if r.name == "test-gcp-gpu"]
    assert pool.inputs["nodeConfig"]["taints"] == [
        {"effect": "NO_SCHEDULE", "key": "nvidia.com/gpu", "value": "present"}]
    [policy] = [r for r in plan.by_type("kubernetes:kyverno.io/v1:ClusterPolicy")
                if r.name.endswith("inject-gpu")]
    rule = next(r for r in policy.inputs["spec"]["rules"] if r["name"] == "fabric-4-gpu")
    assert rule["mutate"]["patchStrategicMerge"]["spec"]["tolerations"] == (
        "{{ [request.object.spec.tolerations || `[]`, `[{\"key\":\"nvidia.com/gpu\","
        "\"operator\":\"Equal\",\"value\":\"present\",\"effect\":\"NoSchedule\"},"
        "{\"key\":\"kubernetes.io/arch\",\"operator\":\"Equal\",\"value\":\"arm64\","
        "\"effect\":\"NoSchedule\"}]`][] }}")


def test_amd64_gke_pools_get_no_arm_toleration() -> None:
    raw = with_pool("gcp", machine_type="a4-highgpu-8g",
                    capacity={"type": "reservation", "reservation": "r1"})
    assert _fragment(raw).tolerations == [GPU]


def test_the_health_checker_counts_the_arm_taint_as_tolerated() -> None:
    # gpu_fabric/health/logic.py select_pairs: a node with a taint its pool does not
    # tolerate is never tested; A4X nodes carry GKE's Arm taint.
    from gpu_fabric.fabric.description import describe_cluster
    from gpu_fabric.health.config import pool_checks

    raw = gb200_spec("gcp") | {"health": {"enabled": True}}
    spec = load_spec(raw)
    checks, _ = pool_checks(spec, describe_cluster(spec))
    assert [c.config["tolerated_taints"] for c in checks] == [
        ["kubernetes.io/arch", "nvidia.com/gpu"]]
