"""A scheduling simulation of a plan: would every agent, operator and training pod run?

Input: the planned node pools (labels, taints and machine type, read from the
cloud resources of the plan, plus what the cloud and the node agents add at run
time), the rendered layer (DaemonSets, Deployments, NicClusterPolicy operands, and
the workloads of each Helm chart, placed by the chart's default values at the pinned
version merged with ours), NADs, claim templates, ConfigMaps and quotas.

Checks (each problem is a sentence naming the workload and the pool):

* every node agent lands on every GPU node that needs it (taints tolerated, node
  selector and required node affinity matched);
* every operator Deployment/StatefulSet has a node to run on;
* a full-node and the smallest partial-node training pod of each GPU pool, built with
  :func:`gpu_fabric.fabric.workload.pod_fragment` (what the Kyverno policies
  inject), lands on its pool, fits the node's allocatable (GPUs, NICs, pooled
  devices, hugepages; DRA claims against the node's GPUs and fabric NICs), and finds
  what it references (NADs, claim templates, ConfigMaps) in every workload namespace,
  within its ResourceQuota;
* every DaemonSet that lands on a GPU node, plus each of those training pods (its main
  container's fabric requests and its native sidecars), fits the node's cpu and memory:
  the catalog's host vCPUs and memory minus the managed service's documented
  reservation (:mod:`tests.support.node_reservation`).

What it does not model: cpu and memory on machines whose host figures the catalog does
not have (None: not verified), the requests of the GPU Operator's operands (its
ClusterPolicy defaults, not values the project sets) and of chart workloads whose values
set no ``resources.requests``, LimitRange defaults, preferred affinities, pod
(anti-)affinity, topology spread, priority and preemption, and labels a controller adds
that are not listed in :func:`_runtime_labels`.
"""

from __future__ import annotations

import base64
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from gpu_fabric.catalog import Cloud, FabricKind, GpuVendor, Machine, get_machine
from gpu_fabric.fabric.description import (
    POOL_LABEL,
    DevicePlugin,
    FabricDescription,
    describe_cluster,
)
from gpu_fabric.fabric.layer import Layer
from gpu_fabric.fabric.shapes import served_counts
from gpu_fabric.fabric.workload import FragmentError, pod_fragment
from gpu_fabric.plan import PlanResult
from gpu_fabric.spec import ClusterSpec
from tests.support.helm_values import chart_defaults, subcharts
from tests.support.node_reservation import host_allocatable

# What NFD labels (node-feature-discovery "pci" source: vendor ids) and what the GPU
# Operator labels once NFD saw an NVIDIA GPU (gpu-operator: nvidia.com/gpu.present).
NFD_NVIDIA_GPU = "feature.node.kubernetes.io/pci-10de.present"
NFD_MELLANOX_NIC = "feature.node.kubernetes.io/pci-15b3.present"
GPU_PRESENT = "nvidia.com/gpu.present"
# EKS AL2023 nodes with EFA pre-allocate 5128 x 2 MiB hugepages (amazon-eks-ami
# install-efa.sh; EKS node-efa doc), the smallest figure components/gpu_fabric/clouds/aws/fabric.py
# quotes: 10256Mi.
EFA_NODE_HUGEPAGES_MI = 5128 * 2
# network-operator v26.4.1 (85afd6d) controllers/nicclusterpolicy_controller.go
# handleWaitLabelsNoConfig: with no OFED driver in the NicClusterPolicy, nodes labelled
# feature.node.kubernetes.io/pci-15b3.present=true (pkg/nodeinfo/attributes.go
# NodeLabelMlnxNIC) get network.nvidia.com/operator.mofed.wait=false.
MOFED_WAIT = "network.nvidia.com/operator.mofed.wait"
# The SR-IOV network operator the network-operator 26.4.1 chart runs
# (Mellanox/sriov-network-operator, branch network-operator-26.4.x at 553d46a) renders its
# config daemon (bindata/manifests/daemon/daemonset.yaml) and device plugin
# (bindata/manifests/plugins/sriov-device-plugin.yaml) with `tolerations: [{operator:
# Exists}]`; the config daemon's nodeSelector is SriovOperatorConfig
# .spec.configDaemonNodeSelector when set (controllers/helper.go
# updateDaemonsetNodeSelector), else the template's; the device plugin's is that selector
# plus sriovnetwork.openshift.io/device-plugin=Enabled (GetNodeSelectorForDevicePlugin),
# which the operator puts on nodes a SriovNetworkNodePolicy selects
# (controllers/sriovnetworknodepolicy_controller.go, pkg/consts/constants.go).
SRIOV_DAEMON_TOLERATIONS: tuple[Mapping[str, Any], ...] = ({"operator": "Exists"},)
SRIOV_TEMPLATE_SELECTOR = {"kubernetes.io/os": "linux", "node-role.kubernetes.io/worker": ""}
SRIOV_DEVICE_PLUGIN_LABEL = ("sriovnetwork.openshift.io/device-plugin", "Enabled")
SRIOV_CONFIG_DAEMON = "network-operator chart: sriov-network-config-daemon"
# Same bindata: the config daemon's container requests 100m/100Mi (its CNI-copying init
# containers 10m/10Mi each run alone before it); the device plugin's 10m/50Mi.
SRIOV_CONFIG_DAEMON_REQUESTS = {"cpu": 100, "memory": 100}
SRIOV_DEVICE_PLUGIN_REQUESTS = {"cpu": 10, "memory": 50}
SRIOV_DEVICE_PLUGIN = "network-operator chart: sriov-device-plugin"
UNMODELLED_RESOURCES = frozenset({"cpu", "memory", "ephemeral-storage"})
# The GPU taint GKE and DOKS add to GPU nodes themselves (GKE "Run GPUs in Standard
# node pools": nvidia.com/gpu=present:NoSchedule; DOKS GPU node docs: nvidia.com/gpu
# and amd.com/gpu NoSchedule).
CLOUD_GPU_TAINT = {Cloud.GCP: ("nvidia.com/gpu", "present"), Cloud.DIGITALOCEAN: None}


