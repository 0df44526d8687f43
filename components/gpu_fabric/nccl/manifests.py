"""The NCCL acceptance test as Kubernetes objects (pure: spec + fabrics in, dicts out).

Every test pod is built from :func:`gpu_fabric.fabric.workload.pod_fragment`, the
same fragment a real training job gets, so the test exercises exactly the fabric
users will run on. Two runners:

* ``statefulset`` (GKE RDMA, gIB): the GKE seed's shape - a headless Service and
  a StatefulSet of the gIB diagnostic image; pod 0 runs
  ``/usr/local/gib/scripts/run_nccl_tests.sh`` against every pod's DNS name.
* ``mpijob`` (everything else): a Kubeflow ``MPIJob`` (v2beta1) with one worker
  per node and a launcher that runs ``mpirun`` for every collective, forwarding the
  fabric's NCCL environment with ``-x`` (processes started over ssh do not inherit
  the worker container's environment). The MPI Operator is installed with it.

``NCCL_DEBUG=INFO`` makes the transport visible to ``nccl-report``, which judges
the peak busbw of the >= 1 GiB rows against the catalog floor. ``NCCL_TESTS_MIN_BW``
is not set: nccl-tests compares it with the *average* busbw over every size
(src/common.cu at v2.16.9: ``bw[0] /= bw_count[0]`` then ``bw[0] < check_avg_bw*(0.9)``),
which small messages drag far below the peak, so the floor there fails healthy runs.
"""

from __future__ import annotations

import json
import re
import shlex
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from functools import cache
from importlib.resources import files as resources_files
from typing import Any

import yaml

from gpu_fabric import versions
from gpu_fabric.catalog import FabricKind, GpuVendor
from gpu_fabric.fabric.addons import MPI_OPERATOR
from gpu_fabric.fabric.description import Attach, FabricDescription
from gpu_fabric.fabric.layer import Manifest
from gpu_fabric.fabric.manifests.common import (
    cluster_role,
    cluster_role_binding,
    meta,
    namespace,
    resources,
    role,
    role_binding,
    rule,
    service_account,
)
from gpu_fabric.fabric.problems import refuse
from gpu_fabric.fabric.workload import job_compute_domain, pod_fragment
from gpu_fabric.spec import ClusterSpec, parse_size
from gpu_fabric.versions import Image

APP_LABEL = "gpufabric.dev/nccl-acceptance"
# The add-on's namespace (the one Kyverno's fabric policies leave alone).
MPI_OPERATOR_NAMESPACE = MPI_OPERATOR.namespace
MPI_OPERATOR_NAME = "mpi-operator"
TEST_CONTAINER = "nccl-test"
# Where nccl-tests binaries live in the pinned images (first hit wins).
_BINARY_DIRS = ("/opt/nccl-tests/build", "/opt/nccl_tests/build", "/usr/local/bin")


@dataclass(frozen=True)
class Launch:
    """How an image's launcher starts the ranks: mpirun's path, and the image's Docker
    ``ENV`` the ranks need (ranks started over sshd do not get the image's ENV)."""

    mpirun: str
    forward: tuple[str, ...]


# The EFA image (versions.NCCL_TESTS_EFA) is built from awsome-distributed-training
# 7217859 micro-benchmarks/nccl-tests/nccl-tests.Dockerfile, which sets LD_LIBRARY_PATH
# and PATH (lines 56-57, 72 and 75) and LD_PRELOAD=/opt/nccl/build/lib/libnccl.so (line
# 117); its MPIJob (kubernetes/nccl-tests.yaml lines 26, 35-38) runs
# /opt/amazon/openmpi/bin/mpirun with -x PATH -x LD_LIBRARY_PATH.
_LAUNCH = {
    versions.NCCL_TESTS_EFA.repository: Launch(
        "/opt/amazon/openmpi/bin/mpirun", ("PATH", "LD_LIBRARY_PATH", "LD_PRELOAD")),
}
_DEFAULT_LAUNCH = Launch("mpirun", ())


def launch_of(image: Image) -> Launch:
    return _LAUNCH.get(image.repository, _DEFAULT_LAUNCH)


