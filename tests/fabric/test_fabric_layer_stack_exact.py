"""FabricStack and the layer's Pulumi resources, asserted literally.

A small hand-built layer goes through the real :class:`FabricStack` under the recording
mock runtime (:func:`gpu_fabric.plan.runner.run_program`); ``build_layer`` is swapped for
one that returns that layer, so no cluster is planned. Every child is checked for its
type token, name, inputs (what the provider receives), parent, provider and
``depends_on``; the Helm releases for every field; the component for its
``register_outputs``. Sources of the expected values:

- URNS: child names are a compatibility surface (stack.py docstring,
  ``<name>-<part>-<kind>-[<namespace>-]<object>`` and ``<name>-<part>-<release>``).
  The names below are verbatim lines of tests/data/urns/oci-h100.txt (OCI) or
  tests/data/urns/matrix/oci-h100-existing.txt (MATRIX), except two marked FORM: the
  same form, for an object moved into another part to test the ordering.
- UPSTREAM multus: k8snetworkplumbingwg/multus-cni v4.3.0 (commit db30741)
  deployments/multus-daemonset-thick.yml, copied to
  tests/data/upstream/crds/k8s.cni.cncf.io/multus-daemonset-thick.yml (sources.json).
  Its six objects are the multus part's manifests, the provider must get each whole.
- UPSTREAM kueue: kubernetes-sigs/kueue v0.14.4 config/components/crd/bases/
  kueue.x-k8s.io_workloadpriorityclasses.yaml (tests/data/upstream/crds/kueue.x-k8s.io/):
  ``value`` and ``description`` sit beside ``metadata``, there is no ``spec``.
- PULUMI_K8S: pulumi_kubernetes 4.34.2 (pyproject.toml pin): the typed class per
  ``apiVersion``/``kind`` (``pulumi_kubernetes/<module>/<version>/<Kind>.py``), its
  ``_internal_init`` keyword names (snake_case of the wire names) and type token;
  ``apiextensions/CustomResource.py`` takes ``metadata`` and ``spec`` only
  (pulumi/pulumi-kubernetes#2363); ``helm/v3/Release.py`` wire names (``repositoryOpts``,
  ``createNamespace``, ``cleanupOnFail``, ``maxHistory``) and the ``compat: "true"`` it
  adds itself.
- PINS: components/gpu_fabric/versions.py KYVERNO (https repo, 3.6.1) and KUEUE (oci://, 0.14.4).
- PROJECT: the options resources.release_resource gives every release (written in the
  code only, since the first commit; no doc records them), the secret handling of issue 21
  (tests/plan/test_secret_values.py, resources.secret_values docstring), the component type
  token ``gpufabric:kubernetes:FabricStack`` (URNS, last line of oci-h100.txt).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pulumi
import pulumi_kubernetes as k8s
import pytest
import yaml
from google.protobuf import json_format

from gpu_fabric.fabric import resources
from gpu_fabric.fabric import stack as stack_module
from gpu_fabric.fabric.addons import ResolvedAddon, ResolvedAddons
from gpu_fabric.fabric.layer import HelmRelease, Layer, Manifest, Part
from gpu_fabric.fabric.resources import _snake, resource_name, typed_class
from gpu_fabric.fabric.stack import FabricStack, FabricStackArgs
from gpu_fabric.plan import runner
from gpu_fabric.plan.model import PlannedResource, PlanResult
from gpu_fabric.plan.monitor import RecordingMonitor
from gpu_fabric.plan.values import plain
from gpu_fabric.versions import Chart

# -- pure: the typed class, its keyword names and the child name ---------------------

# PULUMI_K8S: one built-in kind per entry of resources._GROUP_MODULES, and its class.
TYPED = {
    "": ("v1", "Namespace", k8s.core.v1.Namespace),
    "apps": ("apps/v1", "DaemonSet", k8s.apps.v1.DaemonSet),
    "batch": ("batch/v1", "Job", k8s.batch.v1.Job),
    "policy": ("policy/v1", "PodDisruptionBudget", k8s.policy.v1.PodDisruptionBudget),
    "rbac.authorization.k8s.io": (
        "rbac.authorization.k8s.io/v1", "ClusterRoleBinding", k8s.rbac.v1.ClusterRoleBinding),
    "apiextensions.k8s.io": (
        "apiextensions.k8s.io/v1", "CustomResourceDefinition",
        k8s.apiextensions.v1.CustomResourceDefinition),
    "resource.k8s.io": ("resource.k8s.io/v1", "DeviceClass", k8s.resource.v1.DeviceClass),
    "scheduling.k8s.io": ("scheduling.k8s.io/v1", "PriorityClass",
                          k8s.scheduling.v1.PriorityClass),
    "networking.k8s.io": ("networking.k8s.io/v1", "NetworkPolicy",
                          k8s.networking.v1.NetworkPolicy),
    "admissionregistration.k8s.io": (
        "admissionregistration.k8s.io/v1", "ValidatingWebhookConfiguration",
        k8s.admissionregistration.v1.ValidatingWebhookConfiguration),
    "storage.k8s.io": ("storage.k8s.io/v1", "StorageClass", k8s.storage.v1.StorageClass),
    "node.k8s.io": ("node.k8s.io/v1", "RuntimeClass", k8s.node.v1.RuntimeClass),
}


def test_every_group_module_gives_its_typed_class() -> None:
    assert set(TYPED) == set(resources._GROUP_MODULES)  # a new group needs a row here
    for group, (api_version, kind, cls) in TYPED.items():
        assert typed_class(api_version, kind) is cls, group


def test_kinds_without_a_typed_class_are_custom_resources() -> None:
    # A group pulumi_kubernetes has no module for (kueue's CRDs, URNS MATRIX).
    assert typed_class("kueue.x-k8s.io/v1beta1", "WorkloadPriorityClass") is None
    assert typed_class("k8s.cni.cncf.io/v1", "NetworkAttachmentDefinition") is None
    # A known group at a version the SDK does not ship, or a kind it does not know.
    assert typed_class("apps/v1alpha9", "DaemonSet") is None
    assert typed_class("v1", "NetworkAttachmentDefinition") is None
    # PULUMI_K8S: core/v1/__init__.py also holds modules (``outputs``, ``_inputs``):
    # a kind that names one is no resource class.
    assert typed_class("v1", "outputs") is None


def test_snake_gives_the_keyword_names_of_the_typed_classes() -> None:
    # PULUMI_K8S: the _internal_init keywords of core/v1/ServiceAccount.py,
    # rbac/v1/ClusterRoleBinding.py, scheduling/v1/PriorityClass.py,
    # storage/v1/StorageClass.py, core/v1/ConfigMap.py.
    wire_to_keyword = {
        "metadata": "metadata",
        "automountServiceAccountToken": "automount_service_account_token",
        "roleRef": "role_ref",
        "preemptionPolicy": "preemption_policy",
        "globalDefault": "global_default",
        "allowVolumeExpansion": "allow_volume_expansion",
        "volumeBindingMode": "volume_binding_mode",
        "binaryData": "binary_data",
    }
    assert {wire: _snake(wire) for wire in wire_to_keyword} == wire_to_keyword


def test_resource_name_is_prefix_kind_namespace_name() -> None:
    # URNS OCI: oci-h100-fabric-multus-serviceaccount-kube-system-multus (namespaced)
    # and ...-multus-clusterrole-multus (cluster-scoped: no namespace segment).
    sa = {"apiVersion": "v1", "kind": "ServiceAccount",
          "metadata": {"name": "multus", "namespace": "kube-system"}}
    role = {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole",
            "metadata": {"name": "multus"}}
    empty_ns = {"kind": "ClusterRole", "metadata": {"name": "multus", "namespace": ""}}
    prefix = "oci-h100-fabric-multus"
    assert resource_name(prefix, sa) == "oci-h100-fabric-multus-serviceaccount-kube-system-multus"
    assert resource_name(prefix, role) == "oci-h100-fabric-multus-clusterrole-multus"
    assert resource_name(prefix, empty_ns) == "oci-h100-fabric-multus-clusterrole-multus"


def test_resource_name_needs_the_object_name() -> None:
    with pytest.raises(KeyError, match="'name'"):
        resource_name("p", {"kind": "Namespace"})


# -- the layer the stack is built from ------------------------------------------------

STACK = "oci-h100"
NAME = "oci-h100-fabric"  # URNS OCI, last line: the FabricStack
FS = "gpufabric:kubernetes:FabricStack"
COMPONENT_URN = f"urn:pulumi:{STACK}::gpu-fabric::{FS}::{NAME}"
# The explicit provider; PlanMocks gives every resource the id "<name>-id".
PROVIDER = f"urn:pulumi:{STACK}::gpu-fabric::pulumi:providers:kubernetes::oci-h100-k8s"
PROVIDER_REF = f"{PROVIDER}::oci-h100-k8s-id"
ADDON_URN = (f"urn:pulumi:{STACK}::gpu-fabric::oci:ContainerEngine/addon:Addon"
             "::oci-h100-network-operator")

UPSTREAM_MULTUS = (Path(__file__).parents[1] / "data" / "upstream" / "crds" / "k8s.cni.cncf.io"
                   / "multus-daemonset-thick.yml")


def _multus(kind: str) -> Manifest:
    """One object of the UPSTREAM multus file (a fresh copy each time)."""
    docs = [d for d in yaml.safe_load_all(UPSTREAM_MULTUS.read_text()) if d]
    found: Manifest = next(d for d in docs if d["kind"] == kind)
    return found


KYVERNO_NS = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "kyverno"}}
# FORM: a custom resource (only metadata and spec) in a part with a chart, so it waits
# for the release that ships its CRD.
GUARD = {
    "apiVersion": "kyverno.io/v1", "kind": "ClusterPolicy",
    "metadata": {"name": "gpufabric-guard-h100"},
    "spec": {"background": False, "rules": []},
}
KUEUE_NS = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "kueue-system"}}
# A quota in the release's namespace (as the DRA driver's system-*-critical quota on GKE,
# fabric/manifests/dra_driver.py): listed before the Namespace to show the order is
# FabricStack's (Namespace first, then quotas, then the release), and a ConfigMap in that
# namespace, which comes after the release.
KUEUE_QUOTA = {"apiVersion": "v1", "kind": "ResourceQuota",
               "metadata": {"name": "critical", "namespace": "kueue-system"},
               "spec": {"hard": {"pods": "100"}}}
KUEUE_CM = {"apiVersion": "v1", "kind": "ConfigMap",
            "metadata": {"name": "extra", "namespace": "kueue-system"}, "data": {"a": "1"}}
# UPSTREAM kueue: top-level value and description (values of components/gpu_fabric/platform/teams.py
# PRIORITIES and platform/kueue.py workload_priority_classes).
HIGH = {
    "apiVersion": "kueue.x-k8s.io/v1beta1", "kind": "WorkloadPriorityClass",
    "metadata": {"name": "gpu-fabric-high"},
    "value": 100000, "description": "gpu-fabric team workloads, high priority",
}
# FORM (URNS MATRIX has it in part "teams"): a built-in kind with top-level fields
# (PULUMI_K8S scheduling/v1/PriorityClass.py: value, preemption_policy, global_default).
PRIORITY = {
    "apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass",
    "metadata": {"name": "gpu-fabric-high"},
    "value": 100000, "preemptionPolicy": "PreemptLowerPriority", "globalDefault": False,
}
RDMA_VF = {
    "apiVersion": "k8s.cni.cncf.io/v1", "kind": "NetworkAttachmentDefinition",
    "metadata": {"name": "rdma-vf", "namespace": "default"},
    "spec": {"config": '{"cniVersion": "0.3.1", "type": "sriov"}'},
}
NIC_POLICY = {
    "apiVersion": "mellanox.com/v1alpha1", "kind": "NicClusterPolicy",
    "metadata": {"name": "nic-cluster-policy"},
    "spec": {"nvIpam": {"enableWebhook": False}},
}
# PINS: KYVERNO and KUEUE. Values: kyverno 3.6.1 values.yaml admissionController.replicas
# (line 843), kueue 0.14.4 values.yaml enablePrometheus (line 10), under
# tests/data/upstream/values/.
KYVERNO = HelmRelease("kyverno", Chart("https://kyverno.github.io/kyverno", "kyverno", "3.6.1"),
                      "kyverno", {"admissionController": {"replicas": 3}}, user_values=True)
KUEUE = HelmRelease("kueue", Chart("oci://registry.k8s.io/kueue/charts", "kueue", "0.14.4"),
                    "kueue-system", {"enablePrometheus": True})
ADDON_PART = "network-operator-addon"  # components/gpu_fabric/clouds/oci/kubernetes.py addon_parts


def _layer() -> Layer:
    # The multus part lists its CRD last: CRDs go first whatever their place.
    multus = tuple(_multus(k) for k in ("ServiceAccount", "ClusterRole", "ClusterRoleBinding",
                                         "ConfigMap", "DaemonSet", "CustomResourceDefinition"))
    return Layer(
        (
            Part("multus", manifests=multus),
            Part("kyverno", manifests=(GUARD, KYVERNO_NS), charts=(KYVERNO,)),
            Part("nads", manifests=(RDMA_VF,), after=("multus",)),
            Part("kueue", manifests=(KUEUE_CM, KUEUE_QUOTA, KUEUE_NS), charts=(KUEUE,)),
            Part("kueue-queues", manifests=(HIGH, PRIORITY), after=("kueue",)),
            Part(ADDON_PART, after=("kyverno", "kueue-queues"),
                 installed_by="the OKE NvidiaNetworkOperator add-on (created by OciGpuCluster)"),
            Part("nic-cluster-policy", manifests=(NIC_POLICY,), after=(ADDON_PART,)),
        ),
        ResolvedAddons({
            "kyverno": ResolvedAddon("kyverno", True, None),
            "kueue": ResolvedAddon("kueue", True, None),
            "gpu_operator": ResolvedAddon("gpu_operator", False, None),
        }),
    )


# Stand-ins: build_layer is replaced, FabricStack only hands them on.
SPEC, FABRICS, PLUGINS = object(), {"gpu": object()}, object()


class _Monitor(RecordingMonitor):
    """RecordingMonitor, plus what it leaves out: ``additionalSecretOutputs``, the value
    under a secret (the plan shows ``[secret]``) and ``register_outputs``."""

    def __init__(self, mocks: Any) -> None:
        super().__init__(mocks)
        self.secret_outputs: dict[str, list[str]] = {}
        self.wire: dict[str, dict[str, Any]] = {}
        self.outputs: dict[str, dict[str, Any]] = {}

    def RegisterResource(self, request: Any) -> Any:
        self.secret_outputs[request.name] = list(request.additionalSecretOutputs)
        self.wire[request.name] = json_format.MessageToDict(request.object)
        return super().RegisterResource(request)

    def RegisterResourceOutputs(self, request: Any) -> Any:
        self.outputs[request.urn] = plain(request.outputs)
        return super().RegisterResourceOutputs(request)


class Run:
    """One run of FabricStack under the mocks: the plan, the monitor, what was called."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch, layer: Layer, *, secret: bool,
                 installers: Mapping[str, Any] | None = None) -> None:
        self.build_calls: list[tuple[Any, ...]] = []
        self.installer_waits: list[list[pulumi.Resource]] = []
        self.monitors: list[_Monitor] = []
        self.stack: FabricStack | None = None

        def build_layer(spec: Any, fabrics: Any, plugins: Any) -> Layer:
            self.build_calls.append((spec, fabrics, plugins))
            return layer

        def monitor(mocks: Any) -> _Monitor:
            self.monitors.append(_Monitor(mocks))
            return self.monitors[-1]

        monkeypatch.setattr(stack_module, "build_layer", build_layer)
        monkeypatch.setattr(runner, "RecordingMonitor", monitor)
        self.installers = {ADDON_PART: self._addon} if installers is None else installers
        self.plan: PlanResult | None = None
        self.plan = runner.run_program(
            self._program, stack=STACK, config={"gpu-fabric:cluster": "{}"},
            secret_keys=["gpu-fabric:cluster"] if secret else [])

    def _addon(self, waits: Sequence[pulumi.Resource]) -> tuple[pulumi.Resource, ...]:
        """Stands for OciGpuCluster._network_operator_addon: one OCI resource after waits."""
        self.installer_waits.append(list(waits))
        return (pulumi.CustomResource(
            "oci:ContainerEngine/addon:Addon", "oci-h100-network-operator",
            {"addonName": "NvidiaNetworkOperator"},
            pulumi.ResourceOptions(depends_on=list(waits))),)

    def _program(self) -> None:
        provider = k8s.Provider("oci-h100-k8s", kubeconfig="{}")
        self.stack = FabricStack(
            NAME, FabricStackArgs(SPEC, FABRICS, PLUGINS, self.installers),  # type: ignore[arg-type]
            opts=pulumi.ResourceOptions(providers={"kubernetes": provider}))

    @property
    def monitor(self) -> _Monitor:
        return self.monitors[-1]

    def children(self) -> dict[str, PlannedResource]:
        assert self.plan is not None
        return {r.name: r for r in self.plan.resources if r.parent == COMPONENT_URN}

    def made(self, part: str) -> list[tuple[type, str]]:
        assert self.stack is not None
        return [(type(r), r._name) for r in self.stack.part_resources[part]]


