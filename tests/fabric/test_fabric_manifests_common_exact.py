"""The shared manifest builders written out: every object literal, every keyword branch.

Added for mutation testing (docs/mutation.md, ``scripts/mutation.py fabric-manifests``):
``components/gpu_fabric/fabric/manifests/common.py`` and ``values.py`` were only reached through
whole fabrics, whose tests check a field here and there, so most wrong versions of
these builders passed. Pure calls only (no Pulumi run). Where each expected value
comes from:

* object shapes: the Kubernetes API at the version the project pins
  (components/gpu_fabric/versions.py ``KUBECTL`` v1.34.1, ``OKE_KUBERNETES_VERSIONS`` up to 1.34;
  the manifests are also validated against the 1.34 schemas in
  tests/fabric/test_manifests_valid.py):
  - rbac.authorization.k8s.io/v1 (k8s.io/api rbac/v1/types.go, kubernetes/api at
    426b1b99): ``PolicyRule`` {apiGroups, resources, verbs, resourceNames};
    ``RoleRef`` {apiGroup, kind, name}; ``Subject`` {kind, name, namespace} with
    ``ServiceAccountKind = "ServiceAccount"`` (its apiGroup "defaults to "" for
    ServiceAccount subjects", so it is left out); a ClusterRoleBinding's roleRef
    "can only reference a ClusterRole", a RoleBinding's a Role in its namespace;
  - core/v1 ``Namespace``, ``ServiceAccount.automountServiceAccountToken``,
    ``ConfigMap.data``, ``ResourceRequirements`` {requests, limits},
    ``HostPathVolumeSource`` {path, type}, ``VolumeMount`` {name, mountPath, readOnly,
    mountPropagation}, ``NodeSelectorRequirement`` {key, operator: In, values};
  - apps/v1 ``DaemonSet``: ``updateStrategy`` {type: RollingUpdate, rollingUpdate:
    {maxUnavailable}} (``RollingUpdateDaemonSet.maxUnavailable``: "Default value is 1",
    written out so a rollout replaces one node agent at a time, node_agent docstring);
* Pod Security admission labels: kubernetes.io docs "Enforce Pod Security Standards
  with Namespace Labels" / "Pod Security Admission": ``pod-security.kubernetes.io/<mode>:
  <level>``, modes enforce / audit / warn; docs/security.md: node-agent namespaces are
  labelled ``privileged`` on purpose. ``kubernetes.io/metadata.name``: kubernetes.io
  "Well-Known Labels, Annotations and Taints" (the API server sets it to the name);
* ``dnsPolicy: ClusterFirstWithHostNet`` with ``hostNetwork``: kubernetes.io "DNS for
  Services and Pods", Pod's DNS policy ("For Pods running with hostNetwork, you should
  explicitly set its DNS policy to ClusterFirstWithHostNet"; otherwise they fall back
  to ``Default`` and cannot resolve cluster names);
* ``priorityClassName: system-node-critical``: kubernetes.io "Guaranteed Scheduling For
  Critical Add-On Pods" (built-in PriorityClass); the upstream
  Mellanox/k8s-rdma-shared-dev-plugin deployment/k8s/base/daemonset.yaml (914cfde4)
  sets it too, as does the EFA plugin (shared/reference/aws.md);
* the multus-shaped DaemonSet: k8snetworkplumbingwg/multus-cni
  deployments/multus-daemonset-thick.yml (05517e26): hostNetwork, hostPID, labels
  ``tier: node`` / ``app: multus``, ``terminationGracePeriodSeconds: 10``, an init
  container, RollingUpdate; the rdma-shared-shaped one: the rdma-shared-dev-plugin
  daemonset.yaml above (hostNetwork, the device-plugins / plugins_registry / config /
  /dev volumes);
* tolerations: components/gpu_fabric/fabric/taints.py (``GPU_TAINT_KEYS`` with operator Exists,
  ``CriticalAddonsOnly``, then the blanket NoSchedule / NoExecute pair that upstream
  Multus also carries) and docs/policy.md ``fabric-daemonsets-tolerate-gpu-taints``;
* project labels: ``app.kubernetes.io/managed-by: gpu-fabric`` (docs/policy.md, the label
  the policy pack recognises fabric objects by); ``app.kubernetes.io/name``: the
  Kubernetes recommended label (kubernetes.io "Recommended Labels") used as selector;
* ``deep_merge``: its docstring ("nested mappings merge, everything else is replaced",
  left to right) and the module docstring (computed <- cloud <- spec).
"""

