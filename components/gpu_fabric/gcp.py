"""GKE building blocks: the fabric network and a GPU node pool, for your own program.

``gpu_fabric.GcpGpuCluster`` composes them; use them alone to add GPU pools with
their RDMA (or GPUDirect-TCPX) networks to a VPC or a GKE cluster you already run
(``examples/gcp-a4-existing-gke``):

* :class:`FabricNetwork` (``gpufabric:gcp:FabricNetwork``) with
  :class:`FabricNetworkArgs`: the VPCs, subnets and internal firewall rules of a
  layout (:func:`layout_on_existing_vpc`: yours as the primary VPC, new fabric VPCs),
  and Cloud NAT when asked. ``node_networks(fabric)`` names what a pool attaches.
* :class:`GpuNodePool` (``gpufabric:gcp:GpuNodePool``) with :class:`GpuNodePoolArgs`:
  one GPU node pool with its :class:`AdditionalNodeNetwork` list.

Importing this module loads no cloud SDK; the first name used imports
``pulumi_gcp`` and, when it is missing, says ``pip install 'gpu-fabric[gcp]'``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from gpu_fabric.catalog import Cloud
from gpu_fabric.clouds.public import load

if TYPE_CHECKING:
    from gpu_fabric.clouds.gcp.blocks import AdditionalNodeNetwork, layout_on_existing_vpc
    from gpu_fabric.clouds.gcp.blocks import GcpFabricNetwork as FabricNetwork
    from gpu_fabric.clouds.gcp.blocks import GcpFabricNetworkArgs as FabricNetworkArgs
    from gpu_fabric.clouds.gcp.blocks import GcpGpuNodePool as GpuNodePool
    from gpu_fabric.clouds.gcp.blocks import GcpGpuNodePoolArgs as GpuNodePoolArgs

# public name -> where it lives (module:attribute); imported on first use.
_NAMES: dict[str, str] = {
    "FabricNetwork": "gpu_fabric.clouds.gcp.blocks:GcpFabricNetwork",
    "FabricNetworkArgs": "gpu_fabric.clouds.gcp.blocks:GcpFabricNetworkArgs",
    "GpuNodePool": "gpu_fabric.clouds.gcp.blocks:GcpGpuNodePool",
    "GpuNodePoolArgs": "gpu_fabric.clouds.gcp.blocks:GcpGpuNodePoolArgs",
    "AdditionalNodeNetwork": "gpu_fabric.clouds.gcp.blocks:AdditionalNodeNetwork",
    "layout_on_existing_vpc": "gpu_fabric.clouds.gcp.blocks:layout_on_existing_vpc",
}

__all__ = [
    "AdditionalNodeNetwork",
    "FabricNetwork",
    "FabricNetworkArgs",
    "GpuNodePool",
    "GpuNodePoolArgs",
    "layout_on_existing_vpc",
]


def __getattr__(name: str) -> Any:
    return load(globals(), Cloud.GCP, _NAMES, name)


def __dir__() -> list[str]:
    return sorted({*globals(), *_NAMES})
