"""GKE's NVIDIA driver installer DaemonSet for DRA GPU pools (pure; no SDK).

GKE "Prepare GKE infrastructure for DRA workloads"
(cloud.google.com/kubernetes-engine/docs/how-to/set-up-dra, GKE 1.34+) says
automatic GPU driver installation is not supported with DRA: the pool is created
with ``gpu-driver-version=disabled`` (``INSTALLATION_DISABLED``) plus the
``gke-no-default-nvidia-gpu-device-plugin=true`` label, and the driver comes from
GKE's installer DaemonSet. This is that DaemonSet, from
GoogleCloudPlatform/container-engine-accelerators
``nvidia-driver-installer/cos/daemonset-preloaded.yaml`` (commit f2cf4197a5c3):
it runs on GPU nodes *without* the ``cloud.google.com/gke-gpu-driver-version``
label (GKE sets it only where GKE installs the driver), so pools whose driver GKE
installs are left alone. The installer image is preloaded on GKE COS nodes.

A4X (GB200, arm64) nodes get the variant upstream ships for them,
``nvidia-driver-installer/cos/daemonset-preloaded-latest-a4x.yaml`` (commit
2dd8fc9b04257ff3010b4c9112fa559f1a8f19a7, unchanged at 992db812): selected by
``node.kubernetes.io/instance-type`` in (a4x-highgpu-4g, a4x-highgpu-4g-nolssd), the
installer run with ``--version=latest`` followed by ``chmod 755`` of the driver directory,
and no ``partition-gpus`` container (that image is amd64 and A4X has no MIG set-up).
When both variants run, the generic one leaves A4X instance types alone.
"""

from __future__ import annotations

from typing import Any

from gpu_fabric import versions
from gpu_fabric.clouds.gcp.fabric import ACCELERATOR_LABEL, GKE_NVIDIA_DIR
from gpu_fabric.fabric.manifests.common import (
    host_path,
    mount,
    node_agent,
    resources,
    service_account,
)

NAME = "nvidia-driver-installer"
DRIVER_VERSION_LABEL = "cloud.google.com/gke-gpu-driver-version"
CONFIDENTIAL_LABEL = "cloud.google.com/gke-confidential-nodes-instance-type"
VULKAN_DIR = f"{GKE_NVIDIA_DIR}/vulkan/icd.d"
COS_TOOLS = "/var/lib/cos-tools"

INSTANCE_TYPE_LABEL = "node.kubernetes.io/instance-type"
# daemonset-preloaded-latest-a4x.yaml (2dd8fc9b) lines 50-52.
A4X_INSTANCE_TYPES = ("a4x-highgpu-4g", "a4x-highgpu-4g-nolssd")
A4X_NAME = f"{NAME}-a4x"
# daemonset-preloaded-latest-a4x.yaml (2dd8fc9b) lines 119-127, the echo lines shortened.
A4X_INSTALL_SCRIPT = "\n".join([
    "if lsmod | grep nvidia; then",
    "  echo 'GPU driver already loaded; skipping installation'",
    "  exit 0",
    "fi",
    "/cos-gpu-installer install --version=latest || exit 1",
    f"chmod 755 /root{GKE_NVIDIA_DIR}",
])

INSTALL_SCRIPT = "\n".join([
    "if lsmod | grep -q nvidia; then",
    "  echo 'GPU driver already loaded; skipping installation'",
    "  exit 0",
    "fi",
    "/cos-gpu-installer install || exit 1",
])


def driver_installer_manifests(
    namespace: str, *, generic: bool = True, a4x: bool = False
) -> list[dict[str, Any]]:
    """ServiceAccount (no token, no RBAC) + the COS driver installer DaemonSet(s): the
    generic one for ``generic`` pools, the A4X variant for ``a4x`` pools."""
    out: list[dict[str, Any]] = []
    if generic:
        out += _generic(namespace, exclude_a4x=a4x)
    if a4x:
        out += _a4x(namespace)
    return out