from __future__ import annotations

from types import MappingProxyType
from typing import Any

from gpu_fabric.fabric.description import Toleration
from gpu_fabric.fabric.manifests.common import (
    cluster_role,
    cluster_role_binding,
    config_map,
    host_path,
    meta,
    mount,
    namespace,
    node_affinity_in,
    node_agent,
    resources,
    role,
    role_binding,
    rule,
    service_account,
)
from gpu_fabric.fabric.manifests.values import deep_merge
from tests.support.literals import TOLERATIONS, AnyOrder


# -- meta ------------------------------------------------------------------------------
def test_meta_name_only_is_cluster_scoped_and_carries_the_managed_by_label() -> None:
    assert meta("multus") == {
        "name": "multus",
        "labels": {"app.kubernetes.io/managed-by": "gpu-fabric"},
    }


def test_meta_with_namespace_labels_and_annotations() -> None:
    out = meta(
        "rdma-devices", "kube-system",
        labels=MappingProxyType({"tier": "node"}),
        annotations=MappingProxyType({"gpufabric.dev/why": "fabric"}),
    )
    assert out == {
        "name": "rdma-devices",
        "namespace": "kube-system",
        "labels": {"app.kubernetes.io/managed-by": "gpu-fabric", "tier": "node"},
        "annotations": {"gpufabric.dev/why": "fabric"},
    }
    assert type(out["annotations"]) is dict  # a plain mapping, serialisable as is


def test_meta_empty_namespace_and_annotations_are_left_out() -> None:
    assert meta("x", "", labels={}, annotations={}) == {
        "name": "x", "labels": {"app.kubernetes.io/managed-by": "gpu-fabric"},
    }


# -- namespace -------------------------------------------------------------------------
def test_namespace_default_is_not_privileged() -> None:
    assert namespace("gpu-fabric") == {
        "apiVersion": "v1",
        "kind": "Namespace",
        "metadata": {
            "name": "gpu-fabric",
            "labels": {
                "app.kubernetes.io/managed-by": "gpu-fabric",
                "kubernetes.io/metadata.name": "gpu-fabric",
            },
        },
    }


def test_namespace_privileged_sets_all_three_pod_security_modes() -> None:
    assert namespace("gpu-operator", privileged=True) == {
        "apiVersion": "v1",
        "kind": "Namespace",
        "metadata": {
            "name": "gpu-operator",
            "labels": {
                "app.kubernetes.io/managed-by": "gpu-fabric",
                "kubernetes.io/metadata.name": "gpu-operator",
                "pod-security.kubernetes.io/enforce": "privileged",
                "pod-security.kubernetes.io/audit": "privileged",
                "pod-security.kubernetes.io/warn": "privileged",
            },
        },
    }


# -- ServiceAccount --------------------------------------------------------------------
def test_service_account_mounts_its_token_by_default() -> None:
    assert service_account("multus", "kube-system") == {
        "apiVersion": "v1",
        "kind": "ServiceAccount",
        "metadata": {
            "name": "multus",
            "namespace": "kube-system",
            "labels": {"app.kubernetes.io/managed-by": "gpu-fabric"},
        },
        "automountServiceAccountToken": True,
    }


def test_service_account_without_token() -> None:
    assert service_account("rdma-shared-dp", "kube-system", automount=False) == {
        "apiVersion": "v1",
        "kind": "ServiceAccount",
        "metadata": {
            "name": "rdma-shared-dp",
            "namespace": "kube-system",
            "labels": {"app.kubernetes.io/managed-by": "gpu-fabric"},
        },
        "automountServiceAccountToken": False,
    }


# -- RBAC ------------------------------------------------------------------------------
def test_rule_without_names_has_no_resource_names() -> None:
    # The multus-daemonset-thick.yml ClusterRole's pods rule.
    out = rule(("",), ("pods", "pods/status"), ("get", "list", "update", "watch"))
    assert out == {
        "apiGroups": [""],
        "resources": ["pods", "pods/status"],
        "verbs": ["get", "list", "update", "watch"],
    }


