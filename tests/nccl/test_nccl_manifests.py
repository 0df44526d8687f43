"""The NCCL acceptance test's Kubernetes objects and the NcclAcceptance component."""

from __future__ import annotations

from typing import Any

import pulumi
import pytest

import gpu_fabric.nccl
from gpu_fabric import versions
from gpu_fabric.errors import SpecError
from gpu_fabric.fabric.workload import pod_fragment
from gpu_fabric.nccl.manifests import (
    APP_LABEL,
    Runner,
    acceptance_env,
    acceptance_manifests,
    all_manifests,
    mpi_operator_manifests,
    plan_acceptance,
)
from gpu_fabric.plan.runner import run_program
from gpu_fabric.spec import ClusterSpec
from tests.fabric_helpers import existing, fabric_of
from tests.specs import CLOUDS
from tests.support.manifests import validate, validate_all

ON = {"enabled": True}


def spec_for(cloud: str, machine: str | None = None, **acceptance: Any) -> ClusterSpec:
    return existing(cloud, machine, acceptance={**ON, **acceptance})


def plan_of(spec: ClusterSpec, name: str = "acc"):  # type: ignore[no-untyped-def]
    from gpu_fabric.fabric.description import describe_cluster

    return plan_acceptance(spec, describe_cluster(spec), name)


def _pod_of(manifest: dict[str, Any], replica: str = "Worker") -> dict[str, Any]:
    if manifest["kind"] == "StatefulSet":
        return manifest["spec"]["template"]
    return manifest["spec"]["mpiReplicaSpecs"][replica]["template"]


def _test_workload(spec: ClusterSpec) -> dict[str, Any]:
    return next(m for m in acceptance_manifests(plan_of(spec))
                if m["kind"] in ("StatefulSet", "MPIJob"))


def _as_pod(template: dict[str, Any]) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": "x", **template.get("metadata", {})},
            "spec": template["spec"]}


# The catalog's full-node busbw floors of each cloud's default machine (components/
# catalog.py floor_basis): a4-highgpu-8g, ND96isr H100 v5, DO H200 fabric and OCI
# BM.GPU.H100.8 are derived, 70% of 8 x 400 Gb/s (16 x 200) = 280 GB/s; p5.48xlarge is
# measured, 85% of 443.72 GB/s (awsome-distributed-training) = 377.2.
FULL_NODE_FLOOR = {"gcp": 280.0, "aws": 377.2, "azure": 280.0, "digitalocean": 280.0,
                   "oci": 280.0}


@pytest.mark.parametrize("cloud", CLOUDS)
def test_test_pods_carry_exactly_the_fabric_fragment(cloud: str) -> None:
    spec = spec_for(cloud)
    plan = plan_of(spec)
    fragment = pod_fragment(fabric_of(spec), plan.gpus_per_node)
    pod = _pod_of(_test_workload(spec))
    main = pod["spec"]["containers"][0]
    assert main["resources"].get("limits", {}) == fragment.limits
    assert [c["name"] for c in main["resources"].get("claims", [])] == fragment.container_claims
    assert pod["spec"].get("resourceClaims", []) == fragment.resource_claims
    assert pod.get("metadata", {}).get("annotations", {}) == fragment.annotations
    assert pod["spec"].get("nodeSelector", {}) == fragment.node_selector
    env = {e["name"]: e["value"] for e in main["env"]}
    for key, value in fragment.env.items():
        assert env[key] == value
    assert env["NCCL_DEBUG"] == "INFO"
    assert plan.floor == FULL_NODE_FLOOR[cloud]
    # nccl-tests checks NCCL_TESTS_MIN_BW against the average busbw over all sizes
    # (src/common.cu v2.16.9), not the >= 1 GiB peak the floor is for: not set.
    assert "NCCL_TESTS_MIN_BW" not in env
    # One pod per node: the test must cross the fabric.
    term = pod["spec"]["affinity"]["podAntiAffinity"][
        "requiredDuringSchedulingIgnoredDuringExecution"][0]
    assert term["topologyKey"] == "kubernetes.io/hostname"
    assert term["labelSelector"]["matchLabels"] == {APP_LABEL: plan.name}
    # Built-in objects and the pod templates validate against the Kubernetes schemas.
    version = str(spec.kubernetes.version)
    builtins = [m for m in all_manifests(plan) if m["kind"] != "MPIJob"]
    assert validate_all(builtins, version) == []
    assert validate(_as_pod(pod), version) == []


