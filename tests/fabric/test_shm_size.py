"""The pool's ``shm_size`` reaches every fabric pod's /dev/shm: the pod fragment, the
Kyverno injection (a pod after admission) and the NCCL acceptance pods.

Sources of the literal values:
- 250Gi: the gke-nvidia-dra-dranet seed, /work/shared/seeds/gke-nvidia-dra-dranet.md
  line 383 (kubernetes-sigs/dranet 49216fd58aef5f372ba7d1ae9421e5f7d4f9eb7e
  site/content/docs/user/nvidia-dranet.md, the nccl-gib-test StatefulSet's volume
  ``shared-memory``: ``emptyDir: {medium: "Memory", sizeLimit: 250Gi}``), which
  stacks/Pulumi.gcp-a4.yaml sets on its pool.
- 64Gi: the size every fabric pod had before the field existed (``FabricDescription``
  ``shm_size = "64Gi"`` at 407530e), kept as the default so no other stack changes.
"""

from __future__ import annotations

from typing import Any

from gpu_fabric.fabric.description import describe_cluster
from gpu_fabric.fabric.layer import build_layer
from gpu_fabric.fabric.workload import pod_fragment
from gpu_fabric.nccl.manifests import acceptance_manifests, plan_acceptance
from gpu_fabric.plan.stackfile import load_stack_file
from gpu_fabric.spec import ClusterSpec, load_spec
from tests.fabric_helpers import existing, fabric_of
from tests.kyverno_eval import admit
from tests.specs import spec_dict

SEED_SHM = {"name": "shared-memory", "emptyDir": {"medium": "Memory", "sizeLimit": "250Gi"}}
DEFAULT_SHM = {"name": "shared-memory", "emptyDir": {"medium": "Memory", "sizeLimit": "64Gi"}}
SHM_MOUNT = {"name": "shared-memory", "mountPath": "/dev/shm"}


def _shm(volumes: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [v for v in volumes if v["name"] == "shared-memory"]


def _admitted(spec: ClusterSpec, annotations: dict[str, str] | None = None) -> dict[str, Any]:
    """A 2-GPU pod in the fabric namespace after the stack's injection policies."""
    fabric = next(iter(describe_cluster(spec).values()))
    policies = list(build_layer(spec, describe_cluster(spec)).part("injection").manifests)
    resource = fabric.gpu_resource
    pod = {"apiVersion": "v1", "kind": "Pod",
           "metadata": {"name": "train-0", "annotations": dict(annotations or {})},
           "spec": {"containers": [{"name": "trainer", "image": "nccl-tests:1", "resources": {
               "limits": {resource: "2"}, "requests": {resource: "2"}}}]}}
    result = admit(policies, pod, spec.fabric.namespaces[0])
    assert result.denied is None, result.denied
    return result.pod


def test_the_default_stays_64gi() -> None:
    spec = existing("aws", "p5.48xlarge")
    assert spec.node_pools[0].shm_size == "64Gi"
    assert fabric_of(spec).shm_size == "64Gi"
    fragment = pod_fragment(fabric_of(spec), 8)
    assert _shm(fragment.volumes) == [DEFAULT_SHM]
    assert SHM_MOUNT in fragment.volume_mounts


def test_the_pools_size_reaches_the_fragment() -> None:
    data = spec_dict("aws", existing={"kubeconfig": {"path": "/nonexistent"}})
    data["node_pools"][0]["shm_size"] = "250Gi"
    fabric = fabric_of(load_spec(data))
    assert fabric.shm_size == "250Gi"
    for gpus in (1, 2, 4, 8):
        assert _shm(pod_fragment(fabric, gpus).volumes) == [SEED_SHM]


def test_each_pool_gets_its_own_size() -> None:
    data = spec_dict("aws", existing={"kubeconfig": {"path": "/nonexistent"}})
    data["node_pools"] = [
        {"name": "big", "machine_type": "p5.48xlarge", "node_count": 2, "shm_size": "1Ti",
         "labels": {"pool": "big"}},
        {"name": "small", "machine_type": "p5.48xlarge", "node_count": 2,
         "labels": {"pool": "small"}},
    ]
    fabrics = describe_cluster(load_spec(data))
    assert _shm(pod_fragment(fabrics["big"], 8).volumes) == [
        {"name": "shared-memory", "emptyDir": {"medium": "Memory", "sizeLimit": "1Ti"}}]
    assert _shm(pod_fragment(fabrics["small"], 8).volumes) == [DEFAULT_SHM]


def test_gcp_a4_pods_get_the_seeds_250gi_through_the_injection() -> None:
    spec = load_spec(load_stack_file("gcp-a4").cluster)
    assert spec.node_pools[0].shm_size == "250Gi"
    # The seed's pod: 2 GPUs on rails 0-1 ("GPU0 and GPU1 of each node", seed line 291).
    pod = _admitted(spec, {"gpufabric.dev/rails": "0,1"})
    assert _shm(pod["spec"]["volumes"]) == [SEED_SHM]
    assert SHM_MOUNT in pod["spec"]["containers"][0]["volumeMounts"]


def test_a_stack_without_the_field_injects_64gi() -> None:
    pod = _admitted(load_spec(load_stack_file("aws-p5").cluster))
    assert _shm(pod["spec"]["volumes"]) == [DEFAULT_SHM]


def _acceptance_pod(cloud: str, machine: str, shm_size: str) -> dict[str, Any]:
    data = spec_dict(cloud, existing={"kubeconfig": {"path": "/nonexistent"}},
                     acceptance={"enabled": True})
    data["node_pools"][0].update(machine_type=machine, shm_size=shm_size)
    spec = load_spec(data)
    plan = plan_acceptance(spec, describe_cluster(spec), "acc")
    workload = next(m for m in acceptance_manifests(plan)
                    if m["kind"] in ("StatefulSet", "MPIJob"))
    if workload["kind"] == "StatefulSet":
        template: dict[str, Any] = workload["spec"]["template"]
        return template
    worker: dict[str, Any] = workload["spec"]["mpiReplicaSpecs"]["Worker"]["template"]
    return worker


def test_the_nccl_acceptance_pods_use_the_pools_size() -> None:
    # GKE RDMA: the seed's StatefulSet; EFA: an MPIJob's workers.
    gke = _acceptance_pod("gcp", "a4-highgpu-8g", "250Gi")
    assert _shm(gke["spec"]["volumes"]) == [SEED_SHM]
    assert SHM_MOUNT in gke["spec"]["containers"][0]["volumeMounts"]
    efa = _acceptance_pod("aws", "p5.48xlarge", "250Gi")
    assert _shm(efa["spec"]["volumes"]) == [SEED_SHM]