def child_urn(type_: str, name: str) -> str:
    return f"urn:pulumi:{STACK}::gpu-fabric::{FS}${type_}::{name}"


# Children: name -> type token (comment: the URNS line). Tokens: PULUMI_K8S for typed kinds,
# ``kubernetes:<apiVersion>:<kind>`` for custom resources (the same URNS lines).
CRD = ("oci-h100-fabric-multus-customresourcedefinition"
       "-network-attachment-definitions.k8s.cni.cncf.io")
SA = "oci-h100-fabric-multus-serviceaccount-kube-system-multus"
ROLE = "oci-h100-fabric-multus-clusterrole-multus"
BINDING = "oci-h100-fabric-multus-clusterrolebinding-multus"
CONFIG = "oci-h100-fabric-multus-configmap-kube-system-multus-daemon-config"
DS = "oci-h100-fabric-multus-daemonset-kube-system-kube-multus-ds"
KYVERNO_NS_NAME = "oci-h100-fabric-kyverno-namespace-kyverno"
KYVERNO_RELEASE = "oci-h100-fabric-kyverno-kyverno"
GUARD_NAME = "oci-h100-fabric-kyverno-clusterpolicy-gpufabric-guard-h100"  # FORM
NAD = "oci-h100-fabric-nads-networkattachmentdefinition-default-rdma-vf"
KUEUE_NS_NAME = "oci-h100-fabric-kueue-namespace-kueue-system"
KUEUE_RELEASE = "oci-h100-fabric-kueue-kueue"
KUEUE_QUOTA_NAME = "oci-h100-fabric-kueue-resourcequota-kueue-system-critical"
KUEUE_CM_NAME = "oci-h100-fabric-kueue-configmap-kueue-system-extra"
HIGH_NAME = "oci-h100-fabric-kueue-queues-workloadpriorityclass-gpu-fabric-high"
PRIORITY_NAME = "oci-h100-fabric-kueue-queues-priorityclass-gpu-fabric-high"  # FORM
NIC = "oci-h100-fabric-nic-cluster-policy-nicclusterpolicy-nic-cluster-policy"