class Runner(StrEnum):
    STATEFULSET = "statefulset"
    MPIJOB = "mpijob"


@dataclass(frozen=True)
class AcceptancePlan:
    """Everything the manifests need, derived and validated from the spec."""

    name: str  # base name of the Kubernetes objects
    namespace: str
    fabric: FabricDescription
    nodes: int
    gpus_per_node: int
    collectives: tuple[str, ...]
    min_bytes: str
    max_bytes: str
    runner: Runner
    image: Image
    floor: float | None
    line_rate: float
    install_mpi_operator: bool
    # addons.mpi_operator.version overrides the pinned tag.
    mpi_operator_image: Image = versions.MPI_OPERATOR
    # GB200/GB300: the test's own ComputeDomain (one per job, docs/platform.md); None on
    # machines without a multi-node NVLink domain.
    compute_domain: str | None = None

    @property
    def ranks(self) -> int:
        return self.nodes * self.gpus_per_node

    @property
    def labels(self) -> dict[str, str]:
        return {APP_LABEL: self.name}


def k8s_name(name: str) -> str:
    """A DNS-1035 label from a Pulumi name (lowercase, [a-z0-9-], starts with a letter, as
    the MPI Operator's ``<name>-worker-N`` names must; <= 52 chars for pod names)."""
    cleaned = re.sub(r"[^a-z0-9-]+", "-", name.lower()).strip("-")
    if cleaned and not cleaned[0].isalpha():
        cleaned = f"nccl-{cleaned}"
    return cleaned[:52].rstrip("-") or "nccl-acceptance"


def plan_acceptance(
    spec: ClusterSpec, fabrics: Mapping[str, FabricDescription], name: str
) -> AcceptancePlan:
    """Validate ``spec.acceptance`` against the pools and the catalog; refuse with a field path."""
    acc = spec.acceptance
    pool_name = acc.pool or spec.node_pools[0].name
    if pool_name not in fabrics:
        refuse("acceptance.pool", f"no GPU pool named '{pool_name}'; pools: "
               f"{', '.join(fabrics)}", pool_name)
    fabric = fabrics[pool_name]
    machine = fabric.machine
    if not machine.is_multi_node_capable:
        refuse("acceptance.pool", f"pool '{pool_name}' runs {machine.name}, which has no "
               "scale-out fabric (or no busbw floor) in the catalog: nothing to accept",
               pool_name)
    if machine.gpu.vendor is not GpuVendor.NVIDIA:
        refuse("acceptance.pool", f"pool '{pool_name}' runs {machine.name} "
               f"({machine.gpu.model}); the acceptance test runs nccl-tests, which needs "
               "NVIDIA GPUs (rccl-tests is not supported yet)", pool_name)
    gpus = acc.gpus_per_node or machine.gpus
    if gpus > machine.gpus:
        refuse("acceptance.gpus_per_node", f"{machine.name} has {machine.gpus} GPUs; "
               f"expected 1..{machine.gpus}", gpus)
    if fabric.pod_gpu_counts is not None and gpus not in fabric.pod_gpu_counts:
        refuse("acceptance.gpus_per_node", f"pool '{pool_name}' gives the fabric only to pods "
               f"with {', '.join(map(str, fabric.pod_gpu_counts))} GPUs: "
               f"{fabric.pod_gpu_counts_reason}", gpus)
    pool = next(p for p in spec.node_pools if p.name == pool_name)
    capacity = max(pool.node_count, pool.max_nodes or 0)
    if spec.existing is None and capacity < acc.nodes:
        refuse("acceptance.nodes", f"pool '{pool_name}' has at most {capacity} node(s); "
               f"the test needs {acc.nodes} (one pod per node)", acc.nodes)
    per_domain = machine.nvlink_domain_nodes
    if per_domain is not None and acc.nodes > per_domain:
        refuse("acceptance.nodes", f"the test runs inside one NVLink domain of {machine.name} "
               f"({machine.nvlink_domain} GPUs, {per_domain} nodes), where nccl-report judges it "
               f"against the NVLink floor; use 2..{per_domain} nodes", acc.nodes)
    if fabric.attach is Attach.DRA and gpus not in spec.fabric.claim_gpu_counts:
        refuse("acceptance.gpus_per_node", f"DRA pools only have claim templates for "
               f"{spec.fabric.claim_gpu_counts} GPUs (fabric.claim_gpu_counts)", gpus)
    gke_gib = (
        machine.nccl is not None and machine.nccl.net == "gIB"
        and machine.fabric is FabricKind.ROCE
    )
    runner = Runner.STATEFULSET if gke_gib else Runner.MPIJOB
    if runner is Runner.STATEFULSET:
        image = (versions.GKE_NCCL_DIAGNOSTIC_ARM64 if machine.cpu_arch == "arm64"
                 else versions.GKE_NCCL_DIAGNOSTIC)
    elif machine.fabric is FabricKind.EFA:
        if machine.cpu_arch == "arm64":
            # awsome-distributed-training 7217859 micro-benchmarks/nccl-tests/README.md
            # line 71: on p6e-gb200 build the image yourself with --platform=linux/arm64
            # (its nccl-tests-gb200.yaml runs an unpinned ":latest" of a private repo).
            refuse("acceptance.enabled", f"{machine.name} runs arm64 hosts and no pinned "
                   "arm64 build of the EFA nccl-tests image is published (awsome-distributed-"
                   "training's README: build it with --platform=linux/arm64); run nccl-tests "
                   "from your own image and judge its log with nccl-report", True)
        image = versions.NCCL_TESTS_EFA
    else:
        image = (versions.NCCL_TESTS_IB_ARM64 if machine.cpu_arch == "arm64"
                 else versions.NCCL_TESTS_IB)
    return AcceptancePlan(
        name=k8s_name(name),
        namespace=spec.fabric.namespaces[0],
        fabric=fabric,
        nodes=acc.nodes,
        gpus_per_node=gpus,
        collectives=tuple(acc.collectives),
        min_bytes=acc.min_bytes,
        max_bytes=acc.max_bytes,
        runner=runner,
        image=image,
        floor=machine.floor_for(gpus),
        line_rate=machine.line_rate_for(gpus),
        install_mpi_operator=runner is Runner.MPIJOB
        and spec.addons.choice(MPI_OPERATOR).enabled is not False,
        mpi_operator_image=_mpi_operator_image(spec),
        compute_domain=f"{k8s_name(name)[:49].rstrip('-')}-cd" if machine.nvlink_domain
        else None,
    )


