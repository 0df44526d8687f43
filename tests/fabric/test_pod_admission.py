"""What each pod shape gets after admission, per committed stack.

Pods: Job, JobSet, plain Pod and StatefulSet pods (their controllers' labels), with
the GPU container first or after a sidecar, asking for 1, 2, 4 GPUs or a full node,
in a fabric namespace, a team namespace and another namespace. The stack's rendered
Kyverno policies are applied with tests/kyverno_eval.py, a small evaluator of the
policy features we use (Kyverno itself cannot run here). Each pod either gets its
fabric (NIC resources or DRA claims, NCCL env) or is refused with the reason; none
is admitted on TCP without being told.

Expected values are written out from their sources, not from the code:
- EFA per pod: aws-ofi-nccl topology/p4d-24xl-topo.xml (2 GPUs share 1 EFA per PCIe
  switch) and p5.48xl-topo.xml (4 EFA per GPU).
- OCI SR-IOV VFs: shared/reference/oci.md (16 dual-port RoCE ports, 2 per GPU;
  ``nvidia.com/rdma-vf``).
- Azure: one ``rdma/hca_shared_devices_a`` slot per pod (RDMA shared device plugin,
  shared/reference/peers.md NeMo contract), topology ConfigMap in the namespace.
- DOKS: fabric0..7 moved whole into one pod by host-device
  (shared/seeds/digitalocean-doks-multinode-gpu.md): full-node pods only.
- GKE A3 Mega (TCPXO) and A3 Ultra (multi-networking): full-node pods only
  (issue 17; gcp-do's pod_gpu_counts); A4 DRA claims ``<n>-gpu-nic-aligned`` for full
  nodes (shared/seeds/gke-nvidia-dra-dranet.md) and, for partial-node pods, the rail
  claim their ``gpufabric.dev/rails`` annotation names (A4: 1 NIC per GPU, GPU pairs
  on one PCIe root, so 1-GPU rails 0..7, 2-GPU 0-1..6-7, 4-GPU 0-3 / 4-7); a partial
  pod naming no rail set is refused.
"""


from __future__ import annotations

import json
from functools import cache
from typing import Any

import pytest

from gpu_fabric.fabric.description import describe_cluster
from gpu_fabric.fabric.layer import build_layer
from gpu_fabric.spec import load_spec
from tests import feature_matrix as fm
from tests.kyverno_eval import admit

SHAPES = {
    "Job": {"batch.kubernetes.io/job-name": "train"},
    "JobSet": {"jobset.sigs.k8s.io/jobset-name": "train",
               "batch.kubernetes.io/job-name": "train-workers-0"},
    "Pod": {},
    "StatefulSet": {"statefulset.kubernetes.io/pod-name": "train-0"},
}
TEAM_NS = "team-a"
OTHER_NS = "scratch"
EFA = "vpc.amazonaws.com/efa"
VF = "nvidia.com/rdma-vf"
HCA = "rdma/hca_shared_devices_a"
DO_RAILS = {f"rdma/fabric{i}": "1" for i in range(8)}

# stack -> (full node GPUs, served counts, NIC resources per served count (None: DRA),
#           NCCL_NET, fabric objects are namespaced)
EXPECT: dict[str, tuple[int, list[int], dict[int, dict[str, str]] | None, str, bool]] = {
    # p4d: 1-GPU pods refused (the EFA device plugin never shares one of the 4 EFA; issue 30)
    "aws-p4d": (8, [2, 3, 4, 5, 6, 7, 8], {2: {EFA: "1"}, 4: {EFA: "2"}, 8: {EFA: "4"}},
                "AWS Libfabric", False),
    "aws-p5": (8, [1, 2, 4, 8], {1: {EFA: "4"}, 2: {EFA: "8"}, 4: {EFA: "16"}, 8: {EFA: "32"}},
               "AWS Libfabric", False),
    "azure-ndv4": (8, [1, 2, 4, 8], {n: {HCA: "1"} for n in (1, 2, 4, 8)}, "IB", True),
    "azure-ndv5": (8, [1, 2, 4, 8], {n: {HCA: "1"} for n in (1, 2, 4, 8)}, "IB", True),
    "do-h200": (8, [8], {8: DO_RAILS}, "IB", True),
    "do-mi300x": (8, [8], {8: DO_RAILS}, "IB", True),
    "existing": (8, [8], {8: DO_RAILS}, "IB", True),
    "gcp-a3-mega": (8, [8], {8: {}}, "FasTrak", False),
    "gcp-a3-ultra": (8, [8], {8: {}}, "gIB", False),
    "gcp-a4": (8, [1, 2, 4, 8], None, "gIB", True),
    "oci-a100": (8, [1, 2, 4, 8], {1: {VF: "2"}, 2: {VF: "4"}, 4: {VF: "8"}, 8: {VF: "16"}},
                 "IB", True),
    "oci-h100": (8, [1, 2, 4, 8], {1: {VF: "2"}, 2: {VF: "4"}, 4: {VF: "8"}, 8: {VF: "16"}},
                 "IB", True),
}