def test_rule_with_names_lists_them() -> None:
    out = rule(("",), ("configmaps",), ("get",), ("rdma-devices", "sriovdp-config"))
    assert out == {
        "apiGroups": [""],
        "resources": ["configmaps"],
        "verbs": ["get"],
        "resourceNames": ["rdma-devices", "sriovdp-config"],
    }


RULES = [
    {"apiGroups": ["k8s.cni.cncf.io"], "resources": ["*"], "verbs": ["*"]},
    {"apiGroups": ["", "events.k8s.io"], "resources": ["events"],
     "verbs": ["create", "patch", "update"]},
]


def test_cluster_role() -> None:
    assert cluster_role("multus", (r for r in RULES)) == {
        "apiVersion": "rbac.authorization.k8s.io/v1",
        "kind": "ClusterRole",
        "metadata": {"name": "multus", "labels": {"app.kubernetes.io/managed-by": "gpu-fabric"}},
        "rules": [
            {"apiGroups": ["k8s.cni.cncf.io"], "resources": ["*"], "verbs": ["*"]},
            {"apiGroups": ["", "events.k8s.io"], "resources": ["events"],
             "verbs": ["create", "patch", "update"]},
        ],
    }


def test_cluster_role_binding_binds_a_cluster_role_to_a_service_account() -> None:
    # Names differ so a swapped argument shows (multus upstream uses "multus" for all).
    assert cluster_role_binding("multus-binding", "multus-role", "multus-sa", "kube-system") == {
        "apiVersion": "rbac.authorization.k8s.io/v1",
        "kind": "ClusterRoleBinding",
        "metadata": {
            "name": "multus-binding",
            "labels": {"app.kubernetes.io/managed-by": "gpu-fabric"},
        },
        "roleRef": {
            "apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "multus-role",
        },
        "subjects": [{"kind": "ServiceAccount", "name": "multus-sa", "namespace": "kube-system"}],
    }


def test_role() -> None:
    assert role("reader", "team-a", iter(RULES[:1])) == {
        "apiVersion": "rbac.authorization.k8s.io/v1",
        "kind": "Role",
        "metadata": {
            "name": "reader",
            "namespace": "team-a",
            "labels": {"app.kubernetes.io/managed-by": "gpu-fabric"},
        },
        "rules": [{"apiGroups": ["k8s.cni.cncf.io"], "resources": ["*"], "verbs": ["*"]}],
    }


def test_role_binding_may_bind_a_service_account_of_another_namespace() -> None:
    assert role_binding("mpi-launcher", "team-a", "launcher-role", "mpi-operator",
                        "mpi-system") == {
        "apiVersion": "rbac.authorization.k8s.io/v1",
        "kind": "RoleBinding",
        "metadata": {
            "name": "mpi-launcher",
            "namespace": "team-a",
            "labels": {"app.kubernetes.io/managed-by": "gpu-fabric"},
        },
        "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role",
                    "name": "launcher-role"},
        "subjects": [{"kind": "ServiceAccount", "name": "mpi-operator",
                      "namespace": "mpi-system"}],
    }


# -- ConfigMap, resources, volumes -----------------------------------------------------
def test_config_map() -> None:
    out = config_map("rdma-devices", "kube-system", MappingProxyType({"config.json": "{}"}))
    assert out == {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {
            "name": "rdma-devices",
            "namespace": "kube-system",
            "labels": {"app.kubernetes.io/managed-by": "gpu-fabric"},
        },
        "data": {"config.json": "{}"},
    }
    assert type(out["data"]) is dict


def test_resources_memory_limit_defaults_to_the_request_and_no_cpu_limit() -> None:
    assert resources("10m", "64Mi") == {
        "requests": {"cpu": "10m", "memory": "64Mi"},
        "limits": {"memory": "64Mi"},
    }


def test_resources_memory_limit() -> None:
    assert resources("50m", "64Mi", memory_limit="200Mi") == {
        "requests": {"cpu": "50m", "memory": "64Mi"},
        "limits": {"memory": "200Mi"},
    }


def test_resources_cpu_limit() -> None:
    # multus-daemonset-thick.yml: requests = limits = 100m / 50Mi.
    assert resources("100m", "50Mi", cpu_limit="100m") == {
        "requests": {"cpu": "100m", "memory": "50Mi"},
        "limits": {"memory": "50Mi", "cpu": "100m"},
    }