TYPES = {
    CRD: "kubernetes:apiextensions.k8s.io/v1:CustomResourceDefinition",  # OCI line 1
    SA: "kubernetes:core/v1:ServiceAccount",  # OCI line 9
    ROLE: "kubernetes:rbac.authorization.k8s.io/v1:ClusterRole",  # OCI line 18
    BINDING: "kubernetes:rbac.authorization.k8s.io/v1:ClusterRoleBinding",  # OCI line 19
    CONFIG: "kubernetes:core/v1:ConfigMap",  # OCI line 4
    DS: "kubernetes:apps/v1:DaemonSet",  # OCI line 2
    KYVERNO_NS_NAME: "kubernetes:core/v1:Namespace",  # OCI line 6
    KYVERNO_RELEASE: "kubernetes:helm.sh/v3:Release",  # OCI line 11
    GUARD_NAME: "kubernetes:kyverno.io/v1:ClusterPolicy",  # OCI line 14 (part injection)
    NAD: "kubernetes:k8s.cni.cncf.io/v1:NetworkAttachmentDefinition",  # OCI line 13
    KUEUE_NS_NAME: "kubernetes:core/v1:Namespace",  # MATRIX
    KUEUE_RELEASE: "kubernetes:helm.sh/v3:Release",  # MATRIX
    KUEUE_QUOTA_NAME: "kubernetes:core/v1:ResourceQuota",  # gcp-a4 quota lines
    KUEUE_CM_NAME: "kubernetes:core/v1:ConfigMap",  # OCI line 4
    HIGH_NAME: "kubernetes:kueue.x-k8s.io/v1beta1:WorkloadPriorityClass",  # MATRIX
    PRIORITY_NAME: "kubernetes:scheduling.k8s.io/v1:PriorityClass",  # MATRIX (part teams)
    NIC: "kubernetes:mellanox.com/v1alpha1:NicClusterPolicy",  # OCI line 16
}