def test_gke_rdma_uses_the_seed_statefulset_and_headless_service() -> None:
    spec = spec_for("gcp", "a4-highgpu-8g", gpus_per_node=2, collectives=["all_gather"])
    plan = plan_of(spec, "gke-acc")
    assert plan.runner is Runner.STATEFULSET and not plan.install_mpi_operator
    service, statefulset = acceptance_manifests(plan)
    assert service["kind"] == "Service" and service["spec"]["clusterIP"] == "None"
    assert statefulset["spec"]["serviceName"] == service["metadata"]["name"] == "gke-acc"
    assert statefulset["spec"]["replicas"] == spec.acceptance.nodes
    main = statefulset["spec"]["template"]["spec"]["containers"][0]
    assert "nccl-plugin-gib-diagnostic" in main["image"]
    script = main["args"][0]
    assert "run_nccl_tests.sh -t all_gather" in script and "-g 2" in script
    assert "gke-acc-0.gke-acc gke-acc-1.gke-acc" in script
    assert "--gpus-per-node 2" in script
    assert statefulset["spec"]["template"]["spec"]["resourceClaims"][0][
        "resourceClaimTemplateName"].startswith("2-gpu")


def test_efa_mpijob_forwards_the_fabric_env_and_asks_for_every_efa() -> None:
    spec = spec_for("aws", "p5.48xlarge")
    plan = plan_of(spec)
    assert plan.runner is Runner.MPIJOB and plan.install_mpi_operator
    job = _test_workload(spec)
    assert job["apiVersion"] == "kubeflow.org/v2beta1"
    assert job["spec"]["slotsPerWorker"] == plan.gpus_per_node
    workers = job["spec"]["mpiReplicaSpecs"]["Worker"]
    assert workers["replicas"] == spec.acceptance.nodes
    machine = fabric_of(spec).machine
    limits = workers["template"]["spec"]["containers"][0]["resources"]["limits"]
    assert limits["vpc.amazonaws.com/efa"] == str(fabric_of(spec).pooled_resources[
        "vpc.amazonaws.com/efa"])
    assert limits["nvidia.com/gpu"] == str(machine.gpus)
    launcher = job["spec"]["mpiReplicaSpecs"]["Launcher"]["template"]["spec"]["containers"][0]
    script = launcher["args"][0]
    for key in acceptance_env(plan):
        assert f"-x {key}" in script
    assert f"-np {plan.ranks} -N {plan.gpus_per_node}" in script
    assert "limits" not in launcher["resources"] or "nvidia.com/gpu" not in launcher[
        "resources"]["limits"]


def test_fewer_gpus_scale_the_floor_by_nic_share() -> None:
    # Azure (DOKS refuses partial-node fabric pods: tests/clouds/test_do_gcp_pod_shapes.py).
    spec = spec_for("azure", gpus_per_node=2)
    plan = plan_of(spec)
    # ND96isr H100 v5: 1 HCA per GPU (Azure/azhpc-images ndv5-topo.xml), 400 Gb/s each:
    # 2 GPUs get 2 x 400 / 8 = 100 GB/s and 2/8 of the 280 GB/s full-node floor.
    assert fabric_of(spec).machine.name == "Standard_ND96isr_H100_v5"
    assert (plan.floor, plan.line_rate) == (70.0, 100.0)


def _grants(rules: list[dict]) -> set[tuple[str, str, str]]:
    return {(g, res, v) for r in rules for g in r["apiGroups"] for res in r["resources"]
            for v in r["verbs"]}


def test_mpi_operator_is_least_privilege_and_pinned() -> None:
    manifests = mpi_operator_manifests("acceptance")
    by_kind = {m["kind"]: m for m in manifests}
    assert by_kind["CustomResourceDefinition"]["metadata"]["name"] == "mpijobs.kubeflow.org"
    roles = [m for m in manifests if m["kind"] in ("Role", "ClusterRole")]
    for r in (rule for m in roles for rule in m["rules"]):
        assert "*" not in r["verbs"] and "*" not in r["resources"]
        assert "nodes" not in r["resources"]
    image = by_kind["Deployment"]["spec"]["template"]["spec"]["containers"][0]["image"]
    assert ":" in image and not image.endswith(":latest")
    # The controller creates worker pods and launcher Jobs itself (kubeflow/mpi-operator
    # v0.6.0): without these verbs no MPIJob ever starts.
    watched = next(m for m in manifests if m["kind"] == "Role"
                   and m["metadata"]["namespace"] == "acceptance")
    assert {("", "pods", "create"), ("batch", "jobs", "create"),
            ("", "configmaps", "create"), ("", "secrets", "create"), ("", "services", "create"),
            ("kubeflow.org", "mpijobs/status", "update")} <= _grants(watched["rules"])
    # A root image under runAsNonRoot needs an explicit non-root UID or it never starts.
    pod = by_kind["Deployment"]["spec"]["template"]["spec"]
    assert pod["securityContext"]["runAsNonRoot"] is True
    assert pod["securityContext"]["runAsUser"] > 0


