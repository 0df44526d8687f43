"""The GpuCluster factory: ``build_cluster`` and the component class of a cloud.

Beside the registry (:mod:`gpu_fabric.clouds.registry`) and apart from the base
class (:mod:`gpu_fabric.cluster`), so the base class imports no cloud and no
cloud imports the factory: a cloud's class comes from its provider
(:meth:`~gpu_fabric.clouds.contract.CloudProvider.cluster_class`), imported only
when its cloud is asked for, which is what keeps a stack to one cloud SDK.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from gpu_fabric.catalog import Cloud
from gpu_fabric.clouds.registry import provider_for

if TYPE_CHECKING:
    import pulumi

    from gpu_fabric.cluster import GpuCluster
    from gpu_fabric.spec import ClusterSpec


def cluster_class(cloud: Cloud) -> type[GpuCluster]:
    """The component class for a cloud; imports only that cloud's module (and SDK)."""
    from gpu_fabric.sdks import require_sdk

    provider = provider_for(cloud)
    require_sdk(cloud)  # a missing SDK says which extra installs it
    return provider.cluster_class()


def build_cluster(
    name: str, spec: ClusterSpec, opts: pulumi.ResourceOptions | None = None
) -> GpuCluster:
    """Build the right :class:`GpuCluster` for a spec: its cloud's, or the existing-cluster one."""
    from gpu_fabric.preflight import check_spec

    check_spec(spec, name)  # every refusal before the first resource (as validate does)
    if spec.existing is not None:
        from gpu_fabric.existing import ExistingGpuCluster

        return ExistingGpuCluster(name, spec, opts)
    return cluster_class(spec.cloud)(name, spec, opts)
