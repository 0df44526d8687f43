"""Reusable DOKS building blocks: the cluster's VPC, and a GPU node pool on the fabric.

:class:`DigitalOceanGpuCluster` composes them; a team that already runs a VPC or a
DOKS cluster uses them alone (``examples/do-gpu-existing-doks``), the way pulumi-eks
exports ``Cluster`` and ``ManagedNodeGroup`` separately.

* :class:`DigitalOceanFabricNetwork` (``gpufabric:digitalocean:FabricNetwork``): the
  VPC the nodes' ``eth1`` sits on. The GPU fabric itself (``fabric0..N``) is not part
  of any VPC and has no API resource: DO wires it into every droplet of a
  ``*-fabric-contracted`` size (DO seed: the fabric NICs "exist next to the regular
  eth0 and eth1 interfaces"), so the VPC is the whole network to create.
* :class:`DoksGpuNodePool` (``gpufabric:digitalocean:GpuNodePool``): one
  ``KubernetesNodePool`` of a fabric size on a cluster given by its id (one created
  here, or yours), labelled and tainted from the pool's fabric description. A pool
  has no per-NIC setting to send: the size brings the fabric NICs, and the cluster's
  RDMA shared device plugin (on by default on DOKS clusters with fabric nodes)
  advertises them as ``rdma/fabricN``.

Children keep the names they had as direct children of the cluster component and,
under a ``GpuCluster``, carry ``pulumi.Alias(parent=<the cluster>)``
(:func:`~gpu_fabric.clouds.blocks.moved_child_opts`): stacks created before the
blocks keep their URNs. Public names: ``gpu_fabric.digitalocean.FabricNetwork``,
``gpu_fabric.digitalocean.GpuNodePool`` (and their Args).
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Sequence
from dataclasses import dataclass

import pulumi
import pulumi_digitalocean as do

from gpu_fabric.catalog import Cloud, GpuVendor
from gpu_fabric.clouds.blocks import moved_child_opts
from gpu_fabric.clouds.digitalocean.fabric import VPC_PREFIXES
from gpu_fabric.clouds.digitalocean.options import AMD_PARTITION_MODES
from gpu_fabric.fabric.description import FabricDescription
from gpu_fabric.spec import GpuNodePoolSpec

__all__ = ["DigitalOceanFabricNetwork", "DigitalOceanFabricNetworkArgs", "DoksGpuNodePool",
           "DoksGpuNodePoolArgs", "do_tags"]

NETWORK_TYPE = "gpufabric:digitalocean:FabricNetwork"
NODE_POOL_TYPE = "gpufabric:digitalocean:GpuNodePool"
_TAG_CHARS = re.compile(r"[^A-Za-z0-9:_\-]")


def do_tags(cluster: str, tags: dict[str, str]) -> list[str]:
    """DO tags are flat strings (letters, digits, ':', '-', '_'): ``key:value``."""
    out = ["gpu-fabric", f"gpu-fabric-cluster:{cluster}"]
    out += [_TAG_CHARS.sub("-", f"{k}:{v}" if v else k)[:255] for k, v in sorted(tags.items())]
    return out


@dataclass(frozen=True, kw_only=True)
class DigitalOceanFabricNetworkArgs:
    """A new VPC for a DOKS GPU cluster's nodes (their ``eth1``; the GPU fabric NICs are
    DO-wired and outside any VPC)."""

    name_prefix: str
    """Starts the child's Pulumi name (``<name_prefix>-vpc``)."""
    vpc_name: str
    """The VPC's DigitalOcean name (unique in the account)."""
    region: str
    """DigitalOcean region slug, e.g. ``nyc2`` (the cluster's)."""
    ip_range: str
    """The VPC's IPv4 range: /16 to /24, not overlapping the account's other VPCs."""
    description: str | None = None
    """Free text shown in the control panel."""


def check_ip_range(ip_range: str) -> None:
    """Refuse a range DO would reject, naming the field (pulumi-digitalocean
    ``Vpc.ip_range``: "not larger than /16 or smaller than /24")."""
    low, high = VPC_PREFIXES
    try:
        prefix = ipaddress.IPv4Network(ip_range).prefixlen
    except ValueError:
        prefix = None
    if prefix is None or not low <= prefix <= high:
        raise ValueError(
            f"DigitalOceanFabricNetworkArgs.ip_range: '{ip_range}' is not a valid "
            f"DigitalOcean VPC range; write an IPv4 network from /{low} to /{high}, "
            "e.g. 10.120.0.0/20"
        )


