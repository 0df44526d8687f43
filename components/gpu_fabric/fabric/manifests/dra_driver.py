"""NVIDIA DRA driver for GPUs (chart nvidia-dra-driver-gpu) values.

The kubelet plugin must tolerate the GPU taints and runs where
``nvidia.com/gpu.present=true`` (set declaratively on the pool, not by hand).
``gpuResourcesEnabledOverride`` acknowledges GPU allocation through DRA; the
classic device plugin must not run on the same nodes.
"""

from __future__ import annotations

from typing import Any

from gpu_fabric.fabric.description import GPU_PRESENT_LABEL
from gpu_fabric.fabric.manifests.common import node_affinity_in
from gpu_fabric.fabric.taints import daemonset_tolerations


def values(
    *,
    gpus: bool = True,
    compute_domains: bool = False,
    driver_root: str = "/",
) -> dict[str, Any]:
    tolerations = daemonset_tolerations()
    return {
        "nvidiaDriverRoot": driver_root,
        "gpuResourcesEnabledOverride": gpus,
        "resources": {
            "gpus": {"enabled": gpus},
            "computeDomains": {"enabled": compute_domains},
        },
        # The chart's controller (ComputeDomains) requires a node labelled
        # node-role.kubernetes.io/control-plane by default (nvidia-dra-driver-gpu
        # 25.12.0 values.yaml controller.affinity); managed control planes (GKE, EKS,
        # AKS, DOKS, OKE) have none, so the default would leave it Pending forever.
        # null deletes the chart's default (Helm: a null value removes the key).
        "controller": {"tolerations": tolerations, "affinity": None},
        "kubeletPlugin": {
            "tolerations": tolerations,
            "affinity": node_affinity_in(GPU_PRESENT_LABEL, ["true"]),
        },
    }


# cluster-toolkit (GoogleCloudPlatform/cluster-toolkit 1047080375af)
# examples/gke-a4x/nvidia-dra-driver.yaml lines 19-33: the quota that lets the chart keep
# its priority classes (25.12.0 values.yaml: controller and kubeletPlugin
# system-node-critical, lines 188 and 214; webhook system-cluster-critical, line 141) in
# its own namespace on GKE.
QUOTA_NAME = "nvidia-dra-driver-gpu-quota"
QUOTA_PODS = 100
CRITICAL_CLASSES = ("system-node-critical", "system-cluster-critical")
# Pods beside the kubelet plugin's one per GPU node: the controller, its rolling-update
# surge, and the webhook when a user's values turn it on.
QUOTA_HEADROOM = 3


def priority_class_quota(
    name: str, pods: int | str, namespace: str | None = None
) -> dict[str, Any]:
    """A ResourceQuota scoped to the system-*-critical priority classes: on GKE, pods of
    those classes outside kube-system are admitted only in a namespace that has one (the
    DRA driver's here, the GPU Operator's in clouds/gcp/kubernetes.py)."""
    metadata = {"name": name, **({"namespace": namespace} if namespace else {})}
    return {
        "apiVersion": "v1",
        "kind": "ResourceQuota",
        "metadata": metadata,
        "spec": {
            "hard": {"pods": pods},
            "scopeSelector": {"matchExpressions": [{
                "operator": "In", "scopeName": "PriorityClass",
                "values": list(CRITICAL_CLASSES),
            }]},
        },
    }


def critical_pods_quota(namespace: str, gpu_nodes: int) -> dict[str, Any]:
    """The ResourceQuota that admits the driver's system-*-critical pods in ``namespace``.

    Why: GKE admits pods of those priority classes outside kube-system only in a
    namespace whose ResourceQuota scopes them. The blueprint's 100 pods stays the
    floor; a cluster with more GPU nodes (one kubelet-plugin pod each) gets room for
    all of them, or the quota would refuse the plugin on node 98 and beyond. The count
    is a string: a quantity, as the SDK's ResourceQuotaSpec takes it.
    """
    return priority_class_quota(
        QUOTA_NAME, str(max(QUOTA_PODS, gpu_nodes + QUOTA_HEADROOM)), namespace)
