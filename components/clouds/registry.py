"""The registry: which :class:`~components.clouds.contract.CloudProvider` serves each cloud.

One explicit table (no import by string): every provider is pure Python, so
loading them all costs no cloud SDK. :data:`PLUGINS` is the value the fabric
layer is given (``describe_cluster(spec, PLUGINS)``, ``build_layer(...)``,
``FabricStackArgs(plugins=...)``): the cloud layers plus the platform layer,
which sits above the fabric and contributes through the same shape. Importing
this module also installs :data:`PLUGINS` as the fabric layer's default, so
``describe_cluster(spec)`` works without it (``import components`` does that).

The factory that picks a cloud's :class:`~components.cluster.GpuCluster` class
is beside it, :mod:`components.clouds.factory`.
"""

from __future__ import annotations

from collections.abc import Mapping

from components.catalog import Cloud
from components.clouds.aws.provider import PROVIDER as AWS
from components.clouds.azure.provider import PROVIDER as AZURE
from components.clouds.contract import CloudProvider
from components.clouds.digitalocean.provider import PROVIDER as DIGITALOCEAN
from components.clouds.gcp.provider import PROVIDER as GCP
from components.clouds.oci.provider import PROVIDER as OCI
from components.fabric.plugins import LayerPlugins, install
from components.platform.plugin import PLATFORM

PROVIDERS: Mapping[Cloud, CloudProvider] = {
    p.cloud: p for p in (GCP, AWS, AZURE, DIGITALOCEAN, OCI)
}

PLUGINS = LayerPlugins(clouds=PROVIDERS, above=(PLATFORM,))


def provider_for(cloud: Cloud) -> CloudProvider:
    """The provider of ``cloud``; a cloud without one is a bug, said loudly."""
    try:
        return PROVIDERS[cloud]
    except KeyError:
        raise LookupError(f"no cloud provider registered for '{cloud.value}'") from None


install(PLUGINS)