def _mpi_operator_image(spec: ClusterSpec) -> Image:
    version = spec.addons.choice(MPI_OPERATOR).version
    return versions.MPI_OPERATOR.with_tag(version) if version else versions.MPI_OPERATOR


# -- environment and commands ----------------------------------------------------
def acceptance_env(plan: AcceptancePlan) -> dict[str, str]:
    """The fabric's NCCL env plus the test's INFO logging (the transport evidence)."""
    env = dict(pod_fragment(plan.fabric, plan.gpus_per_node).env)
    env["NCCL_DEBUG"] = "INFO"
    env["NCCL_DEBUG_SUBSYS"] = "INIT,NET"
    return env


def _size_arg(size: str) -> str:
    parse_size(size)  # validated by the spec; fails loudly if not
    return size


def report_hint(plan: AcceptancePlan) -> str:
    """The nccl-report command that judges this test's log."""
    return (
        f"python -m gpu_fabric nccl-report LOG --machine {plan.fabric.machine.name} "
        f"--nodes {plan.nodes} --gpus-per-node {plan.gpus_per_node}"
    )


def gib_script(plan: AcceptancePlan) -> str:
    """Pod script of the GKE runner: every pod serves ssh; pod 0 runs the tests once."""
    hosts = " ".join(f"{plan.name}-{i}.{plan.name}" for i in range(plan.nodes))
    runs = "\n".join(
        f"  /usr/local/gib/scripts/run_nccl_tests.sh -t {c} -b {_size_arg(plan.min_bytes)} "
        f"-e {_size_arg(plan.max_bytes)} -f 2 -g {plan.gpus_per_node} {hosts} || status=1"
        for c in plan.collectives
    )
    return (
        "set -u\n"
        'echo -e "\\norte_keep_fqdn_hostnames=t" >> /etc/openmpi/openmpi-mca-params.conf\n'
        "/scripts/container_entry.sh shell\n"
        "source /usr/local/gib/scripts/set_nccl_env.sh\n"
        f'if [ "${{HOSTNAME##*-}}" = "0" ] && [ ! -e /tmp/nccl-acceptance.done ]; then\n'
        "  status=0\n"
        f"  sleep 30  # let the other pods start sshd\n{runs}\n"
        f'  echo "nccl-acceptance finished (status $status); judge with: '
        f'{report_hint(plan)}"\n'
        "  touch /tmp/nccl-acceptance.done\n"
        "fi\n"
        "sleep infinity\n"
    )


