"""The registry: which :class:`~gpu_fabric.clouds.contract.CloudProvider` serves each cloud.

One explicit table (no import by string): every provider is pure Python, so
loading them all costs no cloud SDK. :data:`PLUGINS` is the value the fabric
layer is given (``describe_cluster(spec, PLUGINS)``, ``build_layer(...)``,
``FabricStackArgs(plugins=...)``): the cloud layers plus the platform layer,
which sits above the fabric and contributes through the same shape. Importing
this module also installs :data:`PLUGINS` as the fabric layer's default, so
``describe_cluster(spec)`` works without it (``import gpu_fabric`` does that).

The factory that picks a cloud's :class:`~gpu_fabric.cluster.GpuCluster` class
is beside it, :mod:`gpu_fabric.clouds.factory`.
"""

from __future__ import annotations

from collections.abc import Mapping

from gpu_fabric.catalog import Cloud
from gpu_fabric.clouds.adapter import FunctionProvider
from gpu_fabric.clouds.aws import fabric as aws_fabric
from gpu_fabric.clouds.aws import kubernetes as aws_kubernetes
from gpu_fabric.clouds.azure import fabric as azure_fabric
from gpu_fabric.clouds.azure import kubernetes as azure_kubernetes
from gpu_fabric.clouds.contract import CloudProvider
from gpu_fabric.clouds.digitalocean import fabric as do_fabric
from gpu_fabric.clouds.digitalocean import kubernetes as do_kubernetes
from gpu_fabric.clouds.gcp import fabric as gcp_fabric
from gpu_fabric.clouds.gcp import kubernetes as gcp_kubernetes
from gpu_fabric.clouds.gcp.checks import check_spec as gcp_checks
from gpu_fabric.clouds.oci import fabric as oci_fabric
from gpu_fabric.clouds.oci import kubernetes as oci_kubernetes
from gpu_fabric.fabric.plugins import LayerPlugins, install
from gpu_fabric.platform.plugin import PLATFORM

# Each line: the cloud, its describer module, its Kubernetes-layer module, its spec checks.
PROVIDERS: Mapping[Cloud, CloudProvider] = {
    p.cloud: p
    for p in (
        FunctionProvider.of(Cloud.GCP, gcp_fabric, gcp_kubernetes, gcp_checks),
        FunctionProvider.of(Cloud.AWS, aws_fabric, aws_kubernetes),
        FunctionProvider.of(Cloud.AZURE, azure_fabric, azure_kubernetes),
        FunctionProvider.of(Cloud.DIGITALOCEAN, do_fabric, do_kubernetes, do_fabric.check_cluster),
        FunctionProvider.of(Cloud.OCI, oci_fabric, oci_kubernetes),
    )
}

PLUGINS = LayerPlugins(clouds=PROVIDERS, above=(PLATFORM,))


def provider_for(cloud: Cloud) -> CloudProvider:
    """The provider of ``cloud``; a cloud without one is a bug, said loudly."""
    try:
        return PROVIDERS[cloud]
    except KeyError:
        raise LookupError(f"no cloud provider registered for '{cloud.value}'") from None


install(PLUGINS)
