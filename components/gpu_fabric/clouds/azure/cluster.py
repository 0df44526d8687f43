"""AzureGpuCluster: AKS with ND-series InfiniBand GPU pools (type ``gpufabric:azure:GpuCluster``).

Children (names derived from the component name ``<n>``, a compatibility surface):

* ``<n>-rg``: the resource group (unless ``azure.resource_group`` names an existing one);
* ``<n>-nsg``, ``<n>-vnet``, ``<n>-nodes`` (and ``<n>-pods`` in flat mode): the network,
  in an :class:`~gpu_fabric.clouds.azure.blocks.AzureFabricNetwork` ``<n>-network``
  (none with ``azure.existing_subnet_id``);
* ``<n>-ib-feature``: the ``AKSInfinibandSupport`` subscription feature (manage mode);
* ``<n>-aks``: the managed cluster with its system pool;
* ``<n>-subnet-access-<subnet>``: Network Contributor for the cluster identity on each subnet;
* ``<n>-pool-<pool>``: one ND agent pool (one VM scale set, so one IB fabric) per GPU pool,
  in an :class:`~gpu_fabric.clouds.azure.blocks.AzureNdAgentPool` ``<n>-<pool>-pool``.

The blocks' children keep the names above and carry ``pulumi.Alias(parent=<n>)``:
stacks created before the blocks keep their URNs (``tests/clouds/test_building_blocks.py``).

Everything that can be wrong with the spec is found by the pure
:func:`~gpu_fabric.clouds.azure.layout.plan_layout` before anything is registered.
"""

from __future__ import annotations

import base64
from typing import Any

import pulumi
from pulumi_azure_native import authorization, containerservice, resources

from gpu_fabric.catalog import Cloud
from gpu_fabric.clouds.azure.access import effective_kubeconfig
from gpu_fabric.clouds.azure.blocks import (
    AzureFabricNetwork,
    AzureFabricNetworkArgs,
    AzureNdAgentPool,
    AzureNdAgentPoolArgs,
)
from gpu_fabric.clouds.azure.feature import (
    InfinibandFeatureError,
    check_feature_state,
    infiniband_feature,
    wait_for_registered,
)
from gpu_fabric.clouds.azure.kubernetes import operator_installs_driver
from gpu_fabric.clouds.azure.layout import AzureLayout, plan_layout
from gpu_fabric.clouds.azure.network import VnetInfo
from gpu_fabric.clouds.azure.options import AzureOptions
from gpu_fabric.cluster import ClusterInfra, GpuCluster, NodePoolInfo
from gpu_fabric.fabric.description import describe_cluster
from gpu_fabric.security import SecretsEncryptionSpec, effective_api_access
from gpu_fabric.spec import ClusterSpec

# Re-exported: callers and tests name them from the cluster module.
__all__ = ["AzureGpuCluster", "InfinibandFeatureError", "check_feature_state",
           "wait_for_registered"]

# Built-in role "Network Contributor" (join/read the subnets the node pools use).
NETWORK_CONTRIBUTOR = "4d97b98b-1d4f-4787-a291-c67834d212e7"
# Built-in role "Azure Kubernetes Service RBAC Cluster Admin" (MicrosoftDocs/azure-docs
# articles/role-based-access-control/built-in-roles/containers.md): the identity running
# `pulumi up` installs the fabric layer through Entra ID once local accounts are off.
AKS_RBAC_CLUSTER_ADMIN = "b1ff04bb-8a4e-4dc4-8eb5-8693973ce19b"


# AKS planned maintenance: the node OS channel's schedule has this fixed config name.
NODE_OS_SCHEDULE = "aksManagedNodeOSUpgradeSchedule"
WINDOWED_CHANNELS = ("SecurityPatch", "NodeImage")


def node_os_channel(spec: ClusterSpec) -> str:
    """The node OS upgrade channel: ``azure.node_os_upgrade_channel``, else NodeImage with
    ``kubernetes.auto_upgrade`` and SecurityPatch without. Before issue 31 it was ``None``
    without auto_upgrade: nodes never got OS patches (AKS's own default is NodeImage since
    API 2023-06-01, learn.microsoft.com/azure/aks/auto-upgrade-node-os-image)."""
    if spec.kubernetes.freeze is not None:  # the cluster-wide freeze stops every channel
        return "None"
    options: AzureOptions | None = spec.options
    if options is not None and options.node_os_upgrade_channel is not None:
        return options.node_os_upgrade_channel
    return "NodeImage" if spec.kubernetes.auto_upgrade else "SecurityPatch"


