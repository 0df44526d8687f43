"""The active check's objects on every cloud: valid (kubernetes-validate, strict; the
upstream CRDs for MPIJob and PrometheusRule), least-privilege RBAC, a PriorityClass that
preempts nothing, pinned images only, the test objects the NCCL acceptance test's own.

Reference for the shape: oci-hpc-oke 61d210a manifests/active-health-checks/
active-health-checks-rbac.yaml grants a ClusterRole with jobs/mpijobs/kueue objects
"create get list watch update patch delete", pods/log, events and configmaps, and a
PriorityClass of -100000 with preemptionPolicy PreemptLowerPriority; here only the verbs
the controller calls, namespaced where it can be, and preemptionPolicy Never.
"""

from __future__ import annotations

import json
from functools import cache
from typing import Any

import pytest

from gpu_fabric import versions
from gpu_fabric.fabric.description import describe_cluster
from gpu_fabric.fabric.layer import Layer, build_layer
from gpu_fabric.spec import load_spec
from tests.specs import CLOUDS, spec_dict
from tests.support.manifests import validate_all


@cache
def layer(cloud: str, prometheus: bool = True) -> Layer:
    addons = {"prometheus": {"enabled": True}} if prometheus else {}
    spec = load_spec(spec_dict(cloud, health={"enabled": True}, addons=addons))
    return build_layer(spec, describe_cluster(spec))


def objects(cloud: str, kind: str) -> list[dict[str, Any]]:
    return [m for p in layer(cloud).parts if p.name.startswith("fabric-health")
            for m in p.manifests if m["kind"] == kind]


def config(cloud: str) -> dict[str, Any]:
    (cm,) = [m for m in objects(cloud, "ConfigMap")
             if m["metadata"]["name"] == "gpu-fabric-health-config"]
    return dict(json.loads(cm["data"]["config.json"]))


@pytest.mark.parametrize("cloud", CLOUDS)
def test_every_object_and_every_test_template_is_valid(cloud: str) -> None:
    manifests = [m for p in layer(cloud).parts if p.name.startswith("fabric-health")
                 for m in p.manifests]
    templates = [o for pool in config(cloud)["pools"] for o in pool["objects"]]
    assert templates
    assert validate_all(manifests + templates, "1.34") == []


@pytest.mark.parametrize("cloud", CLOUDS)
def test_rbac_is_the_controllers_calls_and_nothing_more(cloud: str) -> None:
    check_roles = [r for r in objects(cloud, "ClusterRole")
                   if r["metadata"]["name"] == "gpu-fabric-health"]
    assert [r["rules"] for r in check_roles] == [[
        {"apiGroups": [""], "resources": ["nodes"], "verbs": ["get", "list", "patch"]},
        {"apiGroups": [""], "resources": ["pods"], "verbs": ["list"]},
    ]]
    (role,) = [r for r in objects(cloud, "Role") if r["metadata"]["name"] == "gpu-fabric-health"]
    assert role["metadata"]["namespace"] == "default"  # the fabric namespace the test runs in
    # GKE a4 (gIB): the acceptance test's StatefulSet runner; elsewhere an MPIJob.
    runner_rules = (
        [{"apiGroups": ["apps"], "resources": ["statefulsets"], "verbs": ["create", "delete"]},
         {"apiGroups": [""], "resources": ["services"], "verbs": ["create", "delete"]}]
        if cloud == "gcp" else
        [{"apiGroups": ["kubeflow.org"], "resources": ["mpijobs"], "verbs": ["create", "delete"]}])
    assert role["rules"] == [
        *runner_rules, {"apiGroups": [""], "resources": ["pods/log"], "verbs": ["get"]}]
    assert not any("secrets" in r["resources"] or "*" in r["verbs"] or "*" in r["resources"]
                   for r in check_roles[0]["rules"] + role["rules"])