@dataclass
class NodeGroup:
    name: str
    machine: Machine | None
    labels: dict[str, str]
    taints: list[dict[str, str]]
    count: int = 1
    fabric: FabricDescription | None = None
    allocatable: dict[str, int] = field(default_factory=dict)

    @property
    def is_gpu(self) -> bool:
        return self.machine is not None and self.fabric is not None


@dataclass(frozen=True)
class Workload:
    """Where a pod template may run, and which nodes must run it."""

    name: str  # e.g. DaemonSet kube-system/kube-multus-ds, gpu-operator chart: nfd-worker
    kind: str  # DaemonSet | Deployment | StatefulSet
    node_selector: Mapping[str, str]
    terms: tuple[tuple[Mapping[str, Any], ...], ...]  # required nodeSelectorTerms (ORed)
    tolerations: tuple[Mapping[str, Any], ...]
    # DaemonSets: "gpu" (every GPU node) | "all" (every node) | "sriov" (every GPU node
    # whose fabric NICs are SR-IOV VFs)
    needs: str = "gpu"
    requests: Mapping[str, int] = field(default_factory=dict)  # cpu millicores, memory MiB


# -- node groups from the plan -------------------------------------------------------


def _effect(effect: str) -> str:
    return {"NO_SCHEDULE": "NoSchedule", "NO_EXECUTE": "NoExecute",
            "PREFER_NO_SCHEDULE": "PreferNoSchedule"}.get(effect, effect)


def _machine(name: str | None, cloud: Cloud) -> Machine | None:
    try:
        return get_machine(str(name), cloud) if name else None
    except Exception:  # a system pool's machine is not in the GPU catalog
        return None


def _taint_list(raw: Sequence[Mapping[str, Any]] | None) -> list[dict[str, str]]:
    return [{"key": t["key"], "value": str(t.get("value") or ""), "effect": _effect(t["effect"])}
            for t in raw or []]


def _parse_taint(text: str) -> dict[str, str]:
    key_value, _, effect = text.partition(":")
    key, _, value = key_value.partition("=")
    return {"key": key, "value": value, "effect": effect}


