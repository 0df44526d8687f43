"""``GcpGpuCluster``: a GKE Standard cluster with GPU node pools and their fabric networks.

Creates (children of the component, names derived from its name):

* the VPCs of :mod:`gpu_fabric.clouds.gcp.layout` (primary; gVNIC + RoCE VPC for
  A3 Ultra / A4 / A4X; one VPC per GPU NIC for A3 High / A3 Mega), in a
  :class:`~gpu_fabric.clouds.gcp.blocks.GcpFabricNetwork`;
* the cluster: default pool removed, multi-networking, Dataplane V2, Workload
  Identity, private nodes, release channel / version from the spec;
* a node service account with only ``roles/container.defaultNodeServiceAccount``
  (unless the spec names one);
* a small system node pool, and one GPU node pool per spec pool, each a
  :class:`~gpu_fabric.clouds.gcp.blocks.GcpGpuNodePool` (the blocks carry aliases:
  their children keep the URNs they had as direct children).
"""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pulumi
import pulumi_gcp as gcp

from gpu_fabric.catalog import Cloud
from gpu_fabric.clouds.gcp.blocks import (
    GcpFabricNetwork,
    GcpFabricNetworkArgs,
    GcpGpuNodePool,
    GcpGpuNodePoolArgs,
)
from gpu_fabric.clouds.gcp.control_plane import ports_to_open, webhook_ports
from gpu_fabric.clouds.gcp.egress import wants_nat
from gpu_fabric.clouds.gcp.kubeconfig import kubeconfig
from gpu_fabric.clouds.gcp.layout import (
    GcpLayout,
    build_layout,
    default_exclusions,
    options_of,
    with_management,
    workload_policy_name,
)
from gpu_fabric.clouds.gcp.network import CreatedVpc
from gpu_fabric.clouds.gcp.nodepool import gpu_driver_version, system_node_pool
from gpu_fabric.cluster import ClusterInfra, GpuCluster, NodePoolInfo
from gpu_fabric.fabric.addons import GPU_OPERATOR, resolve_addons
from gpu_fabric.fabric.derive import DRA_V1BETA1
from gpu_fabric.security import effective_api_access

NODE_ROLE = "roles/container.defaultNodeServiceAccount"
# resource.k8s.io/v1beta1 kinds the seed enabled on a 1.33 cluster
# (--enable-kubernetes-unstable-apis); 1.34+ serves resource.k8s.io/v1 by default.
DRA_BETA_APIS = tuple(
    f"resource.k8s.io/v1beta1/{kind}"
    for kind in ("deviceclasses", "resourceclaims", "resourceclaimtemplates", "resourceslices")
)


FREEZE_EXCLUSION = "gpu-fabric-freeze"


def _maintenance(
    opts: Any, freeze: Any = None
) -> gcp.container.ClusterMaintenancePolicyArgs | None:
    """Daily window + exclusions, as cluster-toolkit modules/scheduler/gke-cluster does.

    ``kubernetes.freeze`` adds the exclusion ``gpu-fabric-freeze`` (NO_MINOR_OR_NODE_UPGRADES:
    control-plane patches only, no node is drained; GKE "Maintenance exclusions",
    https://cloud.google.com/kubernetes-engine/docs/concepts/maintenance-windows-and-exclusions).
    """
    exclusions: list[Any] = list(default_exclusions(opts))
    if freeze is not None:
        exclusions.append(SimpleNamespace(
            name=FREEZE_EXCLUSION, start_time=freeze.start, end_time=freeze.end,
            scope="NO_MINOR_OR_NODE_UPGRADES"))
    if not exclusions:
        return None
    return gcp.container.ClusterMaintenancePolicyArgs(
        daily_maintenance_window=gcp.container.ClusterMaintenancePolicyDailyMaintenanceWindowArgs(
            start_time=opts.maintenance_start_time
        ),
        maintenance_exclusions=[
            gcp.container.ClusterMaintenancePolicyMaintenanceExclusionArgs(
                exclusion_name=e.name,
                start_time=e.start_time,
                end_time=e.end_time,
                exclusion_options=(
                    gcp.container.ClusterMaintenancePolicyMaintenanceExclusionExclusionOptionsArgs(
                        scope=e.scope,
                        end_time_behavior=None if e.end_time else "UNTIL_END_OF_SUPPORT",
                    )
                ),
            )
            for e in exclusions
        ],
    )