@pytest.mark.parametrize("cloud", CLOUDS)
def test_the_check_never_preempts_and_runs_unprivileged(cloud: str) -> None:
    (pc,) = objects(cloud, "PriorityClass")
    assert (pc["value"], pc["preemptionPolicy"], pc["globalDefault"]) == (-100, "Never", False)
    (cron,) = objects(cloud, "CronJob")
    spec = cron["spec"]
    assert (spec["schedule"], spec["concurrencyPolicy"]) == ("17 * * * *", "Forbid")
    pod = spec["jobTemplate"]["spec"]["template"]["spec"]
    assert pod["serviceAccountName"] == "gpu-fabric-health"
    assert pod["securityContext"]["runAsNonRoot"] is True
    (container,) = pod["containers"]
    # docker-library/repo-info repos/python/remote/3.13-slim.md at 2986dca3: index digest.
    assert container["image"] == ("python:3.13-slim@sha256:9662417aace5ae7b8e2609cce472b72a"
                                  "8958e134ba372808abe9cc1a0c0125e6")
    assert container["command"] == ["python3", "-m", "gpu_fabric.health.controller"]
    for pool in config(cloud)["pools"]:
        for obj in pool["objects"]:
            for template in _templates(obj):
                assert template["spec"]["priorityClassName"] == "gpu-fabric-health"
                tolerated = {t["key"] for t in template["spec"]["tolerations"]}
                assert "gpufabric.dev/fabric-health" in tolerated
                assert "node.kubernetes.io/unschedulable" not in tolerated
                assert all(t.get("key") for t in template["spec"]["tolerations"])


def _templates(obj: Any) -> list[dict[str, Any]]:
    out = []
    if isinstance(obj, dict):
        if isinstance(obj.get("spec"), dict) and "containers" in obj["spec"] and "metadata" in obj:
            out.append(obj)
        for value in obj.values():
            out += _templates(value)
    elif isinstance(obj, list):
        for value in obj:
            out += _templates(value)
    return out


# nccl-tests images of the acceptance test (gpu_fabric.versions: NCCL_TESTS_EFA from
# aws-samples/awsome-distributed-training, NCCL_TESTS_IB the CoreWeave image, the GKE gIB
# diagnostic image) and nothing else in the test pods.
IMAGES = {
    "aws": "public.ecr.aws/hpc-cloud/nccl-tests:"
           "cuda12.8.1-efa1.43.2-ofiv1.16.3-ncclv2.27.7-1-testsv2.16.9",
    "azure": "ghcr.io/coreweave/nccl-tests:12.8.1-devel-ubuntu22.04-nccl2.26.2-1-0708d2e",
    "digitalocean": "ghcr.io/coreweave/nccl-tests:12.8.1-devel-ubuntu22.04-nccl2.26.2-1-0708d2e",
    "oci": "ghcr.io/coreweave/nccl-tests:12.8.1-devel-ubuntu22.04-nccl2.26.2-1-0708d2e",
    "gcp": "us-docker.pkg.dev/gce-ai-infra/gpudirect-gib/nccl-plugin-gib-diagnostic:v1.1.1",
}


@pytest.mark.parametrize("cloud", CLOUDS)
def test_test_pods_are_the_acceptance_tests_with_the_pools_fragment(cloud: str) -> None:
    (pool,) = config(cloud)["pools"]
    images = {c["image"] for o in pool["objects"] for t in _templates(o)
              for c in t["spec"]["containers"]}
    assert images == {IMAGES[cloud]}
    assert (pool["namespace"], pool["node_selector"]) == ("default", {"gpufabric.dev/pool": "gpu"})
    workers = [t for o in pool["objects"] for t in _templates(o)
               if t["metadata"]["labels"]["gpufabric.dev/health-role"] == "worker"]
    (worker,) = workers
    # A full node: every catalog machine here has 8 GPUs. GKE a4 with DraNet claims its
    # GPUs and NICs together (the fabric's "8-gpu-nic-aligned" ResourceClaimTemplate).
    if cloud == "gcp":
        assert worker["spec"]["resourceClaims"] == [
            {"name": "gpu", "resourceClaimTemplateName": "8-gpu-nic-aligned"}]
    else:
        gpu = worker["spec"]["containers"][0]["resources"]["limits"]["nvidia.com/gpu"]
        assert str(gpu) == "8"


