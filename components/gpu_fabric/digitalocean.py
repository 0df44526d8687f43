"""DOKS building blocks: the cluster's VPC and a GPU node pool on the fabric, for your own program.

``gpu_fabric.DigitalOceanGpuCluster`` composes them; use them alone to add fabric
node pools to a DOKS cluster you already run (``examples/do-gpu-existing-doks``):

* :class:`FabricNetwork` (``gpufabric:digitalocean:FabricNetwork``) with
  :class:`FabricNetworkArgs`: the VPC the nodes' ``eth1`` sits on. The GPU fabric
  NICs (``fabric0..N``) are DO-wired into every droplet of a fabric size.
* :class:`GpuNodePool` (``gpufabric:digitalocean:GpuNodePool``) with
  :class:`GpuNodePoolArgs`: one node pool of a fabric size, labelled and tainted
  from its fabric description; :func:`do_tags` makes DO tags from a tag mapping.

Importing this module loads no cloud SDK; the first name used imports
``pulumi_digitalocean`` and, when it is missing, says
``pip install 'gpu-fabric[digitalocean]'``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from gpu_fabric.catalog import Cloud
from gpu_fabric.clouds.public import load

if TYPE_CHECKING:
    from gpu_fabric.clouds.digitalocean.blocks import DigitalOceanFabricNetwork as FabricNetwork
    from gpu_fabric.clouds.digitalocean.blocks import (
        DigitalOceanFabricNetworkArgs as FabricNetworkArgs,
    )
    from gpu_fabric.clouds.digitalocean.blocks import DoksGpuNodePool as GpuNodePool
    from gpu_fabric.clouds.digitalocean.blocks import DoksGpuNodePoolArgs as GpuNodePoolArgs
    from gpu_fabric.clouds.digitalocean.blocks import do_tags

# public name -> where it lives (module:attribute); imported on first use.
_NAMES: dict[str, str] = {
    "FabricNetwork": "gpu_fabric.clouds.digitalocean.blocks:DigitalOceanFabricNetwork",
    "FabricNetworkArgs": "gpu_fabric.clouds.digitalocean.blocks:DigitalOceanFabricNetworkArgs",
    "GpuNodePool": "gpu_fabric.clouds.digitalocean.blocks:DoksGpuNodePool",
    "GpuNodePoolArgs": "gpu_fabric.clouds.digitalocean.blocks:DoksGpuNodePoolArgs",
    "do_tags": "gpu_fabric.clouds.digitalocean.blocks:do_tags",
}

__all__ = [
    "FabricNetwork",
    "FabricNetworkArgs",
    "GpuNodePool",
    "GpuNodePoolArgs",
    "do_tags",
]


def __getattr__(name: str) -> Any:
    return load(globals(), Cloud.DIGITALOCEAN, _NAMES, name)


def __dir__() -> list[str]:
    return sorted({*globals(), *_NAMES})
