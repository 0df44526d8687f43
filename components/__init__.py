"""gpu-fabric: Pulumi components for multi-node GPU clusters with their RDMA fabric.

The public API. Cloud components are imported lazily, so ``import components``
loads no cloud SDK; ``components.GcpGpuCluster`` imports pulumi_gcp on first use.

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

Installed, the package is ``gpu_fabric`` (``import gpu_fabric as gf``); in this
repository the same code is the ``components`` folder (see setup.py).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from components.catalog import Cloud, FabricKind, Machine, get_machine, machines

# The cloud providers register as the fabric layer's default (pure, no cloud SDK).
from components.clouds import registry as _registry  # noqa: F401
from components.errors import Problem, SpecError
from components.spec import ClusterSpec, load_spec

if TYPE_CHECKING:
    from components.clouds.factory import build_cluster
    from components.cluster import ClusterInfra, GpuCluster, NodePoolInfo
    from components.existing import ExistingGpuCluster
    from components.fabric.description import FabricDescription, describe_cluster
    from components.fabric.stack import FabricStack, FabricStackArgs
    from components.fabric.workload import PodFragment, fragment_for, pod_fragment
    from components.nccl.component import NcclAcceptance, NcclAcceptanceArgs
    from components.plan.model import PlanResult
    from components.plan.offline import plan_program

_LAZY: dict[str, str] = {
    "GpuCluster": "components.cluster",
    "ClusterInfra": "components.cluster",
    "NodePoolInfo": "components.cluster",
    "build_cluster": "components.clouds.factory",
    "ExistingGpuCluster": "components.existing",
    "FabricDescription": "components.fabric.description",
    "describe_cluster": "components.fabric.description",
    "FabricStack": "components.fabric.stack",
    "FabricStackArgs": "components.fabric.stack",
    "PodFragment": "components.fabric.workload",
    "pod_fragment": "components.fabric.workload",
    "fragment_for": "components.fabric.workload",
    "NcclAcceptance": "components.nccl.component",
    "NcclAcceptanceArgs": "components.nccl.component",
    "GcpGpuCluster": "components.clouds.gcp.cluster",
    "AwsGpuCluster": "components.clouds.aws.cluster",
    "AzureGpuCluster": "components.clouds.azure.cluster",
    "DigitalOceanGpuCluster": "components.clouds.digitalocean.cluster",
    "OciGpuCluster": "components.clouds.oci.cluster",
    "plan_program": "components.plan.offline",
    "PlanResult": "components.plan.model",
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
    if module is None:
        raise AttributeError(f"module 'components' has no attribute {name!r}")
    parts = module.split(".")
    if parts[1:2] == ["clouds"] and parts[-1] == "cluster":  # a cloud's component class
        from components.sdks import require_sdk

        require_sdk(Cloud(parts[2]))  # a missing SDK says which extra installs it
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value
