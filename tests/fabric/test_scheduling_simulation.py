"""Scheduling simulation of every plan (tests/support/scheduling.py): node agents land on
every GPU node, operators have a node, full-node and one-GPU training pods fit and
find what they reference; and the simulation bites."""

from __future__ import annotations

import copy
import dataclasses
import re
from collections.abc import Callable
from typing import Any

import pytest

from gpu_fabric.fabric.layer import HelmRelease, Layer, Part
from tests.support.scheduling import (
    GPU_PRESENT,
    NodeGroup,
    Workload,
    lands,
    layer_workloads,
    planned_node_groups,
    simulate,
    tolerates,
    training_pod_problems,
    workload_namespaces,
)
from tests.support.variants import layer_of, plan_of, spec_of, usable

# Defects the simulation finds that belong to another owner's area (visible, strict).
KNOWN_DEFECTS: dict[str, str] = {}


def _groups(variant: str) -> list[NodeGroup]:
    spec = spec_of(variant)
    assert spec is not None
    return planned_node_groups(spec, plan_of(variant))


def _simulate(variant: str, layer: Layer | None = None) -> list[str]:
    spec = spec_of(variant)
    assert spec is not None
    return simulate(spec, plan_of(variant), layer or layer_of(variant))


@pytest.mark.parametrize("variant", usable())
def test_node_agents_and_operators_land(variant: str) -> None:
    problems = [p for p in _simulate(variant) if " pod of pool " not in p]
    assert problems == []


@pytest.mark.parametrize("variant", [
    pytest.param(v, marks=pytest.mark.xfail(strict=True, reason=KNOWN_DEFECTS[v]))
    if v in KNOWN_DEFECTS else v for v in usable()
])
def test_full_node_and_partial_node_training_pods_fit(variant: str) -> None:
    problems = [p for p in _simulate(variant) if " pod of pool " in p]
    assert problems == []


def test_the_simulation_sees_every_gpu_pool_of_every_stack() -> None:
    for variant in usable():
        spec = spec_of(variant)
        assert spec is not None
        gpu_pools = [g for g in _groups(variant) if g.is_gpu]
        assert len(gpu_pools) == len(spec.node_pools), variant
        for group in gpu_pools:
            assert group.taints, f"{variant}: GPU pool {group.name} has no taint"
            for taint in group.taints:  # a mis-parsed taint would be silently ignored
                assert taint["effect"] in ("NoSchedule", "PreferNoSchedule", "NoExecute")
                assert re.fullmatch(r"[\w./-]+", taint["key"]) and "'" not in taint["value"]


# -- matching semantics (core/v1 Toleration.ToleratesTaint, NodeSelectorRequirement) ------

TAINT = {"key": "nvidia.com/gpu", "value": "present", "effect": "NoSchedule"}


@pytest.mark.parametrize(("toleration", "expected"), [
    ({"operator": "Exists"}, True),  # empty key + Exists tolerates everything
    ({"key": "nvidia.com/gpu", "operator": "Exists"}, True),
    ({"key": "nvidia.com/gpu", "operator": "Equal", "value": "present"}, True),
    ({"key": "nvidia.com/gpu", "operator": "Equal", "value": "true"}, False),
    ({"key": "nvidia.com/gpu", "value": "present"}, True),  # operator defaults to Equal
    ({"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoExecute"}, False),
    ({"key": "sku", "operator": "Exists"}, False),
    ({"operator": "Exists", "effect": "NoSchedule"}, True),
])
def test_toleration_matching(toleration: dict[str, str], expected: bool) -> None:
    assert tolerates([toleration], TAINT) is expected


def test_node_affinity_terms_are_ored_and_expressions_anded() -> None:
    group = NodeGroup("g", None, {"a": "1", "b": "2"}, [])
    both = ({"key": "a", "operator": "In", "values": ["1"]},
            {"key": "b", "operator": "Exists"})
    wrong = ({"key": "a", "operator": "In", "values": ["2"]},)
    assert lands(Workload("w", "DaemonSet", {}, (both,), ()), group) is None
    assert lands(Workload("w", "DaemonSet", {}, (wrong, both), ()), group) is None
    assert lands(Workload("w", "DaemonSet", {}, (wrong,), ()), group) is not None
    assert lands(Workload("w", "DaemonSet", {"a": "2"}, (), ()), group) is not None


# -- the simulation bites ---------------------------------------------------------------


def _with_chart_values(layer: Layer, chart: str, edit: Callable[[dict[str, Any]], None]
                       ) -> Layer:
    parts = []
    for part in layer.parts:
        charts = []
        for release in part.charts:
            if release.chart.name == chart:
                values = copy.deepcopy(dict(release.values))
                edit(values)
                release = HelmRelease(release.release, release.chart, release.namespace, values)
            charts.append(release)
        parts.append(dataclasses.replace(part, charts=tuple(charts)))
    return dataclasses.replace(layer, parts=tuple(parts))


