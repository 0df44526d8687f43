"""The cloud-agnostic parts of the fabric layer (gpu_fabric/fabric/parts.py), written out.

Each test builds the fabric descriptions of a small existing-cluster spec (no Pulumi,
no cloud SDK), hands the builders add-ons switched on by hand and a stand-in for the
clouds' chart values, and compares what comes back with literal parts: part names,
their manifests (kind, namespace, name, and whole objects where they are short), the
Helm release (name, repository, chart, version, namespace, values) and the parts each
waits for. Sources of the expected values:

- DO SEED: /work/shared/seeds/digitalocean-doks-multinode-gpu.md lines 26-35 (Multus
  moves fabric0..fabric7 into the pod), 45-62 (``rdma/fabric0..7: 1``), 69-106 (the
  host-device NADs ``roce-net-fabric0..7``, ``{"cniVersion": "0.3.1", "type":
  "host-device", "device": "fabricN"}``, namespaced: one copy per namespace, line 108).
- GKE SEED: /work/shared/seeds/gke-nvidia-dra-dranet.md lines 278-314 (DeviceClass
  ``dranet`` = ``device.driver == "dra.net"``; ``2-gpu-nic-aligned``: 2 GPUs of class
  ``gpu.nvidia.com`` + 2 NICs of class ``dranet`` with ``device.attributes["dra.net"].rdma
  == true``, constraint ``matchAttribute: resource.kubernetes.io/pcieRoot``) and line 93
  (pcieRoot is the alignment attribute).
- DRANET: kubernetes-sigs/dranet v1.4.0 (components/gpu_fabric/versions.py DRANET)
  pkg/apis/attributes.go ``dra.net/ifName``, ``dra.net/rdma``; values.schema.json
  ``args.cloudProviderHint`` enum GCE, AZURE, OKE, AWS, ALIBABA, NONE
  (/work/shared/upstream/values/dranet/v1.4.0/values.schema.json lines 87-91).
- OKE: oracle-quickstart/oci-hpc-oke terraform/files/nvidia-network-operator/
  sriov-network.yaml as summarised in /work/shared/reference/oci.md lines 96-104 (one
  SR-IOV network ``rdma-vf`` of resource ``nvidia.com/rdma-vf``, 16 per dual-port node,
  MTU 4220, tuning sysctls, rdma, sbr).
- UPSTREAM FORMATS: Mellanox/k8s-rdma-shared-dev-plugin README (``configList`` of
  ``resourceName, resourcePrefix, rdmaHcaMax, selectors.ifNames``);
  k8snetworkplumbingwg/sriov-network-device-plugin README (``resourceList`` of
  ``resourceName, resourcePrefix, selectors{vendors, isRdma}``, Mellanox vendor ``15b3``);
  resource.k8s.io/v1 DeviceRequest (``exactly: {deviceClassName, allocationMode, count,
  selectors}``; v1beta1 flat); NVIDIA k8s-dra-driver-gpu ComputeDomain
  (resource.nvidia.com/v1beta1 ``spec.numNodes``, ``spec.channel.resourceClaimTemplate.name``:
  /work/shared/upstream/crds/resource.nvidia.com/resource.nvidia.com_computedomains.yaml
  lines 56-68).
- PINS: components/gpu_fabric/versions.py (charts and images at their pinned versions) and the
  chart values the project computes, whose keys exist in the pinned charts' values.yaml
  (/work/shared/upstream/values/<chart>/<version>/values.yaml).
- PROJECT: part names and release names are child-name prefixes, a compatibility
  surface (components/gpu_fabric/fabric/model.py Part); those already deployed appear in
  tests/data/urns/ (``-fabric-nads-``, ``-fabric-multus-``, ``-fabric-dra-claims-``,
  ``-fabric-namespaces-``, ``-fabric-gpu-operator-gpu-operator``,
  ``-fabric-nvidia-device-plugin-nvidia-device-plugin``,
  ``-fabric-nvidia-dra-driver-nvidia-dra-driver-gpu``, ``-fabric-dranet-dranet``). Part
  descriptions are what ``python -m gpu_fabric render`` prints (components/gpu_fabric/render.py);
  the node-agent tolerations are components/gpu_fabric/fabric/taints.py's table (docs/api.md).
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping
from typing import Any

import pytest

from gpu_fabric import versions
from gpu_fabric.errors import Problem, SpecError
from gpu_fabric.fabric import parts
from gpu_fabric.fabric.addons import ADDONS, ResolvedAddon, ResolvedAddons
from gpu_fabric.fabric.description import (
    Attach,
    DevicePlugin,
    FabricDescription,
    SriovVfNetwork,
    describe_cluster,
)
from gpu_fabric.fabric.model import HelmRelease, Part
from gpu_fabric.spec import ClusterSpec, load_spec
from gpu_fabric.versions import Chart
from tests.fabric_helpers import existing, fabric_of
from tests.specs import spec_dict
from tests.support.literals import MANAGED, TOLERATIONS

DO_H200 = "gpu-h200x8-1128gb-fabric-contracted"
A4 = "a4-highgpu-8g"
NVIDIA_HELM = "https://helm.ngc.nvidia.com/nvidia"


# GKE SEED line 312; DRANET pkg/apis/attributes.go (dra.net/rdma).
RDMA = 'device.attributes["dra.net"].rdma == true'
PCIE_ROOT = "resource.kubernetes.io/pcieRoot"  # GKE SEED line 314
V1 = "resource.k8s.io/v1"
V1BETA1 = "resource.k8s.io/v1beta1"


# -- literal builders of the expected objects (Kubernetes shapes, spelled out) -----------

def _ns(name: str, *, privileged: bool = False) -> dict[str, Any]:
    """A Namespace; node agents get Pod Security ``privileged`` (Kubernetes Pod Security
    Admission labels ``pod-security.kubernetes.io/{enforce,audit,warn}``)."""
    labels = {**MANAGED, "kubernetes.io/metadata.name": name}
    if privileged:
        labels |= {
            "pod-security.kubernetes.io/enforce": "privileged",
            "pod-security.kubernetes.io/audit": "privileged",
            "pod-security.kubernetes.io/warn": "privileged",
        }
    return {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name, "labels": labels}}


def _host_device_nad(i: int, ns: str) -> dict[str, Any]:
    """DO SEED lines 69-106: ``roce-net-fabricN`` moves ``fabricN`` into the pod."""
    return {
        "apiVersion": "k8s.cni.cncf.io/v1",
        "kind": "NetworkAttachmentDefinition",
        "metadata": {"name": f"roce-net-fabric{i}", "namespace": ns, "labels": MANAGED},
        "spec": {"config": '{"cniVersion": "0.3.1", "type": "host-device", '
                           f'"device": "fabric{i}"}}'},
    }


def _req(name: str, device_class: str, count: int, *selectors: str,
         api: str = V1) -> dict[str, Any]:
    """A resource.k8s.io DeviceRequest (v1: fields under ``exactly``; v1beta1: flat)."""
    fields: dict[str, Any] = {"deviceClassName": device_class, "allocationMode": "ExactCount",
                              "count": count}
    if selectors:
        fields["selectors"] = [{"cel": {"expression": s}} for s in selectors]
    return {"name": name, "exactly": fields} if api == V1 else {"name": name, **fields}


def _aligned(*groups: tuple[str, str]) -> list[dict[str, Any]]:
    return [{"requests": [g, n], "matchAttribute": PCIE_ROOT} for g, n in groups]


def _template(name: str, ns: str, requests: list[dict[str, Any]],
              constraints: list[dict[str, Any]] | None = None,
              api: str = V1) -> dict[str, Any]:
    devices: dict[str, Any] = {"requests": requests}
    if constraints:
        devices["constraints"] = constraints
    return {
        "apiVersion": api,
        "kind": "ResourceClaimTemplate",
        "metadata": {"name": name, "namespace": ns, "labels": MANAGED},
        "spec": {"spec": {"devices": devices}},
    }


def _ifname(domain: str, *names: str) -> str:
    """DRANET ifName, guarded with ``in`` (a device without the attribute would abort the
    allocation: resource.k8s.io/v1 CELDeviceSelector)."""
    attrs = f'device.attributes["{domain}"]'
    if len(names) == 1:
        return f'"ifName" in {attrs} && {attrs}.ifName == "{names[0]}"'
    listed = ", ".join(f'"{n}"' for n in names)
    return f'"ifName" in {attrs} && {attrs}.ifName in [{listed}]'


def _contributed(addon: str, cluster: str, *pools: str) -> dict[str, Any]:
    return {"contributed": {"addon": addon, "cluster": cluster, "pools": list(pools)}}


class _Cloud:
    """Stands in for the clouds' chart values: names the add-on, cluster and pools it was
    asked about (a call with the wrong spec or fabrics shows), plus ``extra`` per add-on."""

    def __init__(self, extra: Mapping[str, Mapping[str, Any]] | None = None) -> None:
        self.extra = dict(extra or {})

    def chart_values(self, addon: str, spec: ClusterSpec,
                     fabrics: Mapping[str, FabricDescription]) -> Mapping[str, Any]:
        return {**_contributed(addon, spec.name, *fabrics), **self.extra.get(addon, {})}


def _addons(*on: str, values: Mapping[str, Mapping[str, Any]] | None = None,
            versions: Mapping[str, str] | None = None,
            namespaces: Mapping[str, str] | None = None) -> ResolvedAddons:
    """Exactly the add-ons ``on`` enabled, in their own namespaces unless overridden."""
    out = ResolvedAddons()
    for key, info in ADDONS.items():
        out[key] = ResolvedAddon(
            key=key, enabled=key in on, version=(versions or {}).get(key),
            values=dict((values or {}).get(key, {})),
            namespace=(namespaces or {}).get(key, info.namespace),
        )
    return out


def _fabrics(spec: ClusterSpec) -> dict[str, FabricDescription]:
    return describe_cluster(spec)


def _index(manifests: tuple[dict[str, Any], ...]) -> list[tuple[str, str, str | None, str]]:
    return [(m["apiVersion"], m["kind"], m["metadata"].get("namespace"), m["metadata"]["name"])
            for m in manifests]


# -- chart_release, own_namespace, namespaces ------------------------------------------

def test_chart_release_merges_computed_then_cloud_then_spec_values() -> None:
    spec = existing("oci")
    fabrics = _fabrics(spec)
    addons = _addons("gpu_operator", values={"gpu_operator": {"driver": {"enabled": True},
                                                              "cdi": {"default": True}}})
    cloud = _Cloud({"gpu_operator": {"driver": {"enabled": False, "version": "570"},
                                     "toolkit": {"enabled": False}}})
    computed = {"driver": {"enabled": True, "rdma": {"enabled": True}},
                "toolkit": {"enabled": True}, "cdi": {"enabled": True}}
    release = parts.chart_release(ADDONS["gpu_operator"], addons, computed, cloud, spec, fabrics)
    # PINS: the pinned chart (its version is not this test's point); release name =
    # chart name (urns: oci-a100 ...-fabric-gpu-operator-gpu-operator).
    assert release == HelmRelease(
        "gpu-operator",
        versions.GPU_OPERATOR,
        "gpu-operator",
        {
            # the spec's addons.gpu_operator.values win over the cloud's ...
            "driver": {"enabled": True, "rdma": {"enabled": True}, "version": "570"},
            # ... the cloud's win over the computed ones; nested maps merge
            "toolkit": {"enabled": False},
            "cdi": {"enabled": True, "default": True},
            **_contributed("gpu_operator", "test-oci", "gpu"),
        },
        user_values=True,
    )


def test_chart_release_name_version_and_namespace_come_from_the_call_and_spec() -> None:
    spec = existing("aws")
    fabrics = _fabrics(spec)
    addons = _addons("nvidia_device_plugin", versions={"nvidia_device_plugin": "0.17.4"},
                     namespaces={"nvidia_device_plugin": "gpu-plugins"})
    release = parts.chart_release(ADDONS["nvidia_device_plugin"], addons, {"a": 1}, _Cloud(), spec,
                                  fabrics, release="nvdp")
    # PINS: NVIDIA_DEVICE_PLUGIN repository and chart; the spec's version overrides 0.18.2.
    assert release == HelmRelease(
        "nvdp",
        Chart("https://nvidia.github.io/k8s-device-plugin", "nvidia-device-plugin", "0.17.4"),
        "gpu-plugins",
        {"a": 1, **_contributed("nvidia_device_plugin", "test-aws", "gpu")},
        user_values=False,
    )


def test_own_namespace_privileged_for_node_agents_none_for_system_namespaces() -> None:
    addons = _addons(namespaces={"multus": "kube-system", "jobset": "default",
                                 "kueue": "kube-public"})
    # Node agents (GPU Operator, device plugin, DRA driver, Network Operator) run
    # privileged pods.
    assert parts.own_namespace(ADDONS["gpu_operator"], addons) == [
        _ns("gpu-operator", privileged=True)]
    assert parts.own_namespace(ADDONS["network_operator"], addons) == [
        _ns("network-operator", privileged=True)]
    assert parts.own_namespace(ADDONS["nvidia_device_plugin"], addons) == [
        _ns("nvidia-device-plugin", privileged=True)]
    assert parts.own_namespace(ADDONS["nvidia_dra_driver"], addons) == [
        _ns("nvidia-dra-driver-gpu", privileged=True)]
    # Controllers do not.
    assert parts.own_namespace(ADDONS["kyverno"], addons) == [_ns("kyverno")]
    assert parts.own_namespace(ADDONS["mpi_operator"], addons) == [_ns("mpi-operator")]
    # default, kube-system, kube-public exist on every cluster: never created.
    assert parts.own_namespace(ADDONS["multus"], addons) == []
    assert parts.own_namespace(ADDONS["jobset"], addons) == []
    assert parts.own_namespace(ADDONS["kueue"], addons) == []


def test_workload_namespaces_part_skips_the_system_namespaces() -> None:
    addons = _addons()
    plain = existing("digitalocean", DO_H200)
    assert parts.namespaces(plain, _fabrics(plain), addons) == []
    only_system = existing("digitalocean", DO_H200,
                           fabric={"namespaces": ["kube-system", "default", "kube-public"]})
    assert parts.namespaces(only_system, _fabrics(only_system), addons) == []
    teams = existing("digitalocean", DO_H200,
                     fabric={"namespaces": ["default", "team-a", "kube-system", "team-b"]})
    assert parts.namespaces(teams, _fabrics(teams), addons) == [Part(
        "namespaces", (_ns("team-a"), _ns("team-b")),
        description="Namespaces for training workloads",
    )]


# -- DigitalOcean: Multus + host-device NADs (+ the RDMA shared device plugin) ---------

def test_do_h200_seed_is_multus_then_eight_host_device_nads() -> None:
    spec = existing("digitalocean", DO_H200)
    fabrics = _fabrics(spec)
    multus, nads = parts.generic_parts(spec, fabrics, _addons("multus", "kyverno"), _Cloud())
    assert multus.name == "multus"
    assert (multus.charts, multus.after) == ((), ())
    assert multus.description == "Multus CNI (thick) and the NetworkAttachmentDefinition CRD"
    # UPSTREAM multus-cni v4.3.0 deployments/multus-daemonset-thick.yml objects.
    assert _index(multus.manifests) == [
        ("apiextensions.k8s.io/v1", "CustomResourceDefinition", None,
         "network-attachment-definitions.k8s.cni.cncf.io"),
        ("v1", "ServiceAccount", "kube-system", "multus"),
        ("rbac.authorization.k8s.io/v1", "ClusterRole", None, "multus"),
        ("rbac.authorization.k8s.io/v1", "ClusterRoleBinding", None, "multus"),
        ("v1", "ConfigMap", "kube-system", "multus-daemon-config"),
        ("apps/v1", "DaemonSet", "kube-system", "kube-multus-ds"),
    ]
    pod = multus.manifests[-1]["spec"]["template"]["spec"]
    # PINS: MULTUS_THICK; an existing cluster's pool without labels: no confinement.
    assert [c["image"] for c in pod["initContainers"] + pod["containers"]] == [
        versions.MULTUS_THICK.ref] * 2
    assert "affinity" not in pod
    assert nads == Part(
        "nads", tuple(_host_device_nad(i, "default") for i in range(8)), after=("multus",),
        description="NetworkAttachmentDefinitions, one per rail / SR-IOV network",
    )


def _do_two_pools(**fabric: Any) -> ClusterSpec:
    """A created DOKS cluster: a single-GPU pool (no fabric) first, then the H200 pool."""
    data = spec_dict("digitalocean")
    data["node_pools"] = [
        {"name": "small", "machine_type": "gpu-h100x1-80gb", "node_count": 1},
        {"name": "h200", "machine_type": DO_H200, "node_count": 2},
    ]
    if fabric:
        data["fabric"] = fabric
    return load_spec(data)


def test_multus_runs_only_on_the_fabric_pools_nodes() -> None:
    spec = _do_two_pools()
    fabrics = _fabrics(spec)
    [multus, _] = parts.generic_parts(spec, fabrics, _addons("multus"), _Cloud())
    pod = multus.manifests[-1]["spec"]["template"]["spec"]
    # PROJECT (docs/security.md, issue 21): only nodes of pools with a fabric, by the
    # pool label gpufabric.dev/pool; the single-GPU pool "small" has no fabric NIC.
    assert pod["affinity"] == {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
        "nodeSelectorTerms": [{"matchExpressions": [
            {"key": "gpufabric.dev/pool", "operator": "In", "values": ["h200"]}]}]}}}


def test_nads_skip_pools_without_a_device_plugin_nad_and_go_to_every_namespace() -> None:
    spec = _do_two_pools(namespaces=["team-a", "kube-system"])
    fabrics = _fabrics(spec)
    # The pool without a fabric comes first: it is skipped, the H200 pool still counts.
    assert list(fabrics) == ["small", "h200"]
    part = parts.nads_part(spec, fabrics, _addons("multus"))
    assert part == Part(
        "nads",
        tuple(_host_device_nad(i, "team-a") for i in range(8))
        + tuple(_host_device_nad(i, "kube-system") for i in range(8)),
        after=("namespaces", "multus"),
        description="NetworkAttachmentDefinitions, one per rail / SR-IOV network",
    )


def test_nads_only_for_device_plugin_attach_with_a_nad_type() -> None:
    spec = existing("digitalocean", DO_H200)
    do = fabric_of(spec)
    addons = _addons("multus")
    host_network = dataclasses.replace(do, attach=Attach.HOST_NETWORK)
    no_type = dataclasses.replace(do, nad_type=None)
    assert parts.nads_part(spec, {"gpu": host_network}, addons) is None
    assert parts.nads_part(spec, {"gpu": no_type}, addons) is None
    # GKE DRA and AWS EFA pools have no NAD.
    for cloud in ("gcp", "aws"):
        other = existing(cloud)
        assert parts.nads_part(other, _fabrics(other), addons) is None
    # Two pools with the same rails: each NAD once.
    [nads] = [p for p in parts.generic_parts(spec, {"a": host_network, "b": do, "c": do},
                                             addons, _Cloud()) if p.name == "nads"]
    assert _index(nads.manifests) == [
        ("k8s.cni.cncf.io/v1", "NetworkAttachmentDefinition", "default", f"roce-net-fabric{i}")
        for i in range(8)]


@pytest.mark.parametrize(("on", "namespaces", "after"), [
    (("multus",), ["default"], ("multus",)),
    (("multus", "network_operator"), ["default"], ("multus",)),
    (("network_operator",), ["default", "team-a"], ("namespaces", "network-operator")),
    (("network_operator",), ["default"], ("network-operator",)),
    ((), ["default"], ()),
    ((), ["team-a"], ("namespaces",)),
])
def test_nads_wait_for_multus_or_else_the_network_operator(
    on: tuple[str, ...], namespaces: list[str], after: tuple[str, ...]
) -> None:
    # PROJECT (components/gpu_fabric/fabric/layer.py): the NAD CRD comes from Multus, or from the
    # Network Operator's secondary network when Multus is not ours.
    spec = existing("digitalocean", DO_H200, fabric={"namespaces": namespaces})
    part = parts.nads_part(spec, _fabrics(spec), _addons(*on))
    assert part is not None and part.after == after


def test_host_device_nads_need_both_the_network_and_the_netdev() -> None:
    do = fabric_of(existing("digitalocean", DO_H200))
    rails = list(do.rails)
    rails[1] = dataclasses.replace(rails[1], network=None)
    rails[2] = dataclasses.replace(rails[2], netdev=None)
    fabric = dataclasses.replace(do, rails=tuple(rails))
    assert parts.fabric_nads(fabric, "ml") == [
        _host_device_nad(i, "ml") for i in (0, 3, 4, 5, 6, 7)]
    # A NAD type the layer does not write: nothing.
    assert parts.fabric_nads(dataclasses.replace(do, nad_type="macvlan"), "ml") == []


# -- OCI: the SR-IOV network -------------------------------------------------------------

def _sriov_nad(ns: str, config: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    head = {
        "apiVersion": "k8s.cni.cncf.io/v1",
        "kind": "NetworkAttachmentDefinition",
        # OKE: the NAD names the device-plugin resource its VFs come from.
        "metadata": {"name": "rdma-vf", "namespace": ns, "labels": MANAGED,
                     "annotations": {"k8s.v1.cni.cncf.io/resourceName": "nvidia.com/rdma-vf"}},
    }
    return head, config


def _split_nad(nad: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    head = {k: v for k, v in nad.items() if k != "spec"}
    return head, json.loads(nad["spec"]["config"])


def test_oci_sriov_network_as_oci_hpc_oke() -> None:
    spec = existing("oci", fabric={"namespaces": ["default", "team-a"]})
    part = parts.nads_part(spec, _fabrics(spec), _addons("multus", "network_operator"))
    assert part is not None
    assert (part.name, part.after) == ("nads", ("namespaces", "multus"))
    config = {
        "cniVersion": "0.3.1",
        "name": "rdma-vf",
        "plugins": [
            {"type": "sriov", "spoofchk": "off",  # OKE spoofChk: "off"
             "ipam": {"type": "nv-ipam", "poolName": "rdma-vf"}},
            {"type": "tuning",
             "sysctl": {  # OKE sriov-network.yaml metaPlugins tuning sysctls
                 "net.ipv4.conf.all.arp_announce": "2",
                 "net.ipv4.conf.all.arp_filter": "1",
                 "net.ipv4.conf.all.arp_ignore": "1",
                 "net.ipv4.conf.all.rp_filter": "0",
                 "net.ipv4.conf.all.accept_local": "1",
             },
             "mtu": 4220},  # OKE mtu 4220
            {"type": "rdma"},
            {"type": "sbr"},
        ],
    }
    assert [_split_nad(m) for m in part.manifests] == [
        _sriov_nad("default", config), _sriov_nad("team-a", config)]


def test_sriov_nad_without_vf_network_settings_uses_the_network_as_ipam_pool() -> None:
    oci = fabric_of(existing("oci"))
    bare = dataclasses.replace(oci, sriov_network=None, mtu=None)
    assert [_split_nad(m) for m in parts.fabric_nads(bare, "ml")] == [_sriov_nad("ml", {
        "cniVersion": "0.3.1",
        "name": "rdma-vf",
        "plugins": [{"type": "sriov", "ipam": {"type": "nv-ipam", "poolName": "rdma-vf"}},
                    {"type": "tuning"}, {"type": "rdma"}, {"type": "sbr"}],
    })]
    other_pool = dataclasses.replace(oci, sriov_network=SriovVfNetwork("vf-pool-b"), mtu=9000)
    assert [_split_nad(m) for m in parts.fabric_nads(other_pool, "ml")] == [_sriov_nad("ml", {
        "cniVersion": "0.3.1",
        "name": "rdma-vf",
        "plugins": [{"type": "sriov", "ipam": {"type": "nv-ipam", "poolName": "vf-pool-b"}},
                    {"type": "tuning", "mtu": 9000}, {"type": "rdma"}, {"type": "sbr"}],
    })]


# -- device plugins the layer runs itself --------------------------------------------------

def test_rdma_shared_device_plugin_one_resource_per_rail_netdev() -> None:
    spec = existing("digitalocean", DO_H200)
    do = fabric_of(spec)
    azure = fabric_of(existing("azure"))  # rdma-shared too: rails ib0..ib7
    rails = list(azure.rails)
    rails[7] = dataclasses.replace(rails[7], netdev=None)
    azure = dataclasses.replace(azure, rails=tuple(rails))
    efa = fabric_of(existing("aws"))  # another device plugin: not this one's
    efa = dataclasses.replace(efa, rails=do.rails)
    fabrics = {"a": do, "b": efa, "c": do, "d": azure}
    addons = _addons("rdma_shared_device_plugin",
                     versions={"rdma_shared_device_plugin": "v1.5.2"})
    part, nads = parts.generic_parts(spec, fabrics, addons, _Cloud())
    assert nads.name == "nads"  # the DO pools' NADs, with or without our Multus
    assert (part.name, part.charts, part.after) == ("rdma-shared-device-plugin", (), ())
    assert part.description == "RDMA shared device plugin: one resource per rail"
    assert _index(part.manifests) == [
        ("v1", "ServiceAccount", "kube-system", "rdma-shared-dp"),
        ("v1", "ConfigMap", "kube-system", "rdma-devices"),
        ("apps/v1", "DaemonSet", "kube-system", "rdma-shared-dp-ds"),
    ]
    # DO SEED rdma/fabric0..7 (once for two pools), then Azure's ib0..ib6; the EFA pool's
    # rails and a rail without a netdev give none. 64 pods per HCA: PROJECT default.
    names = [f"fabric{i}" for i in range(8)] + [f"ib{i}" for i in range(7)]
    assert json.loads(part.manifests[1]["data"]["config.json"]) == {
        "periodicUpdateInterval": 300,
        "configList": [{"resourceName": n, "resourcePrefix": "rdma", "rdmaHcaMax": 64,
                        "selectors": {"ifNames": [n]}} for n in names],
    }
    [container] = part.manifests[2]["spec"]["template"]["spec"]["containers"]
    # PINS: RDMA_SHARED_DEVICE_PLUGIN repository, at the spec's tag.
    assert container["image"] == "ghcr.io/mellanox/k8s-rdma-shared-dev-plugin:v1.5.2"


def test_sriov_device_plugin_one_vf_resource_per_pooled_resource() -> None:
    spec = existing("oci")
    oci = fabric_of(spec)
    efa = fabric_of(existing("aws"))  # pooled vpc.amazonaws.com/efa, but EFA's plugin
    ib = dataclasses.replace(oci, pooled_resources={"rdma/ib": 8})
    fabrics = {"a": efa, "b": oci, "c": oci, "d": ib}
    part, nads = parts.generic_parts(spec, fabrics, _addons("sriov_device_plugin"), _Cloud())
    assert nads.name == "nads"
    assert (part.name, part.charts, part.after) == ("sriov-device-plugin", (), ())
    assert part.description == "SR-IOV network device plugin (VFs)"
    assert _index(part.manifests) == [
        ("v1", "ServiceAccount", "kube-system", "sriov-device-plugin"),
        ("v1", "ConfigMap", "kube-system", "sriovdp-config"),
        ("apps/v1", "DaemonSet", "kube-system", "kube-sriov-device-plugin"),
    ]
    # OKE nvidia.com/rdma-vf (once for two pools), then rdma/ib: prefix / name split
    # at the "/"; Mellanox VFs with RDMA (UPSTREAM sriov-network-device-plugin README).
    vf = {"vendors": ["15b3"], "isRdma": True}
    assert json.loads(part.manifests[1]["data"]["config.json"]) == {"resourceList": [
        {"resourceName": "rdma-vf", "resourcePrefix": "nvidia.com", "selectors": vf},
        {"resourceName": "ib", "resourcePrefix": "rdma", "selectors": vf},
    ]}
    [container] = part.manifests[2]["spec"]["template"]["spec"]["containers"]
    # PINS: SRIOV_DEVICE_PLUGIN.
    assert container["image"] == versions.SRIOV_DEVICE_PLUGIN.ref


# -- GPU Operator and the NVIDIA device plugin ---------------------------------------------

def _gpu_operator_values(*, rdma: bool, device_plugin: bool,
                         service_monitor: bool) -> dict[str, Any]:
    """Keys of gpu-operator v26.7.0 values.yaml (/work/shared/upstream/values): nfd (line 8),
    cdi (15), daemonsets (41), driver (137) with rdma.useHostMofed (164-166), devicePlugin
    (241), dcgmExporter.serviceMonitor (299, 326), node-feature-discovery (618)."""
    return {
        "driver": {"enabled": True, "rdma": {"enabled": rdma, "useHostMofed": False}},
        "toolkit": {"enabled": True},
        "devicePlugin": {"enabled": device_plugin},
        "dcgmExporter": {"enabled": True, "serviceMonitor": {"enabled": service_monitor}},
        "nfd": {"enabled": True},
        "daemonsets": {"tolerations": TOLERATIONS, "priorityClassName": "system-node-critical"},
        "cdi": {"enabled": True},
        "node-feature-discovery": {"worker": {"tolerations": TOLERATIONS}},
    }


def test_gpu_operator_on_oci_rdma_with_its_device_plugin() -> None:
    spec = existing("oci")
    nads, operator = parts.generic_parts(spec, _fabrics(spec), _addons("gpu_operator"), _Cloud())
    assert nads.name == "nads"
    assert operator == Part(
        "gpu-operator",
        (_ns("gpu-operator", privileged=True),),
        (HelmRelease(
            "gpu-operator", versions.GPU_OPERATOR, "gpu-operator",
            _gpu_operator_values(rdma=True, device_plugin=True, service_monitor=False)
            | _contributed("gpu_operator", "test-oci", "gpu"),
        ),),
        description="NVIDIA GPU Operator (GPUDirect RDMA via nvidia-peermem)",
    )


def test_gpu_operator_with_dra_and_prometheus_waits_for_prometheus() -> None:
    spec = existing("gcp", A4)  # RoCE (RDMA), GPUs through DRA
    fabrics = _fabrics(spec)
    [operator] = [p for p in parts.generic_parts(
        spec, fabrics, _addons("gpu_operator", "prometheus"), _Cloud()) if p.name == "gpu-operator"]
    assert operator.after == ("prometheus",)
    [release] = operator.charts
    assert release.values == _gpu_operator_values(
        rdma=True, device_plugin=False, service_monitor=True,
    ) | _contributed("gpu_operator", "test-gcp", "gpu")


def test_gpu_operator_without_rdma_on_gpudirect_tcpx() -> None:
    # GPUDirect-TCPX is TCP, not RDMA (/work/shared/reference/gcp.md line 20).
    spec = existing("gcp", "a3-highgpu-8g")
    [operator] = parts.generic_parts(spec, _fabrics(spec), _addons("gpu_operator"), _Cloud())
    [release] = operator.charts
    assert release.values == _gpu_operator_values(
        rdma=False, device_plugin=True, service_monitor=False,
    ) | _contributed("gpu_operator", "test-gcp", "gpu")


def test_nvidia_device_plugin_on_aws() -> None:
    spec = existing("aws")
    parts_ = parts.generic_parts(spec, _fabrics(spec),
                                 _addons("nvidia_device_plugin", "efa_device_plugin"), _Cloud())
    # The EFA plugin is the AWS layer's part, not a generic one.
    assert parts_ == [Part(
        "nvidia-device-plugin",
        (_ns("nvidia-device-plugin", privileged=True),),
        (HelmRelease(
            "nvidia-device-plugin",
            versions.NVIDIA_DEVICE_PLUGIN,
            "nvidia-device-plugin",
            # nvidia-device-plugin 0.18.2 values.yaml keys ``tolerations`` (line 86) and
            # ``gfd.enabled`` (lines 106-107).
            {"tolerations": TOLERATIONS, "gfd": {"enabled": False},
             **_contributed("nvidia_device_plugin", "test-aws", "gpu")},
        ),),
        description="NVIDIA device plugin (nvidia.com/gpu)",
    )]


def test_device_plugins_without_a_pool_to_serve_are_refused() -> None:
    # k8s-rdma-shared-dev-plugin v1.5.3 pkg/resources/resources_manager.go ValidateConfigs
    # refuses an empty configList ("no resources configuration found") and main.go exits;
    # an SR-IOV plugin with an empty resourceList serves nothing. GKE A4 hands NICs out
    # through DRA; an rdma-shared pool whose rails have no netdev has nothing to select.
    gcp = existing("gcp", A4)
    aws = existing("aws")
    no_netdev = {"gpu": dataclasses.replace(fabric_of(aws), device_plugin=DevicePlugin.RDMA_SHARED)}
    for spec, fabrics in ((gcp, _fabrics(gcp)), (aws, no_netdev)):
        with pytest.raises(SpecError) as info:
            parts.generic_parts(spec, fabrics, _addons("multus", "rdma_shared_device_plugin"),
                                _Cloud())
        assert info.value.problems == [Problem(
            "addons.rdma_shared_device_plugin.enabled",
            "no node pool's fabric uses the rdma-shared device plugin (fabric.device_plugin: "
            "rdma-shared, with fabric NICs), so its configList would be empty, and the plugin "
            'exits on start ("no resources configuration found"); leave '
            "addons.rdma_shared_device_plugin off on this cluster",
            True,
            True,
        )]
    do = existing("digitalocean", DO_H200)
    with pytest.raises(SpecError) as info:
        parts.generic_parts(do, _fabrics(do), _addons("sriov_device_plugin"), _Cloud())
    assert info.value.problems == [Problem(
        "addons.sriov_device_plugin.enabled",
        "no node pool's fabric uses the sriov device plugin (fabric.device_plugin: sriov, "
        "with fabric NICs), so its resourceList would be empty: it would serve no device; "
        "leave addons.sriov_device_plugin off on this cluster",
        True,
        True,
    )]


def test_generic_parts_in_their_fixed_order() -> None:
    spec = existing("digitalocean", DO_H200, fabric={"mode": "dra"})
    addons = _addons("multus", "rdma_shared_device_plugin", "sriov_device_plugin",
                     "gpu_operator", "nvidia_device_plugin", "nvidia_dra_driver", "dranet")
    fabrics = {"gpu": fabric_of(spec), "vf": fabric_of(existing("oci"))}
    names = [p.name for p in parts.generic_parts(spec, fabrics, addons, _Cloud())]
    assert names == ["multus", "rdma-shared-device-plugin", "sriov-device-plugin", "nads",
                     "gpu-operator", "nvidia-device-plugin", "nvidia-dra-driver", "dranet",
                     "dra-claims"]


# -- DRA: drivers, DeviceClasses, claim templates, ComputeDomains -------------------------

def _dra_driver_values(*, gpus: bool, compute_domains: bool) -> dict[str, Any]:
    """nvidia-dra-driver-gpu 25.12.0 values.yaml keys: nvidiaDriverRoot (line 23),
    gpuResourcesEnabledOverride (33), resources.{gpus,computeDomains} (70-73), controller
    (187; affinity null removes the control-plane requirement, 201), kubeletPlugin (213).
    The kubelet plugin runs where nvidia.com/gpu.present=true (manifests/dra_driver.py)."""
    return {
        "nvidiaDriverRoot": "/",
        "gpuResourcesEnabledOverride": gpus,
        "resources": {"gpus": {"enabled": gpus}, "computeDomains": {"enabled": compute_domains}},
        "controller": {"tolerations": TOLERATIONS, "affinity": None},
        "kubeletPlugin": {
            "tolerations": TOLERATIONS,
            "affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
                "nodeSelectorTerms": [{"matchExpressions": [
                    {"key": "nvidia.com/gpu.present", "operator": "In", "values": ["true"]},
                ]}]}}},
        },
    }


def _dra_driver_part(values: dict[str, Any]) -> Part:
    return Part(
        "nvidia-dra-driver",
        (_ns("nvidia-dra-driver-gpu", privileged=True),),
        (HelmRelease("nvidia-dra-driver-gpu",
                     versions.NVIDIA_DRA_DRIVER,  # PINS
                     "nvidia-dra-driver-gpu", values),),
        description="NVIDIA DRA driver for GPUs (gpu.nvidia.com, ComputeDomains)",
    )


def _managed_a4_templates(ns: str) -> list[dict[str, Any]]:
    """GKE managed DRANet: NIC class mrdma.google.com (/work/shared/reference/gcp.md lines
    85-87), no NIC selector of ours;
    A4: 2 GPUs + 2 NICs per PCIe root (GKE SEED), so a claim is groups of 2 + 2."""
    nic = "mrdma.google.com"
    return [
        _template("1-gpu-nic-aligned", ns,
                  [_req("gpu", "gpu.nvidia.com", 1), _req("nic", nic, 1)],
                  _aligned(("gpu", "nic"))),
        _template("2-gpu-nic-aligned", ns,
                  [_req("gpu", "gpu.nvidia.com", 2), _req("nic", nic, 2)],
                  _aligned(("gpu", "nic"))),
        _template("4-gpu-nic-aligned", ns,
                  [_req("gpu-0", "gpu.nvidia.com", 2), _req("nic-0", nic, 2),
                   _req("gpu-1", "gpu.nvidia.com", 2), _req("nic-1", nic, 2)],
                  _aligned(("gpu-0", "nic-0"), ("gpu-1", "nic-1"))),
        _template("8-gpu-nic-aligned", ns,
                  [r for g in range(4) for r in (_req(f"gpu-{g}", "gpu.nvidia.com", 2),
                                                  _req(f"nic-{g}", nic, 2))],
                  _aligned(*((f"gpu-{g}", f"nic-{g}") for g in range(4)))),
    ]


def test_gke_a4_managed_dranet_claims_without_a_device_class() -> None:
    spec = existing("gcp", A4)
    fabrics = _fabrics(spec)
    out = parts.dra_parts(spec, fabrics, _addons("nvidia_dra_driver"), _Cloud())
    assert out == [
        _dra_driver_part(_dra_driver_values(gpus=True, compute_domains=False)
                         | _contributed("nvidia_dra_driver", "test-gcp", "gpu")),
        Part("dra-claims", tuple(_managed_a4_templates("default")),
             after=("nvidia-dra-driver",),
             description="DeviceClasses and aligned ResourceClaimTemplates "
                         "(resource.k8s.io/v1)"),
    ]


A4_RAILS = [  # catalog nic_names gpu0rdma0..gpu7rdma0 (GKE SEED lines 404-409), 1 NIC/GPU
    "1-gpu-nic-rail-0", "1-gpu-nic-rail-1", "1-gpu-nic-rail-2", "1-gpu-nic-rail-3",
    "1-gpu-nic-rail-4", "1-gpu-nic-rail-5", "1-gpu-nic-rail-6", "1-gpu-nic-rail-7",
    "2-gpu-nic-rails-0-1", "2-gpu-nic-rails-2-3", "2-gpu-nic-rails-4-5", "2-gpu-nic-rails-6-7",
    "4-gpu-nic-rails-0-3", "4-gpu-nic-rails-4-7",
]
A4_ALIGNED = ["1-gpu-nic-aligned", "2-gpu-nic-aligned", "4-gpu-nic-aligned",
              "8-gpu-nic-aligned"]


def test_gke_a4_self_installed_dranet_in_two_namespaces() -> None:
    spec = existing("gcp", A4, fabric={"mode": "dra", "dranet": "self",
                                       "namespaces": ["default", "team-a"]})
    fabrics = _fabrics(spec)
    driver, dranet, claims = parts.dra_parts(
        spec, fabrics, _addons("nvidia_dra_driver", "dranet"), _Cloud())
    assert driver == _dra_driver_part(_dra_driver_values(gpus=True, compute_domains=False)
                                      | _contributed("nvidia_dra_driver", "test-gcp", "gpu"))
    assert dranet == Part(
        "dranet", (),
        (HelmRelease("dranet", versions.DRANET,  # PINS: DRANET
                     "kube-system",
                     {"tolerations": TOLERATIONS, "args": {"cloudProviderHint": "GCE"},
                      **_contributed("dranet", "test-gcp", "gpu")}),),
        description="DraNet: NICs as DRA devices (driver dra.net)",
    )
    assert claims.name == "dra-claims"
    assert claims.after == ("namespaces", "dranet", "nvidia-dra-driver")
    assert claims.description == (
        "DeviceClasses and aligned ResourceClaimTemplates (resource.k8s.io/v1)")
    # GKE SEED lines 281-287: the DeviceClass, once (cluster-scoped).
    assert claims.manifests[0] == {
        "apiVersion": V1, "kind": "DeviceClass",
        "metadata": {"name": "dranet", "labels": MANAGED},
        "spec": {"selectors": [{"cel": {"expression": 'device.driver == "dra.net"'}}]},
    }
    assert _index(claims.manifests[1:]) == [
        (V1, "ResourceClaimTemplate", ns, name)
        for ns in ("default", "team-a") for name in A4_ALIGNED + A4_RAILS]
    by_name = {(m["metadata"]["namespace"], m["metadata"]["name"]): m
               for m in claims.manifests[1:]}
    # GKE SEED lines 294-314 in resource.k8s.io/v1.
    assert by_name["team-a", "2-gpu-nic-aligned"] == _template(
        "2-gpu-nic-aligned", "team-a",
        [_req("gpu", "gpu.nvidia.com", 2), _req("nic", "dranet", 2, RDMA)],
        _aligned(("gpu", "nic")))
    # The seed's pairing, pinned to NICs by name (DRANET ifName).
    assert by_name["team-a", "1-gpu-nic-rail-5"] == _template(
        "1-gpu-nic-rail-5", "team-a",
        [_req("gpu", "gpu.nvidia.com", 1),
         _req("nic", "dranet", 1, RDMA, _ifname("dra.net", "gpu5rdma0"))],
        _aligned(("gpu", "nic")))
    assert by_name["default", "4-gpu-nic-rails-4-7"] == _template(
        "4-gpu-nic-rails-4-7", "default",
        [_req("gpu-0", "gpu.nvidia.com", 2),
         _req("nic-0", "dranet", 2, RDMA, _ifname("dra.net", "gpu4rdma0", "gpu5rdma0")),
         _req("gpu-1", "gpu.nvidia.com", 2),
         _req("nic-1", "dranet", 2, RDMA, _ifname("dra.net", "gpu6rdma0", "gpu7rdma0"))],
        _aligned(("gpu-0", "nic-0"), ("gpu-1", "nic-1")))


def test_v1beta1_claims_say_so_in_the_part() -> None:
    spec = existing("gcp", A4, kubernetes={"version": "1.33"},
                    fabric={"mode": "dra", "dranet": "self", "dra_api": "v1beta1",
                            "claim_gpu_counts": [2]})
    [claims] = parts.dra_parts(spec, _fabrics(spec), _addons(), _Cloud())
    assert claims == Part(
        "dra-claims",
        (
            {"apiVersion": V1BETA1, "kind": "DeviceClass",
             "metadata": {"name": "dranet", "labels": MANAGED},
             "spec": {"selectors": [{"cel": {"expression": 'device.driver == "dra.net"'}}]}},
            # GKE SEED lines 294-314 exactly (v1beta1: request fields flat).
            _template("2-gpu-nic-aligned", "default",
                      [_req("gpu", "gpu.nvidia.com", 2, api=V1BETA1),
                       _req("nic", "dranet", 2, RDMA, api=V1BETA1)],
                      _aligned(("gpu", "nic")), api=V1BETA1),
            _template("2-gpu-nic-rails-0-1", "default",
                      [_req("gpu", "gpu.nvidia.com", 2, api=V1BETA1),
                       _req("nic", "dranet", 2, RDMA,
                            _ifname("dra.net", "gpu0rdma0", "gpu1rdma0"), api=V1BETA1)],
                      _aligned(("gpu", "nic")), api=V1BETA1),
            _template("2-gpu-nic-rails-2-3", "default",
                      [_req("gpu", "gpu.nvidia.com", 2, api=V1BETA1),
                       _req("nic", "dranet", 2, RDMA,
                            _ifname("dra.net", "gpu2rdma0", "gpu3rdma0"), api=V1BETA1)],
                      _aligned(("gpu", "nic")), api=V1BETA1),
            _template("2-gpu-nic-rails-4-5", "default",
                      [_req("gpu", "gpu.nvidia.com", 2, api=V1BETA1),
                       _req("nic", "dranet", 2, RDMA,
                            _ifname("dra.net", "gpu4rdma0", "gpu5rdma0"), api=V1BETA1)],
                      _aligned(("gpu", "nic")), api=V1BETA1),
            _template("2-gpu-nic-rails-6-7", "default",
                      [_req("gpu", "gpu.nvidia.com", 2, api=V1BETA1),
                       _req("nic", "dranet", 2, RDMA,
                            _ifname("dra.net", "gpu6rdma0", "gpu7rdma0"), api=V1BETA1)],
                      _aligned(("gpu", "nic")), api=V1BETA1),
        ),
        description="DeviceClasses and aligned ResourceClaimTemplates (resource.k8s.io/v1beta1)",
    )


def test_full_node_claims_get_no_rail_template() -> None:
    # Only the full node among the sizes: it holds every rail, no rail template.
    spec = existing("gcp", A4, fabric={"mode": "dra", "dranet": "self",
                                       "claim_gpu_counts": [2, 8]})
    names = [m["metadata"]["name"] for m in
             parts.fabric_claim_templates(spec, [fabric_of(spec)], "default")]
    assert names == ["2-gpu-nic-aligned", "8-gpu-nic-aligned", "2-gpu-nic-rails-0-1",
                     "2-gpu-nic-rails-2-3", "2-gpu-nic-rails-4-5", "2-gpu-nic-rails-6-7"]


def test_no_rail_templates_unless_every_rail_has_its_name() -> None:
    spec = existing("gcp", A4, fabric={"mode": "dra", "dranet": "self"})
    a4 = fabric_of(spec)
    rails = list(a4.rails)
    unnamed = dataclasses.replace(a4, rails=(*rails[:3],
                                             dataclasses.replace(rails[3], netdev=None),
                                             *rails[4:]))
    fewer = dataclasses.replace(a4, rails=tuple(rails[:4]))
    for fabric in (unnamed, fewer):
        names = [m["metadata"]["name"] for m in
                 parts.fabric_claim_templates(spec, [fabric], "default")]
        assert names == A4_ALIGNED


def test_rail_claims_on_a_one_gpu_two_nic_machine_with_another_nic_driver() -> None:
    # OCI GB200-v3 (catalog: 4 GPUs, 8 NICs rdma0..rdma7, 1 GPU : 2 NICs). Say its NIC
    # driver publishes ifNames under another domain.
    spec = existing("oci", "BM.GPU.GB200-v3.4", fabric={"mode": "dra"})
    gb = fabric_of(spec)
    assert gb.dra is not None
    fabric = dataclasses.replace(gb, dra=dataclasses.replace(
        gb.dra, rails_by_ifname=True, nic_driver="nic.example.com", nic_class="fabric-nic"))
    templates = parts.fabric_claim_templates(spec, [fabric], "ml")
    sel = 'device.attributes["nic.example.com"].rdma == true'
    assert [m["metadata"]["name"] for m in templates] == [
        "1-gpu-nic-aligned", "2-gpu-nic-aligned", "4-gpu-nic-aligned",
        "1-gpu-nic-rails-0-1", "1-gpu-nic-rails-2-3", "1-gpu-nic-rails-4-5",
        "1-gpu-nic-rails-6-7", "2-gpu-nic-rails-0-3", "2-gpu-nic-rails-4-7",
    ]
    by_name = {m["metadata"]["name"]: m for m in templates}
    assert by_name["1-gpu-nic-aligned"] == _template(
        "1-gpu-nic-aligned", "ml",
        [_req("gpu", "gpu.nvidia.com", 1), _req("nic", "fabric-nic", 2, sel)],
        _aligned(("gpu", "nic")))
    assert by_name["2-gpu-nic-rails-4-7"] == _template(
        "2-gpu-nic-rails-4-7", "ml",
        [_req("gpu-0", "gpu.nvidia.com", 1),
         _req("nic-0", "fabric-nic", 2, sel, _ifname("nic.example.com", "rdma4", "rdma5")),
         _req("gpu-1", "gpu.nvidia.com", 1),
         _req("nic-1", "fabric-nic", 2, sel, _ifname("nic.example.com", "rdma6", "rdma7"))],
        _aligned(("gpu-0", "nic-0"), ("gpu-1", "nic-1")))


def test_gpu_only_claims_when_nics_come_from_a_device_plugin() -> None:
    # DOKS with fabric.mode dra: GPUs from DOKS's DRA driver, NICs stay rdma/fabricN +
    # NADs (components/gpu_fabric/clouds/digitalocean/managed.py uses_gpu_dra). Even if the NIC
    # names were DraNet's, a GPU-only claim has no rail template.
    spec = existing("digitalocean", DO_H200, fabric={"mode": "dra", "claim_gpu_counts": [1, 2]})
    do = fabric_of(spec)
    assert do.dra is not None and do.attach is Attach.DEVICE_PLUGIN and do.gpu_dra
    fabric = dataclasses.replace(do, dra=dataclasses.replace(do.dra, rails_by_ifname=True))
    [claims] = parts.dra_parts(spec, {"gpu": fabric}, _addons("multus"), _Cloud())
    assert claims == Part(
        "dra-claims",
        (
            _template("1-gpu", "default", [_req("gpu", "gpu.nvidia.com", 1)]),
            _template("2-gpu", "default",
                      [_req("gpu-0", "gpu.nvidia.com", 1), _req("gpu-1", "gpu.nvidia.com", 1)]),
        ),
        description="DeviceClasses and aligned ResourceClaimTemplates (resource.k8s.io/v1)",
    )


def test_claim_templates_skip_pools_that_do_not_use_dra() -> None:
    spec = existing("gcp", A4, fabric={"mode": "dra", "claim_gpu_counts": [1]})
    a4 = fabric_of(spec)
    # Classes known, but neither NICs nor GPUs through DRA: no claims (listed first).
    not_dra = dataclasses.replace(a4, attach=Attach.GKE_MULTINETWORK, gpu_dra=False)
    templates = parts.fabric_claim_templates(spec, [not_dra, a4], "default")
    assert templates == [_template(
        "1-gpu-nic-aligned", "default",
        [_req("gpu", "gpu.nvidia.com", 1), _req("nic", "mrdma.google.com", 1)],
        _aligned(("gpu", "nic")))]
    assert parts.dra_parts(spec, {"gpu": not_dra}, _addons(), _Cloud()) == []
    # Through DRA but without classes: none either.
    no_classes = dataclasses.replace(a4, dra=None)
    assert parts.fabric_claim_templates(spec, [no_classes], "default") == []
    assert parts.dra_parts(spec, {"gpu": no_classes}, _addons(), _Cloud()) == []


def test_dra_driver_values_follow_the_fabrics() -> None:
    cloud = _Cloud()
    # No DRA pool (DO seed) but the driver asked for: it serves GPUs.
    do = existing("digitalocean", DO_H200)
    assert parts.dra_parts(do, _fabrics(do), _addons("nvidia_dra_driver"), cloud) == [
        _dra_driver_part(_dra_driver_values(gpus=True, compute_domains=False)
                         | _contributed("nvidia_dra_driver", "test-do", "gpu"))]
    # NICs through DRA, GPUs through the device plugin: the driver serves no GPUs.
    spec = existing("gcp", A4, fabric={"mode": "dra", "dranet": "self", "claim_gpu_counts": [8]})
    nics_only = dataclasses.replace(fabric_of(spec), gpu_dra=False)
    [driver, _] = parts.dra_parts(spec, {"gpu": nics_only}, _addons("nvidia_dra_driver"), cloud)
    assert driver == _dra_driver_part(_dra_driver_values(gpus=False, compute_domains=False)
                                      | _contributed("nvidia_dra_driver", "test-gcp", "gpu"))
    # DraNet alone, on an empty DRA fabric list: only its release.
    [dranet] = parts.dra_parts(do, _fabrics(do), _addons("dranet"), cloud)
    assert dranet.charts[0].values == {
        "tolerations": TOLERATIONS, "args": {"cloudProviderHint": "NONE"},  # DRANET: DO has none
        **_contributed("dranet", "test-do", "gpu")}


def _gb200(**fabric: Any) -> ClusterSpec:
    """AWS P6e-GB200 (NVLink domain of 72, catalog) through DRA, an autoscaled pool."""
    return existing("aws", "p6e-gb200.36xlarge", fabric={"mode": "dra", **fabric},
                    node_pools=[{"name": "nvl", "machine_type": "p6e-gb200.36xlarge",
                                 "node_count": 1, "min_nodes": 1, "max_nodes": 4}])


def _compute_domain(ns: str, nodes: int) -> dict[str, Any]:
    """NVIDIA k8s-dra-driver-gpu ComputeDomain: spec.numNodes and the channel's template."""
    return {
        "apiVersion": "resource.nvidia.com/v1beta1",
        "kind": "ComputeDomain",
        "metadata": {"name": "nvl-compute-domain", "namespace": ns, "labels": MANAGED},
        "spec": {"numNodes": nodes,
                 "channel": {"resourceClaimTemplate": {"name": "nvl-compute-domain-channel"}}},
    }


