"""gcp: the cloud's part of the Kubernetes fabric layer (pure; no SDK).

Interface (see gpu_fabric.fabric.layer): addon_defaults, chart_values, parts.

GKE installs the NVIDIA driver and runs its own device plugin, and
multi-networking replaces Multus, so those add-ons are off by default. What
GKE leaves to us: the NCCL plugin installers (gIB for RoCE machines,
GPUDirect-TCPX/TCPXO for A3 High / A3 Mega, with the NRI device injector their
RxDM sidecar needs), the ``GKENetworkParamSet`` +
``Network`` pair per extra NIC when pods take NICs through multi-networking,
and GKE-specific chart values for the NVIDIA DRA driver (driver root under
/home/kubernetes; its system-*-critical priority classes stay, admitted by the
quota the layer adds on GKE).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from gpu_fabric import versions
from gpu_fabric.catalog import FabricKind, Machine
from gpu_fabric.clouds.gcp.fabric import (
    ACCELERATOR_LABEL,
    GKE_GIB_DIR,
    GKE_NVIDIA_DIR,
    GVNIC_NETWORK,
    TCP_FABRICS,
)
from gpu_fabric.clouds.gcp.rxdm import nri_injector_manifests, tcpxo_host_setup_script
from gpu_fabric.fabric.addons import (
    GPU_OPERATOR,
    MULTUS,
    NCCL_INSTALLER,
    NVIDIA_DEVICE_PLUGIN,
    NVIDIA_DRA_DRIVER,
)
from gpu_fabric.fabric.description import Attach
from gpu_fabric.fabric.layer import Manifest, Part
from gpu_fabric.fabric.manifests.common import (
    host_path,
    meta,
    mount,
    node_agent,
    resources,
    service_account,
)
from gpu_fabric.fabric.manifests.dra_driver import priority_class_quota
from gpu_fabric.versions import Image

if TYPE_CHECKING:
    from gpu_fabric.clouds.gcp.layout import GcpLayout
    from gpu_fabric.fabric.addons import ResolvedAddons
    from gpu_fabric.fabric.description import FabricDescription
    from gpu_fabric.spec import ClusterSpec

NAMESPACE = "kube-system"
GKE_NETWORKING = "networking.gke.io/v1"
INSTALLER_PART = "gke-nccl-installers"
NETWORKS_PART = "gke-networks"
NRI_PART = "gke-nri-device-injector"
DRIVER_PART = "gke-nvidia-driver-installer"


def addon_defaults(
    spec: ClusterSpec, fabrics: Mapping[str, FabricDescription]
) -> dict[str, bool]:
    fabs = list(fabrics.values())
    return {
        # GKE installs the driver (gpu_driver_installation_config) and its device plugin.
        GPU_OPERATOR.key: False,
        NVIDIA_DEVICE_PLUGIN.key: False,
        # GKE multi-networking (Network objects) or DraNet move NICs into pods.
        MULTUS.key: False,
        NCCL_INSTALLER.key: any(f.needs_nccl_installer for f in fabs),
    }


def chart_values(
    addon: str, spec: ClusterSpec, fabrics: Mapping[str, FabricDescription]
) -> dict[str, Any]:
    if addon == GPU_OPERATOR.key:
        from gpu_fabric.fabric.parts import pool_nodes

        gpu_nodes = sum(pool_nodes(spec, f.pool) for f in fabrics.values() if f.machine.gpus)
        return gpu_operator_values(gpu_nodes, gpu_nodes + spec.system_pool.node_count)
    if addon == NVIDIA_DRA_DRIVER.key:
        # GKE driver root (cluster-toolkit 1047080375af modules/management/kubectl-apply/
        # main.tf line 332) and no control-plane affinity for the controller (GKE has no
        # visible control-plane nodes). The chart keeps its priority classes, as
        # cluster-toolkit's gke-a4x does: the layer adds the ResourceQuota that admits
        # them in the driver's namespace (critical_pods_need_quota, provider.py).
        return {
            "nvidiaDriverRoot": GKE_NVIDIA_DIR,
            "controller": {"affinity": None},
        }
    return {}


# NVIDIA "NVIDIA GPU Operator with Google GKE", "Using the Google Driver Installer"
# (NVIDIA/cloud-native-docs gpu-operator/google-gke.rst, commit 30502584): GKE's driver
# installer owns the driver (COS supports no other), the operator the rest, with
# hostPaths.driverInstallDir and toolkit.installDir /home/kubernetes/bin/nvidia,
# cdi.enabled true, driver.enabled false; and a ResourceQuota in the operator's namespace
# that admits the system-*-critical priority classes its pods use (GKE admits those only
# where such a quota exists): manifests/input/google-gke-gpu-operator-quota.yaml (f419407d).
# The guide's ``cdi.default`` is no key of the pinned chart v26.7.0 (CDI is its default).
GPU_OPERATOR_QUOTA_PODS = 100  # the guide's quota: the floor
# Pods of the chart v26.7.0 (charts/gpu-operator-v26.7.0.tgz values.yaml) that run with
# system-node-critical: one of each enabled operand DaemonSet on every GPU node
# (``daemonsets.priorityClassName``, line 44; with the driver off: toolkit l.230,
# devicePlugin l.242, dcgmExporter l.300, gfd l.360, migManager l.371, and the validator),
# NFD's worker on every node (``node-feature-discovery.priorityClassName``, l.619), and
# the operator (l.80), NFD's master and gc once each.
GPU_OPERATOR_PODS_PER_GPU_NODE = 6
GPU_OPERATOR_PODS_PER_NODE = 1
GPU_OPERATOR_PODS_ONCE = 3


def gpu_operator_quota(gpu_nodes: int, nodes: int) -> dict[str, Any]:
    """The guide's ResourceQuota, widened to the cluster: 100 pods admit about 13 GPU
    nodes (6 operand pods each, plus NFD's worker on every node), so a larger cluster
    would have operand pods refused and GPUs that are never advertised."""
    pods = max(GPU_OPERATOR_QUOTA_PODS, GPU_OPERATOR_PODS_PER_GPU_NODE * gpu_nodes
               + GPU_OPERATOR_PODS_PER_NODE * nodes + GPU_OPERATOR_PODS_ONCE)
    # In the chart's extraObjects (Helm's YAML): the guide writes the count as a number;
    # Helm creates it in the release's namespace.
    return priority_class_quota("gpu-operator-quota", pods)


def gpu_operator_values(gpu_nodes: int, nodes: int) -> dict[str, Any]:
    """The GPU Operator on GKE as NVIDIA's GKE guide configures it (see above); the quota
    rides in the chart's own ``extraObjects`` so Helm creates it before any operator pod."""
    return {
        "driver": {"enabled": False},
        "hostPaths": {"driverInstallDir": GKE_NVIDIA_DIR},
        "toolkit": {"installDir": GKE_NVIDIA_DIR},
        "cdi": {"enabled": True},
        "extraObjects": [gpu_operator_quota(gpu_nodes, nodes)],
    }


def parts(
    spec: ClusterSpec, fabrics: Mapping[str, FabricDescription], addons: ResolvedAddons
) -> list[Part]:
    out: list[Part] = []
    operator = addons.on(GPU_OPERATOR)
    google_driver = {f.machine.name for f in fabrics.values()
                     if f.machine.gpus and (f.gpu_dra or operator)}
    if google_driver:
        # DRA pools (GKE set-up-dra) and, with the GPU Operator, every GPU pool (NVIDIA's
        # GKE guide) have GKE's driver install disabled: GKE's DaemonSet installs it.
        from gpu_fabric.clouds.gcp.driver import A4X_INSTANCE_TYPES, driver_installer_manifests

        a4x = bool(google_driver & set(A4X_INSTANCE_TYPES))
        generic = bool(google_driver - set(A4X_INSTANCE_TYPES))
        out.append(Part(DRIVER_PART, tuple(driver_installer_manifests(
                            NAMESPACE, generic=generic, a4x=a4x)),
                        description="NVIDIA driver installer for DRA GPU pools (GKE's COS "
                        "DaemonSet)"))
    machines = _unique_machines(f.machine for f in fabrics.values() if f.needs_nccl_installer)
    if addons.on(NCCL_INSTALLER) and machines:
        objects: list[Manifest] = []
        for installer in _installers(machines):
            objects += installer.manifests(addons[NCCL_INSTALLER.key].image(installer.image))
        out.append(Part(INSTALLER_PART, tuple(objects),
                        description="NCCL plugin installers (gIB / GPUDirect-TCPX/TCPXO)"))
        tcp_accelerators = sorted({m.accelerator for m in machines
                                   if m.fabric in TCP_FABRICS and m.accelerator})
        if tcp_accelerators:
            # The unprivileged RxDM sidecar gets its GPU device nodes from this injector.
            out.append(Part(NRI_PART, tuple(nri_injector_manifests(tcp_accelerators, NAMESPACE)),
                            description="NRI device injector for the GPUDirect-TCPX/TCPXO RxDM"))
    networks = network_objects(spec, fabrics)
    if networks:
        out.append(Part(NETWORKS_PART, tuple(networks),
                        description="GKE GKENetworkParamSet + Network per extra NIC"))
    return out


# -- NCCL plugin installers ------------------------------------------------------------
class _Installer:
    """One installer DaemonSet for a set of GKE accelerator types."""

    def __init__(self, name: str, image: Image, accelerators: list[str], arch: str,
                 script: str, mounts: dict[str, str], host_setup: str | None = None) -> None:
        self.name = name
        self.image = image
        self.accelerators = accelerators
        self.arch = arch
        self.script = script
        self.mounts = mounts  # host path -> path inside the init container
        self.host_setup = host_setup  # shell run in the host's namespaces before installing

    def manifests(self, image: Image) -> list[Manifest]:
        volumes = []
        volume_mounts = []
        for i, (host, path) in enumerate(sorted(self.mounts.items())):
            volumes.append(host_path(f"host-{i}", host, "DirectoryOrCreate"))
            volume_mounts.append(mount(f"host-{i}", path))
        install = {
            "name": "install",
            "image": image.ref,
            "command": ["/bin/sh", "-c"],
            "args": [self.script],
            "securityContext": {"privileged": True},
            "resources": resources("150m", "256Mi", memory_limit="1Gi"),
            "volumeMounts": volume_mounts,
        }
        pause = {
            "name": "pause",
            "image": versions.PAUSE.ref,
            "resources": resources("10m", "16Mi"),
            "securityContext": {"allowPrivilegeEscalation": False,
                                "capabilities": {"drop": ["ALL"]}},
        }
        affinity_terms = [{"key": ACCELERATOR_LABEL, "operator": "In",
                           "values": list(self.accelerators)},
                          {"key": "kubernetes.io/arch", "operator": "In", "values": [self.arch]}]
        return [
            service_account(self.name, NAMESPACE, automount=False),
            node_agent(
                self.name, NAMESPACE,
                containers=[pause],
                init_containers=[*self._host_setup(), install],
                service_account=self.name,
                volumes=volumes,
                host_network=True,
                host_pid=True,
                affinity={"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
                    "nodeSelectorTerms": [{"matchExpressions": affinity_terms}]}}},
            ),
        ]

    def _host_setup(self) -> list[dict[str, Any]]:
        if self.host_setup is None:
            return []
        return [{
            "name": "host-setup",
            "image": versions.HOST_TOOLS.ref,
            # The pod shares the host PID namespace: enter PID 1's namespaces.
            "command": ["nsenter", "--target", "1", "--all", "--", "sh", "-c"],
            "args": [self.host_setup],
            "securityContext": {"privileged": True},
            "resources": resources("50m", "64Mi", memory_limit="256Mi"),
        }]


