"""Mellanox k8s-rdma-shared-dev-plugin: ConfigMap + DaemonSet, one resource per rail.

Config format (Mellanox/k8s-rdma-shared-dev-plugin README): ``configList`` of
``{resourceName, resourcePrefix, rdmaHcaMax, selectors: {ifNames: [...]}}``;
pods then request ``<prefix>/<resourceName>: 1`` (DO seed: ``rdma/fabric0``).
The same config JSON feeds the Network Operator's ``rdmaSharedDevicePlugin``.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from gpu_fabric.fabric.manifests.common import (
    Manifest,
    config_map,
    host_path,
    mount,
    node_agent,
    resources,
    service_account,
)
from gpu_fabric.versions import Image

NAME = "rdma-shared-dp"
DAEMONSET = "rdma-shared-dp-ds"
CONFIG_MAP = "rdma-devices"
# Pods that may share one HCA on a node (the plugin's per-resource slot count).
DEFAULT_HCA_MAX = 64


@dataclass(frozen=True)
class SharedResource:
    name: str  # resourceName, e.g. fabric0 or hca_shared_devices_a
    selectors: Mapping[str, Sequence[str]] = field(default_factory=dict)
    prefix: str = "rdma"
    hca_max: int = DEFAULT_HCA_MAX

    @property
    def resource(self) -> str:
        return f"{self.prefix}/{self.name}"

    def to_config(self) -> dict[str, Any]:
        return {
            "resourceName": self.name,
            "resourcePrefix": self.prefix,
            "rdmaHcaMax": self.hca_max,
            "selectors": {k: list(v) for k, v in self.selectors.items()},
        }


def per_interface(ifnames: Iterable[str], prefix: str = "rdma") -> list[SharedResource]:
    """One resource per rail named after its interface (fabric0 -> rdma/fabric0)."""
    return [SharedResource(n, {"ifNames": [n]}, prefix) for n in ifnames]


def config(resources_: Sequence[SharedResource], interval: int = 300) -> dict[str, Any]:
    return {"periodicUpdateInterval": interval, "configList": [r.to_config() for r in resources_]}


def manifests(
    image: Image,
    shared: Sequence[SharedResource],
    namespace: str = "kube-system",
    node_selector: Mapping[str, str] | None = None,
) -> list[Manifest]:
    container = {
        "name": "k8s-rdma-shared-dp-ds",
        "image": image.ref,
        "securityContext": {"privileged": True},
        "resources": resources("10m", "64Mi", memory_limit="128Mi"),
        "volumeMounts": [
            mount("device-plugin", "/var/lib/kubelet/device-plugins"),
            mount("plugins-registry", "/var/lib/kubelet/plugins_registry"),
            mount("config", "/k8s-rdma-shared-dev-plugin", read_only=True),
            mount("devs", "/dev/"),
        ],
    }
    volumes = [
        host_path("device-plugin", "/var/lib/kubelet/device-plugins"),
        host_path("plugins-registry", "/var/lib/kubelet/plugins_registry"),
        {"name": "config", "configMap": {
            "name": CONFIG_MAP, "items": [{"key": "config.json", "path": "config.json"}],
        }},
        host_path("devs", "/dev/"),
    ]
    return [
        # The plugin talks to the kubelet only: its token is never mounted.
        service_account(NAME, namespace, automount=False),
        config_map(CONFIG_MAP, namespace, {"config.json": json.dumps(config(shared), indent=2)}),
        node_agent(
            DAEMONSET, namespace,
            containers=[container],
            volumes=volumes,
            service_account=NAME,
            host_network=True,
            node_selector=node_selector,
        ),
    ]