def _installer(script: str) -> dict[str, Any]:
    return {
        "name": NAME,
        "image": versions.GKE_COS_DRIVER_INSTALLER.ref,
        "imagePullPolicy": "Never",
        "command": ["bash", "-c"],
        "args": [script],
        "securityContext": {"privileged": True},
        "resources": resources("150m", "256Mi", memory_limit="4Gi"),
        "env": [
            {"name": "NVIDIA_INSTALL_DIR_HOST", "value": GKE_NVIDIA_DIR},
            {"name": "NVIDIA_INSTALL_DIR_CONTAINER", "value": "/usr/local/nvidia"},
            {"name": "VULKAN_ICD_DIR_HOST", "value": VULKAN_DIR},
            {"name": "VULKAN_ICD_DIR_CONTAINER", "value": "/etc/vulkan/icd.d"},
            {"name": "ROOT_MOUNT_DIR", "value": "/root"},
            {"name": "COS_TOOLS_DIR_HOST", "value": COS_TOOLS},
            {"name": "COS_TOOLS_DIR_CONTAINER", "value": "/build/cos-tools"},
        ],
        "volumeMounts": [
            mount("nvidia-install-dir-host", "/usr/local/nvidia"),
            mount("vulkan-icd-mount", "/etc/vulkan/icd.d"),
            mount("dev", "/dev"),
            mount("root-mount", "/root"),
            mount("cos-tools", "/build/cos-tools"),
        ],
    }


def _pause() -> dict[str, Any]:
    return {
        "name": "pause",
        "image": versions.GKE_PAUSE.ref,
        "resources": resources("10m", "16Mi"),
        "securityContext": {"allowPrivilegeEscalation": False,
                            "capabilities": {"drop": ["ALL"]}},
    }


def _host_volumes() -> list[dict[str, Any]]:
    return [
        host_path("dev", "/dev"),
        host_path("vulkan-icd-mount", VULKAN_DIR),
        host_path("nvidia-install-dir-host", GKE_NVIDIA_DIR),
        host_path("root-mount", "/"),
        host_path("cos-tools", COS_TOOLS),
        host_path("nvidia-config", "/etc/nvidia"),
    ]


def _generic(namespace: str, *, exclude_a4x: bool) -> list[dict[str, Any]]:
    installer = _installer(INSTALL_SCRIPT)
    partition = {
        "name": "partition-gpus",
        "image": versions.GKE_PARTITION_GPU.ref,
        "env": [{"name": "LD_LIBRARY_PATH", "value": "/usr/local/nvidia/lib64"}],
        "securityContext": {"privileged": True},
        "resources": resources("150m", "64Mi", memory_limit="256Mi"),
        "volumeMounts": [
            mount("nvidia-install-dir-host", "/usr/local/nvidia"),
            mount("dev", "/dev"),
            mount("nvidia-config", "/etc/nvidia"),
        ],
    }
    terms: list[dict[str, Any]] = [
        {"key": ACCELERATOR_LABEL, "operator": "Exists"},
        {"key": DRIVER_VERSION_LABEL, "operator": "DoesNotExist"},
        {"key": CONFIDENTIAL_LABEL, "operator": "DoesNotExist"},
    ]
    if exclude_a4x:
        terms.append({"key": INSTANCE_TYPE_LABEL, "operator": "NotIn",
                      "values": list(A4X_INSTANCE_TYPES)})
    return [
        service_account(NAME, namespace, automount=False),
        node_agent(
            NAME, namespace,
            containers=[_pause()],
            init_containers=[installer, partition],
            service_account=NAME,
            volumes=_host_volumes(),
            host_network=True,
            host_pid=True,
            affinity=_required(terms),
        ),
    ]


def _a4x(namespace: str) -> list[dict[str, Any]]:
    """daemonset-preloaded-latest-a4x.yaml (2dd8fc9b): A4X instance types only."""
    terms: list[dict[str, Any]] = [
        {"key": INSTANCE_TYPE_LABEL, "operator": "In", "values": list(A4X_INSTANCE_TYPES)},
        {"key": ACCELERATOR_LABEL, "operator": "Exists"},
        {"key": DRIVER_VERSION_LABEL, "operator": "DoesNotExist"},
    ]
    return [
        service_account(A4X_NAME, namespace, automount=False),
        node_agent(
            A4X_NAME, namespace,
            containers=[_pause()],
            init_containers=[_installer(A4X_INSTALL_SCRIPT)],
            service_account=A4X_NAME,
            volumes=_host_volumes(),
            host_network=True,
            host_pid=True,
            affinity=_required(terms),
        ),
    ]


def _required(terms: list[dict[str, Any]]) -> dict[str, Any]:
    return {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
        "nodeSelectorTerms": [{"matchExpressions": terms}]}}}
