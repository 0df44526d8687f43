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

INSTALL_SCRIPT = "\n".join([
    "if lsmod | grep -q nvidia; then",
    "  echo 'GPU driver already loaded; skipping installation'",
    "  exit 0",
    "fi",
    "/cos-gpu-installer install || exit 1",
])


def driver_installer_manifests(namespace: str) -> list[dict[str, Any]]:
    """ServiceAccount (no token, no RBAC) + the COS driver installer DaemonSet."""
    installer = {
        "name": NAME,
        "image": versions.GKE_COS_DRIVER_INSTALLER.ref,
        "imagePullPolicy": "Never",
        "command": ["bash", "-c"],
        "args": [INSTALL_SCRIPT],
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
    pause = {
        "name": "pause",
        "image": versions.GKE_PAUSE.ref,
        "resources": resources("10m", "16Mi"),
        "securityContext": {"allowPrivilegeEscalation": False,
                            "capabilities": {"drop": ["ALL"]}},
    }
    affinity = {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
        "nodeSelectorTerms": [{"matchExpressions": [
            {"key": ACCELERATOR_LABEL, "operator": "Exists"},
            {"key": DRIVER_VERSION_LABEL, "operator": "DoesNotExist"},
            {"key": CONFIDENTIAL_LABEL, "operator": "DoesNotExist"},
        ]}]}}}
    return [
        service_account(NAME, namespace, automount=False),
        node_agent(
            NAME, namespace,
            containers=[pause],
            init_containers=[installer, partition],
            service_account=NAME,
            volumes=[
                host_path("dev", "/dev"),
                host_path("vulkan-icd-mount", VULKAN_DIR),
                host_path("nvidia-install-dir-host", GKE_NVIDIA_DIR),
                host_path("root-mount", "/"),
                host_path("cos-tools", COS_TOOLS),
                host_path("nvidia-config", "/etc/nvidia"),
            ],
            host_network=True,
            host_pid=True,
            affinity=affinity,
        ),
    ]