def urn(name: str) -> str:
    return child_urn(TYPES[name], name)


@pytest.fixture
def run(monkeypatch: pytest.MonkeyPatch) -> Run:
    """The layer above, from a stack whose cluster config holds a secret."""
    return Run(monkeypatch, _layer(), secret=True)


# -- the component ----------------------------------------------------------------------

def test_component_type_name_outputs_and_what_it_hands_build_layer(run: Run) -> None:
    assert run.plan is not None and run.stack is not None
    component = [r for r in run.plan.resources if r.urn == COMPONENT_URN]
    assert [(r.type, r.name, r.custom) for r in component] == [(FS, NAME, False)]
    assert run.build_calls == [(SPEC, FABRICS, PLUGINS)]
    assert run.stack.layer.names == ["multus", "kyverno", "nads", "kueue", "kueue-queues",
                                     ADDON_PART, "nic-cluster-policy"]
    assert run.monitor.outputs[COMPONENT_URN] == {
        "parts": ["multus", "kyverno", "nads", "kueue", "kueue-queues", ADDON_PART,
                  "nic-cluster-policy"],
        "addons": {"kyverno": True, "kueue": True, "gpu_operator": False},
    }


def test_every_child_has_its_type_name_parent_and_the_explicit_provider(run: Run) -> None:
    children = run.children()
    assert {name: r.type for name, r in children.items()} == TYPES
    for name, r in children.items():
        assert (r.urn, r.provider, r.custom) == (urn(name), PROVIDER_REF, True), name