def test_resources_both_limits() -> None:
    # sriovdp-daemonset.yaml: requests 250m / 40Mi, limits cpu 1 / 200Mi.
    assert resources("250m", "40Mi", cpu_limit="1", memory_limit="200Mi") == {
        "requests": {"cpu": "250m", "memory": "40Mi"},
        "limits": {"memory": "200Mi", "cpu": "1"},
    }


def test_host_path_without_type() -> None:
    assert host_path("devs", "/dev/") == {"name": "devs", "hostPath": {"path": "/dev/"}}


def test_host_path_with_type() -> None:
    # sriovdp-daemonset.yaml: device-info is DirectoryOrCreate.
    assert host_path("device-info", "/var/run/k8s.cni.cncf.io/devinfo/dp",
                     "DirectoryOrCreate") == {
        "name": "device-info",
        "hostPath": {"path": "/var/run/k8s.cni.cncf.io/devinfo/dp", "type": "DirectoryOrCreate"},
    }


def test_mount_plain() -> None:
    assert mount("device-plugin", "/var/lib/kubelet/device-plugins") == {
        "name": "device-plugin", "mountPath": "/var/lib/kubelet/device-plugins",
    }


def test_mount_read_only() -> None:
    assert mount("config", "/k8s-rdma-shared-dev-plugin", read_only=True) == {
        "name": "config", "mountPath": "/k8s-rdma-shared-dev-plugin", "readOnly": True,
    }


def test_mount_propagation() -> None:
    # multus-daemonset-thick.yml: the init container's cnibin mount is Bidirectional.
    assert mount("cnibin", "/host/opt/cni/bin", propagation="Bidirectional") == {
        "name": "cnibin", "mountPath": "/host/opt/cni/bin", "mountPropagation": "Bidirectional",
    }


def test_mount_read_only_with_propagation() -> None:
    assert mount("hostroot", "/hostroot", read_only=True, propagation="HostToContainer") == {
        "name": "hostroot", "mountPath": "/hostroot", "readOnly": True,
        "mountPropagation": "HostToContainer",
    }


def test_node_affinity_in() -> None:
    out = node_affinity_in("gpufabric.dev/pool", ("gpu-a", "gpu-b"))
    assert out == {
        "nodeAffinity": {
            "requiredDuringSchedulingIgnoredDuringExecution": {
                "nodeSelectorTerms": [
                    {"matchExpressions": [
                        {"key": "gpufabric.dev/pool", "operator": "In",
                         "values": ["gpu-a", "gpu-b"]},
                    ]},
                ],
            },
        },
    }


# -- node_agent: whole DaemonSets ------------------------------------------------------
PROBE = {"name": "probe", "image": "registry.k8s.io/pause:3.10"}


def test_node_agent_defaults() -> None:
    """Nothing optional: no host namespaces, volumes, init containers or placement;
    still the GPU tolerations and the system-node-critical priority."""
    assert node_agent("probe", "gpu-fabric", containers=[PROBE], service_account="probe-sa") == {
        "apiVersion": "apps/v1",
        "kind": "DaemonSet",
        "metadata": {
            "name": "probe",
            "namespace": "gpu-fabric",
            "labels": {
                "app.kubernetes.io/managed-by": "gpu-fabric",
                "app.kubernetes.io/name": "probe",
            },
        },
        "spec": {
            "selector": {"matchLabels": {"app.kubernetes.io/name": "probe"}},
            "updateStrategy": {"type": "RollingUpdate", "rollingUpdate": {"maxUnavailable": 1}},
            "template": {
                "metadata": {"labels": {"app.kubernetes.io/name": "probe"}},
                "spec": {
                    "serviceAccountName": "probe-sa",
                    "tolerations": TOLERATIONS,
                    "containers": [{"name": "probe", "image": "registry.k8s.io/pause:3.10"}],
                    "priorityClassName": "system-node-critical",
                },
            },
        },
    }


RDMA_CONTAINER = {
    "name": "k8s-rdma-shared-dp-ds",
    "image": "ghcr.io/mellanox/k8s-rdma-shared-dev-plugin:v1.5.3",
    "securityContext": {"privileged": True},
}


