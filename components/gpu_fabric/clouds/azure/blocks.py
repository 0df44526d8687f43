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
  existing one (by name), in a node subnet created here or yours. Its VM size waits
  on the ``AKSInfinibandSupport`` gate of
  :func:`~gpu_fabric.clouds.azure.feature.infiniband_feature`.

The feature registration itself is NOT in a block: it is one subscription-wide
setting shared by every pool (and every cluster) of the subscription, so it is
registered once, by the cluster (or by your program), and every pool waits on it.

Children keep the names they had as direct children of the cluster component and,
under a ``GpuCluster``, carry ``pulumi.Alias(parent=<the cluster>)``
(:func:`~gpu_fabric.clouds.blocks.moved_child_opts`): stacks created before the
blocks keep their URNs. Public names: ``gpu_fabric.azure.FabricNetwork``,
``gpu_fabric.azure.NdAgentPool`` (and their Args).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import pulumi
from pulumi_azure_native import containerservice

from gpu_fabric.catalog import GpuVendor
from gpu_fabric.clouds.azure.layout import NetworkLayout, pool_layout
from gpu_fabric.clouds.azure.network import VnetInfo, create_vnet
from gpu_fabric.clouds.azure.plan_facts import AGENT_POOL_REPLACE_ON_CHANGES
from gpu_fabric.clouds.blocks import ExistingCluster, moved_child_opts
from gpu_fabric.fabric.derive import vf_topology_policy
from gpu_fabric.fabric.description import FabricDescription
from gpu_fabric.spec import GpuNodePoolSpec

__all__ = ["AzureFabricNetwork", "AzureFabricNetworkArgs", "AzureNdAgentPool",
           "AzureNdAgentPoolArgs", "ExistingCluster", "VnetInfo"]

NETWORK_TYPE = "gpufabric:azure:FabricNetwork"
NODE_POOL_TYPE = "gpufabric:azure:GpuNodePool"


@dataclass(frozen=True, kw_only=True)
class AzureFabricNetworkArgs:
    """A new VNet for an AKS GPU cluster's nodes, in a resource group you name."""

    name_prefix: str
    """Starts every child's Pulumi name and the VNet's and NSG's Azure names
    (``<name_prefix>-vnet``, ``<name_prefix>-nsg``, ``<name_prefix>-nodes``)."""
    layout: NetworkLayout
    """The VNet range, node subnet (and flat mode's pod subnet), as plain data (the
    spec's ``plan_layout(...).network``); ``existing_subnet_id`` must be empty."""
    resource_group: pulumi.Input[str]
    """Name of the resource group the VNet is created in."""
    location: str
    """Azure region, e.g. ``eastus``."""
    tags: Mapping[str, str] = field(default_factory=dict)
    """Azure tags of every child."""


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
        child = moved_child_opts(self, opts)
        self.vnet = create_vnet(args.name_prefix, args.layout, args.resource_group,
                                args.location, dict(args.tags), child())
        self.register_outputs({
            "vnet_id": self.vnet.vnet_id,
            "node_subnet_id": self.vnet.node_subnet_id,
            "pod_subnet_id": self.vnet.pod_subnet_id,
        })


def _taints(fabric: FabricDescription) -> list[str]:
    return [f"{t.key}={t.value}:{t.effect}" if t.value else f"{t.key}:{t.effect}"
            for t in fabric.taints]