def _gib_script() -> str:
    """container-engine-accelerators gpudirect-rdma/nccl-rdma-installer.yaml (992db812)
    lines 74-77 (the -a4x variant: lines 81-84): install, copy, done; no ldconfig."""
    lib = f"/usr/local{GKE_NVIDIA_DIR}/lib64"
    gib = f"/usr/local{GKE_GIB_DIR}"
    return "\n".join([
        "set -ex",
        "/scripts/container_entry.sh install",
        f"cp -R /var/lib/gib/lib64/. {lib}",
        f"cp -R /var/lib/gib/. {gib}",
        "echo installation finished",
    ])


def _tcp_script(kind: str) -> str:
    lib = f"/usr/local{GKE_NVIDIA_DIR}/lib64"
    return "\n".join([
        "set -ex",
        "/scripts/container_entry.sh install --install-nccl",
        f"cp -R /var/lib/{kind}/lib64/. {lib}",
        "echo installation finished",
    ])


def _installers(machines: list[Machine]) -> list[_Installer]:
    """One installer per (plugin, CPU architecture) among the pools' machines."""
    lib = {f"{GKE_NVIDIA_DIR}/lib64": f"/usr/local{GKE_NVIDIA_DIR}/lib64"}
    out = []
    for arch, image, name in (
        ("amd64", versions.GKE_NCCL_RDMA_INSTALLER, "nccl-rdma-installer"),
        ("arm64", versions.GKE_NCCL_RDMA_INSTALLER_ARM64, "nccl-rdma-installer-arm64"),
    ):
        accels = _accelerators(machines, FabricKind.ROCE, arch)
        if accels:
            out.append(_Installer(name, image, accels, arch, _gib_script(),
                                  {**lib, GKE_GIB_DIR: f"/usr/local{GKE_GIB_DIR}"}))
    for kind, image, name in (
        (FabricKind.TCPXO, versions.GKE_TCPXO_INSTALLER, "nccl-tcpxo-installer"),
        (FabricKind.TCPX, versions.GKE_TCPX_INSTALLER, "nccl-tcpx-installer"),
    ):
        accels = _accelerators(machines, kind, "amd64")
        if accels:
            tcpxo = kind is FabricKind.TCPXO
            out.append(_Installer(name, image, accels, "amd64",
                                  _tcp_script("tcpxo" if tcpxo else "tcpx"), lib,
                                  host_setup=tcpxo_host_setup_script() if tcpxo else None))
    return out