def planned_node_groups(spec: ClusterSpec, plan: PlanResult) -> list[NodeGroup]:
    """Node groups as the plan creates them (cloud resources' labels/taints/machine)."""
    cloud = spec.cloud
    out: list[NodeGroup] = []
    # A capacity-block node group names its instance type on its launch template only
    # (components/gpu_fabric/clouds/aws/nodegroup.py, "instance type on the template"): the
    # template of the same GpuNodeGroup block.
    template_types = {res.parent: res.inputs.get("instanceType") for res in plan.resources
                      if res.type == "aws:ec2/launchTemplate:LaunchTemplate"}
    for res in plan.resources:
        i, t = res.inputs, res.type
        if t == "gcp:container/nodePool:NodePool":
            cfg = i.get("nodeConfig", {})
            labels = {**cfg.get("labels", {}), "cloud.google.com/gke-nodepool": i["name"]}
            out.append(NodeGroup(i["name"], _machine(cfg.get("machineType"), cloud), labels,
                                 _taint_list(cfg.get("taints")), int(i.get("nodeCount") or 1)))
        elif t == "aws:eks/nodeGroup:NodeGroup":
            out.append(NodeGroup(str(i.get("nodeGroupName", res.name)),
                                 _machine((i.get("instanceTypes")
                                           or [template_types.get(res.parent)])[0], cloud),
                                 dict(i.get("labels", {})), _taint_list(i.get("taints")),
                                 int(i.get("scalingConfig", {}).get("desiredSize", 1))))
        elif t == "azure-native:containerservice:ManagedCluster":
            for p in i.get("agentPoolProfiles", []):
                out.append(NodeGroup(p["name"], _machine(p.get("vmSize"), cloud),
                                     {**(p.get("nodeLabels") or {}),
                                      "kubernetes.azure.com/mode": p.get("mode", "").lower()},
                                     [_parse_taint(x) for x in p.get("nodeTaints") or []],
                                     int(p.get("count", 1))))
        elif t == "azure-native:containerservice:AgentPool":
            out.append(NodeGroup(str(i.get("agentPoolName", res.name)),
                                 _machine(i.get("vmSize"), cloud),
                                 {**(i.get("nodeLabels") or {}),
                                  "kubernetes.azure.com/mode": str(i.get("mode", "")).lower()},
                                 [_parse_taint(x) for x in i.get("nodeTaints") or []],
                                 int(i.get("count", 1))))
        elif t in ("digitalocean:index/kubernetesCluster:KubernetesCluster",
                   "digitalocean:index/kubernetesNodePool:KubernetesNodePool"):
            p = i.get("nodePool", i)
            out.append(NodeGroup(p["name"], _machine(p.get("size"), cloud),
                                 dict(p.get("labels") or {}), _taint_list(p.get("taints")),
                                 int(p.get("nodeCount", 1))))
        elif t == "oci:ContainerEngine/nodePool:NodePool":
            labels = {lbl["key"]: lbl["value"] for lbl in i.get("initialNodeLabels", [])}
            data = i.get("nodeMetadata", {}).get("user_data", "")
            found = re.search(r"--register-with-taints=([^\"' ]+)",
                              base64.b64decode(data).decode() if data else "")
            taints = [_parse_taint(x) for x in found.group(1).split(",")] if found else []
            out.append(NodeGroup(i["name"], _machine(i.get("nodeShape"), cloud), labels, taints,
                                 int(i.get("nodeConfigDetails", {}).get("size", 1))))
    if spec.existing is not None:  # nothing planned: the spec describes the GPU pools
        out = [NodeGroup(p.name, _machine(p.machine_type, cloud), dict(p.labels),
                         [{"key": t.key, "value": t.value, "effect": t.effect}
                          for t in p.taints], p.node_count) for p in spec.node_pools]
        # An existing cluster already runs its own untainted system nodes (the spec
        # only lists the GPU pools the fabric layer targets).
        out.append(NodeGroup("existing-system-nodes", None, {}, []))
    fabrics = describe_cluster(spec)
    for group in out:
        pool = group.labels.get(POOL_LABEL) or (group.name if spec.existing else None)
        if pool in fabrics and group.machine is not None:
            group.fabric = fabrics[pool]
        _add_cloud_facts(cloud, group)
    return out


def _add_cloud_facts(cloud: Cloud, group: NodeGroup) -> None:
    machine = group.machine
    arch = machine.cpu_arch if machine else "amd64"
    group.labels.setdefault("kubernetes.io/os", "linux")
    # kubelet still sets the deprecated beta OS label (kubernetes pkg/kubelet
    # kubelet_node_status.go initialNode: kubeletapis.LabelOS); the network-operator
    # chart's configDaemonNodeSelector selects on it.
    group.labels.setdefault("beta.kubernetes.io/os", "linux")
    group.labels.setdefault("kubernetes.io/arch", arch)
    if not group.is_gpu or machine is None:
        group.machine = None
        return
    # The well-known label every kubelet sets from the cloud's instance type
    # (https://kubernetes.io/docs/reference/labels-annotations-taints/
    # #nodekubernetesioinstance-type); GKE's A4X driver DaemonSet selects on it.
    group.labels.setdefault("node.kubernetes.io/instance-type", machine.name)
    if cloud is Cloud.GCP and machine.accelerator:
        group.labels.setdefault("cloud.google.com/gke-accelerator", machine.accelerator)
    if cloud is Cloud.GCP and not any(t["key"] == "nvidia.com/gpu" for t in group.taints):
        group.taints.append({"key": "nvidia.com/gpu", "value": "present",
                             "effect": "NoSchedule"})
    if cloud is Cloud.DIGITALOCEAN and not any(t["key"] == machine.gpu_resource
                                               for t in group.taints):
        group.taints.append({"key": machine.gpu_resource, "value": "", "effect": "NoSchedule"})
    group.allocatable = node_allocatable(group)


def node_allocatable(group: NodeGroup) -> dict[str, int]:
    """Extended resources and devices a GPU node offers (from the catalog and fabric)."""
    fabric, machine = group.fabric, group.machine
    assert fabric is not None and machine is not None
    out: dict[str, int] = {}
    if not fabric.gpu_dra:
        out[fabric.gpu_resource] = machine.gpus
    for rail in fabric.rails:
        if rail.resource:
            # Shared RDMA rails admit rdmaHcaMax pods; a VF/device rail admits one.
            out[rail.resource] = 64 if fabric.pooled_scaling == "per_pod" else 1
    for res, count in fabric.pooled_resources.items():
        out[res] = 64 * count if fabric.pooled_scaling == "per_pod" else count
    if fabric.hugepages_2mi:
        out["hugepages-2Mi"] = EFA_NODE_HUGEPAGES_MI
    host = host_allocatable(fabric.cloud, machine, out.get("hugepages-2Mi", 0))
    if host is not None:
        out.update(host)
    out["dra/gpus"] = machine.gpus
    out["dra/nics"] = machine.fabric_nics
    return out