def mpirun_script(plan: AcceptancePlan, env: Mapping[str, str]) -> str:
    """Launcher script: one mpirun per collective, forwarding the NCCL environment."""
    launch = launch_of(plan.image)
    forwards = " ".join(f"-x {k}" for k in dict.fromkeys((*launch.forward, *env)))
    finder = " ".join(_BINARY_DIRS)
    lines = [
        "set -u",
        "status=0",
        f"for test in {' '.join(plan.collectives)}; do",
        "  bin=$(command -v ${test}_perf || true)",
        f"  for dir in {finder}; do",
        '    [ -z "$bin" ] && [ -x "$dir/${test}_perf" ] && bin="$dir/${test}_perf"',
        "  done",
        f"  {launch.mpirun} --allow-run-as-root -np {plan.ranks} -N {plan.gpus_per_node} "
        f"--bind-to none --mca pml ^ucx --mca btl tcp,self "
        f"--mca btl_tcp_if_exclude lo,docker0 {forwards} "
        f'"$bin" -b {_size_arg(plan.min_bytes)} -e {_size_arg(plan.max_bytes)} -f 2 -g 1 '
        "|| status=1",
        "done",
        f"echo {shlex.quote('judge with: ' + report_hint(plan))}",
        "exit $status",
    ]
    return "\n".join(lines) + "\n"


# -- GKE runner: headless Service + StatefulSet (the seed's shape) ------------------
def _anti_affinity(plan: AcceptancePlan) -> dict[str, Any]:
    """One test pod per node: a 2-node test must cross the fabric. On a multi-node NVLink
    machine every pod also lands in one NVLink domain (the clique GPU feature discovery
    labels, as awsome-distributed-training 7217859 nccl-tests-gb200.yaml lines 95-104, or
    the cloud's domain label: ``FabricDescription.nvlink_domain_label``)."""
    out: dict[str, Any] = {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [{
        "labelSelector": {"matchLabels": plan.labels},
        "topologyKey": "kubernetes.io/hostname",
    }]}}
    if plan.compute_domain:
        out["podAffinity"] = {"requiredDuringSchedulingIgnoredDuringExecution": [{
            "labelSelector": {"matchLabels": plan.labels},
            "topologyKey": plan.fabric.nvlink_domain_label,
        }]}
    return out


def _test_pod(plan: AcceptancePlan, container: dict[str, Any]) -> dict[str, Any]:
    """A pod template with the fabric fragment merged into ``container``."""
    template = {
        "metadata": {"labels": dict(plan.labels)},
        "spec": {"affinity": _anti_affinity(plan), "containers": [container]},
    }
    pod = pod_fragment(plan.fabric, plan.gpus_per_node,
                       compute_domain=plan.compute_domain).apply(template, TEST_CONTAINER)
    # The fragment put exactly its env there; acceptance_env is that env plus the test's
    # own, in the same order, so it replaces the list whole (no entry twice).
    pod["spec"]["containers"][0]["env"] = [
        {"name": k, "value": v} for k, v in acceptance_env(plan).items()
    ]
    return pod