def test_gb200_gets_a_compute_domain_per_namespace_sized_0_with_our_driver() -> None:
    spec = _gb200(namespaces=["default", "team-a"], claim_gpu_counts=[4])
    fabrics = _fabrics(spec)
    driver, dranet, claims, domains = parts.dra_parts(
        spec, fabrics, _addons("nvidia_dra_driver", "dranet"), _Cloud())
    assert driver.charts[0].values == _dra_driver_values(gpus=True, compute_domains=True) | (
        _contributed("nvidia_dra_driver", "test-aws", "nvl"))
    assert dranet.charts[0].values["args"] == {"cloudProviderHint": "AWS"}  # DRANET
    assert _index(claims.manifests) == [
        (V1, "DeviceClass", None, "dranet"),
        (V1, "ResourceClaimTemplate", "default", "4-gpu-nic-aligned"),
        (V1, "ResourceClaimTemplate", "team-a", "4-gpu-nic-aligned"),
    ]
    # Our driver (chart 25.12.0, IMEXDaemonsWithDNSNames on by default): numNodes 0, the
    # CRD's recommendation in that mode; the spec is immutable (``self == oldSelf``), so
    # it must not follow the pool's size.
    assert domains == Part(
        "compute-domains", (_compute_domain("default", 0), _compute_domain("team-a", 0)),
        after=("namespaces", "nvidia-dra-driver"),
        description="ComputeDomains (IMEX) for multi-node NVLink",
    )


