"""OKE building blocks: the VCN and a GPU node pool in its RDMA compute cluster, for your program.

``gpu_fabric.OciGpuCluster`` composes them; use them alone to add RDMA node pools
to a VCN or an OKE cluster you already run (``examples/oci-rdma-existing-oke``):

* :class:`FabricNetwork` (``gpufabric:oci:FabricNetwork``) with
  :class:`FabricNetworkArgs`: the VCN, gateways, route tables, subnets and security
  lists. RDMA is outside the VCN: OCI wires it between a compute cluster's members.
* :class:`GpuNodePool` (``gpufabric:oci:GpuNodePool``) with :class:`GpuNodePoolArgs`:
  an RDMA shape's compute cluster and the OKE node pool launched into it.
* :func:`launch_policy`: the IAM policy that lets node pools launch into compute
  clusters (one per cluster, so not part of a pool block);
  :func:`oke_version`: OKE's node pool version for ``1.34``.

Importing this module loads no cloud SDK; the first name used imports
``pulumi_oci`` and, when it is missing, says ``pip install 'gpu-fabric[oci]'``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from gpu_fabric.catalog import Cloud
from gpu_fabric.clouds.public import load

if TYPE_CHECKING:
    from gpu_fabric.clouds.oci.blocks import OciFabricNetwork as FabricNetwork
    from gpu_fabric.clouds.oci.blocks import OciFabricNetworkArgs as FabricNetworkArgs
    from gpu_fabric.clouds.oci.blocks import OciGpuNodePool as GpuNodePool
    from gpu_fabric.clouds.oci.blocks import OciGpuNodePoolArgs as GpuNodePoolArgs
    from gpu_fabric.clouds.oci.blocks import oke_node_version as oke_version
    from gpu_fabric.clouds.oci.iam import launch_policy

# public name -> where it lives (module:attribute); imported on first use.
_NAMES: dict[str, str] = {
    "FabricNetwork": "gpu_fabric.clouds.oci.blocks:OciFabricNetwork",
    "FabricNetworkArgs": "gpu_fabric.clouds.oci.blocks:OciFabricNetworkArgs",
    "GpuNodePool": "gpu_fabric.clouds.oci.blocks:OciGpuNodePool",
    "GpuNodePoolArgs": "gpu_fabric.clouds.oci.blocks:OciGpuNodePoolArgs",
    "launch_policy": "gpu_fabric.clouds.oci.iam:launch_policy",
    "oke_version": "gpu_fabric.clouds.oci.blocks:oke_node_version",
}

__all__ = [
    "FabricNetwork",
    "FabricNetworkArgs",
    "GpuNodePool",
    "GpuNodePoolArgs",
    "launch_policy",
    "oke_version",
]


def __getattr__(name: str) -> Any:
    return load(globals(), Cloud.OCI, _NAMES, name)


def __dir__() -> list[str]:
    return sorted({*globals(), *_NAMES})