class GcpGpuCluster(GpuCluster):
    """A GKE cluster whose GPU pools reach each other over the machine's fabric."""

    module = "gcp"
    cloud = Cloud.GCP

    layout: GcpLayout
    gke: gcp.container.Cluster

    def _create_infrastructure(self) -> ClusterInfra:
        spec = self.spec
        opts = options_of(spec)
        self.layout = build_layout(spec)
        zone = str(spec.location.zone)
        # Private nodes pull from nvcr.io, registry.k8s.io... only through a NAT; the
        # Kubernetes layer waits for it.
        network = GcpFabricNetwork(
            f"{self.name}-network",
            GcpFabricNetworkArgs(layout=self.layout, project=opts.project,
                                 region=spec.location.region, name_prefix=self.name,
                                 nat=wants_nat(opts)),
            opts=self.child_opts(),
        )
        vpcs, egress = network.vpcs, network.egress
        self.gke = self._cluster(vpcs["net"], zone)
        node_sa = self._node_service_account()
        addons = resolve_addons(spec, self.fabrics)
        system = system_node_pool(self, self.gke, zone, node_sa)
        webhooks = self._webhook_firewall(vpcs["net"], webhook_ports(addons))
        pools: list[NodePoolInfo] = []
        for spec_pool in spec.node_pools:
            fabric = self.fabrics[spec_pool.name]
            pool = with_management(opts, spec_pool)
            driver = gpu_driver_version(opts.gpu_driver_version, addons.on(GPU_OPERATOR),
                                        dra=fabric.gpu_dra)
            block = GcpGpuNodePool(
                f"{self.name}-{pool.name}-pool",
                GcpGpuNodePoolArgs(
                    name_prefix=self.name, project=opts.project, zone=zone,
                    cluster_name=self.gke.name, pool=pool, fabric=fabric,
                    service_account=node_sa, node_networks=network.node_networks(fabric),
                    gpu_driver_version=driver, workload_identity=opts.workload_identity,
                    resource_labels=spec.tags,
                    workload_policy_name=workload_policy_name(spec.name, pool.name),
                ),
                opts=self.child_opts(),
            )
            pools.append(NodePoolInfo(pool.name, pool.machine, pool.node_count,
                                      block.node_pool.name))
        context = pulumi.Output.concat("gke_", opts.project, "_", zone, "_", self.gke.name)
        config = pulumi.Output.all(
            context, self.gke.endpoint, self.gke.master_auth.cluster_ca_certificate
        ).apply(lambda a: kubeconfig(str(a[0]), str(a[1]), str(a[2] or "")))
        return ClusterInfra(
            kubeconfig=pulumi.Output.secret(config),
            cluster_name=self.gke.name,
            node_pools=pools,
            kubernetes_ready=[system, *egress, *webhooks],
            extra_outputs=self._outputs(vpcs),
        )

    # -- pieces -------------------------------------------------------------
    def _cluster(self, primary: CreatedVpc, zone: str) -> gcp.container.Cluster:
        spec = self.spec
        opts = options_of(spec)
        net = spec.network
        access = effective_api_access(spec)
        private = None
        if opts.private_nodes:
            private = gcp.container.ClusterPrivateClusterConfigArgs(
                enable_private_nodes=True,
                enable_private_endpoint=not access.public,
                master_ipv4_cidr_block=str(opts.master_ipv4_cidr),
            )
        authorized = None
        if not access.open_to_internet:  # api_access: only these sources (none: internal only)
            authorized = gcp.container.ClusterMasterAuthorizedNetworksConfigArgs(
                cidr_blocks=[
                    gcp.container.ClusterMasterAuthorizedNetworksConfigCidrBlockArgs(
                        cidr_block=c, display_name=f"authorized-{i}"
                    )
                    for i, c in enumerate(access.cidrs)
                ],
                gcp_public_cidrs_access_enabled=False,
            )
        beta_apis = None
        if any(f.dra and f.dra.api_version == DRA_V1BETA1 for f in self.fabrics.values()):
            beta_apis = gcp.container.ClusterEnableK8sBetaApisArgs(enabled_apis=list(DRA_BETA_APIS))
        return gcp.container.Cluster(
            f"{self.name}-gke",
            name=spec.name,
            project=opts.project,
            location=zone,
            network=primary.network.id if primary.network else primary.name,
            subnetwork=primary.subnets[0].id if primary.subnets else primary.subnet_names[0],
            # GPU and system pools are separate resources; the default pool only bootstraps.
            remove_default_node_pool=True,
            initial_node_count=1,
            networking_mode="VPC_NATIVE",
            ip_allocation_policy=gcp.container.ClusterIpAllocationPolicyArgs(
                # A bare "/14" lets GKE pick a free range of that size.
                cluster_ipv4_cidr_block=str(net.pod_cidr) if net.pod_cidr else "/14",
                services_ipv4_cidr_block=str(net.service_cidr) if net.service_cidr else "/20",
            ),
            # Multi-networking (extra node networks) requires Dataplane V2; both are set at
            # create (changing datapath_provider replaces the cluster).
            enable_multi_networking=opts.multi_networking,
            datapath_provider="ADVANCED_DATAPATH",
            release_channel=gcp.container.ClusterReleaseChannelArgs(channel=opts.release_channel),
            # cluster-toolkit gke-cluster main.tf line 167 (variables.tf line 256: true).
            enable_shielded_nodes=True,
            min_master_version=spec.kubernetes.version,
            private_cluster_config=private,
            master_authorized_networks_config=authorized,
            workload_identity_config=(
                gcp.container.ClusterWorkloadIdentityConfigArgs(
                    workload_pool=f"{opts.project}.svc.id.goog"
                )
                if opts.workload_identity else None
            ),
            enable_k8s_beta_apis=beta_apis,
            maintenance_policy=_maintenance(opts, spec.kubernetes.freeze),
            database_encryption=gcp.container.ClusterDatabaseEncryptionArgs(
                state="ENCRYPTED", key_name=spec.secrets_encryption.kms_key
            ) if spec.secrets_encryption else None,
            deletion_protection=opts.deletion_protection,
            resource_labels=dict(spec.tags) or None,
            # Fixed name: a replacement deletes first (plan_facts UNIQUE_NAMES says why).
            opts=self.child_opts(delete_before_replace=True),
        )

    def _webhook_firewall(
        self, primary: CreatedVpc, ports: list[int]
    ) -> list[gcp.compute.Firewall]:
        """Control plane -> nodes on the admission webhook ports GKE's own master rule
        lacks (``control_plane``), so Kyverno's, Kueue's and JobSet's webhooks answer on
        private nodes. Only from the control-plane /28, only those TCP ports."""
        opts = options_of(self.spec)
        extra = ports_to_open(ports)
        if not opts.private_nodes or not extra:
            return []
        return [gcp.compute.Firewall(
            f"{self.name}-webhooks",
            name=f"{self.spec.name}-master-webhooks"[:63].rstrip("-"),
            project=opts.project,
            network=primary.network.id if primary.network else primary.name,
            direction="INGRESS",
            description="GKE control plane to admission webhooks on the nodes' pods",
            allows=[gcp.compute.FirewallAllowArgs(protocol="tcp",
                                                  ports=[str(p) for p in extra])],
            source_ranges=[str(opts.master_ipv4_cidr)],
            opts=self.child_opts(delete_before_replace=True),  # fixed name (plan_facts)
        )]

    def _node_service_account(self) -> pulumi.Input[str]:
        opts = options_of(self.spec)
        if opts.node_service_account:
            return opts.node_service_account
        account = gcp.serviceaccount.Account(
            f"{self.name}-nodes",
            account_id=f"{self.spec.name[:24]}-nodes",
            project=opts.project,
            display_name=f"GKE nodes of {self.spec.name}",
            # Fixed account_id: a replacement deletes first (plan_facts UNIQUE_NAMES).
            opts=self.child_opts(delete_before_replace=True),
        )
        # Least privilege: GKE's node role only (logging, monitoring, image pulls).
        role = gcp.projects.IAMMember(
            f"{self.name}-nodes-role",
            project=opts.project,
            role=NODE_ROLE,
            member=account.email.apply(lambda e: f"serviceAccount:{e}"),
            opts=self.child_opts(),
        )
        return pulumi.Output.all(account.email, role.id).apply(lambda a: str(a[0]))

    def _outputs(self, vpcs: dict[str, CreatedVpc]) -> dict[str, Any]:
        return {
            "gcp": {
                "project": options_of(self.spec).project,
                "zone": self.spec.location.zone,
                "cluster_id": self.gke.id,
                "networks": {key: vpc.ids for key, vpc in vpcs.items()},
            }
        }
