"""AzureGpuCluster: AKS with ND-series InfiniBand GPU pools (type ``gpufabric:azure:GpuCluster``).

Children (names derived from the component name ``<n>``, a compatibility surface):

* ``<n>-rg``: the resource group (unless ``azure.resource_group`` names an existing one);
* ``<n>-nsg``, ``<n>-vnet``, ``<n>-nodes`` (and ``<n>-pods`` in flat mode): the network;
* ``<n>-ib-feature``: the ``AKSInfinibandSupport`` subscription feature (manage mode);
* ``<n>-aks``: the managed cluster with its system pool;
* ``<n>-subnet-access-<subnet>``: Network Contributor for the cluster identity on each subnet;
* ``<n>-pool-<pool>``: one ND agent pool (one VM scale set, so one IB fabric) per GPU pool.

Everything that can be wrong with the spec is found by the pure
:func:`~components.clouds.azure.layout.plan_layout` before anything is registered.
"""

from __future__ import annotations

import asyncio
import base64
from collections.abc import Awaitable, Callable
from typing import Any

import pulumi
from pulumi_azure_native import authorization, containerservice, features, resources

from components.catalog import Cloud, GpuVendor
from components.clouds.azure.kubernetes import operator_installs_driver
from components.clouds.azure.layout import (
    FEATURE_NAME,
    FEATURE_NAMESPACE,
    AzureLayout,
    GpuPoolLayout,
    plan_layout,
)
from components.clouds.azure.network import VnetInfo, create_vnet
from components.cluster import ClusterInfra, GpuCluster, NodePoolInfo
from components.fabric.description import FabricDescription, describe_cluster
from components.security import SecretsEncryptionSpec, effective_api_access
from components.spec import ClusterSpec

# Built-in role "Network Contributor" (join/read the subnets the node pools use).
NETWORK_CONTRIBUTOR = "4d97b98b-1d4f-4787-a291-c67834d212e7"
# Built-in role "Azure Kubernetes Service RBAC Cluster Admin" (MicrosoftDocs/azure-docs
# articles/role-based-access-control/built-in-roles/containers.md): the identity running
# `pulumi up` installs the fabric layer through Entra ID once local accounts are off.
AKS_RBAC_CLUSTER_ADMIN = "b1ff04bb-8a4e-4dc4-8eb5-8693973ce19b"


class InfinibandFeatureError(RuntimeError):
    """The subscription's AKSInfinibandSupport state does not fit the GPU pools."""


def check_feature_state(state: str | None, wanted: str) -> str:
    """Raise unless the feature state fits (``wanted``: registered | unregistered)."""
    registered = state == "Registered"
    if wanted == "registered" and not registered:
        raise InfinibandFeatureError(
            f"azure.infiniband_feature: the subscription feature {FEATURE_NAMESPACE}/"
            f"{FEATURE_NAME} is '{state}', but ND A100/H100/H200/MI300X pools need it "
            "'Registered' (so a pool lands on one InfiniBand fabric). Run: az feature register "
            f"--namespace {FEATURE_NAMESPACE} --name {FEATURE_NAME}; wait until `az feature show` "
            f"says Registered; az provider register -n {FEATURE_NAMESPACE}. Or set "
            "azure.infiniband_feature: manage"
        )
    if wanted == "unregistered" and registered:
        raise InfinibandFeatureError(
            f"azure.infiniband_feature: the subscription feature {FEATURE_NAMESPACE}/"
            f"{FEATURE_NAME} is Registered, but ND GB200/GB300 v6 pools need it unregistered. "
            f"Run: az feature unregister --namespace {FEATURE_NAMESPACE} --name {FEATURE_NAME}; "
            f"az provider register -n {FEATURE_NAMESPACE}"
        )
    return str(state)


# Registration is asynchronous: Azure's scripts poll `az feature show` until Registered
# before `az aks nodepool add` (Azure/aks-rdma-infiniband prerequisites). AKS preview
# features usually register within minutes; past this the up fails with what to do.
FEATURE_WAIT_SECONDS = 30 * 60
FEATURE_POLL_SECONDS = 30


async def wait_for_registered(
    state: str | None,
    read_state: Callable[[], Awaitable[str | None]],
    *,
    timeout: float = FEATURE_WAIT_SECONDS,
    interval: float = FEATURE_POLL_SECONDS,
    sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
) -> str:
    """Poll the AKSInfinibandSupport state until ``Registered`` (the GPU pool waits on it).

    Fails with the manual steps after ``timeout`` seconds, before any ND VM exists.
    """
    waited = 0.0
    while state != "Registered":
        if waited >= timeout:
            raise InfinibandFeatureError(
                f"azure.infiniband_feature: {FEATURE_NAMESPACE}/{FEATURE_NAME} was registered "
                f"but is still '{state}' after {int(waited)} s, so the ND pool was not created "
                "(it could land off the InfiniBand fabric). Wait until `az feature show "
                f"--namespace {FEATURE_NAMESPACE} --name {FEATURE_NAME}` says Registered, run "
                f"`az provider register -n {FEATURE_NAMESPACE}`, then `pulumi up` again"
            )
        await sleep(interval)
        waited += interval
        state = await read_state()
    return state