def test_node_agent_device_plugin_shape_host_network_volumes_node_selector() -> None:
    """The rdma-shared-dev-plugin daemonset.yaml shape: hostNetwork (so DNS policy
    ClusterFirstWithHostNet), hostPath + configMap volumes, placed by nodeSelector."""
    out = node_agent(
        "rdma-shared-dp-ds", "kube-system",
        containers=[RDMA_CONTAINER],
        service_account="rdma-shared-dp",
        volumes=[
            {"name": "device-plugin", "hostPath": {"path": "/var/lib/kubelet/device-plugins"}},
            {"name": "config", "configMap": {
                "name": "rdma-devices", "items": [{"key": "config.json", "path": "config.json"}],
            }},
        ],
        host_network=True,
        node_selector=MappingProxyType({"gpufabric.dev/fabric": "rdma"}),
    )
    assert out == {
        "apiVersion": "apps/v1",
        "kind": "DaemonSet",
        "metadata": {
            "name": "rdma-shared-dp-ds",
            "namespace": "kube-system",
            "labels": {
                "app.kubernetes.io/managed-by": "gpu-fabric",
                "app.kubernetes.io/name": "rdma-shared-dp-ds",
            },
        },
        "spec": {
            "selector": {"matchLabels": {"app.kubernetes.io/name": "rdma-shared-dp-ds"}},
            "updateStrategy": {"type": "RollingUpdate", "rollingUpdate": {"maxUnavailable": 1}},
            "template": {
                "metadata": {"labels": {"app.kubernetes.io/name": "rdma-shared-dp-ds"}},
                "spec": {
                    "serviceAccountName": "rdma-shared-dp",
                    "tolerations": TOLERATIONS,
                    "containers": [{
                        "name": "k8s-rdma-shared-dp-ds",
                        "image": "ghcr.io/mellanox/k8s-rdma-shared-dev-plugin:v1.5.3",
                        "securityContext": {"privileged": True},
                    }],
                    "volumes": [
                        {"name": "device-plugin",
                         "hostPath": {"path": "/var/lib/kubelet/device-plugins"}},
                        {"name": "config", "configMap": {
                            "name": "rdma-devices",
                            "items": [{"key": "config.json", "path": "config.json"}],
                        }},
                    ],
                    "hostNetwork": True,
                    "dnsPolicy": "ClusterFirstWithHostNet",
                    "nodeSelector": {"gpufabric.dev/fabric": "rdma"},
                    "priorityClassName": "system-node-critical",
                },
            },
        },
    }
    assert type(out["spec"]["template"]["spec"]["nodeSelector"]) is dict


MULTUS_DAEMON = {"name": "kube-multus",
                 "image": "ghcr.io/k8snetworkplumbingwg/multus-cni:v4.3.0-thick"}
MULTUS_INSTALL = {"name": "install-multus-binary",
                  "image": "ghcr.io/k8snetworkplumbingwg/multus-cni:v4.3.0-thick"}
POOL_AFFINITY = {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
    "nodeSelectorTerms": [{"matchExpressions": [
        {"key": "gpufabric.dev/pool", "operator": "In", "values": ["gpu"]}]}]}}}


