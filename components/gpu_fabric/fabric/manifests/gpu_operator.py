"""NVIDIA GPU Operator values (chart gpu-operator).

GPUDirect RDMA (``driver.rdma.enabled``: nvidia-peermem) is on whenever the
fabric is RDMA; the driver container is off where the cloud image already has
the driver; DCGM exporter is on (its ServiceMonitor when Prometheus is there).
MIG's values come from the platform layer (:mod:`gpu_fabric.platform.plugin`).
"""

from __future__ import annotations

from typing import Any

from gpu_fabric.fabric.manifests.network_operator import nfd_worker_values
from gpu_fabric.fabric.taints import daemonset_tolerations


def values(
    *,
    install_driver: bool,
    rdma: bool,
    host_mofed: bool = False,
    device_plugin: bool = True,
    service_monitor: bool = False,
    nfd: bool = True,
    driver_root: str | None = None,
) -> dict[str, Any]:
    out: dict[str, Any] = {
        "driver": {
            "enabled": install_driver,
            "rdma": {"enabled": rdma, "useHostMofed": host_mofed},
        },
        "toolkit": {"enabled": True},
        "devicePlugin": {"enabled": device_plugin},
        "dcgmExporter": {"enabled": True, "serviceMonitor": {"enabled": service_monitor}},
        "nfd": {"enabled": nfd},
        "daemonsets": {
            "tolerations": daemonset_tolerations(),
            "priorityClassName": "system-node-critical",
        },
        "cdi": {"enabled": True},
    }
    if nfd:
        # The chart's NFD worker tolerates only nvidia.com/gpu (values.yaml
        # node-feature-discovery.worker.tolerations): on other taints (AKS sku=gpu) it
        # never labels the node pci-10de and no operand lands there. Same subchart key
        # and list as the Network Operator's NFD.
        out["node-feature-discovery"] = nfd_worker_values()
    if driver_root:
        out["hostPaths"] = {"driverInstallDir": driver_root}
        out["toolkit"]["installDir"] = driver_root
    return out
