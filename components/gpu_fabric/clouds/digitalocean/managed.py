"""Which DOKS-managed cluster components a cluster gets (pure; no SDK).

DOKS installs some node components itself and decides their defaults from the
node pools (RDMA shared device plugin for fabric sizes, the vendor's GPU device
plugin for GPU sizes). This project sets each one explicitly from the spec, so a
DO default changing never changes a cluster silently, and so the Kubernetes layer
knows which components it must NOT install a second time.

Keys are the ``KubernetesCluster`` argument names of pulumi-digitalocean.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from gpu_fabric.catalog import GpuVendor
from gpu_fabric.clouds.digitalocean.options import DigitalOceanOptions
from gpu_fabric.fabric.problems import refuse

if TYPE_CHECKING:
    from gpu_fabric.spec import ClusterSpec

RDMA_SHARED = "rdma_shared_device_plugin"
NVIDIA_DEVICE_PLUGIN = "nvidia_gpu_device_plugin"
NVIDIA_DRA_DRIVER = "nvidia_gpu_dra_driver"
AMD_DEVICE_PLUGIN = "amd_gpu_device_plugin"
AMD_DRA_DRIVER = "amd_gpu_dra_driver"
AMD_METRICS_EXPORTER = "amd_gpu_device_metrics_exporter_plugin"

_PATH = "digitalocean.components"


def options(spec: ClusterSpec) -> DigitalOceanOptions:
    return spec.options or DigitalOceanOptions()


def uses_gpu_dra(spec: ClusterSpec) -> bool:
    """GPUs through DOKS's managed GPU DRA driver instead of its device plugin.

    An explicit ``gpu_dra_driver`` wins; ``gpu_device_plugin: true`` means no DRA;
    otherwise ``fabric.mode: dra`` asks for DRA. Contradictions are refused.
    """
    chosen = options(spec).components
    dra_mode = spec.fabric.mode.value == "dra"
    if dra_mode and chosen.gpu_dra_driver is False:
        refuse(f"{_PATH}.gpu_dra_driver",
               "fabric.mode is dra, which needs DOKS's GPU DRA driver; remove "
               "gpu_dra_driver: false or use fabric.mode device-plugin", False)
    if dra_mode and chosen.gpu_device_plugin:
        refuse(f"{_PATH}.gpu_device_plugin",
               "fabric.mode is dra (GPUs through the DRA driver), which excludes the GPU "
               "device plugin; remove gpu_device_plugin: true or use fabric.mode "
               "device-plugin", True)
    if chosen.gpu_dra_driver is not None:
        return chosen.gpu_dra_driver
    if chosen.gpu_device_plugin:
        return False
    return dra_mode


def vendors(spec: ClusterSpec) -> set[GpuVendor]:
    return {pool.machine.gpu.vendor for pool in spec.node_pools}


def managed_components(spec: ClusterSpec) -> dict[str, bool]:
    """The DOKS-managed components to set, on or off, keyed by ``KubernetesCluster`` argument.

    Per GPU vendor with pools, exactly one GPU block is set: the chosen one
    (``enabled: true``), or the device plugin ``enabled: false`` when the spec turns
    both off. The device plugin and DRA driver blocks are never set together (the
    provider documents them as mutually exclusive arguments). Vendors without pools
    get no GPU block.
    """
    chosen = options(spec).components
    has_fabric = any(p.machine.has_fabric for p in spec.node_pools)
    gpu_dra = uses_gpu_dra(spec)
    present = vendors(spec)
    if chosen.amd_device_metrics_exporter and GpuVendor.AMD not in present:
        refuse(f"{_PATH}.amd_device_metrics_exporter",
               "the AMD metrics exporter needs an AMD GPU pool (e.g. "
               "gpu-mi300x8-1536gb-fabric-contracted); remove it", True)
    out = {
        RDMA_SHARED: (
            chosen.rdma_shared_device_plugin
            if chosen.rdma_shared_device_plugin is not None else has_fabric
        ),
    }
    plugin_on = chosen.gpu_device_plugin is not False
    for vendor, plugin, dra in (
        (GpuVendor.NVIDIA, NVIDIA_DEVICE_PLUGIN, NVIDIA_DRA_DRIVER),
        (GpuVendor.AMD, AMD_DEVICE_PLUGIN, AMD_DRA_DRIVER),
    ):
        if vendor not in present:
            continue
        if gpu_dra:
            out[dra] = True
        else:
            out[plugin] = plugin_on
    if GpuVendor.AMD in present:
        out[AMD_METRICS_EXPORTER] = chosen.amd_device_metrics_exporter
    return out


def gpu_plugin_managed(spec: ClusterSpec, vendor: GpuVendor) -> bool:
    """True when DOKS advertises ``vendor``'s GPUs (device plugin or DRA driver)."""
    doks = managed_components(spec)
    keys = {
        GpuVendor.NVIDIA: (NVIDIA_DEVICE_PLUGIN, NVIDIA_DRA_DRIVER),
        GpuVendor.AMD: (AMD_DEVICE_PLUGIN, AMD_DRA_DRIVER),
    }[vendor]
    return any(doks.get(k, False) for k in keys)
