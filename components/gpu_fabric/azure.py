"""AKS building blocks: the cluster's VNet and an ND InfiniBand agent pool, for your own program.

``gpu_fabric.AzureGpuCluster`` composes them; use them alone to add ND pools to a
VNet or an AKS cluster you already run (``examples/azure-nd-existing-aks``):

* :class:`FabricNetwork` (``gpufabric:azure:FabricNetwork``) with
  :class:`FabricNetworkArgs`: the VNet, its NSG and the node (and flat-mode pod)
  subnet. InfiniBand is outside the VNet: Azure wires one fabric per scale set.
* :class:`NdAgentPool` (``gpufabric:azure:GpuNodePool``) with :class:`NdAgentPoolArgs`:
  one ND agent pool (one VM scale set, so one InfiniBand fabric).
* :func:`infiniband_feature`: the subscription feature ``AKSInfinibandSupport``
  (registered, or only checked) and the gate a pool's VM size waits on. It is
  subscription-wide, so it is not part of a pool block.

Importing this module loads no cloud SDK; the first name used imports
``pulumi_azure_native`` and, when it is missing, says ``pip install 'gpu-fabric[azure]'``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from gpu_fabric.catalog import Cloud
from gpu_fabric.clouds.public import load

if TYPE_CHECKING:
    from gpu_fabric.clouds.azure.blocks import AzureFabricNetwork as FabricNetwork
    from gpu_fabric.clouds.azure.blocks import AzureFabricNetworkArgs as FabricNetworkArgs
    from gpu_fabric.clouds.azure.blocks import AzureNdAgentPool as NdAgentPool
    from gpu_fabric.clouds.azure.blocks import AzureNdAgentPoolArgs as NdAgentPoolArgs
    from gpu_fabric.clouds.azure.feature import infiniband_feature

# public name -> where it lives (module:attribute); imported on first use.
_NAMES: dict[str, str] = {
    "FabricNetwork": "gpu_fabric.clouds.azure.blocks:AzureFabricNetwork",
    "FabricNetworkArgs": "gpu_fabric.clouds.azure.blocks:AzureFabricNetworkArgs",
    "NdAgentPool": "gpu_fabric.clouds.azure.blocks:AzureNdAgentPool",
    "NdAgentPoolArgs": "gpu_fabric.clouds.azure.blocks:AzureNdAgentPoolArgs",
    "infiniband_feature": "gpu_fabric.clouds.azure.feature:infiniband_feature",
}

__all__ = [
    "FabricNetwork",
    "FabricNetworkArgs",
    "NdAgentPool",
    "NdAgentPoolArgs",
    "infiniband_feature",
]


def __getattr__(name: str) -> Any:
    return load(globals(), Cloud.AZURE, _NAMES, name)


def __dir__() -> list[str]:
    return sorted({*globals(), *_NAMES})
