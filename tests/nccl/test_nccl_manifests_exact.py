"""The acceptance test's plan, scripts and objects, written out (docs/mutation.md).

Pure calls only (no Pulumi run), so the mutation run of ``components/gpu_fabric/nccl/manifests.py``
stays fast. Expected values are literal; where they come from:

* images: ``components/gpu_fabric/versions.py`` (each pin cites its upstream);
* floors and line rates: the catalog rows (tests/nccl/test_nccl_manifests.py
  ``FULL_NODE_FLOOR`` gives the derivation: 70% of 8 x 400 Gb/s = 280 GB/s, p5
  measured 377.2 GB/s; a4x-highgpu-4g: 4 x 400 Gb/s = 200 GB/s, 70% = 140);
* the GKE script: the seed shared/seeds/gke-nvidia-dra-dranet.md (StatefulSet args at
  lines 178-181, ``run_nccl_tests.sh -t all_gather -b 1K -e 8G ... -g 2`` at line 213);
* the MPI Operator: kubeflow/mpi-operator v0.6.0 (pkg/controller/mpi_job_controller.go
  for the verbs, cmd/mpi-operator/app/options/options.go for ``--namespace`` and
  ``--lock-namespace``), as quoted in components/gpu_fabric/nccl/manifests.py;
* the spec defaults (``nodes: 2``, ``collectives: [all_reduce]``, ``1M``..``8G``):
  components/gpu_fabric/spec/tenancy.py ``AcceptanceSpec``.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from gpu_fabric import versions
from gpu_fabric.catalog import get_machine
from gpu_fabric.errors import SpecError
from gpu_fabric.fabric.description import describe_cluster
from gpu_fabric.fabric.workload import pod_fragment
from gpu_fabric.nccl.manifests import (
    AcceptancePlan,
    Runner,
    acceptance_env,
    acceptance_manifests,
    all_manifests,
    gib_script,
    k8s_name,
    mpi_operator_manifests,
    mpijob_crd,
    mpijob_manifest,
    mpirun_script,
    plan_acceptance,
    report_hint,
    statefulset_manifests,
)
from gpu_fabric.spec import ClusterSpec, load_spec
from tests.fabric_helpers import existing
from tests.specs import spec_dict

ON = {"enabled": True}
MANAGED = {"app.kubernetes.io/managed-by": "gpu-fabric"}
# The pinned images (components/gpu_fabric/versions.py): which one each cloud runs is the
# point here, not their tags (those show in tests/data/golden/ and docs/images.md).
IB_IMAGE = versions.NCCL_TESTS_IB.ref
EFA_IMAGE = versions.NCCL_TESTS_EFA.ref
GIB_IMAGE = versions.GKE_NCCL_DIAGNOSTIC.ref
GIB_ARM_IMAGE = versions.GKE_NCCL_DIAGNOSTIC_ARM64.ref


def _plan(cloud: str, machine: str | None = None, name: str = "acc",
          **acceptance: Any) -> AcceptancePlan:
    spec = existing(cloud, machine, acceptance={**ON, **acceptance})
    return plan_acceptance(spec, describe_cluster(spec), name)


def _refusal(spec: ClusterSpec, fabrics: Any = None) -> tuple[str, str, Any]:
    with pytest.raises(SpecError) as info:
        plan_acceptance(spec, describe_cluster(spec) if fabrics is None else fabrics, "acc")
    (problem,) = info.value.problems
    return problem.path, problem.message, problem.value


# -- names ----------------------------------------------------------------------------------
@pytest.mark.parametrize(("name", "expected"), [
    ("Prod_Cluster-nccl", "prod-cluster-nccl"),
    ("Team.ACC", "team-acc"),
    ("-team-", "team"),
    ("9", "nccl-9"),
    ("", "nccl-acceptance"),
    ("a" * 80, "a" * 52),                # pod names: <= 52 characters
    ("x" * 51 + "-y", "x" * 51),         # cut at 52, the trailing dash dropped
])
def test_k8s_names(name: str, expected: str) -> None:
    assert k8s_name(name) == expected


# -- the plan ---------------------------------------------------------------------------------
def test_azure_plan_fields() -> None:
    plan = _plan("azure")
    assert (plan.name, plan.namespace, plan.nodes, plan.gpus_per_node, plan.ranks) == (
        "acc", "default", 2, 8, 16
    )
    assert (plan.collectives, plan.min_bytes, plan.max_bytes) == (("all_reduce",), "1M", "8G")
    assert (plan.runner, plan.image.ref, plan.floor, plan.line_rate) == (
        Runner.MPIJOB, IB_IMAGE, 280.0, 400.0
    )
    assert plan.install_mpi_operator is True
    assert plan.mpi_operator_image == versions.MPI_OPERATOR
    assert plan.labels == {"gpufabric.dev/nccl-acceptance": "acc"}
    assert plan.fabric.machine.name == "Standard_ND96isr_H100_v5"


@pytest.mark.parametrize(("cloud", "machine", "runner", "image", "floor", "line_rate", "mpi"), [
    ("aws", "p5.48xlarge", Runner.MPIJOB, EFA_IMAGE, 377.2, 400.0, True),
    ("oci", None, Runner.MPIJOB, IB_IMAGE, 280.0, 400.0, True),
    ("digitalocean", None, Runner.MPIJOB, IB_IMAGE, 280.0, 400.0, True),
    ("gcp", "a4-highgpu-8g", Runner.STATEFULSET, GIB_IMAGE, 280.0, 400.0, False),
    ("gcp", "a4x-highgpu-4g", Runner.STATEFULSET, GIB_ARM_IMAGE, 140.0, 200.0, False),
])
def test_runner_and_image_per_fabric(cloud: str, machine: str | None, runner: Runner,
                                     image: str, floor: float, line_rate: float,
                                     mpi: bool) -> None:
    plan = _plan(cloud, machine)
    assert (plan.runner, plan.image.ref, plan.floor, plan.line_rate) == (
        runner, image, floor, line_rate
    )
    assert plan.install_mpi_operator is mpi


def test_spec_choices_reach_the_plan() -> None:
    plan = _plan("azure", None, "Team-ACC", gpus_per_node=2, nodes=2,
                 collectives=["all_gather", "alltoall"], min_bytes="8", max_bytes="1G")
    assert (plan.name, plan.gpus_per_node, plan.ranks, plan.collectives) == (
        "team-acc", 2, 4, ("all_gather", "alltoall")
    )
    assert (plan.min_bytes, plan.max_bytes, plan.floor, plan.line_rate) == (
        "8", "1G", 70.0, 100.0
    )


def test_mpi_operator_can_be_left_out_or_repinned() -> None:
    spec = existing("azure", None, acceptance=ON, addons={"mpi_operator": {"enabled": False}})
    off = plan_acceptance(spec, describe_cluster(spec), "acc")
    assert off.install_mpi_operator is False
    assert [m["kind"] for m in all_manifests(off)] == ["MPIJob"]
    spec = existing("azure", None, acceptance=ON,
                    addons={"mpi_operator": {"enabled": True, "version": "0.6.1"}})
    assert plan_acceptance(spec, describe_cluster(spec), "acc").mpi_operator_image.ref == (
        "mpioperator/mpi-operator:0.6.1"
    )


# -- refusals (each names the field, says what is valid, before any resource) ---------------
def test_a_pool_without_a_fabric_description_is_refused() -> None:
    spec = existing("azure", None, acceptance=ON)
    assert _refusal(spec, {}) == (
        "acceptance.pool", "no GPU pool named 'gpu'; pools: ", "gpu"
    )
    fabrics = describe_cluster(spec)
    spec = existing("azure", None, acceptance={**ON, "pool": "gpu"})
    other = {"gpu2": fabrics["gpu"], "gpu3": fabrics["gpu"]}
    assert _refusal(spec, other)[1] == "no GPU pool named 'gpu'; pools: gpu2, gpu3"


def test_a_machine_without_fabric_is_refused() -> None:
    spec = existing("aws", None, acceptance=ON)
    fabric = describe_cluster(spec)["gpu"]
    g5 = {"gpu": dataclasses.replace(fabric, machine=get_machine("g5.48xlarge"))}
    assert _refusal(spec, g5) == (
        "acceptance.pool",
        "pool 'gpu' runs g5.48xlarge, which has no scale-out fabric (or no busbw floor) in "
        "the catalog: nothing to accept",
        "gpu",
    )


def test_amd_gpus_are_refused() -> None:
    assert _refusal(existing("oci", "BM.GPU.MI300X.8", acceptance=ON)) == (
        "acceptance.pool",
        "pool 'gpu' runs BM.GPU.MI300X.8 (MI300X 192GB); the acceptance test runs "
        "nccl-tests, which needs NVIDIA GPUs (rccl-tests is not supported yet)",
        "gpu",
    )


def _bypass(spec: ClusterSpec, **acceptance: Any) -> ClusterSpec:
    """The spec with acceptance values its own validation would refuse: plan_acceptance
    checks again, for callers that build the spec in code."""
    return spec.model_copy(update={"acceptance": spec.acceptance.model_copy(update=acceptance)})


def test_more_gpus_than_the_machine_has_is_refused() -> None:
    spec = _bypass(existing("aws", None, acceptance=ON), gpus_per_node=9)
    assert _refusal(spec) == (
        "acceptance.gpus_per_node", "p5.48xlarge has 8 GPUs; expected 1..8", 9
    )
    spec = _bypass(existing("aws", None, acceptance=ON), gpus_per_node=8)
    assert plan_acceptance(spec, describe_cluster(spec), "acc").gpus_per_node == 8


def test_partial_node_pods_where_the_fabric_forbids_them_are_refused() -> None:
    path, message, value = _refusal(existing("digitalocean", None,
                                             acceptance={**ON, "gpus_per_node": 2}))
    assert (path, value) == ("acceptance.gpus_per_node", 2)
    assert message.startswith("pool 'gpu' gives the fabric only to pods with 8 GPUs: DOKS ")


def test_every_allowed_pod_size_is_listed() -> None:
    spec = existing("azure", None, acceptance={**ON, "gpus_per_node": 2})
    fabric = describe_cluster(spec)["gpu"]
    limited = dataclasses.replace(fabric, pod_gpu_counts=(4, 8),
                                  pod_gpu_counts_reason="the reason")
    assert _refusal(spec, {"gpu": limited}) == (
        "acceptance.gpus_per_node",
        "pool 'gpu' gives the fabric only to pods with 4, 8 GPUs: the reason", 2,
    )


def test_dra_pools_need_a_claim_template_for_the_gpu_count() -> None:
    assert _refusal(existing("gcp", "a4-highgpu-8g", acceptance={**ON, "gpus_per_node": 3})) == (
        "acceptance.gpus_per_node",
        "DRA pools only have claim templates for [1, 2, 4, 8] GPUs (fabric.claim_gpu_counts)",
        3,
    )


def test_more_nodes_than_the_pool_can_have_is_refused() -> None:
    data = spec_dict("aws", acceptance=ON)
    spec = _bypass(load_spec(data), nodes=3)
    assert _refusal(spec) == (
        "acceptance.nodes", "pool 'gpu' has at most 2 node(s); the test needs 3 (one pod "
        "per node)", 3
    )
    # An autoscaling pool can grow to max_nodes.
    data["node_pools"][0].update(min_nodes=1, max_nodes=3)
    spec = _bypass(load_spec(data), nodes=3)
    assert plan_acceptance(spec, describe_cluster(spec), "acc").nodes == 3
    assert _refusal(_bypass(load_spec(data), nodes=4))[1] == (
        "pool 'gpu' has at most 3 node(s); the test needs 4 (one pod per node)")
    # An existing cluster's pools may hold more nodes than the spec says: not refused.
    spec = _bypass(existing("aws", None, acceptance=ON), nodes=3)
    assert plan_acceptance(spec, describe_cluster(spec), "acc").nodes == 3


# -- environment ------------------------------------------------------------------------------
def test_acceptance_env_is_the_fragment_env_plus_logging() -> None:
    plan = _plan("azure")
    fragment = pod_fragment(plan.fabric, 8).env
    env = acceptance_env(plan)
    # No NCCL_TESTS_MIN_BW: nccl-tests compares it with the average busbw over every size
    # (src/common.cu v2.16.9 lines 1262-1266), not the peak the catalog floor is for.
    assert {k: v for k, v in env.items() if k not in fragment} == {
        "NCCL_DEBUG": "INFO", "NCCL_DEBUG_SUBSYS": "INIT,NET"
    }
    assert {k: env[k] for k in fragment} == dict(fragment)
    assert list(env)[-2:] == ["NCCL_DEBUG", "NCCL_DEBUG_SUBSYS"]


# -- scripts ----------------------------------------------------------------------------------
def test_report_hint() -> None:
    assert report_hint(_plan("aws")) == (
        "python -m gpu_fabric nccl-report LOG --machine p5.48xlarge --nodes 2 "
        "--gpus-per-node 8"
    )


def test_gke_script_follows_the_seed() -> None:
    plan = _plan("gcp", "a4-highgpu-8g", "gke-acc", gpus_per_node=2,
                 collectives=["all_gather", "all_reduce"])
    assert gib_script(plan) == (
        "set -u\n"
        'echo -e "\\norte_keep_fqdn_hostnames=t" >> /etc/openmpi/openmpi-mca-params.conf\n'
        "/scripts/container_entry.sh shell\n"
        "source /usr/local/gib/scripts/set_nccl_env.sh\n"
        'if [ "${HOSTNAME##*-}" = "0" ] && [ ! -e /tmp/nccl-acceptance.done ]; then\n'
        "  status=0\n"
        "  sleep 30  # let the other pods start sshd\n"
        "  /usr/local/gib/scripts/run_nccl_tests.sh -t all_gather -b 1M -e 8G -f 2 -g 2 "
        "gke-acc-0.gke-acc gke-acc-1.gke-acc || status=1\n"
        "  /usr/local/gib/scripts/run_nccl_tests.sh -t all_reduce -b 1M -e 8G -f 2 -g 2 "
        "gke-acc-0.gke-acc gke-acc-1.gke-acc || status=1\n"
        '  echo "nccl-acceptance finished (status $status); judge with: python -m gpu_fabric '
        'nccl-report LOG --machine a4-highgpu-8g --nodes 2 --gpus-per-node 2"\n'
        "  touch /tmp/nccl-acceptance.done\n"
        "fi\n"
        "sleep infinity\n"
    )


def test_mpirun_script_forwards_every_variable() -> None:
    plan = _plan("azure", None, collectives=["all_reduce", "all_gather"])
    env = {"NCCL_NET": "IB", "NCCL_DEBUG": "INFO"}
    assert mpirun_script(plan, env) == (
        "set -u\n"
        "status=0\n"
        "for test in all_reduce all_gather; do\n"
        "  bin=$(command -v ${test}_perf || true)\n"
        "  for dir in /opt/nccl-tests/build /opt/nccl_tests/build /usr/local/bin; do\n"
        '    [ -z "$bin" ] && [ -x "$dir/${test}_perf" ] && bin="$dir/${test}_perf"\n'
        "  done\n"
        "  mpirun --allow-run-as-root -np 16 -N 8 --bind-to none --mca pml ^ucx "
        "--mca btl tcp,self --mca btl_tcp_if_exclude lo,docker0 -x NCCL_NET -x NCCL_DEBUG "
        '"$bin" -b 1M -e 8G -f 2 -g 1 || status=1\n'
        "done\n"
        "echo 'judge with: python -m gpu_fabric nccl-report LOG --machine "
        "Standard_ND96isr_H100_v5 --nodes 2 --gpus-per-node 8'\n"
        "exit $status\n"
    )


@pytest.mark.parametrize("field", ["min_bytes", "max_bytes"])
def test_scripts_refuse_a_size_the_spec_would_not_take(field: str) -> None:
    bad: dict[str, Any] = {field: "8 gigs"}
    plan = dataclasses.replace(_plan("azure"), **bad)
    with pytest.raises(ValueError, match="'8 gigs' is not a size like 64K, 1M or 8G"):
        mpirun_script(plan, {})
    gke = dataclasses.replace(_plan("gcp", "a4-highgpu-8g"), **bad)
    with pytest.raises(ValueError, match="'8 gigs' is not a size like 64K, 1M or 8G"):
        gib_script(gke)


# -- objects ----------------------------------------------------------------------------------
ANTI_AFFINITY = {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [{
    "labelSelector": {"matchLabels": {"gpufabric.dev/nccl-acceptance": "acc"}},
    "topologyKey": "kubernetes.io/hostname",
}]}}


def test_gke_service_and_statefulset() -> None:
    plan = _plan("gcp", "a4-highgpu-8g")
    labels = {"gpufabric.dev/nccl-acceptance": "acc"}
    service, statefulset = statefulset_manifests(plan)
    assert service == {
        "apiVersion": "v1", "kind": "Service",
        "metadata": {"name": "acc", "namespace": "default", "labels": {**MANAGED, **labels}},
        "spec": {"clusterIP": "None", "selector": labels},
    }
    assert (statefulset["apiVersion"], statefulset["kind"]) == ("apps/v1", "StatefulSet")
    assert statefulset["metadata"] == service["metadata"]
    spec = statefulset["spec"]
    assert {k: v for k, v in spec.items() if k != "template"} == {
        "replicas": 2, "serviceName": "acc", "podManagementPolicy": "Parallel",
        "selector": {"matchLabels": labels},
    }
    pod = spec["template"]
    assert pod["metadata"]["labels"] == labels
    assert pod["spec"]["affinity"] == ANTI_AFFINITY
    container = pod["spec"]["containers"][0]
    assert (container["name"], container["image"], container["command"]) == (
        "nccl-test", GIB_IMAGE, ["/bin/bash", "-c"]
    )
    assert container["args"] == [gib_script(plan)]
    assert acceptance_manifests(plan) == [service, statefulset]


def test_mpijob_fields() -> None:
    plan = _plan("azure")
    labels = {"gpufabric.dev/nccl-acceptance": "acc"}
    job = mpijob_manifest(plan)
    assert (job["apiVersion"], job["kind"]) == ("kubeflow.org/v2beta1", "MPIJob")
    assert job["metadata"] == {"name": "acc", "namespace": "default",
                               "labels": {**MANAGED, **labels}}
    spec = job["spec"]
    assert (spec["slotsPerWorker"], spec["runPolicy"], spec["mpiImplementation"]) == (
        8, {"cleanPodPolicy": "Running", "backoffLimit": 0}, "OpenMPI"
    )
    launcher = spec["mpiReplicaSpecs"]["Launcher"]
    assert (launcher["replicas"], launcher["restartPolicy"]) == (1, "Never")
    assert launcher["template"]["metadata"] == {"labels": labels}
    # AKS GPU pools carry sku=gpu:NoSchedule (catalog/fabric taints): the launcher
    # tolerates it exactly, as a workload does.
    assert launcher["template"]["spec"]["tolerations"] == [
        {"key": "sku", "operator": "Equal", "value": "gpu", "effect": "NoSchedule"}
    ]
    (container,) = launcher["template"]["spec"]["containers"]
    env = acceptance_env(plan)
    assert container == {
        "name": "nccl-test", "image": IB_IMAGE, "command": ["/bin/bash", "-c"],
        "args": [mpirun_script(plan, env)],
        "env": [{"name": k, "value": v} for k, v in env.items()],
        "resources": {"requests": {"cpu": "1", "memory": "2Gi"}, "limits": {"memory": "2Gi"}},
    }
    worker = spec["mpiReplicaSpecs"]["Worker"]
    assert worker["replicas"] == 2
    pod = worker["template"]
    assert pod["metadata"]["labels"] == labels
    assert pod["spec"]["affinity"] == ANTI_AFFINITY
    main = pod["spec"]["containers"][0]
    assert (main["name"], main["image"], main["command"], main["args"]) == (
        "nccl-test", IB_IMAGE, ["/usr/sbin/sshd"], ["-De"]
    )
    # The fragment's env entries are replaced by the test's, never doubled.
    assert [e["name"] for e in main["env"]] == list(env)
    assert {e["name"]: e["value"] for e in main["env"]} == env
    assert acceptance_manifests(plan) == [job]


def test_launcher_without_taints_has_no_tolerations() -> None:
    plan = _plan("azure")
    plain = dataclasses.replace(plan, fabric=dataclasses.replace(plan.fabric, taints=()))
    launcher = mpijob_manifest(plain)["spec"]["mpiReplicaSpecs"]["Launcher"]
    assert "tolerations" not in launcher["template"]["spec"]


def test_mpijob_crd_metadata() -> None:
    crd = mpijob_crd()
    # kubeflow.org_mpijobs.yaml v0.6.0: name and controller-gen annotation, our label added.
    assert crd["metadata"] == {
        "name": "mpijobs.kubeflow.org", "labels": MANAGED,
        "annotations": {"controller-gen.kubebuilder.io/version": "v0.16.4"},
    }
    assert (crd["apiVersion"], crd["kind"]) == (
        "apiextensions.k8s.io/v1", "CustomResourceDefinition"
    )
    crd["metadata"]["name"] = "changed"
    assert mpijob_crd()["metadata"]["name"] == "mpijobs.kubeflow.org"  # a fresh copy


def _rule(groups: list[str], resources: list[str], verbs: list[str]) -> dict[str, Any]:
    return {"apiGroups": groups, "resources": resources, "verbs": verbs}


def _meta(name: str, namespace: str | None = None) -> dict[str, Any]:
    return {"name": name, **({"namespace": namespace} if namespace else {}), "labels": MANAGED}


RBAC = "rbac.authorization.k8s.io/v1"
OPERATOR_SA = [{"kind": "ServiceAccount", "name": "mpi-operator", "namespace": "mpi-operator"}]


def test_mpi_operator_objects() -> None:
    (ns, crd, sa, cluster_role, cluster_binding, role, binding, lock, lock_binding,
     deployment) = mpi_operator_manifests("acceptance")
    assert ns == {"apiVersion": "v1", "kind": "Namespace", "metadata": {
        "name": "mpi-operator",
        "labels": {**MANAGED, "kubernetes.io/metadata.name": "mpi-operator"}}}
    assert crd == mpijob_crd()
    assert (sa["kind"], sa["metadata"]) == ("ServiceAccount", _meta("mpi-operator", "mpi-operator"))
    assert cluster_role == {
        "apiVersion": RBAC, "kind": "ClusterRole", "metadata": _meta("mpi-operator"),
        "rules": [_rule(["scheduling.k8s.io"], ["priorityclasses"], ["get", "list", "watch"])],
    }
    assert cluster_binding == {
        "apiVersion": RBAC, "kind": "ClusterRoleBinding", "metadata": _meta("mpi-operator"),
        "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole",
                    "name": "mpi-operator"},
        "subjects": OPERATOR_SA,
    }
    assert role == {
        "apiVersion": RBAC, "kind": "Role", "metadata": _meta("mpi-operator", "acceptance"),
        "rules": [
            _rule([""], ["configmaps", "secrets", "services"], ["list", "watch", "create",
                                                                "update"]),
            _rule([""], ["pods"], ["get", "list", "watch", "create", "delete"]),
            _rule([""], ["events"], ["create", "patch"]),
            _rule(["batch"], ["jobs"], ["list", "watch", "create", "update"]),
            _rule(["kubeflow.org"], ["mpijobs"], ["get", "list", "watch", "update"]),
            _rule(["kubeflow.org"], ["mpijobs/status", "mpijobs/finalizers"],
                  ["update", "patch"]),
        ],
    }
    assert binding == {
        "apiVersion": RBAC, "kind": "RoleBinding", "metadata": _meta("mpi-operator", "acceptance"),
        "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role",
                    "name": "mpi-operator"},
        "subjects": OPERATOR_SA,
    }
    assert lock == {
        "apiVersion": RBAC, "kind": "Role", "metadata": _meta("mpi-operator-lock", "mpi-operator"),
        "rules": [_rule(["coordination.k8s.io"], ["leases"], ["get", "create", "update"]),
                  _rule([""], ["events"], ["create", "patch"])],
    }
    assert lock_binding["roleRef"]["name"] == "mpi-operator-lock"
    assert lock_binding["metadata"] == _meta("mpi-operator-lock", "mpi-operator")
    assert lock_binding["subjects"] == OPERATOR_SA
    assert deployment == {
        "apiVersion": "apps/v1", "kind": "Deployment",
        "metadata": {**_meta("mpi-operator", "mpi-operator"),
                     "labels": {**MANAGED, "app": "mpi-operator"}},
        "spec": {
            "replicas": 1,
            "selector": {"matchLabels": {"app": "mpi-operator"}},
            "template": {
                "metadata": {"labels": {"app": "mpi-operator"},
                             "annotations": {"sidecar.istio.io/inject": "false"}},
                "spec": {
                    "serviceAccountName": "mpi-operator",
                    # 65532: the distroless "nonroot" user.
                    "securityContext": {"runAsNonRoot": True, "runAsUser": 65532,
                                        "runAsGroup": 65532,
                                        "seccompProfile": {"type": "RuntimeDefault"}},
                    "containers": [{
                        "name": "mpi-operator",
                        "image": versions.MPI_OPERATOR.ref,
                        "args": ["-alsologtostderr", "--lock-namespace", "mpi-operator",
                                 "--namespace", "acceptance"],
                        "resources": {"requests": {"cpu": "100m", "memory": "256Mi"},
                                      "limits": {"memory": "256Mi"}},
                        "securityContext": {"allowPrivilegeEscalation": False,
                                            "readOnlyRootFilesystem": True,
                                            "capabilities": {"drop": ["ALL"]}},
                    }],
                },
            },
        },
    }


def test_all_manifests_put_the_operator_first() -> None:
    spec = existing("azure", None, acceptance=ON,
                    addons={"mpi_operator": {"enabled": True, "version": "0.6.1"}})
    plan = plan_acceptance(spec, describe_cluster(spec), "acc")
    manifests = all_manifests(plan)
    assert [m["kind"] for m in manifests] == [
        "Namespace", "CustomResourceDefinition", "ServiceAccount", "ClusterRole",
        "ClusterRoleBinding", "Role", "RoleBinding", "Role", "RoleBinding", "Deployment",
        "MPIJob",
    ]
    deployment = manifests[9]["spec"]["template"]["spec"]
    assert deployment["containers"][0]["image"] == "mpioperator/mpi-operator:0.6.1"
    assert deployment["containers"][0]["args"][-1] == "default"  # watches the test's namespace
    assert [m["kind"] for m in all_manifests(_plan("gcp", "a4-highgpu-8g"))] == [
        "Service", "StatefulSet"
    ]