def test_node_agent_multus_shape_host_pid_init_affinity_grace_labels() -> None:
    """multus-daemonset-thick.yml: hostNetwork + hostPID, an install init container,
    terminationGracePeriodSeconds 10, labels tier/app; placed by required affinity
    (docs/security.md: Multus only on the fabric pools)."""
    out = node_agent(
        "kube-multus-ds", "kube-system",
        containers=[MULTUS_DAEMON],
        init_containers=[MULTUS_INSTALL],
        volumes=[{"name": "cnibin", "hostPath": {"path": "/opt/cni/bin"}}],
        service_account="multus",
        host_network=True,
        host_pid=True,
        affinity=POOL_AFFINITY,
        termination_grace=10,
        labels=MappingProxyType({"tier": "node", "app": "multus"}),
    )
    assert out == {
        "apiVersion": "apps/v1",
        "kind": "DaemonSet",
        "metadata": {
            "name": "kube-multus-ds",
            "namespace": "kube-system",
            "labels": {
                "app.kubernetes.io/managed-by": "gpu-fabric",
                "app.kubernetes.io/name": "kube-multus-ds",
                "tier": "node",
                "app": "multus",
            },
        },
        "spec": {
            "selector": {"matchLabels": {"app.kubernetes.io/name": "kube-multus-ds"}},
            "updateStrategy": {"type": "RollingUpdate", "rollingUpdate": {"maxUnavailable": 1}},
            "template": {
                "metadata": {"labels": {
                    "app.kubernetes.io/name": "kube-multus-ds", "tier": "node", "app": "multus",
                }},
                "spec": {
                    "serviceAccountName": "multus",
                    "tolerations": TOLERATIONS,
                    "containers": [{
                        "name": "kube-multus",
                        "image": "ghcr.io/k8snetworkplumbingwg/multus-cni:v4.3.0-thick",
                    }],
                    "initContainers": [{
                        "name": "install-multus-binary",
                        "image": "ghcr.io/k8snetworkplumbingwg/multus-cni:v4.3.0-thick",
                    }],
                    "volumes": [{"name": "cnibin", "hostPath": {"path": "/opt/cni/bin"}}],
                    "hostNetwork": True,
                    "dnsPolicy": "ClusterFirstWithHostNet",
                    "hostPID": True,
                    "affinity": {"nodeAffinity": {
                        "requiredDuringSchedulingIgnoredDuringExecution": {
                            "nodeSelectorTerms": [{"matchExpressions": [
                                {"key": "gpufabric.dev/pool", "operator": "In",
                                 "values": ["gpu"]},
                            ]}],
                        },
                    }},
                    "priorityClassName": "system-node-critical",
                    "terminationGracePeriodSeconds": 10,
                },
            },
        },
    }
    assert type(out["metadata"]["labels"]) is dict
    assert type(out["spec"]["template"]["metadata"]["labels"]) is dict


def test_node_agent_host_pid_alone_other_priority_zero_grace_extra_tolerations() -> None:
    """The branches no fabric takes today: hostPID without hostNetwork (no DNS policy),
    another PriorityClass, a zero grace period (kept: 0 means kill at once), and extra
    tolerations, which go before the blanket pair; one already listed is not repeated."""
    out = node_agent(
        "agent", "ns",
        containers=[PROBE],
        service_account="agent",
        host_pid=True,
        priority_class="system-cluster-critical",
        termination_grace=0,
        extra_tolerations=(
            Toleration("dedicated", "Equal", "training", "NoSchedule"),
            Toleration("nvidia.com/gpu"),
        ),
    )
    assert out == {
        "apiVersion": "apps/v1",
        "kind": "DaemonSet",
        "metadata": {
            "name": "agent",
            "namespace": "ns",
            "labels": {
                "app.kubernetes.io/managed-by": "gpu-fabric",
                "app.kubernetes.io/name": "agent",
            },
        },
        "spec": {
            "selector": {"matchLabels": {"app.kubernetes.io/name": "agent"}},
            "updateStrategy": {"type": "RollingUpdate", "rollingUpdate": {"maxUnavailable": 1}},
            "template": {
                "metadata": {"labels": {"app.kubernetes.io/name": "agent"}},
                "spec": {
                    "serviceAccountName": "agent",
                    "tolerations": AnyOrder([
                        {"key": "nvidia.com/gpu", "operator": "Exists"},
                        {"key": "amd.com/gpu", "operator": "Exists"},
                        {"key": "sku", "operator": "Exists"},
                        {"key": "aws.amazon.com/efa", "operator": "Exists"},
                        {"key": "CriticalAddonsOnly", "operator": "Exists"},
                        {"key": "dedicated", "operator": "Equal", "value": "training",
                         "effect": "NoSchedule"},
                        {"operator": "Exists", "effect": "NoSchedule"},
                        {"operator": "Exists", "effect": "NoExecute"},
                    ]),
                    "containers": [{"name": "probe", "image": "registry.k8s.io/pause:3.10"}],
                    "hostPID": True,
                    "priorityClassName": "system-cluster-critical",
                    "terminationGracePeriodSeconds": 0,
                },
            },
        },
    }


