"""The system-*-critical priority-class ResourceQuota, written out literally.

Source: GoogleCloudPlatform/cluster-toolkit @1047080375af
examples/gke-a4x/nvidia-dra-driver.yaml lines 19-33: a ResourceQuota named
``nvidia-dra-driver-gpu-quota`` with ``hard: {pods: 100}`` and a ``scopeSelector`` of
operator ``In``, scopeName ``PriorityClass``, values ``system-node-critical`` and
``system-cluster-critical``. The chart's kubelet plugin runs one pod per GPU node
(nvidia-dra-driver-gpu 25.12.0 templates/kubeletplugin.yaml: a DaemonSet); the
controller, its surge and the webhook are the 3 pods of headroom beside them.
"""

from __future__ import annotations

from gpu_fabric.fabric.manifests.dra_driver import critical_pods_quota, priority_class_quota

SCOPE = {"matchExpressions": [{
    "operator": "In", "scopeName": "PriorityClass",
    "values": ["system-node-critical", "system-cluster-critical"],
}]}


def test_the_quota_of_the_blueprint() -> None:
    assert critical_pods_quota("nvidia-dra-driver-gpu", 2) == {
        "apiVersion": "v1",
        "kind": "ResourceQuota",
        "metadata": {"name": "nvidia-dra-driver-gpu-quota",
                     "namespace": "nvidia-dra-driver-gpu"},
        "spec": {"hard": {"pods": "100"}, "scopeSelector": SCOPE},
    }


def test_the_floor_holds_until_the_plugin_pods_need_more() -> None:
    def pods(gpu_nodes: int) -> str:
        return str(critical_pods_quota("ns", gpu_nodes)["spec"]["hard"]["pods"])

    # 97 GPU nodes + 3 = 100: still the floor; 98 + 3 = 101 widens it.
    assert [pods(n) for n in (0, 1, 97, 98, 250)] == ["100", "100", "100", "101", "253"]


def test_a_quota_without_a_namespace_and_with_a_number() -> None:
    # The GPU Operator's quota on GKE (clouds/gcp/kubernetes.py) is placed by its caller.
    assert priority_class_quota("gpu-operator-quota", 42) == {
        "apiVersion": "v1",
        "kind": "ResourceQuota",
        "metadata": {"name": "gpu-operator-quota"},
        "spec": {"hard": {"pods": 42}, "scopeSelector": SCOPE},
    }
    assert priority_class_quota("q", "7", "ns")["metadata"] == {"name": "q", "namespace": "ns"}
