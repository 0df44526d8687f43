"""The common cluster interface: one ``GpuCluster`` per cloud, same Args, same outputs.

Every cloud component takes the validated :class:`~gpu_fabric.spec.ClusterSpec`
and exposes:

* ``kubeconfig``: the cluster's kubeconfig, always a Pulumi secret;
* ``provider``: an explicit ``pulumi_kubernetes.Provider`` for that kubeconfig;
* ``cluster_name``: the cloud's name for the cluster;
* ``node_pools``: one :class:`NodePoolInfo` per GPU pool;
* ``fabrics``: plain-Python :class:`~gpu_fabric.fabric.description.FabricDescription`
  per GPU pool (rails, resource names, NAD names, NCCL env);
* ``fabric_stack``: the Kubernetes fabric layer installed on it.

A subclass implements one method, :meth:`GpuCluster._create_infrastructure`,
which creates networks, the cluster and node pools as children and returns a
:class:`ClusterInfra`. Everything after that (the provider, the fabric layer,
outputs) is common. The cloud's pure side (describer, Kubernetes parts) comes
from the registry, :mod:`gpu_fabric.clouds.registry`; the factory that picks
the class for a spec is :func:`gpu_fabric.clouds.factory.build_cluster`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar

import pulumi
import pulumi_kubernetes as k8s

from gpu_fabric.catalog import Cloud, Machine
from gpu_fabric.errors import SpecError
from gpu_fabric.fabric.description import FabricDescription, describe_cluster
from gpu_fabric.layers import plugins
from gpu_fabric.security import missing_api_access
from gpu_fabric.spec import ClusterSpec

if TYPE_CHECKING:
    from gpu_fabric.fabric.stack import Installer
    from gpu_fabric.nccl.component import NcclAcceptance

PACKAGE = "gpufabric"


@dataclass(frozen=True)
class NodePoolInfo:
    """A GPU node pool as created: its spec name, machine and the cloud's resource name."""

    name: str
    machine: Machine
    node_count: int
    resource_name: pulumi.Input[str]

    def to_output(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "machine_type": self.machine.name,
            "gpus_per_node": self.machine.gpus,
            "fabric": self.machine.fabric.value,
            "fabric_nics": self.machine.fabric_nics,
            "node_count": self.node_count,
            "resource_name": self.resource_name,
        }


@dataclass
class ClusterInfra:
    """What a cloud's infrastructure step hands back to the common part."""

    kubeconfig: pulumi.Input[str]
    cluster_name: pulumi.Input[str]
    node_pools: list[NodePoolInfo]
    # Resources the Kubernetes layer must wait for (e.g. the system node pool, so
    # operator Deployments can schedule). The GPU pools are not in it: DaemonSets
    # for GPU nodes install in parallel with the GPU pool.
    kubernetes_ready: Sequence[pulumi.Resource] = ()
    extra_outputs: dict[str, Any] = field(default_factory=dict)


class ClusterNotImplementedError(NotImplementedError):
    pass