def test_compute_domains_without_our_dra_driver_wait_only_for_namespaces() -> None:
    """A driver we do not install may run with IMEXDaemonsWithDNSNames=false, where numNodes
    "must be set to the expected number of worker nodes" (ComputeDomain CRD 25.12.0):
    max_nodes 4 of the autoscaled pool, every node it may get."""
    spec = _gb200(claim_gpu_counts=[4])
    fabrics = _fabrics(spec)
    claims, domains = parts.dra_parts(spec, fabrics, _addons(), _Cloud())
    assert claims.after == ()
    assert domains == Part("compute-domains", (_compute_domain("default", 4),),
                           description="ComputeDomains (IMEX) for multi-node NVLink")


def test_pool_nodes_is_the_most_nodes_the_pool_may_have() -> None:
    def spec(**pool: Any) -> ClusterSpec:
        return existing("aws", node_pools=[{"name": "p", "machine_type": "p5.48xlarge", **pool}])

    assert parts.pool_nodes(spec(node_count=3), "p") == 3
    assert parts.pool_nodes(spec(node_count=1), "p") == 1
    assert parts.pool_nodes(spec(node_count=2, min_nodes=1, max_nodes=6), "p") == 6
    assert parts.pool_nodes(spec(node_count=0, min_nodes=0, max_nodes=2), "p") == 2


