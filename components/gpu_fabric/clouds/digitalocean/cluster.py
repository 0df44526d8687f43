"""``DigitalOceanGpuCluster``: a DOKS cluster with fabric-contracted GPU node pools.

What it creates (names derived from its name, a compatibility surface):

* ``<name>-vpc``: a VPC for the nodes, in a
  :class:`~gpu_fabric.clouds.digitalocean.blocks.DigitalOceanFabricNetwork`
  ``<name>-network`` (none with ``digitalocean.vpc_uuid``);
* ``<name>-doks``: the DOKS cluster (a direct child), whose default node pool is the
  system pool (CPU nodes for operators), with every DOKS-managed component set
  explicitly (:mod:`gpu_fabric.clouds.digitalocean.managed`);
* ``<name>-<pool>``: one ``KubernetesNodePool`` per GPU pool, of a catalog size
  passed as a plain string (``*-fabric-contracted`` slugs are not in the
  provider's ``DropletSlug`` enum), labelled and tainted from the fabric
  description, in a :class:`~gpu_fabric.clouds.digitalocean.blocks.DoksGpuNodePool`
  ``<name>-<pool>-pool``.

The blocks' children keep the names above and carry ``pulumi.Alias(parent=<name>)``:
stacks created before the blocks keep their URNs (``tests/clouds/test_building_blocks.py``).

The Kubernetes layer (Multus, the host-device NADs ``roce-net-fabricN``...) is
installed by the base class from the DO fabric description.
"""

from __future__ import annotations

from typing import Any

import pulumi
import pulumi_digitalocean as do

from gpu_fabric.catalog import Cloud
from gpu_fabric.clouds.digitalocean import managed
from gpu_fabric.clouds.digitalocean.blocks import (
    DigitalOceanFabricNetwork,
    DigitalOceanFabricNetworkArgs,
    DoksGpuNodePool,
    DoksGpuNodePoolArgs,
    do_tags,
)
from gpu_fabric.clouds.digitalocean.doks_version import doks_version, pick
from gpu_fabric.clouds.digitalocean.options import DEFAULT_SYSTEM_SIZE, DigitalOceanOptions
from gpu_fabric.cluster import ClusterInfra, GpuCluster, NodePoolInfo
from gpu_fabric.security import ApiAccess, effective_api_access

SYSTEM_POOL = "system"
ROLE_LABEL = "gpufabric.dev/role"


