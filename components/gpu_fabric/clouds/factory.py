"""The GpuCluster factory: the component class of each cloud, and ``build_cluster``.

Beside the registry (:mod:`gpu_fabric.clouds.registry`) and apart from the base
class (:mod:`gpu_fabric.cluster`), so the base class imports no cloud and no
cloud imports the factory: each class is imported only when its cloud is asked
for, which is what keeps a stack to one cloud SDK.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

import pulumi

from gpu_fabric.catalog import Cloud
from gpu_fabric.cluster import GpuCluster
from gpu_fabric.spec import ClusterSpec


def _gcp() -> type[GpuCluster]:
    from gpu_fabric.clouds.gcp.cluster import GcpGpuCluster

    return GcpGpuCluster


def _aws() -> type[GpuCluster]:
    from gpu_fabric.clouds.aws.cluster import AwsGpuCluster

    return AwsGpuCluster


def _azure() -> type[GpuCluster]:
    from gpu_fabric.clouds.azure.cluster import AzureGpuCluster

    return AzureGpuCluster


def _digitalocean() -> type[GpuCluster]:
    from gpu_fabric.clouds.digitalocean.cluster import DigitalOceanGpuCluster

    return DigitalOceanGpuCluster


def _oci() -> type[GpuCluster]:
    from gpu_fabric.clouds.oci.cluster import OciGpuCluster

    return OciGpuCluster


CLUSTER_CLASSES: Mapping[Cloud, Callable[[], type[GpuCluster]]] = {
    Cloud.GCP: _gcp,
    Cloud.AWS: _aws,
    Cloud.AZURE: _azure,
    Cloud.DIGITALOCEAN: _digitalocean,
    Cloud.OCI: _oci,
}


def cluster_class(cloud: Cloud) -> type[GpuCluster]:
    """The component class for a cloud; imports only that cloud's module (and SDK)."""
    from gpu_fabric.sdks import require_sdk

    require_sdk(cloud)  # a missing SDK says which extra installs it
    return CLUSTER_CLASSES[cloud]()


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