def statefulset_manifests(plan: AcceptancePlan) -> list[Manifest]:
    service: Manifest = {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": meta(plan.name, plan.namespace, labels=plan.labels),
        "spec": {"clusterIP": "None", "selector": dict(plan.labels)},
    }
    container = {
        "name": TEST_CONTAINER,
        "image": plan.image.ref,
        "command": ["/bin/bash", "-c"],
        "args": [gib_script(plan)],
    }
    statefulset: Manifest = {
        "apiVersion": "apps/v1",
        "kind": "StatefulSet",
        "metadata": meta(plan.name, plan.namespace, labels=plan.labels),
        "spec": {
            "replicas": plan.nodes,
            "serviceName": plan.name,
            "podManagementPolicy": "Parallel",
            "selector": {"matchLabels": dict(plan.labels)},
            "template": _test_pod(plan, container),
        },
    }
    return [service, statefulset]


# -- everything else: MPIJob -------------------------------------------------------
def mpijob_manifest(plan: AcceptancePlan) -> Manifest:
    env = acceptance_env(plan)
    worker = _test_pod(plan, {
        "name": TEST_CONTAINER,
        "image": plan.image.ref,
        "command": ["/usr/sbin/sshd"],
        "args": ["-De"],
    })
    launcher_container = {
        "name": TEST_CONTAINER,
        "image": plan.image.ref,
        "command": ["/bin/bash", "-c"],
        "args": [mpirun_script(plan, env)],
        "env": [{"name": k, "value": v} for k, v in env.items()],
        "resources": resources("1", "2Gi"),
    }
    launcher_spec: dict[str, Any] = {"containers": [launcher_container]}
    tolerations = [t.exact_toleration().to_dict() for t in plan.fabric.taints]
    if tolerations:
        launcher_spec["tolerations"] = tolerations
    launcher = {"metadata": {"labels": dict(plan.labels)}, "spec": launcher_spec}
    return {
        "apiVersion": "kubeflow.org/v2beta1",
        "kind": "MPIJob",
        "metadata": meta(plan.name, plan.namespace, labels=plan.labels),
        "spec": {
            "slotsPerWorker": plan.gpus_per_node,
            "runPolicy": {"cleanPodPolicy": "Running", "backoffLimit": 0},
            "mpiImplementation": "OpenMPI",
            "mpiReplicaSpecs": {
                "Launcher": {"replicas": 1, "restartPolicy": "Never", "template": launcher},
                "Worker": {"replicas": plan.nodes, "template": worker},
            },
        },
    }


# kubeflow/mpi-operator v0.6.0 manifests/base/kubeflow.org_mpijobs.yaml, shipped
# byte-for-byte in the package; provenance (commit, sha256) in crds/sources.json.
MPIJOB_CRD_FILE = "kubeflow.org_mpijobs.yaml"


@cache
def _mpijob_crd_json() -> str:
    """The CRD parsed once (YAML, ~50 ms) and kept as JSON (re-read in ~5 ms)."""
    text = (resources_files(__package__) / "crds" / MPIJOB_CRD_FILE).read_text(encoding="utf-8")
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # the C parser is ~15x faster
    return json.dumps(yaml.load(text, Loader=loader))


def mpijob_crd() -> Manifest:
    """The MPIJob CRD of the pinned MPI Operator, as upstream publishes it.

    Why upstream's and not a hand-written one: a permissive schema (spec keeping
    unknown fields) lets the API server accept any typo in an MPIJob, which then
    fails (or is silently ignored) inside the operator. The parsed copy is cached; each
    call returns a fresh dict, so callers may change it. Our ``managed-by`` label is
    added; the rest (schema, names, annotations) is upstream's.
    """
    crd: Manifest = json.loads(_mpijob_crd_json())
    upstream = crd["metadata"]
    crd["metadata"] = meta(upstream["name"], annotations=upstream.get("annotations"))
    return crd


NONROOT_UID = 65532  # distroless images' "nonroot" user