@cache
def _stack(stack: str) -> tuple[Any, list[dict[str, Any]]]:
    raw = fm.with_features(stack, ["teams"])
    spec = load_spec(raw)
    fabrics = describe_cluster(spec)
    layer = build_layer(spec, fabrics)
    policies = list(layer.part("injection").manifests)
    return spec, policies


def _pod(shape: str, gpus: int, resource: str, selector: dict[str, str],
         sidecar_first: bool, annotations: dict[str, str] | None = None) -> dict[str, Any]:
    trainer = {"name": "trainer", "image": "nccl-tests:1",
               "resources": {"limits": {resource: str(gpus)}, "requests": {resource: str(gpus)}}}
    containers = [trainer]
    if sidecar_first:
        containers.insert(0, {"name": "log-shipper", "image": "fluent-bit:3"})
    meta: dict[str, Any] = {"name": "train-0", "labels": dict(SHAPES[shape])}
    if annotations:
        meta["annotations"] = annotations
    spec: dict[str, Any] = {"containers": containers}
    if selector:
        spec["nodeSelector"] = dict(selector)
    return {"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": spec}


# Stacks whose partial-node pods are rail-pinned: GPUs -> (annotation, claim template).
RAILS = {"gcp-a4": {1: ("5", "1-gpu-nic-rail-5"), 2: ("2,3", "2-gpu-nic-rails-2-3"),
                    4: ("4,5,6,7", "4-gpu-nic-rails-4-7")}}

def _trainer(pod: dict[str, Any]) -> dict[str, Any]:
    return next(c for c in pod["spec"]["containers"] if c["name"] == "trainer")


def _check_fabric(stack: str, pod: dict[str, Any], gpus: int, resource: str,
                  template: str | None = None) -> None:
    _, _, nics, net, _ = EXPECT[stack]
    trainer = _trainer(pod)
    env = {e["name"]: e["value"] for e in trainer.get("env", [])}
    assert env.get("NCCL_NET") == net, (stack, gpus, env)
    limits = trainer["resources"].get("limits", {})
    if nics is None:  # DRA: the GPU count became the aligned claim
        assert resource not in limits
        expected = template or f"{gpus}-gpu-nic-aligned"
        assert {"name": "gpu", "resourceClaimTemplateName": expected} in \
            pod["spec"]["resourceClaims"]
        assert {"name": "gpu"} in trainer["resources"]["claims"]
    else:
        assert limits[resource] == str(gpus)
        for name, count in nics[gpus].items():
            assert limits.get(name) == count, (stack, gpus, name, limits)
    assert "IPC_LOCK" in json.dumps(trainer) or net == "FasTrak"
    for other in pod["spec"]["containers"]:
        if other["name"] != "trainer":
            assert "env" not in other and "resources" not in other, other