# -- runtime labels ------------------------------------------------------------------


def _runtime_labels(group: NodeGroup, agents: Sequence[Workload], charts: set[str],
                    sriov_policies: Sequence[Mapping[str, Any]] = ()) -> None:
    """Labels node agents add: NFD pci vendor labels where an NFD worker runs, then the
    GPU Operator's nvidia.com/gpu.present on nodes NFD saw an NVIDIA GPU on, the Network
    Operator's mofed.wait=false on nodes with a Mellanox NIC, and the SR-IOV operator's
    device-plugin=Enabled on nodes its config daemon runs on that a policy selects."""
    machine = group.machine
    if machine is None:
        return
    nfd_here = any(w.name.endswith("nfd-worker") and lands(w, group) is None for w in agents)
    if nfd_here:
        if machine.gpu.vendor is GpuVendor.NVIDIA:
            group.labels.setdefault(NFD_NVIDIA_GPU, "true")
        # Every RoCE/InfiniBand machine in the catalog uses NVIDIA ConnectX NICs (15b3).
        if machine.fabric in (FabricKind.ROCE, FabricKind.INFINIBAND):
            group.labels.setdefault(NFD_MELLANOX_NIC, "true")
    if "gpu-operator" in charts and group.labels.get(NFD_NVIDIA_GPU) == "true":
        group.labels.setdefault(GPU_PRESENT, "true")
    if "network-operator" in charts and group.labels.get(NFD_MELLANOX_NIC) == "true":
        group.labels.setdefault(MOFED_WAIT, "false")
    daemon_here = any(w.name == SRIOV_CONFIG_DAEMON and lands(w, group) is None
                      for w in agents)
    selected = any(all(group.labels.get(k) == str(v)
                       for k, v in (p["spec"].get("nodeSelector") or {}).items())
                   for p in sriov_policies)
    if daemon_here and selected:
        key, value = SRIOV_DEVICE_PLUGIN_LABEL
        group.labels.setdefault(key, value)


# -- matching ------------------------------------------------------------------------


def tolerates(tolerations: Sequence[Mapping[str, Any]], taint: Mapping[str, str]) -> bool:
    """core/v1 Toleration.ToleratesTaint."""
    for tol in tolerations:
        if tol.get("effect") and tol["effect"] != taint["effect"]:
            continue
        if tol.get("key") and tol["key"] != taint["key"]:
            continue
        if tol.get("operator", "Equal") == "Exists":
            return True
        if tol.get("key") and str(tol.get("value") or "") == taint.get("value", ""):
            return True
    return False


def _expression(expr: Mapping[str, Any], labels: Mapping[str, str]) -> bool:
    key, op, values = expr["key"], expr["operator"], [str(v) for v in expr.get("values", [])]
    if op == "In":
        return labels.get(key) in values
    if op == "NotIn":
        return labels.get(key) not in values
    if op == "Exists":
        return key in labels
    if op == "DoesNotExist":
        return key not in labels
    if op in ("Gt", "Lt") and key in labels:
        value, bound = int(labels[key]), int(values[0])
        return value > bound if op == "Gt" else value < bound
    return False


def lands(workload: Workload, group: NodeGroup) -> str | None:
    """None when the workload's pods may run on the group's nodes, else why not."""
    blocking = [t for t in group.taints if t["effect"] in ("NoSchedule", "NoExecute")
                and not tolerates(workload.tolerations, t)]
    if blocking:
        t = blocking[0]
        return f"taint {t['key']}={t['value']}:{t['effect']} not tolerated"
    for key, value in workload.node_selector.items():
        if group.labels.get(key) != str(value):
            return f"nodeSelector {key}={value} not on the nodes"
    if workload.terms and not any(
        all(_expression(e, group.labels) for e in term) for term in workload.terms
    ):
        return f"required node affinity {list(workload.terms)} matches no node label"
    return None


def _terms(affinity: Mapping[str, Any] | None) -> tuple[tuple[Mapping[str, Any], ...], ...]:
    required = ((affinity or {}).get("nodeAffinity") or {}).get(
        "requiredDuringSchedulingIgnoredDuringExecution") or {}
    terms = required.get("nodeSelectorTerms", [])
    return tuple(tuple(t.get("matchExpressions", [])) for t in terms)


def cpu_millicores(text: Any) -> int:
    """A Kubernetes cpu quantity in millicores ("150m", "1", 0.5)."""
    text = str(text)
    if text.endswith("m"):
        return math.ceil(float(text[:-1]))
    return math.ceil(float(text) * 1000)