def test_mpi_operator_reads_secrets_only_in_the_acceptance_namespace() -> None:
    """Issue 21: the ClusterRole listed/watched every Secret in the cluster. v0.6.0's
    --namespace flag (cmd/mpi-operator/app/options/options.go at tag v0.6.0, commit
    4ac49e08) scopes its informers; only PriorityClasses (cluster-scoped) stay cluster-wide."""
    manifests = mpi_operator_manifests("acceptance")
    cluster = next(m for m in manifests if m["kind"] == "ClusterRole")
    assert _grants(cluster["rules"]) == {
        ("scheduling.k8s.io", "priorityclasses", v) for v in ("get", "list", "watch")
    }
    secret_roles = {(m["kind"], m["metadata"].get("namespace")) for m in manifests
                    if m["kind"] in ("Role", "ClusterRole")
                    and any("secrets" in r["resources"] for r in m["rules"])}
    assert secret_roles == {("Role", "acceptance")}
    binding = next(m for m in manifests if m["kind"] == "RoleBinding"
                   and m["metadata"]["namespace"] == "acceptance")
    assert binding["subjects"] == [
        {"kind": "ServiceAccount", "name": "mpi-operator", "namespace": "mpi-operator"}]
    args = next(m for m in manifests if m["kind"] == "Deployment")[
        "spec"]["template"]["spec"]["containers"][0]["args"]
    assert args[args.index("--namespace") + 1] == "acceptance"
    lock = next(m for m in manifests if m["kind"] == "Role"
                and m["metadata"]["namespace"] == "mpi-operator")
    assert ("coordination.k8s.io", "leases", "update") in _grants(lock["rules"])


def test_mpi_operator_version_override_reaches_the_deployment() -> None:
    spec = existing("azure", None, acceptance=ON,
                    addons={"mpi_operator": {"enabled": True, "version": "0.6.1"}})
    plan = plan_of(spec)
    deployment = next(m for m in all_manifests(plan) if m["kind"] == "Deployment")
    image = deployment["spec"]["template"]["spec"]["containers"][0]["image"]
    assert image == "mpioperator/mpi-operator:0.6.1"
    assert plan_of(spec_for("azure")).mpi_operator_image == versions.MPI_OPERATOR


@pytest.mark.parametrize(("acceptance", "machine", "field", "cloud"), [
    ({"gpus_per_node": 9}, None, "acceptance.gpus_per_node", "aws"),
    ({"pool": "nope"}, None, "acceptance.pool", "aws"),
    ({}, "g5.48xlarge", "machine_type", "aws"),  # no fabric (the spec already refuses)
    ({}, "BM.GPU.MI300X.8", "acceptance.pool", "oci"),  # AMD: nccl-tests does not run
])
def test_impossible_acceptance_is_refused_with_the_field(
    acceptance: dict[str, Any], machine: str | None, field: str, cloud: str
) -> None:
    with pytest.raises(SpecError) as info:
        plan_of(spec_for(cloud, machine, **acceptance))
    assert field in str(info.value)


def test_more_nodes_than_the_pool_has_is_refused() -> None:
    from gpu_fabric.spec import load_spec
    from tests.specs import spec_dict

    with pytest.raises(SpecError, match=r"acceptance\.nodes"):
        plan_of(load_spec(spec_dict("aws", acceptance={**ON, "nodes": 3})))


# -- the component under the mock runtime ------------------------------------------------
def _program(spec: ClusterSpec) -> Any:
    def program() -> None:
        import pulumi_kubernetes as k8s

        from gpu_fabric.fabric.description import describe_cluster
        from gpu_fabric.nccl.component import NcclAcceptance, NcclAcceptanceArgs

        provider = k8s.Provider("k8s", kubeconfig="{}")
        acc = NcclAcceptance(
            "team-acc", NcclAcceptanceArgs(spec=spec, fabrics=describe_cluster(spec)),
            opts=pulumi.ResourceOptions(providers={"kubernetes": provider}),
        )
        pulumi.export("report", acc.outputs()["report"])

    return program


def test_component_orders_the_mpijob_after_the_operator_crd() -> None:
    plan = run_program(_program(spec_for("azure")))
    (component,) = plan.by_type("gpufabric:nccl:NcclAcceptance")
    job = plan.one("kubernetes:kubeflow.org/v2beta1:MPIJob")
    crd = plan.one("kubernetes:apiextensions.k8s.io/v1:CustomResourceDefinition")
    assert job.parent == component.urn and crd.parent == component.urn
    assert plan.depends_on(job, crd)
    assert job.name.startswith("team-acc-") and job.inputs["metadata"]["name"] == "team-acc"
    deployment = plan.one("kubernetes:apps/v1:Deployment")
    assert plan.depends_on(deployment, crd)