def mpi_operator_manifests(
    watch_namespace: str, image: Image = versions.MPI_OPERATOR
) -> list[Manifest]:
    """The Kubeflow MPI Operator (v2beta1 MPIJob controller), least-privilege RBAC,
    watching only ``watch_namespace`` (the acceptance test's).

    The CRD is upstream's (:func:`mpijob_crd`), so the API server validates every
    MPIJob against the operator's real schema.
    """
    ns = MPI_OPERATOR_NAMESPACE
    name = MPI_OPERATOR_NAME
    crd = mpijob_crd()
    # What the v0.6.0 controller calls (kubeflow/mpi-operator pkg/controller/
    # mpi_job_controller.go): it creates the worker pods itself and the launcher as a
    # batch Job, reads objects from informers (list/watch) and always starts a
    # PriorityClass informer. Upstream's ClusterRole grants more (pods/exec, endpoints,
    # CRDs, "*" on mpijobs and leases, gang-scheduler groups); none is used here.
    # --namespace (v0.6.0 cmd/mpi-operator/app/options/options.go; server.go builds its
    # informer factories WithNamespace) confines it to the acceptance namespace, so these
    # are a Role there, not cluster-wide: it never sees another namespace's Secrets.
    rules = [
        rule([""], ["configmaps", "secrets", "services"], ["list", "watch", "create", "update"]),
        rule([""], ["pods"], ["get", "list", "watch", "create", "delete"]),
        rule([""], ["events"], ["create", "patch"]),
        rule(["batch"], ["jobs"], ["list", "watch", "create", "update"]),
        rule(["kubeflow.org"], ["mpijobs"], ["get", "list", "watch", "update"]),
        rule(["kubeflow.org"], ["mpijobs/status", "mpijobs/finalizers"], ["update", "patch"]),
    ]
    # PriorityClasses are cluster-scoped (the informer lists them cluster-wide): the only
    # ClusterRole rule. The leader-election Lease (and its events) live in --lock-namespace.
    cluster_rules = [rule(["scheduling.k8s.io"], ["priorityclasses"], ["get", "list", "watch"])]
    lock_rules = [
        rule(["coordination.k8s.io"], ["leases"], ["get", "create", "update"]),
        rule([""], ["events"], ["create", "patch"]),
    ]
    deployment: Manifest = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": meta(name, ns, labels={"app": name}),
        "spec": {
            "replicas": 1,
            "selector": {"matchLabels": {"app": name}},
            "template": {
                "metadata": {"labels": {"app": name},
                             "annotations": {"sidecar.istio.io/inject": "false"}},
                "spec": {
                    "serviceAccountName": name,
                    # The image (distroless base, no USER) would run as root, and
                    # runAsNonRoot alone makes the kubelet refuse it: run it as the
                    # distroless "nonroot" user. It writes nothing (logs to stderr).
                    "securityContext": {"runAsNonRoot": True,
                                        "runAsUser": NONROOT_UID,
                                        "runAsGroup": NONROOT_UID,
                                        "seccompProfile": {"type": "RuntimeDefault"}},
                    "containers": [{
                        "name": name,
                        "image": image.ref,
                        "args": ["-alsologtostderr", "--lock-namespace", ns,
                                 "--namespace", watch_namespace],
                        "resources": resources("100m", "256Mi"),
                        "securityContext": {
                            "allowPrivilegeEscalation": False,
                            "readOnlyRootFilesystem": True,
                            "capabilities": {"drop": ["ALL"]},
                        },
                    }],
                },
            },
        },
    }
    return [
        namespace(ns),
        crd,
        service_account(name, ns),
        cluster_role(name, cluster_rules),
        cluster_role_binding(name, name, name, ns),
        role(name, watch_namespace, rules),
        role_binding(name, watch_namespace, name, name, ns),
        role(f"{name}-lock", ns, lock_rules),
        role_binding(f"{name}-lock", ns, f"{name}-lock", name, ns),
        deployment,
    ]


def acceptance_manifests(plan: AcceptancePlan) -> list[Manifest]:
    """The test objects for the plan's runner (operator excluded), after the test's own
    ComputeDomain on a multi-node NVLink machine."""
    domain = ([job_compute_domain(plan.compute_domain, plan.namespace)]
              if plan.compute_domain else [])
    if plan.runner is Runner.STATEFULSET:
        return [*domain, *statefulset_manifests(plan)]
    return [*domain, mpijob_manifest(plan)]


def all_manifests(plan: AcceptancePlan) -> Sequence[Manifest]:
    """Operator (when installed) then test objects, in apply order."""
    operator = (
        mpi_operator_manifests(plan.namespace, plan.mpi_operator_image)
        if plan.install_mpi_operator else []
    )
    return [*operator, *acceptance_manifests(plan)]