def test_node_agent_without_priority_class_and_empty_optionals() -> None:
    """priority_class=None leaves the field out; empty volumes / init containers /
    selector / affinity / labels add nothing."""
    out = node_agent(
        "agent", "ns",
        containers=[PROBE],
        service_account="agent",
        volumes=[],
        init_containers=[],
        node_selector={},
        affinity={},
        labels={},
        priority_class=None,
    )
    assert out == {
        "apiVersion": "apps/v1",
        "kind": "DaemonSet",
        "metadata": {
            "name": "agent",
            "namespace": "ns",
            "labels": {
                "app.kubernetes.io/managed-by": "gpu-fabric",
                "app.kubernetes.io/name": "agent",
            },
        },
        "spec": {
            "selector": {"matchLabels": {"app.kubernetes.io/name": "agent"}},
            "updateStrategy": {"type": "RollingUpdate", "rollingUpdate": {"maxUnavailable": 1}},
            "template": {
                "metadata": {"labels": {"app.kubernetes.io/name": "agent"}},
                "spec": {
                    "serviceAccountName": "agent",
                    "tolerations": TOLERATIONS,
                    "containers": [{"name": "probe", "image": "registry.k8s.io/pause:3.10"}],
                },
            },
        },
    }


# -- deep_merge ------------------------------------------------------------------------
def test_deep_merge_nested_mappings_merge_left_to_right_and_the_rest_is_replaced() -> None:
    computed = {"driver": {"enabled": True, "version": "580", "env": [{"name": "A"}]},
                "toolkit": {"enabled": True}, "tolerations": [{"key": "a"}]}
    cloud = {"driver": {"version": "570", "env": [{"name": "B"}]}, "toolkit": False,
             "tolerations": [{"key": "b"}]}
    spec = MappingProxyType({"driver": MappingProxyType({"version": "575"}),
                             "toolkit": {"enabled": False}, "extra": 1})
    assert deep_merge(computed, cloud, spec) == {
        "driver": {"enabled": True, "version": "575", "env": [{"name": "B"}]},
        "toolkit": {"enabled": False},  # a mapping replaces the non-mapping False
        "tolerations": [{"key": "b"}],  # lists are replaced, not concatenated
        "extra": 1,
    }
    # The inputs are left as they were.
    assert computed == {"driver": {"enabled": True, "version": "580", "env": [{"name": "A"}]},
                        "toolkit": {"enabled": True}, "tolerations": [{"key": "a"}]}
    assert cloud == {"driver": {"version": "570", "env": [{"name": "B"}]}, "toolkit": False,
                     "tolerations": [{"key": "b"}]}


def test_deep_merge_result_shares_nothing_with_base() -> None:
    base = {"a": {"b": [1]}}
    out = deep_merge(base)
    assert out == {"a": {"b": [1]}}
    out["a"]["b"].append(2)
    out["a"]["c"] = 3
    assert base == {"a": {"b": [1]}}


def test_deep_merge_result_shares_nothing_with_an_overlay() -> None:
    overlay: dict[str, Any] = {"new": {"inner": {"x": 1}}, "list": [{"y": 1}]}
    out = deep_merge({"list": "scalar"}, overlay)
    assert out == {"new": {"inner": {"x": 1}}, "list": [{"y": 1}]}
    out["new"]["inner"]["x"] = 2
    out["list"][0]["y"] = 2
    assert overlay == {"new": {"inner": {"x": 1}}, "list": [{"y": 1}]}


def test_node_agent_selector_label_wins_over_a_callers_label() -> None:
    """apps/v1 DaemonSet validation refuses a template whose labels miss the selector
    ("selector does not match template labels", k8s.io/kubernetes pkg/apis/apps/validation):
    a caller's ``app.kubernetes.io/name`` must not replace the selector's value."""
    out = node_agent(
        "probe", "gpu-fabric", containers=[PROBE], service_account="probe-sa",
        labels={"app.kubernetes.io/name": "other", "tier": "node"},
    )
    assert out["spec"]["selector"] == {"matchLabels": {"app.kubernetes.io/name": "probe"}}
    assert out["spec"]["template"]["metadata"]["labels"] == {
        "app.kubernetes.io/name": "probe", "tier": "node",
    }
    assert out["metadata"]["labels"] == {
        "app.kubernetes.io/managed-by": "gpu-fabric",
        "app.kubernetes.io/name": "probe",
        "tier": "node",
    }