@pytest.mark.parametrize("stack", sorted(EXPECT))
def test_each_pod_shape_gets_its_fabric_or_a_reason(stack: str) -> None:
    spec, policies = _stack(stack)
    full, served, _, _, scoped = EXPECT[stack]
    fabrics = describe_cluster(spec)
    fabric = next(iter(fabrics.values()))
    resource = fabric.gpu_resource
    selector = dict(fabric.node_selector) if len(fabrics) > 1 else {}
    fabric_ns = spec.fabric.namespaces[0]
    seen = 0
    for shape in SHAPES:
        for sidecar_first in (False, True):
            for gpus in sorted({1, 2, 4, full}):
                for ns in (fabric_ns, TEAM_NS, OTHER_NS):
                    pod = _pod(shape, gpus, resource, selector, sidecar_first)
                    result = admit(policies, pod, ns)
                    where = (stack, shape, gpus, ns, sidecar_first)
                    if ns == OTHER_NS and scoped:
                        assert result.denied and "does not hold the fabric's objects" in \
                            result.denied, where
                        assert f"namespace {OTHER_NS} " in result.denied
                    elif gpus not in served:
                        assert result.rule == "fabric-gpu-shape", (where, result.denied)
                        assert f"pods asking for {', '.join(map(str, served))} GPUs" in \
                            str(result.denied)
                    elif gpus in RAILS.get(stack, {}):
                        assert result.rule == f"fabric-{gpus}-gpu-rails", (where, result.denied)
                        value, template = RAILS[stack][gpus]
                        assert "gpufabric.dev/rails: one of" in str(result.denied)
                        pinned = _pod(shape, gpus, resource, selector, sidecar_first,
                                      annotations={"gpufabric.dev/rails": value})
                        result = admit(policies, pinned, ns)
                        assert result.denied is None, (where, result.denied)
                        _check_fabric(stack, result.pod, gpus, resource, template)
                    else:
                        assert result.denied is None, (where, result.denied)
                        _check_fabric(stack, result.pod, gpus, resource)
                    seen += 1
    assert seen == len(SHAPES) * 2 * len({1, 2, 4, full}) * 3


@pytest.mark.parametrize("stack", ["do-h200", "gcp-a4", "aws-p5"])
def test_opting_out_is_explicit_and_gets_no_fabric(stack: str) -> None:
    spec, policies = _stack(stack)
    fabric = next(iter(describe_cluster(spec).values()))
    pod = _pod("Pod", 1, fabric.gpu_resource, {}, False,
               annotations={"gpufabric.dev/inject": "false"})
    for ns in (spec.fabric.namespaces[0], OTHER_NS):
        result = admit(policies, pod, ns)
        assert result.denied is None
        assert "env" not in _trainer(result.pod)


def test_two_gpu_containers_in_one_pod_are_refused() -> None:
    _, policies = _stack("aws-p5")
    pod = _pod("Job", 4, "nvidia.com/gpu", {}, False)
    second = json.loads(json.dumps(_trainer(pod)))
    second["name"] = "trainer-2"
    pod["spec"]["containers"].append(second)
    result = admit(policies, pod, "default")
    assert result.rule == "fabric-one-gpu-container"
    assert "one container per pod" in str(result.denied)


def test_several_pools_a_gpu_pod_must_name_one() -> None:
    raw = fm.base("aws-p5")
    raw["node_pools"].append({**raw["node_pools"][0], "name": "p5b"})
    spec = load_spec(raw)
    policies = list(build_layer(spec, describe_cluster(spec)).part("injection").manifests)
    unnamed = admit(policies, _pod("Pod", 8, "nvidia.com/gpu", {}, False), "default")
    assert unnamed.rule == "fabric-pool-choice"
    named = admit(policies, _pod("Pod", 8, "nvidia.com/gpu",
                                 {"gpufabric.dev/pool": "p5b"}, True), "default")
    assert named.denied is None
    assert _trainer(named.pod)["resources"]["limits"][EFA] == "32"


def test_a_pods_own_tolerations_are_kept() -> None:
    _, policies = _stack("aws-p5")
    pod = _pod("Job", 8, "nvidia.com/gpu", {}, False)
    mine = {"key": "example.com/maintenance", "operator": "Exists", "effect": "NoSchedule"}
    pod["spec"]["tolerations"] = [mine]
    result = admit(policies, pod, "default")
    assert result.denied is None
    tolerations = result.pod["spec"]["tolerations"]
    assert tolerations[0] == mine and len(tolerations) > 1
