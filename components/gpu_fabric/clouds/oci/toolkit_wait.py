"""OKE: wait for the GPU Operator's container toolkit before the Network Operator.

oracle-quickstart/oci-hpc-oke (terraform/oke-addons.tf at 61d210a,
``null_resource.wait_for_gpu_operator_toolkit``) installs the NvidiaNetworkOperator
add-on only after ``kubectl -n gpu-operator rollout status
daemonset/nvidia-container-toolkit-daemonset``: the toolkit installs the NVIDIA runtime
and restarts crio on every GPU node, which strands the nv-ipam pods crio wired before
it. The Network Operator depends on this wait in both modes: the chart release
(chart mode) and the add-on, an OCI resource ordered as the layer part
``gpu_fabric.clouds.oci.kubernetes.NETWORK_OPERATOR_ADDON_PART`` (add-on mode). Waiting
for the GPU Operator's release alone is not enough (see below).

Why a Job: the toolkit DaemonSet is created by the GPU Operator (from its
ClusterPolicy) after Helm returns, so no Pulumi resource owns it and Pulumi's own
DaemonSet await never sees it; a ``DaemonSet.get`` reads it once and does not wait.
``pulumi-kubernetes`` awaits a ``batch/v1`` Job until its ``Complete`` condition and
fails the update on ``Failed`` (Job resource docs, "This resource waits until its status
is ready"), with the timeout from the ``pulumi.com/timeoutSeconds`` annotation
(provider/pkg/metadata/annotations.go). So the Job's completion is the readiness signal.

What it waits for: the DaemonSet to exist (``kubectl wait --for=create``, kubectl >=
1.31), then ``status.numberAvailable`` equal to the number of NVIDIA GPU nodes the spec
creates. That is the reference's rollout status *and* every GPU node present: the
operator creates the DaemonSet when the first GPU node is labelled, and a GPU node that
joined after a bare ``rollout status`` returned would restart crio under nv-ipam.
OKE pools have a fixed ``node_count`` here (autoscaling is refused), so the count is
known; changing it changes the Job's args, and Pulumi replaces the Job and waits again.

Least privilege: one ServiceAccount with a Role in the GPU Operator's namespace that
may get/list/watch that one DaemonSet (``resourceNames``; kubectl's waits list and
watch with a ``metadata.name`` field selector, which RBAC matches against
``resourceNames``). The pod runs as non-root with no capabilities, on whatever
untainted node the scheduler picks (the system pool).
"""

from __future__ import annotations

from typing import Any

from gpu_fabric.fabric.manifests.common import (
    Manifest,
    meta,
    resources,
    role,
    role_binding,
    rule,
    service_account,
)
from gpu_fabric.versions import KUBECTL

# gpu-operator: the container toolkit operand's DaemonSet name (what oci-hpc-oke waits on).
TOOLKIT_DAEMONSET = "nvidia-container-toolkit-daemonset"
NAME = "gpufabric-toolkit-rollout"
# Seconds: bare-metal GPU nodes take 15-25 minutes to join, then the toolkit installs.
TIMEOUT_SECONDS = 3600
WAIT_SECONDS = TIMEOUT_SECONDS - 300
CACHE = "/tmp/kube-cache"


def _container(name: str, args: list[str]) -> dict[str, Any]:
    return {
        "name": name,
        "image": KUBECTL.ref,
        "args": [*args, f"--cache-dir={CACHE}"],
        "resources": resources("10m", "64Mi"),
        "securityContext": {
            "allowPrivilegeEscalation": False,
            "readOnlyRootFilesystem": True,
            "capabilities": {"drop": ["ALL"]},
        },
        "volumeMounts": [{"name": "kube-cache", "mountPath": CACHE}],
    }


def manifests(namespace: str, gpu_nodes: int) -> list[Manifest]:
    """ServiceAccount, Role, RoleBinding and the Job, all in the GPU Operator's namespace."""
    target = f"daemonset/{TOOLKIT_DAEMONSET}"
    where = ["-n", namespace, f"--timeout={WAIT_SECONDS}s"]
    job: Manifest = {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": meta(NAME, namespace,
                         annotations={"pulumi.com/timeoutSeconds": str(TIMEOUT_SECONDS)}),
        "spec": {
            "backoffLimit": 4,
            "activeDeadlineSeconds": TIMEOUT_SECONDS,
            "template": {
                "metadata": {"labels": {"app.kubernetes.io/name": NAME}},
                "spec": {
                    "serviceAccountName": NAME,
                    "restartPolicy": "Never",
                    "securityContext": {
                        "runAsNonRoot": True,
                        "runAsUser": 65532,
                        "runAsGroup": 65532,
                        "seccompProfile": {"type": "RuntimeDefault"},
                    },
                    "initContainers": [
                        _container("toolkit-created", ["wait", "--for=create", target, *where]),
                    ],
                    "containers": [
                        _container("toolkit-on-every-gpu-node", [
                            "wait", f"--for=jsonpath={{.status.numberAvailable}}={gpu_nodes}",
                            target, *where,
                        ]),
                    ],
                    "volumes": [{"name": "kube-cache", "emptyDir": {}}],
                },
            },
        },
    }
    return [
        service_account(NAME, namespace),
        role(NAME, namespace, [rule(["apps"], ["daemonsets"], ["get", "list", "watch"],
                                    [TOOLKIT_DAEMONSET])]),
        role_binding(NAME, namespace, NAME, NAME, namespace),
        job,
    ]
