"""EKS building blocks: the fabric network and an EFA GPU node group, for your own program.

``gpu_fabric.AwsGpuCluster`` composes them; use them alone to add EFA node groups
to a VPC or an EKS cluster you already run (``examples/aws-efa-existing-eks``):

* :class:`FabricNetwork` (``gpufabric:aws:FabricNetwork``) with
  :class:`FabricNetworkArgs`: a new VPC or your :class:`ExistingVpc`, and the EFA
  security group (self-referencing rules only).
* :class:`EfaNodeGroup` (``gpufabric:aws:GpuNodeGroup``) with
  :class:`EfaNodeGroupArgs`: the pool's cluster placement group, its launch template
  (one EFA interface per network card) and its EKS managed node group.

Importing this module loads no cloud SDK; the first name used imports
``pulumi_aws`` and, when it is missing, says ``pip install 'gpu-fabric[aws]'``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from gpu_fabric.catalog import Cloud
from gpu_fabric.clouds.public import load

if TYPE_CHECKING:
    from gpu_fabric.clouds.aws.blocks import AwsEfaNodeGroup as EfaNodeGroup
    from gpu_fabric.clouds.aws.blocks import AwsEfaNodeGroupArgs as EfaNodeGroupArgs
    from gpu_fabric.clouds.aws.blocks import AwsFabricNetwork as FabricNetwork
    from gpu_fabric.clouds.aws.blocks import AwsFabricNetworkArgs as FabricNetworkArgs
    from gpu_fabric.clouds.aws.blocks import ExistingVpc

# public name -> where it lives (module:attribute); imported on first use.
_NAMES: dict[str, str] = {
    "FabricNetwork": "gpu_fabric.clouds.aws.blocks:AwsFabricNetwork",
    "FabricNetworkArgs": "gpu_fabric.clouds.aws.blocks:AwsFabricNetworkArgs",
    "EfaNodeGroup": "gpu_fabric.clouds.aws.blocks:AwsEfaNodeGroup",
    "EfaNodeGroupArgs": "gpu_fabric.clouds.aws.blocks:AwsEfaNodeGroupArgs",
    "ExistingVpc": "gpu_fabric.clouds.aws.blocks:ExistingVpc",
}

__all__ = [
    "EfaNodeGroup",
    "EfaNodeGroupArgs",
    "ExistingVpc",
    "FabricNetwork",
    "FabricNetworkArgs",
]


def __getattr__(name: str) -> Any:
    return load(globals(), Cloud.AWS, _NAMES, name)


def __dir__() -> list[str]:
    return sorted({*globals(), *_NAMES})