class DigitalOceanGpuCluster(GpuCluster):
    """A DOKS cluster whose GPU pools use the DO fabric NICs (``fabric0..N``)."""

    module = "digitalocean"
    cloud = Cloud.DIGITALOCEAN

    def _create_infrastructure(self) -> ClusterInfra:
        spec = self.spec
        opts = spec.options or DigitalOceanOptions()
        tags = do_tags(spec.name, spec.tags)
        vpc_uuid: pulumi.Input[str] = opts.vpc_uuid or ""
        if opts.vpc_uuid is None:
            vpc_uuid = DigitalOceanFabricNetwork(
                f"{self.name}-network",
                DigitalOceanFabricNetworkArgs(
                    name_prefix=self.name, vpc_name=f"{spec.name}-vpc",
                    region=spec.location.region, ip_range=str(spec.network.cidr),
                    description=f"gpu-fabric cluster {spec.name}",
                ),
                opts=self.child_opts(),
            ).vpc_id
        cluster = do.KubernetesCluster(
            f"{self.name}-doks",
            name=spec.name,
            region=spec.location.region,
            version=self._doks_version(),
            vpc_uuid=vpc_uuid,
            ha=opts.ha,
            auto_upgrade=spec.kubernetes.upgrades_automatically,  # off while frozen
            surge_upgrade=opts.surge_upgrade,
            cluster_subnet=str(spec.network.pod_cidr) if spec.network.pod_cidr else None,
            service_subnet=str(spec.network.service_cidr) if spec.network.service_cidr else None,
            tags=tags,
            # api_access: the control-plane firewall admits only the authorized ranges.
            control_plane_firewall=_firewall(effective_api_access(spec)),
            node_pool=do.KubernetesClusterNodePoolArgs(
                name=SYSTEM_POOL,
                size=spec.system_pool.machine_type or DEFAULT_SYSTEM_SIZE,
                node_count=spec.system_pool.node_count,
                labels={ROLE_LABEL: SYSTEM_POOL},
                tags=tags,
            ),
            **_component_args(managed.managed_components(spec)),
            # Fixed name: a replacement deletes first (plan_facts UNIQUE_NAMES says why).
            opts=self.child_opts(
                additional_secret_outputs=["kube_configs"], delete_before_replace=True),
        )
        pools = []
        for pool in spec.node_pools:
            block = DoksGpuNodePool(
                f"{self.name}-{pool.name}-pool",
                DoksGpuNodePoolArgs(
                    name_prefix=self.name, cluster_id=cluster.id, pool=pool,
                    fabric=self.fabrics[pool.name], tags=tuple(tags),
                    amd_gpu_partition_mode=opts.amd_gpu_partition_mode,
                ),
                opts=self.child_opts(),
            )
            pools.append(NodePoolInfo(pool.name, pool.machine, pool.node_count,
                                      block.node_pool.name))
        kubeconfig = cluster.kube_configs.apply(_raw_config)
        extra: dict[str, Any] = {
            "cluster_id": cluster.id,
            "cluster_urn": cluster.cluster_urn,
            "endpoint": cluster.endpoint,
            "kubernetes_version": cluster.version,
            "vpc_id": vpc_uuid,
            "managed_components": managed.managed_components(spec),
        }
        return ClusterInfra(
            kubeconfig=pulumi.Output.secret(kubeconfig),
            cluster_name=cluster.name,
            node_pools=pools,
            # The system pool is the cluster's default pool: ready with the cluster.
            kubernetes_ready=[cluster],
            extra_outputs=extra,
        )

    def _doks_version(self) -> pulumi.Input[str]:
        wanted = doks_version(self.spec)
        if wanted.exact is not None:
            return wanted.exact
        prefix = wanted.prefix or ""
        found = do.get_kubernetes_versions_output(
            version_prefix=prefix, opts=pulumi.InvokeOutputOptions(parent=self)
        )
        return found.apply(lambda r: pick(prefix, r.latest_version, list(r.valid_versions or [])))


def _firewall(access: ApiAccess) -> do.KubernetesClusterControlPlaneFirewallArgs | None:
    """DOKS control-plane firewall from ``api_access`` (none only with the named opt-in)."""
    if access.open_to_internet:
        return None
    return do.KubernetesClusterControlPlaneFirewallArgs(
        enabled=True, allowed_addresses=list(access.cidrs)
    )


def _raw_config(configs: Any) -> str:
    """``kube_configs[0].raw_config`` (the provider returns one kubeconfig)."""
    if not configs:
        return ""
    first = configs[0]
    raw = first.get("raw_config") if isinstance(first, dict) else first.raw_config
    return str(raw or "")


def _component_args(components: dict[str, bool]) -> dict[str, Any]:
    """Each managed component as its ``KubernetesCluster`` block, ``enabled`` set explicitly."""
    blocks: dict[str, Any] = {
        managed.RDMA_SHARED: do.KubernetesClusterRdmaSharedDevicePluginArgs,
        managed.NVIDIA_DEVICE_PLUGIN: do.KubernetesClusterNvidiaGpuDevicePluginArgs,
        managed.NVIDIA_DRA_DRIVER: do.KubernetesClusterNvidiaGpuDraDriverArgs,
        managed.AMD_DEVICE_PLUGIN: do.KubernetesClusterAmdGpuDevicePluginArgs,
        managed.AMD_DRA_DRIVER: do.KubernetesClusterAmdGpuDraDriverArgs,
        managed.AMD_METRICS_EXPORTER: do.KubernetesClusterAmdGpuDeviceMetricsExporterPluginArgs,
    }
    return {key: blocks[key](enabled=on) for key, on in components.items()}