def _taint(fabric: FabricDescription) -> list[str]:
    return [f"{t.key}={t.value}:{t.effect}" if t.value else f"{t.key}:{t.effect}"
            for t in fabric.taints]


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
                tags=tags, opts=self.child_opts(),
            ).name

        vnet = create_vnet(n, layout.network, group, location, tags, self.child_opts())
        feature_gate = self._infiniband_feature(layout)
        cluster = self._managed_cluster(layout, group, location, tags, vnet)
        access = self._subnet_access(cluster, vnet)
        admin = self._deployer_admin(cluster)

        pools = []
        infos = []
        for pool_layout in layout.pools:
            fabric = self.fabrics[pool_layout.name]
            pool = self._gpu_pool(
                pool_layout, fabric, layout, group, cluster, vnet, tags,
                depends_on=[*access, *feature_gate[0]], gate=feature_gate[1],
            )
            pools.append(pool)
            pool_spec = spec.pool(pool_layout.name)
            infos.append(NodePoolInfo(pool_layout.name, pool_layout.machine,
                                      pool_spec.node_count, pool.name))

        credentials = containerservice.list_managed_cluster_user_credentials_output(
            resource_group_name=group,
            resource_name=cluster.name,
            # Entra ID only (local accounts are off): a kubelogin exec kubeconfig.
            format="exec",
        )
        kubeconfig: pulumi.Output[str] = pulumi.Output.secret(
            credentials.apply(_decode_kubeconfig)
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

    def _infiniband_feature(
        self, layout: AzureLayout
    ) -> tuple[list[pulumi.Resource], pulumi.Output[str] | None]:
        """Resources GPU pools wait for, and an Output the pool's VM size waits on: it
        resolves once the feature is Registered (manage) or fails (check, timeout)."""
        if layout.register_feature:
            feature = features.SubscriptionFeatureRegistration(
                f"{self.name}-ib-feature",
                provider_namespace=FEATURE_NAMESPACE,
                feature_name=FEATURE_NAME,
                properties=features.SubscriptionFeatureRegistrationPropertiesArgs(),
                # Subscription-wide: deleting this stack must not unregister it under
                # other clusters' ND pools.
                opts=self.child_opts(retain_on_delete=True),
            )
            # The registration resource returns at once (state Registering); the pool's
            # VM size waits until the subscription says Registered.

            async def read_state() -> str | None:
                found = features.get_subscription_feature_registration(
                    provider_namespace=FEATURE_NAMESPACE, feature_name=FEATURE_NAME,
                    opts=pulumi.InvokeOptions(parent=self),
                )
                return found.properties.state if found.properties else None

            gate = feature.properties.apply(
                lambda p: wait_for_registered(p.state if p else None, read_state)
            )
            return [feature], gate
        if layout.check_feature:
            wanted = layout.feature_state
            state = features.get_subscription_feature_registration_output(
                provider_namespace=FEATURE_NAMESPACE, feature_name=FEATURE_NAME,
                opts=pulumi.InvokeOutputOptions(parent=self),
            ).apply(lambda r: check_feature_state(
                r.properties.state if r.properties else None, wanted
            ))
            return [], state
        return [], None

    def _managed_cluster(
        self,
        layout: AzureLayout,
        group: pulumi.Input[str],
        location: str,
        tags: dict[str, str],
        vnet: VnetInfo,
    ) -> containerservice.ManagedCluster:
        spec = self.spec
        options = spec.azure
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
        auto = spec.kubernetes.auto_upgrade
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
                node_os_upgrade_channel="NodeImage" if auto else "None",
            ),
            tags=tags,
            opts=self.child_opts(depends_on=vnet.subnets),
        )

    def _deployer_admin(self, cluster: containerservice.ManagedCluster) -> pulumi.Resource:
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

    def _gpu_pool(
        self,
        pool: GpuPoolLayout,
        fabric: FabricDescription,
        layout: AzureLayout,
        group: pulumi.Input[str],
        cluster: containerservice.ManagedCluster,
        vnet: VnetInfo,
        tags: dict[str, str],
        *,
        depends_on: list[pulumi.Resource],
        gate: pulumi.Output[str] | None,
    ) -> containerservice.AgentPool:
        spec_pool = self.spec.pool(pool.name)
        machine = pool.machine
        # The VM size is only known once the feature state passed (manage: Registered;
        # check: the wanted state): a failure stops the pool before any ND VM exists.
        vm_size: pulumi.Input[str] = (
            gate.apply(lambda _: machine.name) if gate is not None else machine.name
        )
        nvidia = machine.gpu.vendor is GpuVendor.NVIDIA
        autoscale = spec_pool.min_nodes is not None
        return containerservice.AgentPool(
            f"{self.name}-pool-{pool.name}",
            agent_pool_name=pool.name,
            resource_group_name=group,
            resource_name_=cluster.name,
            vm_size=vm_size,
            count=spec_pool.node_count,
            enable_auto_scaling=autoscale or None,
            min_count=spec_pool.min_nodes,
            max_count=spec_pool.max_nodes,
            mode="User",
            type="VirtualMachineScaleSets",
            os_type="Linux",
            os_sku=pool.os_sku,
            gpu_profile=containerservice.GPUProfileArgs(
                driver=containerservice.GPUDriver.INSTALL if pool.aks_driver
                else containerservice.GPUDriver.NONE
            ) if nvidia else None,
            node_taints=_taint(fabric),
            node_labels=dict(fabric.node_labels),
            vnet_subnet_id=vnet.node_subnet_id,
            pod_subnet_id=vnet.pod_subnet_id,
            availability_zones=list(pool.zones) or None,
            scale_set_priority="Spot" if pool.spot else None,
            scale_set_eviction_policy="Delete" if pool.spot else None,
            spot_max_price=-1 if pool.spot else None,
            os_disk_size_gb=spec_pool.disk_size_gb,
            orchestrator_version=self.spec.kubernetes.version,
            # Surge would need a spare ND VM (rarely available): replace in place, one at a time.
            upgrade_settings=containerservice.AgentPoolUpgradeSettingsArgs(
                max_surge="0", max_unavailable="1",
            ),
            tags={**tags, "gpufabric-pool": pool.name},
            opts=self.child_opts(depends_on=depends_on),
        )