def container_requests(containers: Sequence[Mapping[str, Any]]) -> dict[str, int]:
    """Summed cpu (millicores) and memory (MiB) requests; a container that sets only a
    limit requests its limit (the API server defaults requests to limits)."""
    out = {"cpu": 0, "memory": 0}
    for container in containers:
        res = container.get("resources") or {}
        asked = {**(res.get("limits") or {}), **(res.get("requests") or {})}
        if "cpu" in asked:
            out["cpu"] += cpu_millicores(asked["cpu"])
        if "memory" in asked:
            out["memory"] += memory_mebibytes(asked["memory"])
    return out


def pod_requests(pod_spec: Mapping[str, Any]) -> dict[str, int]:
    """A pod's effective requests: its containers and native sidecars (init containers
    with restartPolicy Always) add up; a plain init container runs alone, so the pod asks
    the larger of the two (Kubernetes "Resource sharing within containers")."""
    inits = pod_spec.get("initContainers") or []
    sidecars = [c for c in inits if c.get("restartPolicy") == "Always"]
    running = container_requests([*(pod_spec.get("containers") or []), *sidecars])
    for init in (c for c in inits if c.get("restartPolicy") != "Always"):
        alone = container_requests([init])
        running = {k: max(v, alone[k]) for k, v in running.items()}
    return running


def pod_workload(name: str, kind: str, pod_spec: Mapping[str, Any], needs: str = "gpu"
                 ) -> Workload:
    return Workload(name, kind, dict(pod_spec.get("nodeSelector") or {}),
                    _terms(pod_spec.get("affinity")), tuple(pod_spec.get("tolerations") or ()),
                    needs, pod_requests(pod_spec))


# -- workloads of the layer ------------------------------------------------------------


def _merge(base: Any, top: Any) -> Any:
    """Helm's value coalescing: maps merge, a null deletes the default, else top wins."""
    if isinstance(base, Mapping) and isinstance(top, Mapping):
        out = dict(base)
        for key, value in top.items():
            if value is None:
                out.pop(key, None)
            else:
                out[key] = _merge(out.get(key), value)
        return out
    return top


def effective_values(chart: str, version: str, values: Mapping[str, Any]) -> dict[str, Any]:
    defaults = dict(chart_defaults(chart, version))
    for sub, sub_defaults in subcharts(chart, version).items():
        defaults[sub] = _merge(sub_defaults, defaults.get(sub) or {})
    merged: dict[str, Any] = _merge(defaults, values)
    return merged


def _get(values: Mapping[str, Any], path: str) -> Any:
    node: Any = values
    for part in path.split(".") if path else []:
        node = node.get(part) if isinstance(node, Mapping) else None
    return node


# (chart, workload, kind, values prefix, needs, enabled-by value path or "")
CHART_WORKLOADS: tuple[tuple[str, str, str, str, str, str], ...] = (
    ("nvidia-device-plugin", "device-plugin", "DaemonSet", "", "gpu", ""),
    ("aws-efa-k8s-device-plugin", "efa-device-plugin", "DaemonSet", "", "gpu", ""),
    ("dranet", "dranet", "DaemonSet", "", "gpu", ""),
    ("nvidia-dra-driver-gpu", "kubelet-plugin", "DaemonSet", "kubeletPlugin", "gpu", ""),
    ("nvidia-dra-driver-gpu", "controller", "Deployment", "controller", "",
     "resources.computeDomains.enabled"),
    ("gpu-operator", "gpu-operator", "Deployment", "operator", "", ""),
    ("gpu-operator", "nfd-worker", "DaemonSet", "node-feature-discovery.worker", "gpu",
     "nfd.enabled"),
    ("gpu-operator", "nfd-master", "Deployment", "node-feature-discovery.master", "",
     "nfd.enabled"),
    ("network-operator", "network-operator", "Deployment", "operator", "", ""),
    ("network-operator", "nfd-worker", "DaemonSet", "node-feature-discovery.worker", "gpu",
     "nfd.enabled"),
    ("network-operator", "nfd-master", "Deployment", "node-feature-discovery.master", "",
     "nfd.enabled"),
    ("network-operator", "sriov-network-operator", "Deployment",
     "sriov-network-operator.operator", "", "sriovNetworkOperator.enabled"),
    ("kyverno", "admission-controller", "Deployment", "admissionController", "", ""),
    ("kueue", "controller-manager", "Deployment", "controllerManager", "", ""),
    ("jobset", "controller", "Deployment", "controller", "", ""),
    ("kube-prometheus-stack", "prometheus-operator", "Deployment", "prometheusOperator", "", ""),
    ("kube-prometheus-stack", "node-exporter", "DaemonSet", "prometheus-node-exporter", "all",
     ""),
    ("kube-prometheus-stack", "prometheus", "StatefulSet", "prometheus.prometheusSpec", "", ""),
    # cert-manager v1.19.1 values.yaml: the controller's nodeSelector/tolerations at the root.
    ("cert-manager", "controller", "Deployment", "", "", ""),
    # NVSentinel v1.19.0 values.yaml: the node monitors take global.nodeSelector and
    # global.tolerations ([{operator: Exists}]); fault quarantine its own subchart values.
    ("nvsentinel", "node-monitors", "DaemonSet", "global", "gpu", ""),
    ("nvsentinel", "fault-quarantine", "Deployment", "fault-quarantine", "",
     "global.faultQuarantine.enabled"),
)