class DigitalOceanFabricNetwork(pulumi.ComponentResource):
    """``vpc``: the VPC resource; ``vpc_id``: its id (the cluster's ``vpc_uuid``)."""

    vpc: do.Vpc
    vpc_id: pulumi.Output[str]

    def __init__(
        self,
        name: str,
        args: DigitalOceanFabricNetworkArgs,
        opts: pulumi.ResourceOptions | None = None,
    ) -> None:
        check_ip_range(args.ip_range)
        super().__init__(NETWORK_TYPE, name, None, opts)
        child = moved_child_opts(self, opts)
        self.vpc = do.Vpc(
            f"{args.name_prefix}-vpc",
            name=args.vpc_name,
            region=args.region,
            ip_range=args.ip_range,
            description=args.description,
            opts=child(delete_before_replace=True),  # fixed name (plan_facts UNIQUE_NAMES)
        )
        self.vpc_id = self.vpc.id
        self.register_outputs({"vpc_id": self.vpc.id, "vpc_urn": self.vpc.vpc_urn})


@dataclass(frozen=True, kw_only=True)
class DoksGpuNodePoolArgs:
    """One GPU pool of a fabric size on a DOKS cluster (created by this program or yours)."""

    name_prefix: str
    """Starts the child's Pulumi name: ``<name_prefix>-<pool>``."""
    cluster_id: pulumi.Input[str]
    """The DOKS cluster's id (``KubernetesCluster.id``, or the UUID of yours:
    ``doctl kubernetes cluster list``)."""
    pool: GpuNodePoolSpec
    """The pool: size (a ``*-fabric-contracted`` slug brings the fabric NICs), node
    count or autoscaling bounds."""
    fabric: FabricDescription
    """The pool's fabric description (``gpu_fabric.describe_cluster(spec)[pool.name]``,
    of a digitalocean spec): the node labels and taints the fabric layer selects and
    tolerates."""
    tags: Sequence[str] = ()
    """DO tags: flat strings (letters, digits, ``:``, ``-``, ``_``), e.g.
    ``gpu_fabric.digitalocean.do_tags(cluster, tags)``."""
    amd_gpu_partition_mode: str | None = None
    """AMD pools only: the GPU partition mode set at creation,
    ``AMD_PARTITION_MODE_SPX_NPS1`` or ``AMD_PARTITION_MODE_DPX_NPS2``; None: DO's
    default (ignored on NVIDIA pools)."""


def check_pool_args(args: DoksGpuNodePoolArgs) -> None:
    """Refuse a fabric description of another cloud or pool, or an unknown partition mode."""
    fabric, pool = args.fabric, args.pool
    if fabric.cloud is not Cloud.DIGITALOCEAN or fabric.pool != pool.name:
        raise ValueError(
            f"DoksGpuNodePoolArgs.fabric: describes pool '{fabric.pool}' on "
            f"{fabric.cloud.value}, but the pool is '{pool.name}' on digitalocean; pass "
            f"describe_cluster(spec)['{pool.name}'] of a digitalocean spec"
        )
    mode = args.amd_gpu_partition_mode
    if mode is not None and mode not in AMD_PARTITION_MODES:
        raise ValueError(
            f"DoksGpuNodePoolArgs.amd_gpu_partition_mode: '{mode}' is not a DOKS partition "
            f"mode; use one of {', '.join(AMD_PARTITION_MODES)} or None"
        )


class DoksGpuNodePool(pulumi.ComponentResource):
    """A DOKS GPU node pool on the fabric (``node_pool``: the resource)."""

    node_pool: do.KubernetesNodePool

    def __init__(
        self, name: str, args: DoksGpuNodePoolArgs, opts: pulumi.ResourceOptions | None = None
    ) -> None:
        check_pool_args(args)
        super().__init__(NODE_POOL_TYPE, name, None, opts)
        child = moved_child_opts(self, opts)
        pool, fabric = args.pool, args.fabric
        machine = pool.machine
        autoscale = pool.min_nodes is not None and pool.max_nodes is not None
        amd = machine.gpu.vendor is GpuVendor.AMD
        self.node_pool = do.KubernetesNodePool(
            f"{args.name_prefix}-{pool.name}",
            cluster_id=args.cluster_id,
            name=pool.name,
            size=machine.name,  # contracted fabric slugs are not in DropletSlug
            # With autoscaling DO owns the count (node_count would reset it on every up).
            node_count=None if autoscale else pool.node_count,
            auto_scale=autoscale or None,
            min_nodes=pool.min_nodes if autoscale else None,
            max_nodes=pool.max_nodes if autoscale else None,
            labels=dict(fabric.node_labels),
            taints=[
                do.KubernetesNodePoolTaintArgs(key=t.key, value=t.value, effect=t.effect)
                for t in fabric.taints
            ],
            tags=list(args.tags),
            gpu_partition_mode=args.amd_gpu_partition_mode if amd else None,
            opts=child(delete_before_replace=True),  # fixed name (plan_facts UNIQUE_NAMES)
        )
        self.register_outputs({"node_pool": self.node_pool.name,
                               "node_pool_id": self.node_pool.id})