@dataclass(frozen=True, kw_only=True)
class AzureNdAgentPoolArgs:
    """One ND GPU pool (one VM scale set, so one InfiniBand fabric) on an AKS cluster
    (created by this program or yours)."""

    name_prefix: str
    """Starts the child's Pulumi name: ``<name_prefix>-pool-<pool>``."""
    cluster_name: pulumi.Input[str]
    """Name of the AKS cluster the pool joins (``ManagedCluster.name``, or yours)."""
    resource_group: pulumi.Input[str]
    """Name of the cluster's resource group."""
    pool: GpuNodePoolSpec
    """The pool (the agent pool's name, 1-12 lowercase letters and digits): VM size,
    node count and autoscaling bounds, spot capacity, OS disk, node image (``os_sku``)."""
    fabric: FabricDescription
    """The pool's fabric description (``gpu_fabric.describe_cluster(spec)[pool.name]``):
    the node labels and taints the fabric layer selects and tolerates."""
    kubernetes_version: str
    """The pool's Kubernetes version (``orchestrator_version``), e.g. ``1.34``."""
    node_subnet_id: pulumi.Input[str]
    """Resource id of the subnet the nodes join (an :class:`AzureFabricNetwork`'s or yours)."""
    pod_subnet_id: pulumi.Input[str] | None = None
    """Resource id of the pod subnet (Azure CNI flat mode only; None with overlay)."""
    zone: str | None = None
    """Availability zone (``1``, ``2`` or ``3``) of the pool's VMs; None: regional."""
    aks_installs_driver: bool = True
    """AKS installs the NVIDIA driver (``gpu_profile.driver`` Install); False when the
    GPU Operator installs it. NVIDIA pools only (AMD pools get no GPU profile)."""
    feature_gate: pulumi.Input[str] | None = None
    """An output the VM size waits on: ``gpu_fabric.azure.infiniband_feature``'s gate,
    which resolves once the subscription's AKSInfinibandSupport state fits the pool
    (and fails otherwise). None: no wait."""
    tags: Mapping[str, str] = field(default_factory=dict)
    """Azure tags of the agent pool (it also gets ``gpufabric-pool``)."""
    depends_on: Sequence[pulumi.Resource] = ()
    """What the agent pool waits for (the feature registration, the cluster identity's
    access to the subnet)."""


class AzureNdAgentPool(pulumi.ComponentResource):
    """An ND agent pool on InfiniBand (``agent_pool``: the resource)."""

    agent_pool: containerservice.AgentPool

    def __init__(
        self, name: str, args: AzureNdAgentPoolArgs, opts: pulumi.ResourceOptions | None = None
    ) -> None:
        pool = pool_layout(args.pool, args.zone, not args.aks_installs_driver,
                           "AzureNdAgentPoolArgs.pool", "AzureNdAgentPoolArgs.zone")
        super().__init__(NODE_POOL_TYPE, name, None, opts)
        child = moved_child_opts(self, opts)
        spec = args.pool
        machine = pool.machine
        gate = args.feature_gate
        # The VM size is only known once the feature state passed (manage: Registered;
        # check: the wanted state): a failure stops the pool before any ND VM exists.
        vm_size: pulumi.Input[str] = (
            pulumi.Output.from_input(gate).apply(lambda _: machine.name)
            if gate is not None else machine.name
        )
        nvidia = machine.gpu.vendor is GpuVendor.NVIDIA
        autoscale = spec.min_nodes is not None
        # SR-IOV (one IB VF per GPU): align a pod's VFs with its GPUs (fabric/derive.py).
        topology = vf_topology_policy(args.fabric)
        self.agent_pool = containerservice.AgentPool(
            f"{args.name_prefix}-pool-{pool.name}",
            agent_pool_name=pool.name,
            resource_group_name=args.resource_group,
            resource_name_=args.cluster_name,
            vm_size=vm_size,
            count=spec.node_count,
            enable_auto_scaling=autoscale or None,
            min_count=spec.min_nodes,
            max_count=spec.max_nodes,
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
            kubelet_config=containerservice.KubeletConfigArgs(
                topology_manager_policy=topology) if topology else None,
            vnet_subnet_id=args.node_subnet_id,
            pod_subnet_id=args.pod_subnet_id,
            availability_zones=list(pool.zones) or None,
            scale_set_priority="Spot" if pool.spot else None,
            scale_set_eviction_policy="Delete" if pool.spot else None,
            spot_max_price=-1 if pool.spot else None,
            os_disk_size_gb=spec.disk_size_gb,
            orchestrator_version=args.kubernetes_version,
            # Surge would need a spare ND VM (rarely available): replace in place, one at a time.
            upgrade_settings=containerservice.AgentPoolUpgradeSettingsArgs(
                max_surge="0", max_unavailable="1",
            ),
            tags={**args.tags, "gpufabric-pool": pool.name},
            # Fixed agent_pool_name: a replacement deletes first (plan_facts UNIQUE_NAMES).
            # Inputs AKS cannot change on a pool replace it rather than fail the update.
            opts=child(depends_on=list(args.depends_on), delete_before_replace=True,
                       replace_on_changes=list(AGENT_POOL_REPLACE_ON_CHANGES)),
        )
        self.register_outputs({"agent_pool": self.agent_pool.name})