def test_component_on_gke_creates_service_and_statefulset_only() -> None:
    plan = run_program(_program(spec_for("gcp", "a4-highgpu-8g")))
    kinds = sorted(r.type for r in plan.resources if r.type.startswith("kubernetes:")
                   and r.type != "pulumi:providers:kubernetes")
    assert kinds == ["kubernetes:apps/v1:StatefulSet", "kubernetes:core/v1:Service"]


# -- wired into every cluster ------------------------------------------------------------
@pytest.mark.parametrize("cloud", CLOUDS)
def test_cluster_runs_acceptance_after_its_fabric_layer(cloud: str, spec_plan: Any) -> None:
    from tests.specs import spec_dict

    plan = spec_plan(spec_dict(cloud, acceptance=ON))
    (cluster,) = [r for r in plan.resources if r.type.endswith(":GpuCluster")]
    (fabric,) = plan.by_type("gpufabric:kubernetes:FabricStack")
    (component,) = plan.by_type("gpufabric:nccl:NcclAcceptance")
    assert component.parent == cluster.urn and component.name == f"{cluster.name}-nccl"
    # depends_on a component waits for all of its resources (the SDK expands it).
    fabric_objects = {r.urn for r in plan.resources if r.parent == fabric.urn and r.custom}
    assert fabric_objects and fabric_objects <= set(component.dependencies)
    (provider,) = [r for r in plan.by_type("pulumi:providers:kubernetes")
                   if r.parent == cluster.urn]
    tests = [r for r in plan.resources if r.parent == component.urn]
    assert tests and all(r.provider and r.provider.startswith(provider.urn) for r in tests)
    acceptance = plan.outputs["acceptance"]
    assert acceptance["floor"] > 0 and "nccl-report" in acceptance["report"]


def test_cluster_without_acceptance_has_no_test(spec_plan: Any) -> None:
    from tests.specs import spec_dict

    plan = spec_plan(spec_dict("aws"))
    assert plan.by_type("gpufabric:nccl:NcclAcceptance") == []
    assert "acceptance" not in plan.outputs


@pytest.mark.parametrize(("name", "expected"), [
    ("Prod_Cluster-nccl", "prod-cluster-nccl"),
    ("8gpu-nccl", "nccl-8gpu-nccl"),  # MPIJob worker names must start with a letter
    ("---", "nccl-acceptance"),
])
def test_acceptance_names_are_dns_1035_labels(name: str, expected: str) -> None:
    from gpu_fabric.nccl.manifests import k8s_name

    assert k8s_name(name) == expected
    assert len(k8s_name("a" * 80)) <= 52


def test_the_mpijob_crd_is_upstreams_file() -> None:
    """The packaged CRD is kubeflow/mpi-operator v0.6.0 manifests/base/kubeflow.org_mpijobs.yaml
    (commit c983759cfa87fd32ed5711804021ea47eb8d712c), byte for byte: sha256 from
    tests/data/upstream/sources.json (entry crds/kubeflow.org/kubeflow.org_mpijobs.yaml)."""
    import hashlib
    import json
    from pathlib import Path

    crds = Path(gpu_fabric.nccl.__file__).parent / "crds"
    data = (crds / "kubeflow.org_mpijobs.yaml").read_bytes()
    assert hashlib.sha256(data).hexdigest() == (
        "b35e50739b197598bded45c55a4d15f03600cc8afb022332c7368db3faeb911b"
    )
    (entry,) = json.loads((crds / "sources.json").read_text())
    assert (entry["repo"], entry["ref"], entry["commit"], entry["path"]) == (
        "kubeflow/mpi-operator", "v0.6.0", "c983759cfa87fd32ed5711804021ea47eb8d712c",
        "manifests/base/kubeflow.org_mpijobs.yaml",
    )


def test_the_installed_mpijob_crd_validates_spec() -> None:
    """Upstream's schema, not a permissive one: spec is typed (kubeflow/mpi-operator v0.6.0
    manifests/base/kubeflow.org_mpijobs.yaml: spec at line 38, slotsPerWorker
    ``type: integer`` near line 8237, ``required: [mpiReplicaSpecs]`` at line 8250)."""
    crd = next(m for m in mpi_operator_manifests("acceptance")
               if m["kind"] == "CustomResourceDefinition")
    (version,) = crd["spec"]["versions"]
    spec = version["schema"]["openAPIV3Schema"]["properties"]["spec"]
    assert "x-kubernetes-preserve-unknown-fields" not in spec
    assert spec["required"] == ["mpiReplicaSpecs"]
    assert spec["properties"]["slotsPerWorker"]["type"] == "integer"
    assert crd["metadata"]["labels"] == {"app.kubernetes.io/managed-by": "gpu-fabric"}