@pytest.mark.parametrize(("name", "gpus", "nics", "per_root", "expected"), [
    # A machine the GPU <-> NIC pairing table does not know: a group is the GPUs of one
    # PCIe root and their share of the NICs (rounded down), never less than one NIC.
    ("eight-two-per-root", 8, 8, 2, (2, 2)),
    ("four-nics", 8, 4, 1, (1, 1)),
    ("twelve-nics", 8, 12, 1, (1, 1)),
    ("sixteen-nics", 8, 16, 2, (2, 4)),
])
def test_alignment_group_without_a_pairing_row(
    name: str, gpus: int, nics: int, per_root: int, expected: tuple[int, int]
) -> None:
    a4 = fabric_of(existing("gcp", A4))
    machine = dataclasses.replace(a4.machine, name=name, gpus=gpus, fabric_nics=nics,
                                  gpus_per_pcie_root=per_root, pairing=None)
    assert parts._alignment_group(dataclasses.replace(a4, machine=machine)) == expected


def test_alignment_group_from_the_pairing_table() -> None:
    # The catalog rows' pairing= (components/gpu_fabric/catalog/gcp.py, aws.py): A4 2 + 2
    # (GKE SEED), p5 1 + 4, p4d 2 + 1.
    assert parts._alignment_group(fabric_of(existing("gcp", A4))) == (2, 2)
    assert parts._alignment_group(fabric_of(existing("aws"))) == (1, 4)
    assert parts._alignment_group(fabric_of(existing("aws", "p4d.24xlarge"))) == (2, 1)

