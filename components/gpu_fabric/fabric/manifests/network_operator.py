"""NVIDIA Network Operator: chart values and the ``NicClusterPolicy`` it reconciles.

Since 24.10 the chart no longer creates the NicClusterPolicy: we create it, named
``nic-cluster-policy`` (the only name the operator reconciles), after the chart
(which ships its CRD). Sub-components are optional: the DOCA/MOFED driver
container (``ofedDriver``), the RDMA shared device plugin, the SR-IOV device
plugin, Multus + CNI plugins (``secondaryNetwork``) and NVIDIA IPAM (``nvIpam``).
Images come from ``nvcr.io/nvidia/mellanox`` at the operator release's tag.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from gpu_fabric.fabric.manifests.common import Manifest, meta
from gpu_fabric.fabric.manifests.rdma_shared import SharedResource
from gpu_fabric.fabric.manifests.rdma_shared import config as rdma_config
from gpu_fabric.fabric.manifests.sriov import VfResource
from gpu_fabric.fabric.manifests.sriov import config as sriov_config
from gpu_fabric.fabric.taints import daemonset_tolerations

API = "mellanox.com/v1alpha1"
POLICY_NAME = "nic-cluster-policy"
REPOSITORY = "nvcr.io/nvidia/mellanox"
MELLANOX_NODE_LABEL = "feature.node.kubernetes.io/pci-15b3.present"


def component_version(operator_version: str) -> str:
    """Tag of the operator's own component images for a release (network-operator-vX.Y.Z)."""
    return f"network-operator-v{operator_version.lstrip('v')}"


@dataclass(frozen=True)
class DocaDriver:
    """The DOCA (MOFED) driver container; ``env`` e.g. OFED_BLACKLIST_MODULES_FILE."""

    version: str
    env: Mapping[str, str] = field(default_factory=dict)
    repository: str = REPOSITORY

    def to_spec(self) -> dict[str, Any]:
        spec: dict[str, Any] = {
            "image": "doca-driver",
            "repository": self.repository,
            "version": self.version,
            "upgradePolicy": {
                "autoUpgrade": True,
                "maxParallelUpgrades": 1,
                "drain": {"enable": True, "force": True, "deleteEmptyDir": True,
                          "timeoutSeconds": 300},
            },
            "startupProbe": {"initialDelaySeconds": 10, "periodSeconds": 20},
            "livenessProbe": {"initialDelaySeconds": 30, "periodSeconds": 30},
            "readinessProbe": {"initialDelaySeconds": 10, "periodSeconds": 30},
        }
        if self.env:
            spec["env"] = [{"name": k, "value": v} for k, v in self.env.items()]
        return spec


def _image(name: str, version: str, **extra: Any) -> dict[str, Any]:
    return {"image": name, "repository": REPOSITORY, "version": version, **extra}


def nic_cluster_policy(
    operator_version: str,
    *,
    doca_driver: DocaDriver | None = None,
    rdma_shared: Sequence[SharedResource] = (),
    sriov: Sequence[VfResource] = (),
    secondary_network: bool = False,
    nv_ipam: bool = False,
    node_selector_label: str = MELLANOX_NODE_LABEL,
) -> Manifest:
    version = component_version(operator_version)
    spec: dict[str, Any] = {
        "nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
            "nodeSelectorTerms": [{"matchExpressions": [
                {"key": node_selector_label, "operator": "In", "values": ["true"]}
            ]}]
        }},
        "tolerations": daemonset_tolerations(),
    }
    if doca_driver:
        spec["ofedDriver"] = doca_driver.to_spec()
    if rdma_shared:
        spec["rdmaSharedDevicePlugin"] = _image(
            "k8s-rdma-shared-dev-plugin", version,
            config=json.dumps(rdma_config(rdma_shared)),
        )
    if sriov:
        spec["sriovDevicePlugin"] = _image(
            "sriov-network-device-plugin", version,
            config=json.dumps(sriov_config(sriov)),
        )
    if secondary_network:
        spec["secondaryNetwork"] = {
            "multus": _image("multus-cni", version),
            "cniPlugins": _image("plugins", version),
        }
    if nv_ipam:
        spec["nvIpam"] = _image("nvidia-k8s-ipam", version, enableWebhook=False)
    return {"apiVersion": API, "kind": "NicClusterPolicy", "metadata": meta(POLICY_NAME),
            "spec": spec}


def nfd_worker_values() -> dict[str, Any]:
    """NFD worker tolerations for the ``node-feature-discovery`` subchart (Network
    Operator 26.4.1 and GPU Operator v26.7.0 both alias it so).

    The charts' worker tolerates only the control-plane taints and ``nvidia.com/gpu``:
    on pools tainted otherwise (AKS ``sku=gpu:NoSchedule``, a spec's own taints) it
    never runs, the nodes never get the ``pci-10de`` / ``pci-15b3`` labels, and every
    agent that selects on them (GPU Operator, NicClusterPolicy) stays away. Helm
    replaces lists, so this list keeps those keys and adds every pool taint.
    """
    return {"worker": {"tolerations": daemonset_tolerations()}}


def chart_values(*, nfd: bool = True, node_feature_rules: bool = True) -> dict[str, Any]:
    """Operator chart values: NFD for the Mellanox PCI label; no SR-IOV network operator."""
    return {
        "nfd": {"enabled": nfd, "deployNodeFeatureRules": node_feature_rules},
        "node-feature-discovery": nfd_worker_values(),
        "sriovNetworkOperator": {"enabled": False},
        "operator": {"tolerations": daemonset_tolerations()},
    }


def ip_pool(name: str, namespace: str, subnet: str, gateway: str | None = None,
            per_node_block: int = 16) -> Manifest:
    """An nv-ipam IPPool (nv-ipam.nvidia.com/v1alpha1) for fabric pod addresses."""
    spec: dict[str, Any] = {"subnet": subnet, "perNodeBlockSize": per_node_block}
    if gateway:
        spec["gateway"] = gateway
    return {"apiVersion": "nv-ipam.nvidia.com/v1alpha1", "kind": "IPPool",
            "metadata": meta(name, namespace), "spec": spec}