def layer_workloads(layer: Layer) -> list[Workload]:
    """Every pod template of the layer: manifests, NicClusterPolicy operands, charts."""
    out: list[Workload] = []
    for m in layer.manifests():
        kind, meta = m["kind"], m["metadata"]
        name = f"{kind} {meta.get('namespace', '')}/{meta['name']}"
        if kind in ("DaemonSet", "Deployment", "StatefulSet"):
            out.append(pod_workload(name, kind, m["spec"]["template"]["spec"]))
        elif kind == "NicClusterPolicy":
            spec = m["spec"]
            out.append(Workload(f"{name} operands", "DaemonSet", {},
                                _terms({"nodeAffinity": spec.get("nodeAffinity")}),
                                tuple(spec.get("tolerations") or ())))
    for release in layer.charts():
        chart, version = release.chart.name, release.chart.version
        values = effective_values(chart, version, release.values)
        for c, workload, kind, prefix, needs, enabled in CHART_WORKLOADS:
            if c != chart or (enabled and not _get(values, enabled)):
                continue
            placement = _get(values, prefix) or {}
            out.append(Workload(f"{chart} chart: {workload}", kind,
                                dict(placement.get("nodeSelector") or {}),
                                _terms(placement.get("affinity")),
                                tuple(placement.get("tolerations") or ()), needs,
                                container_requests([placement])))
            if workload == "sriov-network-operator" and _get(
                    values, "sriov-network-operator.sriovOperatorConfig.deploy"):
                out += _sriov_daemons(values)
            if chart == "gpu-operator" and workload == "gpu-operator":
                # The operator's operands (driver, toolkit, device plugin, DCGM...) run on
                # nodes it labels nvidia.com/gpu.present=true, with daemonsets.tolerations.
                out.append(Workload("gpu-operator chart: operands", "DaemonSet",
                                    {GPU_PRESENT: "true"}, (),
                                    tuple(_get(values, "daemonsets.tolerations") or ()), "gpu"))
    return out


def _sriov_daemons(values: Mapping[str, Any]) -> list[Workload]:
    """The SR-IOV operator's config daemon and device plugin (the chart's
    SriovOperatorConfig sets their node selector; their tolerations are the operator's)."""
    selector = dict(_get(values, "sriov-network-operator.sriovOperatorConfig."
                                 "configDaemonNodeSelector") or SRIOV_TEMPLATE_SELECTOR)
    key, value = SRIOV_DEVICE_PLUGIN_LABEL
    return [
        Workload(SRIOV_CONFIG_DAEMON, "DaemonSet", selector, (), SRIOV_DAEMON_TOLERATIONS,
                 "sriov", SRIOV_CONFIG_DAEMON_REQUESTS),
        Workload(SRIOV_DEVICE_PLUGIN, "DaemonSet", {**selector, key: value}, (),
                 SRIOV_DAEMON_TOLERATIONS, "sriov", SRIOV_DEVICE_PLUGIN_REQUESTS),
    ]


# -- the simulation --------------------------------------------------------------------


def agent_problems(groups: list[NodeGroup], workloads: Sequence[Workload]) -> list[str]:
    problems = []
    for w in workloads:
        if w.kind == "DaemonSet":
            targets = [g for g in groups if g.is_gpu or w.needs == "all"]
            if w.needs == "sriov":
                targets = [g for g in targets if g.fabric is not None
                           and g.fabric.device_plugin is DevicePlugin.SRIOV]
            for g in targets:
                why = lands(w, g)
                if why:
                    problems.append(f"{w.name} does not land on pool {g.name}: {why}")
        elif not any(lands(w, g) is None for g in groups):
            reasons = "; ".join(f"{g.name}: {lands(w, g)}" for g in groups)
            problems.append(f"{w.name} has no node to run on ({reasons})")
    return problems


def namespace_objects(layer: Layer) -> dict[str, dict[str, set[str]]]:
    """namespace -> kind -> names (NADs, claim templates, ConfigMaps, quotas...)."""
    out: dict[str, dict[str, set[str]]] = {}
    for m in layer.manifests():
        ns = m["metadata"].get("namespace")
        if ns:
            out.setdefault(ns, {}).setdefault(m["kind"], set()).add(m["metadata"]["name"])
    return out