def _accelerators(machines: list[Machine], kind: FabricKind, arch: str) -> list[str]:
    return sorted({m.accelerator for m in machines
                   if m.fabric is kind and m.cpu_arch == arch and m.accelerator})


def _unique_machines(items: Any) -> list[Machine]:
    out: list[Machine] = []
    for m in items:
        if m not in out:
            out.append(m)
    return out


# -- GKE multi-networking objects --------------------------------------------------------
def network_objects(
    spec: ClusterSpec, fabrics: Mapping[str, FabricDescription]
) -> list[Manifest]:
    """``GKENetworkParamSet`` + ``Network`` for every extra NIC pods attach by annotation."""
    multi = [f for f in fabrics.values() if f.attach is Attach.GKE_MULTINETWORK]
    layout = _layout(spec) if multi else None
    if layout is None:
        return []
    wanted: dict[str, tuple[str, str, str]] = {}  # network -> (vpc, subnet, device mode)
    for fabric in multi:
        tcp = fabric.machine.fabric in TCP_FABRICS
        if not tcp and layout.gvnic is not None:
            wanted[GVNIC_NETWORK] = (layout.gvnic.name, layout.gvnic.subnets[0].name, "NetDevice")
        for rail in fabric.rails:
            if rail.network is None:
                continue
            if tcp:
                vpc = layout.gpu_vpcs[rail.index]
                wanted[rail.network] = (vpc.name, vpc.subnets[0].name, "NetDevice")
            elif layout.rdma is not None:
                wanted[rail.network] = (
                    layout.rdma.name, layout.rdma.subnets[rail.index].name, "RDMA"
                )
    out: list[Manifest] = []
    for network, (vpc_name, subnet_name, mode) in wanted.items():
        out.append(param_set(network, vpc_name, subnet_name, mode))
        out.append(gke_network(network))
    return out


def _layout(spec: ClusterSpec) -> GcpLayout | None:
    from gpu_fabric.clouds.gcp.layout import build_layout

    if spec.options is None:  # existing cluster without a gcp: section: networks are the user's
        return None
    if spec.existing is not None and spec.options.existing_networks is None:
        return None
    return build_layout(spec)


def param_set(name: str, vpc: str, subnet: str, device_mode: str) -> Manifest:
    return {
        "apiVersion": GKE_NETWORKING,
        "kind": "GKENetworkParamSet",
        "metadata": meta(name),
        "spec": {"vpc": vpc, "vpcSubnet": subnet, "deviceMode": device_mode},
    }


def gke_network(name: str) -> Manifest:
    return {
        "apiVersion": GKE_NETWORKING,
        "kind": "Network",
        "metadata": meta(name),
        "spec": {
            "type": "Device",
            "parametersRef": {
                "group": "networking.gke.io", "kind": "GKENetworkParamSet", "name": name,
            },
        },
    }
