"""The layers the fabric layer is given by default: every registered cloud, the platform above.

:func:`plugins` is the value the fabric layer is handed (``describe_cluster(spec,
plugins())``, ``build_layer(...)``, ``FabricStackArgs(plugins=...)``): the cloud
layers of :data:`gpu_fabric.clouds.registry.PROVIDERS` plus the platform layer,
which sits above the fabric and contributes through the same shape.
``import gpu_fabric`` installs it, lazily, as the fabric layer's default, so
``describe_cluster(spec)`` works without it. Apart from the registry because the
spec reads the registry while the platform layer reads the spec.
"""

from __future__ import annotations

import functools

from gpu_fabric.clouds.registry import PROVIDERS, provider_for
from gpu_fabric.fabric.plugins import LayerPlugins
from gpu_fabric.health.plugin import HealthLayer
from gpu_fabric.platform.plugin import PlatformLayer


@functools.cache
def plugins() -> LayerPlugins:
    """The cloud layers (each cloud's provider), the platform and health layers above."""
    platform = PlatformLayer(topology_levels=lambda cloud: provider_for(cloud).topology_levels)
    return LayerPlugins(clouds=PROVIDERS, above=(platform, HealthLayer()))
