"""gpu-fabric: Pulumi components for multi-node GPU clusters with their RDMA fabric.

The public API. Everything but the catalog is imported on first use, so
``import gpu_fabric`` loads no cloud module and no cloud SDK;
``gpu_fabric.GcpGpuCluster`` imports that cloud's folder and its SDK then.

Typical use in your own Pulumi program::

    import gpu_fabric as gf

    spec = gf.load_spec({...})                 # or gf.ClusterSpec(**data)
    cluster = gf.build_cluster("train", spec)  # the right GpuCluster for spec.cloud
    pulumi.export("kubeconfig", cluster.kubeconfig)

    # Only the Kubernetes fabric layer, on a cluster you already have:
    gf.FabricStack("fabric", gf.FabricStackArgs(spec, gf.describe_cluster(spec)),
                   opts=pulumi.ResourceOptions(providers={"kubernetes": my_provider}))

    # What a pod needs to use the fabric (no Kyverno needed):
    gf.fragment_for("p5.48xlarge", gpus=8).apply(pod_template)

    # In CI, offline: what your own program would create (no cloud, no pulumi CLI):
    plan = gf.plan_program("infra/", stack="dev")

``gpu_fabric`` is the one import name, installed and in this repository (where
the package is ``components/gpu_fabric/``).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from gpu_fabric.catalog import Cloud, FabricKind, Machine, get_machine, machines
from gpu_fabric.errors import Problem, SpecError
from gpu_fabric.fabric.plugins import install as _install

if TYPE_CHECKING:
    from gpu_fabric.clouds.factory import build_cluster
    from gpu_fabric.cluster import ClusterInfra, GpuCluster, NodePoolInfo
    from gpu_fabric.existing import ExistingGpuCluster
    from gpu_fabric.fabric.description import FabricDescription, describe_cluster
    from gpu_fabric.fabric.plugins import LayerPlugins
    from gpu_fabric.fabric.stack import FabricStack, FabricStackArgs
    from gpu_fabric.fabric.workload import PodFragment, fragment_for, pod_fragment
    from gpu_fabric.nccl.component import NcclAcceptance, NcclAcceptanceArgs
    from gpu_fabric.plan.model import PlanResult
    from gpu_fabric.plan.offline import plan_program
    from gpu_fabric.spec import ClusterSpec, load_spec


def _registry_plugins() -> LayerPlugins:
    from gpu_fabric.layers import plugins

    return plugins()


# The registry's cloud layers become the fabric layer's default when first needed.
_install(_registry_plugins)

_LAZY: dict[str, str] = {
    "ClusterSpec": "gpu_fabric.spec",
    "load_spec": "gpu_fabric.spec",
    "GpuCluster": "gpu_fabric.cluster",
    "ClusterInfra": "gpu_fabric.cluster",
    "NodePoolInfo": "gpu_fabric.cluster",
    "build_cluster": "gpu_fabric.clouds.factory",
    "ExistingGpuCluster": "gpu_fabric.existing",
    "FabricDescription": "gpu_fabric.fabric.description",
    "describe_cluster": "gpu_fabric.fabric.description",
    "FabricStack": "gpu_fabric.fabric.stack",
    "FabricStackArgs": "gpu_fabric.fabric.stack",
    "PodFragment": "gpu_fabric.fabric.workload",
    "pod_fragment": "gpu_fabric.fabric.workload",
    "fragment_for": "gpu_fabric.fabric.workload",
    "NcclAcceptance": "gpu_fabric.nccl.component",
    "NcclAcceptanceArgs": "gpu_fabric.nccl.component",
    "plan_program": "gpu_fabric.plan.offline",
    "PlanResult": "gpu_fabric.plan.model",
}

__all__ = [
    "AwsGpuCluster",
    "AzureGpuCluster",
    "Cloud",
    "ClusterInfra",
    "ClusterSpec",
    "DigitalOceanGpuCluster",
    "ExistingGpuCluster",
    "FabricDescription",
    "FabricKind",
    "FabricStack",
    "FabricStackArgs",
    "GcpGpuCluster",
    "GpuCluster",
    "Machine",
    "NcclAcceptance",
    "NcclAcceptanceArgs",
    "NodePoolInfo",
    "OciGpuCluster",
    "PlanResult",
    "PodFragment",
    "Problem",
    "SpecError",
    "build_cluster",
    "describe_cluster",
    "fragment_for",
    "get_machine",
    "load_spec",
    "machines",
    "plan_program",
    "pod_fragment",
]


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is not None:
        value = getattr(importlib.import_module(module), name)
    elif name.endswith("GpuCluster"):  # a cloud's component class, named by its provider
        value = _cluster_class(name)
    else:
        raise AttributeError(f"module 'gpu_fabric' has no attribute {name!r}")
    globals()[name] = value
    return value


def _cluster_class(name: str) -> Any:
    from gpu_fabric.clouds.factory import cluster_class
    from gpu_fabric.clouds.registry import providers

    for provider in providers():
        if provider.cluster_class_name == name:
            return cluster_class(provider.cloud)  # a missing SDK says which extra installs it
    raise AttributeError(f"module 'gpu_fabric' has no attribute {name!r}")