def test_each_part_keeps_its_resources_in_order_firsts_releases_rest(run: Run) -> None:
    assert run.made("multus") == [
        (k8s.apiextensions.v1.CustomResourceDefinition, CRD),
        (k8s.core.v1.ServiceAccount, SA),
        (k8s.rbac.v1.ClusterRole, ROLE),
        (k8s.rbac.v1.ClusterRoleBinding, BINDING),
        (k8s.core.v1.ConfigMap, CONFIG),
        (k8s.apps.v1.DaemonSet, DS),
    ]
    # The namespace (and any ResourceQuota) before the release that installs into it.
    assert run.made("kyverno") == [
        (k8s.core.v1.Namespace, KYVERNO_NS_NAME),
        (k8s.helm.v3.Release, KYVERNO_RELEASE),
        (k8s.apiextensions.CustomResource, GUARD_NAME),
    ]
    assert run.made("nads") == [(k8s.apiextensions.CustomResource, NAD)]
    # Namespace, then its quota, then the release, then the part's other objects.
    assert run.made("kueue") == [(k8s.core.v1.Namespace, KUEUE_NS_NAME),
                                 (k8s.core.v1.ResourceQuota, KUEUE_QUOTA_NAME),
                                 (k8s.helm.v3.Release, KUEUE_RELEASE),
                                 (k8s.core.v1.ConfigMap, KUEUE_CM_NAME)]
    # UPSTREAM kueue: top-level fields, so not the CustomResource class (metadata/spec only).
    assert run.made("kueue-queues") == [
        (resources._TopLevelCustomResource, HIGH_NAME),
        (k8s.scheduling.v1.PriorityClass, PRIORITY_NAME),
    ]
    assert run.made("nic-cluster-policy") == [(k8s.apiextensions.CustomResource, NIC)]