def _quantity(text: str) -> int:
    """A Kubernetes quantity as an integer (Mi for binary sizes)."""
    text = str(text)
    for suffix, factor in (("Gi", 1024), ("Mi", 1), ("Ki", 1 / 1024)):
        if text.endswith(suffix):
            return math.ceil(float(text[: -len(suffix)]) * factor)
    return math.ceil(float(text))


def memory_mebibytes(text: Any) -> int:
    """A Kubernetes memory quantity in MiB, rounded up (binary and decimal suffixes;
    a bare number is bytes)."""
    text = str(text)
    factors = (("Ki", 2**10), ("Mi", 2**20), ("Gi", 2**30), ("Ti", 2**40),
               ("k", 10**3), ("M", 10**6), ("G", 10**9), ("T", 10**12))
    for suffix, factor in factors:
        if text.endswith(suffix):
            return math.ceil(float(text[: -len(suffix)]) * factor / 2**20)
    return math.ceil(float(text) / 2**20)


def fragment_requests(frag: Any) -> dict[str, int]:
    """cpu/memory a training pod built from the fragment asks: its main container's
    requests (the fragment's limits are requests too) and its native sidecars'."""
    main = {"resources": {"requests": {**frag.limits, **frag.requests}}}
    return pod_requests({"containers": [main], "initContainers": list(frag.sidecars)})


def host_fit_problems(where: str, group: NodeGroup, pod: Mapping[str, int],
                      agents: Sequence[Workload]) -> list[str]:
    """The pod plus every DaemonSet that lands on the group within the node's cpu and
    memory (skipped where the catalog has no host figures)."""
    landed = [w for w in agents if w.kind == "DaemonSet" and lands(w, group) is None]
    problems = []
    for res, unit in (("cpu", "m"), ("memory", "Mi")):
        have = group.allocatable.get(res)
        if have is None:
            continue
        agents_ask = sum(w.requests.get(res, 0) for w in landed)
        if pod.get(res, 0) + agents_ask > have:
            problems.append(f"{where} asks {res}={pod.get(res, 0)}{unit} beside "
                            f"{agents_ask}{unit} of {len(landed)} DaemonSets; the node "
                            f"offers {have}{unit}")
    return problems


def _claim_counts(template: Mapping[str, Any], fabric: FabricDescription) -> tuple[int, int]:
    """GPUs and fabric NICs one claim from this template asks for."""
    gpus = nics = 0
    dra = fabric.dra
    for req in template["spec"]["spec"]["devices"]["requests"]:
        exact = req.get("exactly", req)
        count = int(exact.get("count", 1))
        cls = exact.get("deviceClassName")
        if dra and cls == dra.gpu_class:
            gpus += count
        elif dra and cls == dra.nic_class:
            nics += count
    return gpus, nics


def training_pod_sizes(fabric: FabricDescription) -> list[int]:
    """The full node, and the smallest partial-node pod the pool serves (pools whose NICs
    only a whole-node pod can use, e.g. DOKS host-device, serve no partial pod:
    gpu_fabric.fabric.shapes says why)."""
    full = fabric.machine.gpus
    partial = [n for n in served_counts(fabric) if n < full]
    return [full, *partial[:1]]


def training_pod_problems(spec: ClusterSpec, layer: Layer, groups: list[NodeGroup],
                          namespaces: Sequence[str]) -> list[str]:
    problems: list[str] = []
    objects = namespace_objects(layer)
    templates = {(m["metadata"].get("namespace"), m["metadata"]["name"]): m
                 for m in layer.manifests() if m["kind"] == "ResourceClaimTemplate"}
    for m in layer.manifests():
        # The DRA driver's ComputeDomain controller creates the channel claim template the
        # ComputeDomain names, in its namespace (NVIDIA/k8s-dra-driver-gpu v25.12.0
        # ComputeDomain spec.channel.resourceClaimTemplate); it holds no GPU or NIC.
        channel = (m["spec"].get("channel") or {}).get("resourceClaimTemplate", {}).get("name") \
            if m["kind"] == "ComputeDomain" else None
        if channel:
            ns = m["metadata"].get("namespace")
            templates[(ns, channel)] = {"spec": {"spec": {"devices": {"requests": []}}}}
    quotas = [m for m in layer.manifests() if m["kind"] == "ResourceQuota"]
    agents = [w for w in layer_workloads(layer) if w.kind == "DaemonSet"]
    for group in (g for g in groups if g.is_gpu):
        fabric, machine = group.fabric, group.machine
        assert fabric is not None and machine is not None
        for gpus in training_pod_sizes(fabric):
            where = f"{gpus}-GPU pod of pool {group.name}"
            try:
                frag = pod_fragment(fabric, gpus)
            except FragmentError as exc:
                problems.append(f"{where}: refused: {exc}")
                continue
            problems += channel_problems(where, frag, machine)
            w = Workload(where, "Pod", frag.node_selector, (), tuple(frag.tolerations))
            why = lands(w, group)
            if why:
                problems.append(f"{where} does not land: {why}")
            asks = {**{k: _quantity(v) for k, v in frag.limits.items()},
                    **{k: _quantity(v) for k, v in getattr(frag, "requests", {}).items()}}
            for res, amount in asks.items():
                if res in UNMODELLED_RESOURCES:
                    continue
                have = group.allocatable.get(res, 0)
                if amount > have:
                    problems.append(f"{where} asks {res}={amount}, the node offers {have}")
            problems += host_fit_problems(where, group, fragment_requests(frag), agents)
            for ns in namespaces:
                problems += _references(where, frag, ns, objects.get(ns, {}), templates,
                                        fabric, group)
                problems += _quota(where, asks, ns, quotas)
    return problems


