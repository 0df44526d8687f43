"""digitalocean: the cloud's part of the Kubernetes fabric layer (pure; no SDK).

Interface (see gpu_fabric.fabric.layer): addon_defaults, chart_values, parts.

DOKS manages the node software a GPU node needs (NVIDIA/AMD driver, container
runtime hooks) and, as cluster components, the RDMA shared device plugin and the
GPU device plugin or DRA driver (see :mod:`gpu_fabric.clouds.digitalocean.managed`).
The layer adds what DOKS leaves to the user (the DO seed): Multus thick and one
host-device NetworkAttachmentDefinition per fabric NIC. Both come from the generic
builders (``gpu_fabric.fabric.parts``) fed by the DO fabric description, so this
module only decides defaults: it never installs a second copy of a component DOKS
already runs (two RDMA plugins would both advertise ``rdma/fabricN``), and it
installs the layer's copy when the spec turns DOKS's off.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from gpu_fabric.catalog import GpuVendor
from gpu_fabric.clouds.digitalocean import managed
from gpu_fabric.fabric.addons import (
    DRANET,
    GPU_OPERATOR,
    MULTUS,
    NVIDIA_DEVICE_PLUGIN,
    NVIDIA_DRA_DRIVER,
    RDMA_SHARED_DEVICE_PLUGIN,
)
from gpu_fabric.fabric.layer import Part
from gpu_fabric.fabric.plugin_guards import refuse_second_plugin

if TYPE_CHECKING:
    from gpu_fabric.fabric.addons import ResolvedAddons
    from gpu_fabric.fabric.description import FabricDescription
    from gpu_fabric.spec import ClusterSpec


def addon_defaults(
    spec: ClusterSpec, fabrics: Mapping[str, FabricDescription]
) -> dict[str, bool]:
    doks = managed.managed_components(spec)
    has_fabric = any(f.machine.has_fabric for f in fabrics.values())
    nvidia = GpuVendor.NVIDIA in managed.vendors(spec)
    gpu_dra = managed.uses_gpu_dra(spec)
    return {
        # The seed: Multus thick moves fabric0..N into pods (host-device NADs).
        MULTUS.key: has_fabric,
        # DOKS runs the plugin unless the spec turned it off: then the layer runs it.
        RDMA_SHARED_DEVICE_PLUGIN.key: has_fabric and not doks[managed.RDMA_SHARED],
        # DOKS images carry the driver and toolkit: the GPU Operator only on request.
        GPU_OPERATOR.key: False,
        # Same rule for the NVIDIA device plugin: exactly one source of nvidia.com/gpu.
        # (The GPU Operator, when the spec enables it, brings its own.)
        NVIDIA_DEVICE_PLUGIN.key: (
            nvidia and not gpu_dra and not spec.addons.choice(GPU_OPERATOR).enabled
            and not managed.gpu_plugin_managed(spec, GpuVendor.NVIDIA)
        ),
        # With fabric.mode dra, DOKS runs the GPU DRA driver (nvidia_gpu_dra_driver).
        NVIDIA_DRA_DRIVER.key: False,
        # NICs are never DRA devices on DOKS (rdma/fabricN + Multus even with GPU DRA).
        DRANET.key: False,
    }


def chart_values(
    addon: str, spec: ClusterSpec, fabrics: Mapping[str, FabricDescription]
) -> dict[str, Any]:
    if addon != GPU_OPERATOR.key:
        return {}
    # DOKS GPU nodes ship the NVIDIA driver and container toolkit; the operator adds
    # DCGM and friends. Its device plugin only runs when DOKS advertises no NVIDIA GPUs.
    gpu_plugin = not managed.gpu_plugin_managed(spec, GpuVendor.NVIDIA)
    return {
        "driver": {"enabled": False},
        "toolkit": {"enabled": False},
        "devicePlugin": {"enabled": gpu_plugin},
    }


def parts(
    spec: ClusterSpec, fabrics: Mapping[str, FabricDescription], addons: ResolvedAddons
) -> list[Part]:
    # Everything DO needs beyond DOKS itself is built by the generic parts from the
    # fabric description (multus, nads, rdma-shared-device-plugin when DOKS's is off).
    if addons.on(RDMA_SHARED_DEVICE_PLUGIN) and managed.managed_components(spec)[
        managed.RDMA_SHARED
    ]:
        refuse_second_plugin(
            RDMA_SHARED_DEVICE_PLUGIN.key, "rdma-shared",
            "DOKS (digitalocean.components.rdma_shared_device_plugin)",
            ", ".join(r.resource for f in fabrics.values() if f.machine.has_fabric
                      for r in f.rails if r.resource),
            "set digitalocean.components.rdma_shared_device_plugin: false to run this one",
        )
    # Forced on next to DOKS's own NVIDIA plugin (or its GPU DRA driver), the layer's
    # plugin would advertise the same GPUs a second time (the default keeps one source).
    if addons.on(NVIDIA_DEVICE_PLUGIN) and managed.gpu_plugin_managed(spec, GpuVendor.NVIDIA):
        refuse_second_plugin(
            NVIDIA_DEVICE_PLUGIN.key, "NVIDIA GPU",
            "DOKS (digitalocean.components: nvidia_gpu_device_plugin or nvidia_gpu_dra_driver)",
            "nvidia.com/gpu",
            "set digitalocean.components.gpu_device_plugin: false, without fabric.mode dra, "
            "to run this one",
        )
    return []
