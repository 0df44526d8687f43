"""Reusable AKS building blocks: the cluster's VNet, and an ND InfiniBand agent pool.

:class:`AzureGpuCluster` composes them; a team that already runs a VNet or an
AKS cluster uses them alone (``examples/azure-nd-existing-aks``), the way
pulumi-eks exports ``Cluster`` and ``ManagedNodeGroup`` separately.

* :class:`AzureFabricNetwork` (``gpufabric:azure:FabricNetwork``): the VNet, its
  NSG and the node subnet (and the pod subnet in flat mode). InfiniBand is not
  part of the VNet (each ND VM scale set gets its own IB fabric, wired by Azure),
  so there is no RDMA subnet or rule to create: the block is the node network.
* :class:`AzureNdAgentPool` (``gpufabric:azure:GpuNodePool``): one ND agent pool
  (one VM scale set, so one InfiniBand fabric) on a cluster created here or an
  existing one (:class:`~gpu_fabric.clouds.blocks.ExistingCluster`), in a node
  subnet created here or yours. Its VM size waits on the ``AKSInfinibandSupport``
  gate of :func:`~gpu_fabric.clouds.azure.feature.infiniband_feature`.

The feature registration itself is NOT in a block: it is one subscription-wide
setting shared by every pool (and every cluster) of the subscription, so it is
registered once, by the cluster (or by your program), and every pool waits on it.

Children keep the names they had as direct children of the cluster component and,
with ``aliases_parent`` (the cluster passes itself), carry
``pulumi.Alias(parent=...)``: stacks created before the blocks keep their URNs.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import pulumi
from pulumi_azure_native import containerservice

from gpu_fabric.catalog import GpuVendor
from gpu_fabric.clouds.azure.layout import GpuPoolLayout, NetworkLayout
from gpu_fabric.clouds.azure.network import VnetInfo, create_vnet
from gpu_fabric.clouds.blocks import ExistingCluster, moved_child_opts
from gpu_fabric.fabric.description import FabricDescription

__all__ = ["AzureFabricNetwork", "AzureFabricNetworkArgs", "AzureNdAgentPool",
           "AzureNdAgentPoolArgs", "ExistingCluster", "VnetInfo"]

NETWORK_TYPE = "gpufabric:azure:FabricNetwork"
NODE_POOL_TYPE = "gpufabric:azure:GpuNodePool"


@dataclass(frozen=True)
class AzureFabricNetworkArgs:
    """A new VNet from ``layout`` (:func:`~gpu_fabric.clouds.azure.layout.plan_layout`'s
    ``network``) in ``resource_group``; ``name_prefix`` starts every child's Pulumi name
    (and the VNet's and NSG's Azure names)."""

    name_prefix: str
    layout: NetworkLayout
    resource_group: pulumi.Input[str]
    location: str
    tags: dict[str, str] = field(default_factory=dict)
    aliases_parent: pulumi.Resource | None = None


class AzureFabricNetwork(pulumi.ComponentResource):
    """``vnet``: the VNet id, the node subnet (and pod subnet) resources and ids."""

    vnet: VnetInfo

    def __init__(
        self, name: str, args: AzureFabricNetworkArgs, opts: pulumi.ResourceOptions | None = None
    ) -> None:
        if args.layout.existing_subnet_id:
            raise ValueError(
                "AzureFabricNetworkArgs.layout: existing_subnet_id "
                f"'{args.layout.existing_subnet_id}' names a subnet you already have; this "
                "block creates a VNet. Pass that subnet id to AzureNdAgentPoolArgs.node_subnet_id "
                "instead, or drop azure.existing_subnet_id"
            )
        super().__init__(NETWORK_TYPE, name, None, opts)
        child = moved_child_opts(self, args.aliases_parent)
        self.vnet = create_vnet(args.name_prefix, args.layout, args.resource_group,
                                args.location, args.tags, child())
        self.register_outputs({
            "vnet_id": self.vnet.vnet_id,
            "node_subnet_id": self.vnet.node_subnet_id,
            "pod_subnet_id": self.vnet.pod_subnet_id,
        })


def _taints(fabric: FabricDescription) -> list[str]:
    return [f"{t.key}={t.value}:{t.effect}" if t.value else f"{t.key}:{t.effect}"
            for t in fabric.taints]


@dataclass(frozen=True)
class AzureNdAgentPoolArgs:
    """One GPU pool (``pool`` from :func:`~gpu_fabric.clouds.azure.layout.plan_layout`)
    on ``cluster`` (``ManagedCluster`` or :class:`ExistingCluster`) in ``resource_group``.

    ``node_count``/``min_nodes``/``max_nodes``/``disk_size_gb``: the spec pool's.
    ``feature_gate``: the Output of
    :func:`~gpu_fabric.clouds.azure.feature.infiniband_feature` (None: no wait);
    ``depends_on``: what the pool waits for (the feature registration, the cluster
    identity's subnet access). The child is named ``<name_prefix>-pool-<pool>``.
    """

    name_prefix: str
    cluster: containerservice.ManagedCluster | ExistingCluster
    resource_group: pulumi.Input[str]
    pool: GpuPoolLayout
    fabric: FabricDescription
    kubernetes_version: str
    node_subnet_id: pulumi.Input[str]
    node_count: int
    pod_subnet_id: pulumi.Input[str] | None = None
    min_nodes: int | None = None
    max_nodes: int | None = None
    disk_size_gb: int | None = None
    feature_gate: pulumi.Output[str] | None = None
    tags: dict[str, str] = field(default_factory=dict)
    depends_on: list[pulumi.Resource] = field(default_factory=list)
    aliases_parent: pulumi.Resource | None = None


class AzureNdAgentPool(pulumi.ComponentResource):
    """An ND agent pool on InfiniBand (``agent_pool``: the resource)."""

    agent_pool: containerservice.AgentPool

    def __init__(
        self, name: str, args: AzureNdAgentPoolArgs, opts: pulumi.ResourceOptions | None = None
    ) -> None:
        super().__init__(NODE_POOL_TYPE, name, None, opts)
        child = moved_child_opts(self, args.aliases_parent)
        pool = args.pool
        machine = pool.machine
        gate = args.feature_gate
        # The VM size is only known once the feature state passed (manage: Registered;
        # check: the wanted state): a failure stops the pool before any ND VM exists.
        vm_size: pulumi.Input[str] = (
            gate.apply(lambda _: machine.name) if gate is not None else machine.name
        )
        nvidia = machine.gpu.vendor is GpuVendor.NVIDIA
        autoscale = args.min_nodes is not None
        self.agent_pool = containerservice.AgentPool(
            f"{args.name_prefix}-pool-{pool.name}",
            agent_pool_name=pool.name,
            resource_group_name=args.resource_group,
            resource_name_=args.cluster.name,
            vm_size=vm_size,
            count=args.node_count,
            enable_auto_scaling=autoscale or None,
            min_count=args.min_nodes,
            max_count=args.max_nodes,
            mode="User",
            type="VirtualMachineScaleSets",
            os_type="Linux",
            os_sku=pool.os_sku,
            gpu_profile=containerservice.GPUProfileArgs(
                driver=containerservice.GPUDriver.INSTALL if pool.aks_driver
                else containerservice.GPUDriver.NONE
            ) if nvidia else None,
            node_taints=_taints(args.fabric),
            node_labels=dict(args.fabric.node_labels),
            vnet_subnet_id=args.node_subnet_id,
            pod_subnet_id=args.pod_subnet_id,
            availability_zones=list(pool.zones) or None,
            scale_set_priority="Spot" if pool.spot else None,
            scale_set_eviction_policy="Delete" if pool.spot else None,
            spot_max_price=-1 if pool.spot else None,
            os_disk_size_gb=args.disk_size_gb,
            orchestrator_version=args.kubernetes_version,
            # Surge would need a spare ND VM (rarely available): replace in place, one at a time.
            upgrade_settings=containerservice.AgentPoolUpgradeSettingsArgs(
                max_surge="0", max_unavailable="1",
            ),
            tags={**args.tags, "gpufabric-pool": pool.name},
            opts=child(depends_on=list(args.depends_on)),
        )
        self.register_outputs({"agent_pool": self.agent_pool.name})
