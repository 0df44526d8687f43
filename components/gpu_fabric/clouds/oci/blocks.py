"""Reusable OKE building blocks: the cluster's VCN, and a GPU node pool in its RDMA compute cluster.

:class:`~gpu_fabric.clouds.oci.cluster.OciGpuCluster` composes them; a team that
already runs a VCN or an OKE cluster uses them alone
(``examples/oci-rdma-existing-oke``), the way pulumi-eks exports ``Cluster`` and
``ManagedNodeGroup`` separately.

* :class:`OciFabricNetwork` (``gpufabric:oci:FabricNetwork``): the VCN, its NAT and
  service gateways (and internet gateway for a public endpoint or public load
  balancers), route tables, and the endpoint/workers/pods/lb subnets with their
  security lists (:class:`~gpu_fabric.clouds.oci.network.OkeNetwork`). The RDMA
  network is not part of the VCN (OCI wires it between the members of a compute
  cluster), so it has no subnet or rule here.
* :class:`OciGpuNodePool` (``gpufabric:oci:GpuNodePool``): one GPU pool: for an RDMA
  shape, its compute cluster (the RDMA network group, in the pool's availability
  domain) and the OKE managed node pool launched into it
  (``node_config_details.compute_cluster_id``), with the cloud-init that registers
  the node with its taints; on a cluster created here or an existing one (its OCID),
  in a worker subnet created here or yours.

The launch policy (:func:`~gpu_fabric.clouds.oci.iam.launch_policy`) is NOT in a
block: one per cluster, shared by every pool; a pool block waits on it through
``depends_on``.

Children keep the names they had as direct children of the cluster component and,
under a ``GpuCluster``, carry ``pulumi.Alias(parent=<the cluster>)``
(:func:`~gpu_fabric.clouds.blocks.moved_child_opts`): stacks created before the
blocks keep their URNs. Public names: ``gpu_fabric.oci.FabricNetwork``,
``gpu_fabric.oci.GpuNodePool`` (and their Args).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import pulumi
from pulumi_oci import containerengine, core

from gpu_fabric.clouds.blocks import moved_child_opts
from gpu_fabric.clouds.oci.addressing import AddressPlan
from gpu_fabric.clouds.oci.network import NetworkIds, OkeNetwork
from gpu_fabric.clouds.oci.nodepool import pod_network, taint_user_data
from gpu_fabric.clouds.oci.options import oke_version
from gpu_fabric.fabric.derive import vf_topology_policy
from gpu_fabric.fabric.description import FabricDescription
from gpu_fabric.kube_version import KubeVersion
from gpu_fabric.spec import GpuNodePoolSpec

__all__ = ["NetworkIds", "OciFabricNetwork", "OciFabricNetworkArgs", "OciGpuNodePool",
           "OciGpuNodePoolArgs", "oke_node_version"]

NETWORK_TYPE = "gpufabric:oci:FabricNetwork"
NODE_POOL_TYPE = "gpufabric:oci:GpuNodePool"
# The node pool input a looked-up image lives in (Pulumi property path).
PINNED_IMAGE = ["nodeSourceDetails.imageId"]
# OKE node pools take the full version with its "v" (containerengine.NodePool
# kubernetes_version, e.g. v1.34.1; gpu_fabric.clouds.oci.options.oke_version).
OKE_VERSION = re.compile(r"v[0-9]+\.[0-9]+\.[0-9]+")
_Placement = containerengine.NodePoolNodeConfigDetailsPlacementConfigArgs
_Preemptible = containerengine.NodePoolNodeConfigDetailsPlacementConfigPreemptibleNodeConfigArgs
_PreemptionAction = (
    containerengine.NodePoolNodeConfigDetailsPlacementConfigPreemptibleNodeConfigPreemptionActionArgs
)


@dataclass(frozen=True, kw_only=True)
class OciFabricNetworkArgs:
    """A new VCN for an OKE GPU cluster, with its gateways, route tables, subnets and
    security lists (the RDMA network is outside the VCN: OCI wires it between the
    members of a compute cluster)."""

    name_prefix: str
    """Starts every child's Pulumi name and OCI display name (``<name_prefix>-vcn``,
    ``<name_prefix>-workers-subnet``...)."""
    compartment_id: str
    """OCID of the compartment the VCN is created in."""
    addresses: AddressPlan
    """The VCN range and the endpoint, workers, pods and load-balancer subnets, as
    plain data (the spec's ``gpu_fabric.clouds.oci.addressing.plan``)."""
    endpoint_public: bool = False
    """Put the Kubernetes API endpoint in a public subnet (with an internet gateway)."""
    endpoint_allowed_cidrs: Sequence[str] = ()
    """With a public endpoint: the only sources its security list admits on 6443."""
    public_load_balancers: bool = False
    """Make the load-balancer subnet public (internet-facing Services)."""
    tags: Mapping[str, str] = field(default_factory=dict)
    """OCI freeform tags of every child."""


class OciFabricNetwork(pulumi.ComponentResource):
    """``ids``: the VCN and subnet ids the cluster and its node pools use."""

    ids: NetworkIds

    def __init__(
        self, name: str, args: OciFabricNetworkArgs, opts: pulumi.ResourceOptions | None = None
    ) -> None:
        super().__init__(NETWORK_TYPE, name, None, opts)
        network = OkeNetwork(
            args.name_prefix, moved_child_opts(self, opts), args.compartment_id,
            args.addresses, tags=dict(args.tags), endpoint_public=args.endpoint_public,
            endpoint_allowed_cidrs=args.endpoint_allowed_cidrs,
            public_load_balancers=args.public_load_balancers,
        )
        self.ids = network.ids()
        self.register_outputs({
            "vcn_id": self.ids.vcn_id,
            "endpoint_subnet_id": self.ids.endpoint_subnet_id,
            "worker_subnet_id": self.ids.worker_subnet_id,
            "pod_subnet_id": self.ids.pod_subnet_id,
            "lb_subnet_id": self.ids.lb_subnet_id,
        })


@dataclass(frozen=True, kw_only=True)
class OciGpuNodePoolArgs:
    """One GPU pool on an OKE cluster (created by this program or yours): for an RDMA
    shape, in its own compute cluster (the RDMA network group)."""

    name_prefix: str
    """Starts the Pulumi names: ``<name_prefix>-<pool>`` (node pool) and
    ``<name_prefix>-<pool>-rdma`` (compute cluster)."""
    display_prefix: str
    """Starts the OCI display names (``<display_prefix>-<pool>``,
    ``<display_prefix>-<pool>-rdma``): usually the cluster's name."""
    compartment_id: str
    """OCID of the compartment of the node pool and compute cluster."""
    cluster_id: pulumi.Input[str]
    """OCID of the OKE cluster the pool joins (``containerengine.Cluster.id``, or yours)."""
    availability_domain: str
    """The availability domain of the nodes and their compute cluster, e.g.
    ``Uocm:US-ASHBURN-AD-1`` (RDMA does not cross availability domains)."""
    pool: GpuNodePoolSpec
    """The pool: shape, node count, capacity (reservation, spot), boot volume size."""
    fabric: FabricDescription
    """The pool's fabric description (``gpu_fabric.describe_cluster(spec)[pool.name]``):
    the node labels, and the taints its cloud-init registers the node with."""
    kubernetes_version: str
    """The node pool's version in OKE's form with its ``v`` (``v1.34.1``; from ``1.34``:
    ``gpu_fabric.oci.oke_version``); the cluster's."""
    worker_subnet_id: pulumi.Input[str]
    """OCID of the subnet the nodes are placed in."""
    image_id: pulumi.Input[str]
    """OCID of the node image. RDMA shapes boot custom images only: one with DOCA-OFED
    and the NVIDIA driver (the oci-hpc-oke GPU images)."""
    pin_image: bool = False
    """True when ``image_id`` is a lookup of the newest OKE image: the pool keeps the
    image it was created with (``ignore_changes`` on it), so an OKE image release shows
    no diff; set an image OCID to move on."""
    cni: str = "npn"
    """The cluster's CNI: ``npn`` (VCN-native pods, needs ``pod_subnet_id``) or
    ``flannel``."""
    pod_subnet_id: pulumi.Input[str] | None = None
    """OCID of the pod subnet (``npn`` only)."""
    ssh_public_key: str | None = None
    """An SSH public key for the nodes' ``opc`` user; None: no SSH key."""
    tags: Mapping[str, str] = field(default_factory=dict)
    """OCI freeform tags of the node pool, its nodes and the compute cluster."""
    depends_on: pulumi.Input[Sequence[pulumi.Input[pulumi.Resource]]] = ()
    """What the node pool waits for: the launch policy
    (``gpu_fabric.oci.launch_policy``) that lets it launch into the compute cluster."""


def oke_node_version(version: str) -> str:
    """OKE's node pool version for a Kubernetes version: ``1.34`` -> this library's OKE
    1.34 patch (``v1.34.1``); ``1.34.2`` -> ``v1.34.2``. ValueError if OKE has none."""
    return oke_version(KubeVersion.parse(version))


class OciGpuNodePool(pulumi.ComponentResource):
    """An OKE GPU node pool: ``compute_cluster`` (RDMA shapes; else None) and ``node_pool``."""

    compute_cluster: core.ComputeCluster | None
    node_pool: containerengine.NodePool

    def __init__(
        self, name: str, args: OciGpuNodePoolArgs, opts: pulumi.ResourceOptions | None = None
    ) -> None:
        if not OKE_VERSION.fullmatch(args.kubernetes_version):
            raise ValueError(
                f"OciGpuNodePoolArgs.kubernetes_version: '{args.kubernetes_version}' is not an "
                "OKE node pool version; give the cluster's full version with its v, such as "
                "v1.34.1 (gpu_fabric.oci.oke_version('1.34'))"
            )
        network = pod_network(args.cni, args.pod_subnet_id)  # refuses npn without pod subnet
        super().__init__(NODE_POOL_TYPE, name, None, opts)
        child = moved_child_opts(self, opts)
        pool, base, shown = args.pool, args.name_prefix, args.display_prefix
        self.compute_cluster = core.ComputeCluster(
            f"{base}-{pool.name}-rdma",
            availability_domain=args.availability_domain,
            compartment_id=args.compartment_id,
            display_name=f"{shown}-{pool.name}-rdma",
            freeform_tags=dict(args.tags),
            opts=child(),
        ) if pool.machine.has_fabric else None
        placement = _Placement(
            availability_domain=args.availability_domain,
            subnet_id=args.worker_subnet_id,
            capacity_reservation_id=pool.capacity.reservation
            if pool.capacity.type == "reservation" else None,
            preemptible_node_config=_Preemptible(
                preemption_action=_PreemptionAction(type="TERMINATE", is_preserve_boot_volume=False)
            ) if pool.capacity.type == "spot" else None,
        )
        self.node_pool = containerengine.NodePool(
            f"{base}-{pool.name}",
            cluster_id=args.cluster_id,
            compartment_id=args.compartment_id,
            kubernetes_version=args.kubernetes_version,
            name=f"{shown}-{pool.name}",
            node_shape=pool.machine.name,
            node_source_details=containerengine.NodePoolNodeSourceDetailsArgs(
                source_type="IMAGE", image_id=args.image_id,
                boot_volume_size_in_gbs=str(pool.disk_size_gb) if pool.disk_size_gb else None,
            ),
            node_config_details=containerengine.NodePoolNodeConfigDetailsArgs(
                size=pool.node_count,
                compute_cluster_id=self.compute_cluster.id if self.compute_cluster else None,
                placement_configs=[placement],
                node_pool_pod_network_option_details=network,
                freeform_tags=dict(args.tags),
            ),
            initial_node_labels=[
                containerengine.NodePoolInitialNodeLabelArgs(key=k, value=v)
                for k, v in sorted(args.fabric.node_labels.items())
            ],
            node_metadata={"user_data": taint_user_data(
                args.fabric.taints, args.kubernetes_version,
                mask_imex=args.fabric.machine.nvlink_domain is not None,
                topology_policy=vf_topology_policy(args.fabric))},
            ssh_public_key=args.ssh_public_key,
            freeform_tags=dict(args.tags),
            opts=child(depends_on=args.depends_on, ignore_changes=PINNED_IMAGE
                       if args.pin_image else None),
        )
        self.register_outputs({
            "node_pool_id": self.node_pool.id,
            "compute_cluster_id": self.compute_cluster.id if self.compute_cluster else None,
        })
