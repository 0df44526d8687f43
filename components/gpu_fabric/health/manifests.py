"""The active check's Kubernetes objects: its namespace, least-privilege RBAC, a
PriorityClass below every workload, the script and config ConfigMaps, the CronJob, and
the alerting rules where monitoring is on.

RBAC is what :mod:`gpu_fabric.health.controller` calls, nothing more: cluster-wide it
reads and patches nodes and lists pods (to see which nodes hold GPUs); in the test
namespace it creates and deletes the test objects and reads their pods' logs. No
Secrets anywhere, no wildcard.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from gpu_fabric import versions
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
from gpu_fabric.health import bundle, logic
from gpu_fabric.health.config import (
    NAME,
    NAMESPACE,
    PRIORITY,
    PRIORITY_CLASS,
    TIMEOUT_SECONDS,
    PoolCheck,
)
from gpu_fabric.nccl.manifests import Runner

CONFIG_MAP = f"{NAME}-config"
SCRIPTS_MAP = f"{NAME}-scripts"
CODE_DIR = "/opt/gpu-fabric-health"
CONFIG_DIR = "/etc/gpu-fabric-health"
# The python image runs as root unless told; nothing here needs a user of its own.
NOBODY = 65534


def cluster_rules() -> list[dict[str, Any]]:
    """Cluster-wide: read and label nodes, see which nodes hold GPUs."""
    return [
        rule([""], ["nodes"], ["get", "list", "patch"]),
        rule([""], ["pods"], ["list"]),
    ]


def namespace_rules(runners: Iterable[Runner]) -> list[dict[str, Any]]:
    """In the test namespace: the test objects of the runners in use, and pod logs."""
    out = []
    found = set(runners)
    if Runner.MPIJOB in found:
        out.append(rule(["kubeflow.org"], ["mpijobs"], ["create", "delete"]))
    if Runner.STATEFULSET in found:
        out.append(rule(["apps"], ["statefulsets"], ["create", "delete"]))
        out.append(rule([""], ["services"], ["create", "delete"]))
    out.append(rule([""], ["pods/log"], ["get"]))
    return out


def priority_class() -> Manifest:
    return {
        "apiVersion": "scheduling.k8s.io/v1",
        "kind": "PriorityClass",
        "metadata": meta(PRIORITY_CLASS),
        "value": PRIORITY,
        "preemptionPolicy": "Never",
        "globalDefault": False,
        "description": "gpu-fabric active health check: below every workload, preempts nothing",
    }


def config_maps(config: dict[str, Any]) -> list[Manifest]:
    return [
        {"apiVersion": "v1", "kind": "ConfigMap", "metadata": meta(SCRIPTS_MAP, NAMESPACE),
         "data": bundle.files_data()},
        {"apiVersion": "v1", "kind": "ConfigMap", "metadata": meta(CONFIG_MAP, NAMESPACE),
         "data": {"config.json": json.dumps(config, indent=1, sort_keys=True)}},
    ]


def cron_job(schedule: str) -> Manifest:
    """Runs the controller; one run at a time, at most the test timeout plus 10 minutes."""
    items = [{"key": k, "path": p} for k, p in bundle.paths().items()]
    container = {
        "name": "check",
        "image": versions.HEALTH_CHECK_PYTHON.ref,
        "command": ["python3", "-m", "gpu_fabric.health.controller"],
        "env": [
            {"name": "PYTHONPATH", "value": CODE_DIR},
            {"name": "PYTHONDONTWRITEBYTECODE", "value": "1"},
            {"name": "GPUFABRIC_HEALTH_CONFIG", "value": f"{CONFIG_DIR}/config.json"},
        ],
        "resources": resources("50m", "128Mi"),
        "securityContext": {
            "allowPrivilegeEscalation": False,
            "readOnlyRootFilesystem": True,
            "capabilities": {"drop": ["ALL"]},
        },
        "volumeMounts": [
            {"name": "code", "mountPath": CODE_DIR, "readOnly": True},
            {"name": "config", "mountPath": CONFIG_DIR, "readOnly": True},
        ],
    }
    pod = {
        "serviceAccountName": NAME,
        "restartPolicy": "Never",
        "securityContext": {
            "runAsNonRoot": True, "runAsUser": NOBODY, "runAsGroup": NOBODY,
            "seccompProfile": {"type": "RuntimeDefault"},
        },
        "containers": [container],
        "volumes": [
            {"name": "code", "configMap": {"name": SCRIPTS_MAP, "items": items}},
            {"name": "config", "configMap": {"name": CONFIG_MAP}},
        ],
    }
    return {
        "apiVersion": "batch/v1",
        "kind": "CronJob",
        "metadata": meta(NAME, NAMESPACE),
        "spec": {
            "schedule": schedule,
            "concurrencyPolicy": "Forbid",
            "startingDeadlineSeconds": 600,
            "successfulJobsHistoryLimit": 3,
            "failedJobsHistoryLimit": 3,
            "jobTemplate": {"spec": {
                "backoffLimit": 0,
                "activeDeadlineSeconds": TIMEOUT_SECONDS + 600,
                "template": {"metadata": {"labels": {"app.kubernetes.io/name": NAME}},
                             "spec": pod},
            }},
        },
    }


def check_manifests(checks: list[PoolCheck], config: dict[str, Any], schedule: str
                    ) -> list[Manifest]:
    """Everything the check needs but the MPI Operator, in apply order."""
    test_namespaces = sorted({c.plan.namespace for c in checks})
    runners = {c.plan.runner for c in checks}
    out: list[Manifest] = [
        namespace(NAMESPACE),
        service_account(NAME, NAMESPACE),
        cluster_role(NAME, cluster_rules()),
        cluster_role_binding(NAME, NAME, NAME, NAMESPACE),
    ]
    for ns in test_namespaces:
        out.append(role(NAME, ns, namespace_rules(runners)))
        out.append(role_binding(NAME, ns, NAME, NAME, NAMESPACE))
    out += [priority_class(), *config_maps(config), cron_job(schedule)]
    return out


# -- alerts (kube-prometheus-stack) -----------------------------------------------------
def ksm_label(label: str) -> str:
    """kube-state-metrics' name for a node label in ``kube_node_labels``: ``label_`` and
    the label with every character outside [a-zA-Z0-9_] replaced by '_'."""
    return "label_" + "".join(c if c.isalnum() or c == "_" else "_" for c in label)


# Node labels kube-state-metrics exports (its default exports none: values.yaml
# metricLabelsAllowlist: []).
EXPORTED_LABELS = ("gpufabric.dev/pool", logic.VERDICT, logic.BUSBW, logic.RAILS)


def kube_state_metrics_allowlist() -> list[str]:
    return [f"nodes=[{','.join(EXPORTED_LABELS)}]"]


def prometheus_rule(ns: str, interval_hours: int) -> Manifest:
    """Alerts: a node failed the check, a GPU node is cordoned (NVSentinel quarantine or
    by hand), the check has not succeeded for three runs' worth of its interval."""
    verdict = ksm_label(logic.VERDICT)
    pool = ksm_label("gpufabric.dev/pool")
    rules = [
        {"alert": "GpuFabricHealthCheckFailed",
         "expr": f'max by (node) (kube_node_labels{{{verdict}="fail"}}) == 1',
         "labels": {"severity": "warning"},
         "annotations": {
             "summary": "GPU node {{ $labels.node }} failed the active fabric check",
             "description": "nccl-tests or its RDMA rails failed on {{ $labels.node }}; "
                            "see docs/health.md (kubectl describe node, the check's job "
                            "log in namespace " + NAMESPACE + ")."}},
        {"alert": "GpuFabricNodeCordoned",
         "expr": (f'max by (node) (kube_node_spec_unschedulable) * on (node) '
                  f'max by (node) (kube_node_labels{{{pool}!=""}}) == 1'),
         "for": "15m",
         "labels": {"severity": "warning"},
         "annotations": {
             "summary": "GPU node {{ $labels.node }} is cordoned",
             "description": "NVSentinel quarantines a node with a fatal GPU/NIC fault by "
                            "cordoning it; its node conditions say why (docs/health.md)."}},
        {"alert": "GpuFabricHealthCheckNotRunning",
         "expr": (f'time() - max(kube_cronjob_status_last_successful_time{{namespace='
                  f'"{NAMESPACE}", cronjob="{NAME}"}}) > {3 * interval_hours * 3600}'),
         "labels": {"severity": "info"},
         "annotations": {
             "summary": "The active fabric health check has not succeeded lately",
             "description": f"No successful run of CronJob {NAMESPACE}/{NAME} for three "
                            "re-test intervals."}},
    ]
    return {
        "apiVersion": "monitoring.coreos.com/v1",
        "kind": "PrometheusRule",
        "metadata": meta(NAME, ns),
        "spec": {"groups": [{"name": "gpu-fabric-health", "rules": rules}]},
    }