# NCCL runs multi-node NVLink only with an IMEX channel (NVIDIA/nccl src/mnnvl.cc:
# ncclSystemError "Check the IMEX channel configuration"); the channel comes from a
# ComputeDomain's claim (awsome-distributed-training 7217859
# micro-benchmarks/nccl-tests/kubernetes/nccl-tests-gb200.yaml lines 121-125).
CHANNEL_CLAIM = "compute-domain-channel"


def channel_problems(where: str, frag: Any, machine: Machine) -> list[str]:
    """A pod told to use multi-node NVLink, or on an NVLink-domain machine, without a
    ComputeDomain channel claim in its pod and its GPU container."""
    mnnvl = frag.env.get("NCCL_MNNVL_ENABLE") == "1" or bool(machine.nvlink_domain)
    if not mnnvl:
        return []
    in_pod = any(c["name"] == CHANNEL_CLAIM for c in frag.resource_claims)
    in_container = CHANNEL_CLAIM in frag.container_claims
    if in_pod and in_container:
        return []
    return [f"{where}: multi-node NVLink (NCCL_MNNVL_ENABLE="
            f"{frag.env.get('NCCL_MNNVL_ENABLE', 'unset')}) without an IMEX channel claim"]


def _references(where: str, frag: Any, ns: str, objects: Mapping[str, set[str]],
                templates: Mapping[tuple[str | None, str], Mapping[str, Any]],
                fabric: FabricDescription, group: NodeGroup) -> list[str]:
    problems = []
    nets = frag.annotations.get("k8s.v1.cni.cncf.io/networks", "")
    for ref in [n.strip() for n in nets.split(",") if n.strip()]:
        ref_ns, _, name = ref.rpartition("/")
        name = name.split("@")[0]
        found = objects if not ref_ns or ref_ns == ns else {}
        if name not in found.get("NetworkAttachmentDefinition", set()) and not ref_ns:
            problems.append(f"{where} in {ns}: NAD {name} not in the namespace")
    for claim in frag.resource_claims:
        template = templates.get((ns, claim["resourceClaimTemplateName"]))
        if template is None:
            problems.append(f"{where} in {ns}: ResourceClaimTemplate "
                            f"{claim['resourceClaimTemplateName']} not in the namespace")
            continue
        gpus, nics = _claim_counts(template, fabric)
        if gpus > group.allocatable["dra/gpus"] or nics > group.allocatable["dra/nics"]:
            problems.append(f"{where} in {ns}: claim asks {gpus} GPUs + {nics} NICs, the node "
                            f"has {group.allocatable['dra/gpus']} + "
                            f"{group.allocatable['dra/nics']}")
    for volume in frag.volumes:
        cm = (volume.get("configMap") or {}).get("name")
        if cm and cm not in objects.get("ConfigMap", set()):
            problems.append(f"{where} in {ns}: ConfigMap {cm} not in the namespace")
    return problems


def _quota(where: str, asks: Mapping[str, int], ns: str,
           quotas: Sequence[Mapping[str, Any]]) -> list[str]:
    problems = []
    for quota in quotas:
        if quota["metadata"].get("namespace") != ns or "scopeSelector" in quota["spec"]:
            continue
        for key, hard in quota["spec"].get("hard", {}).items():
            res = key.removeprefix("requests.").removeprefix("limits.")
            if res in asks and res not in UNMODELLED_RESOURCES and asks[res] > _quantity(hard):
                problems.append(f"{where} in {ns}: {res}={asks[res]} exceeds quota {key}={hard}")
    return problems


def workload_namespaces(spec: ClusterSpec) -> list[str]:
    teams = [t.name for t in spec.tenancy.teams]
    return list(dict.fromkeys([*spec.fabric.namespaces, *teams]))


def simulate(spec: ClusterSpec, plan: PlanResult, layer: Layer) -> list[str]:
    groups = planned_node_groups(spec, plan)
    workloads = layer_workloads(layer)
    charts = {r.chart.name for r in layer.charts()}
    policies = [m for m in layer.manifests() if m["kind"] == "SriovNetworkNodePolicy"]
    for group in groups:
        _runtime_labels(group, workloads, charts, policies)
    return (agent_problems(groups, workloads)
            + training_pod_problems(spec, layer, groups, workload_namespaces(spec)))