def _with_manifests(layer: Layer, edit: Callable[[dict[str, Any]], dict[str, Any] | None]
                    ) -> Layer:
    parts: list[Part] = []
    for part in layer.parts:
        kept = []
        for manifest in part.manifests:
            changed = edit(copy.deepcopy(manifest))
            if changed is not None:
                kept.append(changed)
        parts.append(dataclasses.replace(part, manifests=tuple(kept)))
    return dataclasses.replace(layer, parts=tuple(parts))


def test_a_daemonset_without_the_gpu_tolerations_fails() -> None:
    def strip(m: dict[str, Any]) -> dict[str, Any]:
        if m["kind"] == "DaemonSet" and m["metadata"]["name"] == "kube-multus-ds":
            m["spec"]["template"]["spec"]["tolerations"] = [
                {"key": "CriticalAddonsOnly", "operator": "Exists"}]
        return m

    layer = _with_manifests(layer_of("stack:do-h200"), strip)
    assert _simulate("stack:do-h200", layer) == [
        "DaemonSet kube-system/kube-multus-ds does not land on pool h200: "
        "taint nvidia.com/gpu=:NoSchedule not tolerated"]


def test_a_chart_daemonset_that_misses_the_tainted_gpu_pool_fails() -> None:
    def edit(values: dict[str, Any]) -> None:
        values["tolerations"] = [{"key": "CriticalAddonsOnly", "operator": "Exists"}]

    layer = _with_chart_values(layer_of("stack:aws-p5"), "nvidia-device-plugin", edit)
    assert _simulate("stack:aws-p5", layer) == [
        "nvidia-device-plugin chart: device-plugin does not land on pool p5: "
        "taint nvidia.com/gpu=true:NoSchedule not tolerated"]


def test_nfd_worker_with_upstream_default_tolerations_leaves_aks_gpu_nodes_bare() -> None:
    """The defect this simulation found: network-operator 26.4.1's NFD worker tolerates
    only nvidia.com/gpu; AKS GPU nodes carry sku=gpu, so NFD never labels them and the
    GPU Operator's operands (driver, device plugin) never run."""
    def edit(values: dict[str, Any]) -> None:
        del values["node-feature-discovery"]

    layer = _with_chart_values(layer_of("stack:azure-ndv5"), "network-operator", edit)
    problems = _simulate("stack:azure-ndv5", layer)
    assert "network-operator chart: nfd-worker does not land on pool h100: taint " \
           "sku=gpu:NoSchedule not tolerated" in problems
    assert "gpu-operator chart: operands does not land on pool h100: nodeSelector " \
           f"{GPU_PRESENT}=true not on the nodes" in problems


def test_an_operator_without_a_node_fails() -> None:
    def edit(values: dict[str, Any]) -> None:
        values["admissionController"]["nodeSelector"] = {"pool": "nowhere"}

    layer = _with_chart_values(layer_of("stack:gcp-a4"), "kyverno", edit)
    problems = _simulate("stack:gcp-a4", layer)
    assert len(problems) == 1 and problems[0].startswith(
        "kyverno chart: admission-controller has no node to run on")


def test_a_missing_nad_or_claim_template_fails() -> None:
    def drop(kind: str) -> Callable[[dict[str, Any]], dict[str, Any] | None]:
        return lambda m: None if m["kind"] == kind else m

    nad_layer = _with_manifests(layer_of("stack:do-h200"), drop("NetworkAttachmentDefinition"))
    assert any("NAD" in p and "not in the namespace" in p
               for p in _simulate("stack:do-h200", nad_layer))
    dra_layer = _with_manifests(layer_of("stack:gcp-a4"), drop("ResourceClaimTemplate"))
    assert any("ResourceClaimTemplate" in p for p in _simulate("stack:gcp-a4", dra_layer))


def test_a_claim_asking_more_nics_than_the_node_has_fails() -> None:
    """The bug issue 20 names: DRA on p4d asked 8 NICs on a 4-EFA node."""
    def greedy(m: dict[str, Any]) -> dict[str, Any]:
        if m["kind"] == "ResourceClaimTemplate":
            for req in m["spec"]["spec"]["devices"]["requests"]:
                exact = req.get("exactly", req)
                if "nic" in exact.get("deviceClassName", "") or "net" in exact.get(
                        "deviceClassName", ""):
                    exact["count"] = 8
        return m

    layer = _with_manifests(layer_of("aws:p4d-dra"), greedy)
    problems = _simulate("aws:p4d-dra", layer)
    assert any("NICs, the node has 8 + 4" in p for p in problems), problems