def _kms(enc: SecretsEncryptionSpec | None) -> Any:
    """AKS KMS etcd encryption with the spec's Key Vault key (public or private vault)."""
    if enc is None:
        return None
    private = enc.azure_key_vault_id is not None
    return containerservice.AzureKeyVaultKmsArgs(
        enabled=True,
        key_id=enc.kms_key,
        key_vault_network_access="Private" if private else "Public",
        key_vault_resource_id=enc.azure_key_vault_id,
    )


def _decode_kubeconfig(result: Any) -> str:
    configs = result.kubeconfigs or []
    if not configs:
        raise RuntimeError("AKS returned no user kubeconfig for the cluster")
    return base64.b64decode(configs[0].value).decode()


class AzureGpuCluster(GpuCluster):
    """A GPU cluster on AKS; see the module docstring for its children."""

    module = "azure"
    cloud = Cloud.AZURE

    def __init__(
        self, name: str, spec: ClusterSpec, opts: pulumi.ResourceOptions | None = None
    ) -> None:
        # The layout is pure: a spec it refuses registers nothing, not even this component.
        if isinstance(spec, ClusterSpec) and spec.cloud is Cloud.AZURE:
            fabrics = describe_cluster(spec)
            self._layout = plan_layout(spec, fabrics, operator_installs_driver(spec, fabrics))
        super().__init__(name, spec, opts)

    # -- the infrastructure --------------------------------------------------------
    def _create_infrastructure(self) -> ClusterInfra:
        layout: AzureLayout = self._layout
        spec = self.spec
        n = self.name
        location = spec.location.region
        tags = {"gpufabric-cluster": spec.name, **spec.tags}

        group: pulumi.Input[str] = layout.resource_group
        if layout.create_resource_group:
            group = resources.ResourceGroup(
                f"{n}-rg", resource_group_name=layout.resource_group, location=location,
                # Fixed name: a replacement deletes first (plan_facts UNIQUE_NAMES).
                tags=tags, opts=self.child_opts(delete_before_replace=True),
            ).name

        vnet = self._network(layout, group, location, tags)
        feature_gate = infiniband_feature(n, layout.feature_mode, layout.feature_state, self)
        cluster = self._managed_cluster(layout, group, location, tags, vnet)
        self._node_os_window(group, cluster)
        access = self._subnet_access(cluster, vnet)
        admin = self._deployer_admin(cluster)

        infos = []
        for pool_layout in layout.pools:
            pool_spec = spec.pool(pool_layout.name)
            block = AzureNdAgentPool(
                f"{n}-{pool_layout.name}-pool",
                AzureNdAgentPoolArgs(
                    name_prefix=n, cluster_name=cluster.name, resource_group=group,
                    pool=pool_spec, fabric=self.fabrics[pool_layout.name],
                    kubernetes_version=spec.kubernetes.version,
                    node_subnet_id=vnet.node_subnet_id, pod_subnet_id=vnet.pod_subnet_id,
                    zone=spec.location.zone, aks_installs_driver=pool_layout.aks_driver,
                    feature_gate=feature_gate[1], tags=tags,
                    depends_on=[*access, *feature_gate[0]],
                ),
                opts=self.child_opts(),
            )
            infos.append(NodePoolInfo(pool_layout.name, pool_layout.machine,
                                      pool_spec.node_count, block.agent_pool.name))

        credentials = containerservice.list_managed_cluster_user_credentials_output(
            resource_group_name=group,
            resource_name=cluster.name,
            # Entra ID only (local accounts are off): a kubelogin exec kubeconfig.
            format="exec",
        )
        # The layer's first call waits until the deployer's admin role is effective
        # (Azure RBAC propagation; clouds/azure/access.py), not only created.
        dry_run = pulumi.runtime.is_dry_run()
        kubeconfig: pulumi.Output[str] = pulumi.Output.secret(
            pulumi.Output.all(credentials.apply(_decode_kubeconfig), admin.id).apply(
                lambda got: effective_kubeconfig(got[0], layout.cluster, dry_run)
            )
        )
        return ClusterInfra(
            kubeconfig=kubeconfig,
            cluster_name=cluster.name,
            node_pools=infos,
            # The fabric layer authenticates as the deployer: wait for its admin role.
            kubernetes_ready=[cluster, admin],
            extra_outputs={
                "resource_group": group,
                "vnet_id": vnet.vnet_id,
                "node_subnet_id": vnet.node_subnet_id,
                "oidc_issuer_url": cluster.oidc_issuer_profile.apply(
                    lambda p: p.issuer_url if p else None
                ),
                "infiniband_feature": {
                    "mode": layout.feature_mode, "pools_need": layout.feature_state,
                },
            },
        )

    def _network(
        self, layout: AzureLayout, group: pulumi.Input[str], location: str, tags: dict[str, str]
    ) -> VnetInfo:
        """The fabric-network block, or the ids of ``azure.existing_subnet_id`` (no block)."""
        existing = layout.network.existing_subnet_id
        if existing:
            return VnetInfo(None, None, existing, None, None)
        return AzureFabricNetwork(
            f"{self.name}-network",
            AzureFabricNetworkArgs(name_prefix=self.name, layout=layout.network,
                                   resource_group=group, location=location, tags=tags),
            opts=self.child_opts(),
        ).vnet

    def _managed_cluster(
        self,
        layout: AzureLayout,
        group: pulumi.Input[str],
        location: str,
        tags: dict[str, str],
        vnet: VnetInfo,
    ) -> containerservice.ManagedCluster:
        spec = self.spec
        options: AzureOptions | None = spec.options
        assert options is not None
        net = layout.network
        overlay = net.pod_cidr is not None
        system = containerservice.ManagedClusterAgentPoolProfileArgs(
            name="system",
            mode="System",
            vm_size=layout.system_vm_size,
            count=spec.system_pool.node_count,
            os_type="Linux",
            os_sku="Ubuntu",
            type="VirtualMachineScaleSets",
            vnet_subnet_id=vnet.node_subnet_id,
            pod_subnet_id=vnet.pod_subnet_id,
            orchestrator_version=spec.kubernetes.version,
            availability_zones=list(layout.pools[0].zones) if layout.pools else None,
        )
        auto = spec.kubernetes.upgrades_automatically  # off while frozen (kubernetes.freeze)
        api = effective_api_access(spec)
        return containerservice.ManagedCluster(
            f"{self.name}-aks",
            resource_name_=layout.cluster,
            resource_group_name=group,
            location=location,
            dns_prefix=layout.dns_prefix,
            kubernetes_version=spec.kubernetes.version,
            enable_rbac=True,
            identity=containerservice.ManagedClusterIdentityArgs(
                type=containerservice.ResourceIdentityType.SYSTEM_ASSIGNED
            ),
            oidc_issuer_profile=containerservice.ManagedClusterOIDCIssuerProfileArgs(enabled=True),
            security_profile=containerservice.ManagedClusterSecurityProfileArgs(
                workload_identity=containerservice.ManagedClusterSecurityProfileWorkloadIdentityArgs(
                    enabled=True
                ),
                azure_key_vault_kms=_kms(spec.secrets_encryption),
            ),
            # Entra ID with Azure RBAC, no local (static) accounts: every API call carries a
            # user identity. api_access: the API server answers the authorized ranges only.
            aad_profile=containerservice.ManagedClusterAADProfileArgs(
                managed=True, enable_azure_rbac=True,
                admin_group_object_ids=list(options.admin_group_object_ids) or None,
            ),
            disable_local_accounts=True,
            api_server_access_profile=containerservice.ManagedClusterAPIServerAccessProfileArgs(
                authorized_ip_ranges=api.public_cidrs if api.public else None,
                enable_private_cluster=not api.public,
            ) if not api.open_to_internet else None,
            sku=containerservice.ManagedClusterSKUArgs(name="Base", tier=options.sku_tier),
            agent_pool_profiles=[system],
            network_profile=containerservice.ContainerServiceNetworkProfileArgs(
                network_plugin="azure",
                network_plugin_mode="overlay" if overlay else None,
                pod_cidr=net.pod_cidr,
                service_cidr=net.service_cidr,
                dns_service_ip=net.dns_service_ip,
                load_balancer_sku="standard",
                outbound_type="loadBalancer",
            ),
            auto_upgrade_profile=containerservice.ManagedClusterAutoUpgradeProfileArgs(
                upgrade_channel="patch" if auto else "none",
                node_os_upgrade_channel=node_os_channel(spec),
            ),
            tags=tags,
            # Fixed name: a replacement deletes first (plan_facts UNIQUE_NAMES says why).
            opts=self.child_opts(depends_on=vnet.subnets, delete_before_replace=True),
        )

    def _node_os_window(
        self, group: pulumi.Input[str], cluster: containerservice.ManagedCluster
    ) -> containerservice.MaintenanceConfiguration | None:
        """``<n>-node-os-window``: when AKS may apply node OS updates (SecurityPatch /
        NodeImage channels reimage or patch nodes; GPU jobs should not meet that at noon).
        AKS's config name for it is ``aksManagedNodeOSUpgradeSchedule``
        (learn.microsoft.com/azure/aks/planned-maintenance)."""
        if node_os_channel(self.spec) not in WINDOWED_CHANNELS:
            return None
        options: AzureOptions | None = self.spec.options
        assert options is not None
        window = options.node_os_maintenance_window
        return containerservice.MaintenanceConfiguration(
            f"{self.name}-node-os-window",
            config_name=NODE_OS_SCHEDULE,
            resource_group_name=group,
            resource_name_=cluster.name,
            maintenance_window=containerservice.MaintenanceWindowArgs(
                schedule=containerservice.ScheduleArgs(
                    weekly=containerservice.WeeklyScheduleArgs(
                        day_of_week=window.day_of_week, interval_weeks=1),
                ),
                duration_hours=window.duration_hours,
                start_time=window.start_time,
                utc_offset=window.utc_offset,
            ),
            # The name is AKS's fixed one: a replacement must delete the old one first.
            opts=self.child_opts(delete_before_replace=True),
        )

    def _deployer_admin(
        self, cluster: containerservice.ManagedCluster
    ) -> pulumi.CustomResource:
        """Cluster admin (Azure RBAC) for the identity running Pulumi, on this cluster only:
        the EKS ``bootstrapClusterCreatorAdminPermissions`` of AKS."""
        client = authorization.get_client_config_output(
            opts=pulumi.InvokeOutputOptions(parent=self)
        )
        role = client.subscription_id.apply(
            lambda sub: f"/subscriptions/{sub}/providers/Microsoft.Authorization/roleDefinitions/"
                        f"{AKS_RBAC_CLUSTER_ADMIN}"
        )
        return authorization.RoleAssignment(
            f"{self.name}-api-admin",
            principal_id=client.object_id,
            role_definition_id=role,
            scope=cluster.id,
            opts=self.child_opts(),
        )

    def _subnet_access(
        self, cluster: containerservice.ManagedCluster, vnet: VnetInfo
    ) -> list[pulumi.Resource]:
        """Network Contributor for the cluster identity, on its subnets only (least privilege)."""
        client = authorization.get_client_config_output(
            opts=pulumi.InvokeOutputOptions(parent=self)
        )
        role = client.subscription_id.apply(
            lambda sub: f"/subscriptions/{sub}/providers/Microsoft.Authorization/roleDefinitions/"
                        f"{NETWORK_CONTRIBUTOR}"
        )
        principal = cluster.identity.apply(lambda i: i.principal_id if i else "")
        scopes: list[tuple[str, pulumi.Input[str]]] = [("nodes", vnet.node_subnet_id)]
        if vnet.pod_subnet_id is not None:
            scopes.append(("pods", vnet.pod_subnet_id))
        return [
            authorization.RoleAssignment(
                f"{self.name}-subnet-access-{label}",
                principal_id=principal,
                principal_type="ServicePrincipal",
                role_definition_id=role,
                scope=scope,
                opts=self.child_opts(),
            )
            for label, scope in scopes
        ]