class GpuCluster(pulumi.ComponentResource):
    """Base class of every cloud's GPU cluster component (type ``gpufabric:<cloud>:GpuCluster``)."""

    module: ClassVar[str] = ""
    cloud: ClassVar[Cloud | None] = None

    kubeconfig: pulumi.Output[str]
    provider: k8s.Provider
    cluster_name: pulumi.Output[str]
    node_pools: list[NodePoolInfo]
    fabrics: dict[str, FabricDescription]

    def __init__(
        self, name: str, spec: ClusterSpec, opts: pulumi.ResourceOptions | None = None
    ) -> None:
        if not isinstance(spec, ClusterSpec):
            raise TypeError(
                f"{type(self).__name__} takes a validated ClusterSpec (gpu_fabric.spec.load_spec), "
                f"got {type(spec).__name__}"
            )
        if self.cloud is not None and spec.cloud is not self.cloud:
            raise ValueError(
                f"{type(self).__name__} builds {self.cloud.value} clusters, but spec.cloud is "
                f"'{spec.cloud.value}'; use gpu_fabric.build_cluster to pick the right class"
            )
        # Pure derivations first: a spec that cannot be described fails before any
        # resource is registered; so does one loaded for blocks only (no api_access).
        missing = missing_api_access(spec)
        if missing:
            raise SpecError(missing)
        fabrics = describe_cluster(spec, plugins())
        if spec.acceptance.enabled:
            from gpu_fabric.nccl.manifests import plan_acceptance

            plan_acceptance(spec, fabrics, f"{name}-nccl")
        super().__init__(f"{PACKAGE}:{self.module}:GpuCluster", name, None, opts)
        self.name = name
        self.spec = spec
        self.fabrics = fabrics
        infra = self._create_infrastructure()
        self.node_pools = infra.node_pools
        self.cluster_name = pulumi.Output.from_input(infra.cluster_name)
        self.kubeconfig = pulumi.Output.secret(infra.kubeconfig)
        self.provider = k8s.Provider(
            f"{name}-k8s",
            kubeconfig=self.kubeconfig,
            opts=pulumi.ResourceOptions(parent=self),
        )
        from gpu_fabric.fabric.stack import FabricStack, FabricStackArgs

        self.fabric_stack = FabricStack(
            f"{name}-fabric",
            FabricStackArgs(spec=spec, fabrics=fabrics, plugins=plugins(),
                            installers=self._layer_installers()),
            opts=pulumi.ResourceOptions(
                parent=self,
                providers={"kubernetes": self.provider},
                depends_on=list(infra.kubernetes_ready),
            ),
        )
        self.acceptance = self._create_acceptance(name, fabrics)
        self._extra_outputs = infra.extra_outputs
        self.register_outputs(self.outputs())

    def _create_acceptance(
        self, name: str, fabrics: dict[str, FabricDescription]
    ) -> NcclAcceptance | None:
        """The optional NCCL acceptance run, after the fabric layer it tests."""
        if not self.spec.acceptance.enabled:
            return None
        from gpu_fabric.nccl.component import NcclAcceptance, NcclAcceptanceArgs

        return NcclAcceptance(
            f"{name}-nccl",
            NcclAcceptanceArgs(spec=self.spec, fabrics=fabrics),
            opts=pulumi.ResourceOptions(
                parent=self,
                providers={"kubernetes": self.provider},
                depends_on=[self.fabric_stack],
            ),
        )

    def _create_infrastructure(self) -> ClusterInfra:
        """Create the cloud's networks, cluster and node pools as children of ``self``."""
        raise ClusterNotImplementedError(f"{type(self).__name__} does not create infrastructure")

    def _layer_installers(self) -> Mapping[str, Installer]:
        """Cloud resources ordered between layer parts (parts with ``installed_by``),
        by part name; none unless the cloud's layer has such parts (OKE add-on mode)."""
        return {}

    def child_opts(self, **kwargs: Any) -> pulumi.ResourceOptions:
        """Options for a child resource: parented to this component."""
        return pulumi.ResourceOptions(parent=self, **kwargs)

    def outputs(self) -> dict[str, Any]:
        """The outputs every cluster exposes (the program exports these)."""
        return {
            "cluster_name": self.cluster_name,
            "cloud": self.spec.cloud.value,
            "kubeconfig": self.kubeconfig,
            "node_pools": [p.to_output() for p in self.node_pools],
            "fabric": {name: fabric_summary(f) for name, f in self.fabrics.items()},
            **({"acceptance": self.acceptance.outputs()} if self.acceptance else {}),
            **self._extra_outputs,
        }


def fabric_summary(fabric: FabricDescription) -> dict[str, Any]:
    """A JSON-able view of a fabric description (stack output, plan output)."""
    return {
        "machine_type": fabric.machine.name,
        "fabric": fabric.fabric.value,
        "attach": fabric.attach.value,
        "device_plugin": fabric.device_plugin.value,
        "rails": len(fabric.rails),
        "gpu_resource": fabric.gpu_resource,
        "rail_resources": sorted(fabric.rail_resources),
        "pooled_resources": dict(fabric.pooled_resources),
        "networks": fabric.networks,
        "nccl_net": fabric.nccl_env.get("NCCL_NET"),
        "line_rate_gbytes": fabric.machine.line_rate,
        "busbw_floor_gbytes": fabric.machine.busbw_floor,
    }
