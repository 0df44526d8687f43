"""``AwsGpuCluster``: an EKS cluster whose GPU node groups talk over EFA.

Creates (children of the component, names derived from its name):

* the VPC of :mod:`gpu_fabric.clouds.aws.layout` (private + public subnet per AZ,
  one private GPU subnet in ``location.zone``, IGW, NAT, routes), unless
  ``aws.existing_vpc`` names one, and the EFA security group: an
  :class:`~gpu_fabric.clouds.aws.blocks.AwsFabricNetwork`;
* IAM roles (cluster, nodes; AWS managed policies only), the EKS cluster with
  access entries (``authentication_mode: API``; admins from
  ``aws.admin_principal_arns``), the OIDC provider for IRSA;
* a system node group, and per GPU pool a launch template with one EFA interface
  per network card, a cluster placement group and an EKS managed node group, an
  :class:`~gpu_fabric.clouds.aws.blocks.AwsEfaNodeGroup` (the blocks carry aliases:
  their children keep the URNs they had as direct children).
"""

from __future__ import annotations

from typing import Any

import pulumi
import pulumi_aws as aws

from gpu_fabric.catalog import Cloud
from gpu_fabric.clouds.aws import iam
from gpu_fabric.clouds.aws.blocks import (
    AwsEfaNodeGroup,
    AwsEfaNodeGroupArgs,
    AwsFabricNetwork,
    AwsFabricNetworkArgs,
    ExistingVpc,
)
from gpu_fabric.clouds.aws.kubeconfig import kubeconfig
from gpu_fabric.clouds.aws.layout import (
    DEFAULT_SYSTEM_INSTANCE,
    addon_versions,
    network_plan,
    options_of,
    partition,
    pool_plans,
    service_cidr,
    vpc_cni_version,
)
from gpu_fabric.clouds.aws.network import Network, network_outputs
from gpu_fabric.clouds.aws.nodegroup import system_node_group
from gpu_fabric.cluster import ClusterInfra, GpuCluster, NodePoolInfo
from gpu_fabric.security import effective_api_access

ADMIN_POLICY = "arn:{partition}:eks::aws:cluster-access-policy/AmazonEKSClusterAdminPolicy"