def test_a_quota_below_one_pod_fails() -> None:
    def shrink(m: dict[str, Any]) -> dict[str, Any]:
        if m["kind"] == "ResourceQuota" and "scopeSelector" not in m["spec"]:
            for key in m["spec"]["hard"]:
                if key.endswith("nvidia.com/gpu"):
                    m["spec"]["hard"][key] = "4"
        return m

    spec = spec_of("aws:platform")
    assert spec is not None
    layer = _with_manifests(layer_of("aws:platform"), shrink)
    problems = training_pod_problems(spec, layer, _groups("aws:platform"),
                                     workload_namespaces(spec))
    assert any("exceeds quota" in p and "nvidia.com/gpu=8" in p for p in problems), problems


def test_every_chart_workload_is_modelled() -> None:
    names = {w.name for v in usable() for w in layer_workloads(layer_of(v))}
    charts = {r.chart.name for v in usable() for r in layer_of(v).charts()}
    modelled = {n.split(" chart: ")[0] for n in names if " chart: " in n}
    assert charts == modelled


# -- the SR-IOV network operator's own DaemonSets (OKE, issue 18) ------------------------
# network-operator 26.4.1 values.yaml: sriov-network-operator.sriovOperatorConfig
# .configDaemonNodeSelector; Mellanox/sriov-network-operator network-operator-26.4.x
# (553d46a) bindata/manifests/daemon/daemonset.yaml and plugins/sriov-device-plugin.yaml:
# `tolerations: [{operator: Exists}]`; controllers/helper.go GetNodeSelectorForDevicePlugin
# adds sriovnetwork.openshift.io/device-plugin=Enabled (pkg/consts/constants.go).
CONFIG_DAEMON = "network-operator chart: sriov-network-config-daemon"
SRIOV_DEVICE_PLUGIN = "network-operator chart: sriov-device-plugin"


def test_the_sriov_config_daemon_and_device_plugin_are_simulated() -> None:
    workloads = {w.name: w for w in layer_workloads(layer_of("stack:oci-h100"))}
    daemon = workloads[CONFIG_DAEMON]
    assert (daemon.kind, daemon.needs) == ("DaemonSet", "sriov")
    assert dict(daemon.node_selector) == {"beta.kubernetes.io/os": "linux",
                                          "network.nvidia.com/operator.mofed.wait": "false"}
    assert daemon.tolerations == ({"operator": "Exists"},)
    plugin = workloads[SRIOV_DEVICE_PLUGIN]
    assert dict(plugin.node_selector) == {"beta.kubernetes.io/os": "linux",
                                          "network.nvidia.com/operator.mofed.wait": "false",
                                          "sriovnetwork.openshift.io/device-plugin": "Enabled"}
    assert plugin.tolerations == ({"operator": "Exists"},)


def test_a_config_daemon_selector_no_gpu_node_has_fails() -> None:
    """The sriov-network-operator's own template selector (node-role.kubernetes.io/worker,
    which OKE nodes do not carry) is what runs when configDaemonNodeSelector is empty."""
    def edit(values: dict[str, Any]) -> None:
        values["sriov-network-operator"]["sriovOperatorConfig"][
            "configDaemonNodeSelector"] = {"node-role.kubernetes.io/worker": ""}

    layer = _with_chart_values(layer_of("stack:oci-h100"), "network-operator", edit)
    assert _simulate("stack:oci-h100", layer) == [
        f"{CONFIG_DAEMON} does not land on pool oci-h100-h100: nodeSelector "
        "node-role.kubernetes.io/worker= not on the nodes",
        f"{SRIOV_DEVICE_PLUGIN} does not land on pool oci-h100-h100: nodeSelector "
        "node-role.kubernetes.io/worker= not on the nodes",
    ]


def test_a_vf_policy_selecting_no_gpu_node_leaves_the_sriov_device_plugin_off() -> None:
    def retarget(m: dict[str, Any]) -> dict[str, Any]:
        if m["kind"] == "SriovNetworkNodePolicy":
            m["spec"]["nodeSelector"] = {"gpufabric.dev/pool": "elsewhere"}
        return m

    layer = _with_manifests(layer_of("stack:oci-h100"), retarget)
    assert _simulate("stack:oci-h100", layer) == [
        f"{SRIOV_DEVICE_PLUGIN} does not land on pool oci-h100-h100: nodeSelector "
        "sriovnetwork.openshift.io/device-plugin=Enabled not on the nodes"]


def test_without_a_mellanox_label_the_config_daemon_never_runs() -> None:
    """network-operator v26.4.1 handleWaitLabelsNoConfig sets mofed.wait=false only on
    nodes NFD labelled feature.node.kubernetes.io/pci-15b3.present=true."""
    def no_nfd(values: dict[str, Any]) -> None:
        values["nfd"] = {"enabled": False}

    layer = _with_chart_values(layer_of("stack:oci-h100"), "gpu-operator", no_nfd)
    problems = _simulate("stack:oci-h100", layer)
    assert f"{CONFIG_DAEMON} does not land on pool oci-h100-h100: nodeSelector " \
           "network.nvidia.com/operator.mofed.wait=false not on the nodes" in problems
