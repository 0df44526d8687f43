"""SR-IOV network device plugin: VFs as extended resources (OCI ``nvidia.com/rdma-vf``,
Azure ``rdma/ib``). Config: ``resourceList`` of ``{resourceName, resourcePrefix,
selectors: {vendors, devices, drivers, pfNames, linkTypes, isRdma}}``
(k8snetworkplumbingwg/sriov-network-device-plugin README).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
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

NAME = "sriov-device-plugin"
DAEMONSET = "kube-sriov-device-plugin"
CONFIG_MAP = "sriovdp-config"
MELLANOX_VENDOR = "15b3"


@dataclass(frozen=True)
class VfResource:
    name: str  # rdma-vf, ib
    prefix: str  # nvidia.com, rdma
    selectors: Mapping[str, Any] = field(default_factory=dict)

    @property
    def resource(self) -> str:
        return f"{self.prefix}/{self.name}"

    def to_config(self) -> dict[str, Any]:
        return {"resourceName": self.name, "resourcePrefix": self.prefix,
                "selectors": dict(self.selectors)}


def rdma_vfs(name: str, prefix: str, *, link_type: str | None = None) -> VfResource:
    """Mellanox RDMA-capable VFs (optionally of one link type: ether / infiniband)."""
    selectors: dict[str, Any] = {"vendors": [MELLANOX_VENDOR], "isRdma": True}
    if link_type:
        selectors["linkTypes"] = [link_type]
    return VfResource(name, prefix, selectors)


def config(resource_list: Sequence[VfResource]) -> dict[str, Any]:
    return {"resourceList": [r.to_config() for r in resource_list]}


def manifests(
    image: Image,
    resource_list: Sequence[VfResource],
    namespace: str = "kube-system",
    node_selector: Mapping[str, str] | None = None,
) -> list[Manifest]:
    container = {
        "name": "kube-sriovdp",
        "image": image.ref,
        "args": ["--log-dir=sriovdp", "--log-level=10"],
        "securityContext": {"privileged": True},
        "resources": resources("50m", "64Mi", memory_limit="200Mi"),
        "volumeMounts": [
            mount("devicesock", "/var/lib/kubelet/device-plugins"),
            mount("plugins-registry", "/var/lib/kubelet/plugins_registry"),
            mount("log", "/var/log"),
            mount("config-volume", "/etc/pcidp", read_only=True),
            mount("device-info", "/var/run/k8s.cni.cncf.io/devinfo/dp"),
        ],
    }
    volumes = [
        host_path("devicesock", "/var/lib/kubelet/device-plugins"),
        host_path("plugins-registry", "/var/lib/kubelet/plugins_registry"),
        host_path("log", "/var/log"),
        host_path("device-info", "/var/run/k8s.cni.cncf.io/devinfo/dp", "DirectoryOrCreate"),
        {"name": "config-volume", "configMap": {
            "name": CONFIG_MAP, "items": [{"key": "config.json", "path": "config.json"}],
        }},
    ]
    return [
        service_account(NAME, namespace, automount=False),
        config_map(CONFIG_MAP, namespace,
                   {"config.json": json.dumps(config(resource_list), indent=2)}),
        node_agent(
            DAEMONSET, namespace,
            containers=[container],
            volumes=volumes,
            service_account=NAME,
            host_network=True,
            node_selector=node_selector,
        ),
    ]