class AwsGpuCluster(GpuCluster):
    """An EKS cluster with EFA GPU node groups in one AZ."""

    module = "aws"
    cloud = Cloud.AWS

    eks: aws.eks.Cluster

    def _create_infrastructure(self) -> ClusterInfra:
        spec = self.spec
        opts = options_of(spec)
        # Pure derivations first: every refusal happens before the first resource.
        existing = opts.existing_vpc
        plan = network_plan(spec) if existing is None else None
        plans = pool_plans(spec)
        addons = addon_versions(spec)
        svc_cidr = service_cidr(spec)
        part = partition(spec.location.region)
        tags = dict(spec.tags)
        version = spec.kubernetes.parsed
        k8s_version = f"{version.major}.{version.minor}"

        fabric_network = AwsFabricNetwork(
            f"{self.name}-network",
            AwsFabricNetworkArgs(
                name_prefix=self.name, cluster_name=spec.name, cidr=str(spec.network.cidr),
                plan=plan,
                existing=ExistingVpc(
                    vpc_id=existing.vpc_id, private_subnet_ids=list(existing.private_subnet_ids),
                    gpu_subnet_id=existing.gpu_subnet_id,
                ) if existing is not None else None,
                tags=tags,
            ),
            opts=self.child_opts(),
        )
        net = fabric_network.network
        cluster_role, cluster_attach = iam.cluster_role(self.name, part, tags, self.child_opts)
        node_role, node_attach = iam.node_role(self.name, part, tags, self.child_opts)
        self.eks = self._cluster(net, cluster_role, cluster_attach, svc_cidr, k8s_version)
        self._access_entries(part)
        oidc = aws.iam.OpenIdConnectProvider(
            f"{self.name}-oidc",
            url=self.eks.identities.apply(lambda ids: ids[0].oidcs[0].issuer),
            client_id_lists=["sts.amazonaws.com"],
            tags=tags or None,
            opts=self.child_opts(),
        )
        cluster_sg = self.eks.vpc_config.apply(lambda c: str(c.cluster_security_group_id))
        # Fabric rules go only on the group this program owns. The EKS-created cluster SG
        # already allows all inbound from itself (a second copy fails with
        # InvalidPermission.Duplicate), and on the combined efa-primary interface the EFA
        # SG rides along: SG rules are a union, so its self rules cover EFA traffic
        # (terraform-aws-eks v21 adds `all_self_efa` only to the node-group SG it creates).
        efa_sg = fabric_network.efa_security_group
        # Managed vpc-cni at a version that handles efa-only interfaces, installed
        # before compute (terraform-aws-eks `before_compute`): GPU nodes boot with it.
        cni_version = vpc_cni_version(spec, plans)
        # The CNI's ENI permissions on its own role (IRSA), not on the node role.
        cni_role, cni_attach = iam.vpc_cni_role(self.name, part, oidc, tags, self.child_opts)
        vpc_cni = self._addon("vpc-cni", cni_version, tags, cni_attach,
                              service_account_role_arn=cni_role.arn)
        # kube-proxy before compute too; CoreDNS needs nodes to schedule on (as
        # terraform-aws-eks: only add-ons marked before_compute precede node groups).
        kube_proxy = self._addon("kube-proxy", addons.kube_proxy, tags, [])
        system = system_node_group(
            self.name, self.eks, node_role.arn, net.private_subnet_ids,
            spec.system_pool.machine_type or DEFAULT_SYSTEM_INSTANCE,
            spec.system_pool.node_count, k8s_version, tags, self.child_opts,
            depends_on=[*node_attach, *net.ready, vpc_cni, kube_proxy],
        )
        self._addon("coredns", addons.coredns, tags, [system])
        pools: list[NodePoolInfo] = []
        for pool in spec.node_pools:
            block = AwsEfaNodeGroup(
                f"{self.name}-{pool.name}-pool",
                AwsEfaNodeGroupArgs(
                    name_prefix=f"{self.name}-{pool.name}", cluster_name=self.eks.name,
                    node_role_arn=node_role.arn, subnet_id=net.gpu_subnet_id, pool=pool,
                    fabric=self.fabrics[pool.name], cluster_security_group_id=cluster_sg,
                    efa_security_group_id=efa_sg.id, kubernetes_version=k8s_version,
                    efa_interface_layout=opts.efa_interface_layout,
                    vpc_cni_version=cni_version,
                    placement_group_name=opts.placement_groups.get(pool.name), tags=tags,
                    depends_on=[*node_attach, *net.ready, vpc_cni, kube_proxy],
                ),
                opts=self.child_opts(),
            )
            pools.append(NodePoolInfo(pool.name, pool.machine, pool.node_count,
                                      block.node_group.node_group_name))
        region = spec.location.region
        config = pulumi.Output.all(
            self.eks.name, self.eks.endpoint, self.eks.certificate_authority.data, self.eks.arn
        ).apply(lambda a: kubeconfig(str(a[0]), region, str(a[1]), str(a[2] or ""),
                                     str(a[3] or "")))
        return ClusterInfra(
            kubeconfig=pulumi.Output.secret(config),
            cluster_name=self.eks.name,
            node_pools=pools,
            kubernetes_ready=[system],
            extra_outputs=self._outputs(net, oidc, efa_sg),
        )

    # -- pieces -------------------------------------------------------------
    def _addon(
        self, addon: str, version: pulumi.Input[str] | None, tags: dict[str, str],
        depends_on: list[Any], **extra: Any,
    ) -> aws.eks.Addon:
        """One managed EKS add-on, ``<name>-<addon>``. OVERWRITE on create: EKS installed
        self-managed copies (aws-node, kube-proxy, CoreDNS) at creation, the add-on takes
        them over; PRESERVE on update keeps edits made to them since. No version: the
        default EKS picks for the cluster's Kubernetes version."""
        return aws.eks.Addon(
            f"{self.name}-{addon}",
            cluster_name=self.eks.name,
            addon_name=addon,
            addon_version=version,
            resolve_conflicts_on_create="OVERWRITE",
            resolve_conflicts_on_update="PRESERVE",
            tags=tags or None,
            opts=self.child_opts(depends_on=depends_on),
            **extra,
        )

    def _cluster(
        self,
        net: Network,
        role: aws.iam.Role,
        attachments: list[aws.iam.RolePolicyAttachment],
        svc_cidr: str | None,
        version: str,
    ) -> aws.eks.Cluster:
        spec = self.spec
        access = effective_api_access(spec)
        return aws.eks.Cluster(
            f"{self.name}-eks",
            name=spec.name,
            role_arn=role.arn,
            version=version,
            vpc_config=aws.eks.ClusterVpcConfigArgs(
                subnet_ids=net.private_subnet_ids,
                endpoint_private_access=True,
                # api_access: the public endpoint answers only the authorized ranges.
                endpoint_public_access=access.public,
                public_access_cidrs=access.public_cidrs if access.public else None,
            ),
            encryption_config=aws.eks.ClusterEncryptionConfigArgs(
                provider=aws.eks.ClusterEncryptionConfigProviderArgs(
                    key_arn=spec.secrets_encryption.kms_key
                ),
                resources=["secrets"],
            ) if spec.secrets_encryption else None,
            access_config=aws.eks.ClusterAccessConfigArgs(
                # Access entries only (no aws-auth ConfigMap). The identity running Pulumi
                # is admin (it installs the fabric layer); this is fixed at creation.
                authentication_mode="API",
                bootstrap_cluster_creator_admin_permissions=True,
            ),
            kubernetes_network_config=aws.eks.ClusterKubernetesNetworkConfigArgs(
                service_ipv4_cidr=svc_cidr, ip_family="ipv4",
            ) if svc_cidr else None,
            # kubernetes.auto_upgrade false or freeze: EXTENDED support keeps the version past
            # standard support (EKS would otherwise upgrade it and drain GPU jobs).
            upgrade_policy=aws.eks.ClusterUpgradePolicyArgs(
                support_type="STANDARD" if spec.kubernetes.upgrades_automatically else "EXTENDED"
            ),
            enabled_cluster_log_types=["api", "audit", "authenticator"],
            tags=dict(spec.tags) or None,
            # Fixed name: a replacement deletes first (plan_facts UNIQUE_NAMES).
            opts=self.child_opts(depends_on=list(attachments), delete_before_replace=True),
        )

    def _access_entries(self, part: str) -> None:
        for i, arn in enumerate(options_of(self.spec).admin_principal_arns):
            entry = aws.eks.AccessEntry(
                f"{self.name}-admin-{i}",
                cluster_name=self.eks.name,
                principal_arn=arn,
                type="STANDARD",
                opts=self.child_opts(),
            )
            aws.eks.AccessPolicyAssociation(
                f"{self.name}-admin-{i}-policy",
                cluster_name=self.eks.name,
                principal_arn=entry.principal_arn,
                policy_arn=ADMIN_POLICY.format(partition=part),
                access_scope=aws.eks.AccessPolicyAssociationAccessScopeArgs(type="cluster"),
                opts=self.child_opts(),
            )

    def _outputs(
        self, net: Network, oidc: aws.iam.OpenIdConnectProvider, efa_sg: aws.ec2.SecurityGroup
    ) -> dict[str, Any]:
        return {
            "aws": {
                "region": self.spec.location.region,
                "gpu_zone": self.spec.location.zone,
                "cluster_arn": self.eks.arn,
                "oidc_provider_arn": oidc.arn,
                "efa_security_group_id": efa_sg.id,
                **network_outputs(net),
            }
        }