def test_the_mpi_operator_comes_once() -> None:
    # acceptance off: the check installs it; acceptance on: NcclAcceptance does (same one).
    assert "fabric-health-mpi-operator" in layer("aws").names
    spec = load_spec(spec_dict("aws", health={"enabled": True}, acceptance={"enabled": True}))
    assert "fabric-health-mpi-operator" not in build_layer(spec, describe_cluster(spec)).names
    spec = load_spec(spec_dict("aws", health={"enabled": True},
                               addons={"mpi_operator": {"enabled": False}}))
    assert "fabric-health-mpi-operator" not in build_layer(spec, describe_cluster(spec)).names
    assert "fabric-health-mpi-operator" not in layer("gcp").names  # StatefulSet runner


def test_the_alerts_come_with_monitoring_only() -> None:
    (rule,) = objects("aws", "PrometheusRule")
    assert rule["metadata"]["namespace"] == "monitoring"
    alerts = {r["alert"]: r["expr"] for g in rule["spec"]["groups"] for r in g["rules"]}
    # kube-state-metrics exports node labels as label_<name, non-alphanumerics -> '_'>
    # (kube-state-metrics docs/metrics/cluster/node-metrics.md, kube_node_labels).
    assert alerts == {
        "GpuFabricHealthCheckFailed":
            'max by (node) (kube_node_labels{label_gpufabric_dev_health_verdict="fail"}) == 1',
        "GpuFabricNodeCordoned":
            'max by (node) (kube_node_spec_unschedulable) * on (node) '
            'max by (node) (kube_node_labels{label_gpufabric_dev_pool!=""}) == 1',
        "GpuFabricHealthCheckNotRunning":
            'time() - max(kube_cronjob_status_last_successful_time{namespace='
            '"gpu-fabric-health", cronjob="gpu-fabric-health"}) > 259200',
    }
    assert "fabric-health-alerts" not in layer("aws", prometheus=False).names
    prom = next(c for c in layer("aws").charts() if c.chart == versions.KUBE_PROMETHEUS_STACK)
    assert prom.values["kube-state-metrics"]["metricLabelsAllowlist"] == [
        "nodes=[gpufabric.dev/pool,gpufabric.dev/health-verdict,gpufabric.dev/health-busbw,"
        "gpufabric.dev/health-rails]"]
    assert prom.values["prometheus"]["prometheusSpec"]["ruleSelectorNilUsesHelmValues"] is False


def test_pools_the_check_cannot_test_are_named_with_the_reason() -> None:
    spec = load_spec(spec_dict("digitalocean", health={"enabled": True}, node_pools=[
        {"name": "amd", "machine_type": "gpu-mi300x8-1536gb-fabric-contracted", "node_count": 2},
        {"name": "one", "machine_type": "gpu-h200x8-1128gb-fabric-contracted",
         "node_count": 1}]))
    built = build_layer(spec, describe_cluster(spec))
    assert "fabric-health" not in built.names  # nothing to test: no CronJob
    assert "nvsentinel" in built.names  # NVSentinel still watches every node
    from gpu_fabric.health.config import pool_checks

    checks, skipped = pool_checks(spec, describe_cluster(spec))
    assert checks == []
    assert skipped == {
        # catalog digitalocean.py: gpu model "MI300X 192GB"
        "amd": "gpu-mi300x8-1536gb-fabric-contracted has MI300X 192GB GPUs: nccl-tests "
               "needs NVIDIA GPUs",
        "one": "fewer than 2 nodes: no pair to test",
    }