def test_depends_on_orders_crds_and_namespaces_then_releases_then_the_rest(run: Run) -> None:
    deps = {name: r.dependencies for name, r in run.children().items()}
    crd = (urn(CRD),)
    assert deps == {
        # multus: no after, no chart; the CRD first, the rest after it.
        CRD: (),
        SA: crd, ROLE: crd, BINDING: crd, CONFIG: crd, DS: crd,
        # kyverno: the namespace waits for nothing, the release for its namespace (Helm
        # creates none: create_namespace is off); the cluster-scoped policy waits for the
        # release (the chart ships the CRD it needs), not for the namespace the part
        # creates for the release (issue 36: what lives in a part's own namespace is
        # waited for from that namespace only).
        KYVERNO_RELEASE: (urn(KYVERNO_NS_NAME),),
        KYVERNO_NS_NAME: (),
        GUARD_NAME: (urn(KYVERNO_RELEASE),),
        # nads (namespace default) after multus: multus's cluster-wide resources (the CRD,
        # the ClusterRole and its binding), not its objects in kube-system.
        NAD: tuple(sorted(urn(n) for n in (CRD, ROLE, BINDING))),
        # The quota waits for its namespace; the release for both (a pod the quota must
        # admit is never created before it); the ConfigMap for its namespace and the
        # release (the quota it reaches through the release).
        KUEUE_RELEASE: tuple(sorted((urn(KUEUE_NS_NAME), urn(KUEUE_QUOTA_NAME)))),
        KUEUE_QUOTA_NAME: (urn(KUEUE_NS_NAME),),
        KUEUE_CM_NAME: tuple(sorted(urn(n) for n in (KUEUE_NS_NAME, KUEUE_RELEASE))),
        KUEUE_NS_NAME: (),
        # kueue-queues after kueue: its release, not the kueue-system namespace.
        HIGH_NAME: (urn(KUEUE_RELEASE),),
        PRIORITY_NAME: (urn(KUEUE_RELEASE),),
        # after the installed part: what its installer returned.
        NIC: (ADDON_URN,),
    }


def test_an_installed_part_gets_the_resources_of_the_parts_it_waits_for(run: Run) -> None:
    assert run.plan is not None and run.stack is not None
    # after=("kyverno", "kueue-queues"): kyverno's resources, then kueue-queues', each
    # in the part's order; not the kyverno namespace (created by the part for its release).
    assert [[w._name for w in waits] for waits in run.installer_waits] == [
        [KYVERNO_RELEASE, GUARD_NAME, HIGH_NAME, PRIORITY_NAME]]
    assert [r._name for r in run.stack.part_resources[ADDON_PART]] == [
        "oci-h100-network-operator"]
    assert isinstance(run.stack.part_resources[ADDON_PART], list)
    addon = run.plan.one("oci:ContainerEngine/addon:Addon")
    assert addon.dependencies == tuple(sorted(
        urn(n) for n in (KYVERNO_RELEASE, GUARD_NAME, HIGH_NAME, PRIORITY_NAME)))


# -- inputs: what the provider receives ----------------------------------------------------

def test_built_in_kinds_reach_the_provider_whole(run: Run) -> None:
    children = run.children()
    # UPSTREAM multus: each of the six objects, every field (the typed classes take
    # snake_case keywords and send the wire names back: roleRef, data, rules ...).
    for name, kind in ((CRD, "CustomResourceDefinition"), (SA, "ServiceAccount"),
                       (ROLE, "ClusterRole"), (BINDING, "ClusterRoleBinding"),
                       (CONFIG, "ConfigMap"), (DS, "DaemonSet")):
        assert children[name].inputs == _multus(kind), name
    # The same, written out for two of them.
    assert children[BINDING].inputs == {
        "apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRoleBinding",
        "metadata": {"name": "multus"},
        "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole",
                    "name": "multus"},
        "subjects": [{"kind": "ServiceAccount", "name": "multus", "namespace": "kube-system"}],
    }
    assert children[PRIORITY_NAME].inputs == {
        "apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass",
        "metadata": {"name": "gpu-fabric-high"},
        "value": 100000, "preemptionPolicy": "PreemptLowerPriority", "globalDefault": False,
    }
    assert children[KYVERNO_NS_NAME].inputs == {
        "apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "kyverno"}}


def test_custom_resources_reach_the_provider_whole(run: Run) -> None:
    children = run.children()
    assert children[NAD].inputs == {
        "apiVersion": "k8s.cni.cncf.io/v1", "kind": "NetworkAttachmentDefinition",
        "metadata": {"name": "rdma-vf", "namespace": "default"},
        "spec": {"config": '{"cniVersion": "0.3.1", "type": "sriov"}'},
    }
    assert children[GUARD_NAME].inputs == {
        "apiVersion": "kyverno.io/v1", "kind": "ClusterPolicy",
        "metadata": {"name": "gpufabric-guard-h100"},
        "spec": {"background": False, "rules": []},
    }
    # UPSTREAM kueue: value and description beside metadata, as the CRD has them.
    assert children[HIGH_NAME].inputs == {
        "apiVersion": "kueue.x-k8s.io/v1beta1", "kind": "WorkloadPriorityClass",
        "metadata": {"name": "gpu-fabric-high"},
        "value": 100000, "description": "gpu-fabric team workloads, high priority",
    }


# -- Helm releases ----------------------------------------------------------------------------

# PROJECT: what every release gets (resources.release_resource; the namespace is a layer
# object of the part, not Helm's). PULUMI_K8S helm/v3/Release.py adds compat "true".
RELEASE_FIXED = {"createNamespace": False, "atomic": False, "cleanupOnFail": True,
                 "maxHistory": 5, "timeout": 900, "compat": "true"}


def test_release_from_an_https_repo_with_user_values_in_a_secret_config(run: Run) -> None:
    children = run.children()
    # PINS KYVERNO: chart name plus repositoryOpts.repo. Values hidden in the plan ...
    assert children[KYVERNO_RELEASE].inputs == {
        "name": "kyverno", "chart": "kyverno", "version": "3.6.1",
        "repositoryOpts": {"repo": "https://kyverno.github.io/kyverno"},
        "namespace": "kyverno", "values": "[secret]", **RELEASE_FIXED,
    }
    # ... but sent whole, as a secret (the wire form of pulumi/runtime/rpc.py: key
    # _special_sig_key, value _special_secret_sig), and the outputs that echo them
    # stay secret.
    assert run.monitor.wire[KYVERNO_RELEASE]["values"] == {
        "4dabf18193072939515e22adb298388d": "1b47061264138c4ac30d75fd1eb44270",
        "value": {"admissionController": {"replicas": 3}},
    }
    assert run.monitor.secret_outputs[KYVERNO_RELEASE] == ["values", "manifest"]


def test_release_from_an_oci_registry_without_user_values(run: Run) -> None:
    # PINS KUEUE: an oci:// chart is referenced as <repo>/<name>, no repositoryOpts.
    # No user values: plain even though the config holds a secret.
    assert run.children()[KUEUE_RELEASE].inputs == {
        "name": "kueue", "chart": "oci://registry.k8s.io/kueue/charts/kueue",
        "version": "0.14.4", "namespace": "kueue-system",
        "values": {"enablePrometheus": True}, **RELEASE_FIXED,
    }
    assert run.monitor.secret_outputs[KUEUE_RELEASE] == []


def test_user_values_stay_plain_when_the_config_holds_no_secret(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    plain_run = Run(monkeypatch, Layer((Part("kyverno", charts=(KYVERNO,)),), ResolvedAddons()),
                    secret=False)
    release = plain_run.children()[KYVERNO_RELEASE]
    assert release.inputs["values"] == {"admissionController": {"replicas": 3}}
    assert plain_run.monitor.secret_outputs[KYVERNO_RELEASE] == []
    assert (release.dependencies, release.provider) == ((), PROVIDER_REF)


# -- refusals ---------------------------------------------------------------------------------

def test_an_installed_part_without_its_installer_is_refused(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    layer = Layer((Part(ADDON_PART, installed_by="the OKE NvidiaNetworkOperator add-on"),),
                  ResolvedAddons())
    message = ("layer part 'network-operator-addon' is the OKE NvidiaNetworkOperator add-on: "
               "FabricStackArgs.installers needs a 'network-operator-addon' entry that "
               "creates it (the cloud's GpuCluster passes one)")
    with pytest.raises(ValueError, match=f"^{re.escape(message)}$"):
        Run(monkeypatch, layer, secret=False, installers={})


def test_a_layer_that_fails_to_build_registers_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    """build_layer runs before the component registers (stack.py: fails before registering)."""
    def failing(*_: Any) -> Layer:
        raise ValueError("duplicate layer parts: ['multus']")

    monitors: list[_Monitor] = []
    monkeypatch.setattr(stack_module, "build_layer", failing)
    monkeypatch.setattr(runner, "RecordingMonitor",
                        lambda mocks: monitors.append(_Monitor(mocks)) or monitors[-1])

    def program() -> None:
        FabricStack(NAME, FabricStackArgs(SPEC, FABRICS))  # type: ignore[arg-type]

    with pytest.raises(ValueError, match="duplicate layer parts"):
        runner.run_program(program, stack=STACK)
    assert [r.type for r in monitors[-1].recorded] == []
