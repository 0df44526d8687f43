"""The AKS cluster's VNet: node subnet, pod subnet (flat mode) and their NSG.

The NSG admits only traffic from inside the VNet and from Azure's load balancer
probes (inbound), and denies the Internet explicitly. InfiniBand traffic never
crosses it: IB is a separate fabric, not part of the VNet. AKS keeps its own NSG
on the node NICs in the node resource group for LoadBalancer services.
"""

from __future__ import annotations

from dataclasses import dataclass

import pulumi
from pulumi_azure_native import network

from gpu_fabric.clouds.azure.layout import NetworkLayout

AKS_DELEGATION = "Microsoft.ContainerService/managedClusters"


@dataclass
class VnetInfo:
    vnet_id: pulumi.Input[str] | None
    node_subnet: network.Subnet | None
    node_subnet_id: pulumi.Input[str]
    pod_subnet: network.Subnet | None
    pod_subnet_id: pulumi.Input[str] | None

    @property
    def subnets(self) -> list[network.Subnet]:
        return [s for s in (self.node_subnet, self.pod_subnet) if s is not None]


def security_rules(layout: NetworkLayout) -> list[network.SecurityRuleArgs]:
    """Inbound: VNet-internal and Azure LB probes only; everything else denied."""
    sources = [layout.vnet_cidr] + ([layout.pod_cidr] if layout.pod_cidr else [])
    return [
        network.SecurityRuleArgs(
            name="allow-cluster-internal", priority=100, direction="Inbound", access="Allow",
            protocol="*", source_address_prefixes=sources, source_port_range="*",
            destination_address_prefix=layout.vnet_cidr, destination_port_range="*",
            description="Nodes and pods of this cluster talk to each other",
        ),
        network.SecurityRuleArgs(
            name="allow-azure-lb-probes", priority=110, direction="Inbound", access="Allow",
            protocol="*", source_address_prefix="AzureLoadBalancer", source_port_range="*",
            destination_address_prefix=layout.vnet_cidr, destination_port_range="*",
            description="Health probes of the AKS load balancer",
        ),
        network.SecurityRuleArgs(
            name="deny-internet-inbound", priority=4000, direction="Inbound", access="Deny",
            protocol="*", source_address_prefix="Internet", source_port_range="*",
            destination_address_prefix="*", destination_port_range="*",
            description="No inbound connection from the Internet to nodes",
        ),
    ]


def create_vnet(
    name: str,
    layout: NetworkLayout,
    resource_group: pulumi.Input[str],
    location: str,
    tags: dict[str, str],
    opts: pulumi.ResourceOptions,
) -> VnetInfo:
    """VNet, NSG and subnets named ``<name>-vnet``, ``<name>-nsg``, ``<name>-nodes``/``-pods``."""
    if layout.existing_subnet_id:
        return VnetInfo(None, None, layout.existing_subnet_id, None, None)
    # Fixed names: a replacement deletes first (plan_facts UNIQUE_NAMES says why).
    opts = pulumi.ResourceOptions.merge(opts, pulumi.ResourceOptions(delete_before_replace=True))
    nsg = network.NetworkSecurityGroup(
        f"{name}-nsg",
        network_security_group_name=f"{name}-nsg",
        resource_group_name=resource_group,
        location=location,
        security_rules=security_rules(layout),
        tags=tags,
        opts=opts,
    )
    vnet = network.VirtualNetwork(
        f"{name}-vnet",
        virtual_network_name=f"{name}-vnet",
        resource_group_name=resource_group,
        location=location,
        address_space=network.AddressSpaceArgs(address_prefixes=[layout.vnet_cidr]),
        tags=tags,
        # Subnets are separate resources below; the VNet must not own a list of them.
        opts=pulumi.ResourceOptions.merge(opts, pulumi.ResourceOptions(ignore_changes=["subnets"])),
    )
    nodes = network.Subnet(
        f"{name}-nodes",
        subnet_name="nodes",
        resource_group_name=resource_group,
        virtual_network_name=vnet.name,
        address_prefix=layout.node_subnet,
        network_security_group=network.NetworkSecurityGroupArgs(id=nsg.id),
        opts=opts,
    )
    pods = None
    if layout.pod_subnet:
        pods = network.Subnet(
            f"{name}-pods",
            subnet_name="pods",
            resource_group_name=resource_group,
            virtual_network_name=vnet.name,
            address_prefix=layout.pod_subnet,
            network_security_group=network.NetworkSecurityGroupArgs(id=nsg.id),
            # AKS delegates the pod subnet itself; declaring it avoids a diff on every up.
            delegations=[network.DelegationArgs(name="aks", service_name=AKS_DELEGATION)],
            # Subnets of one VNet are updated one at a time by ARM.
            opts=pulumi.ResourceOptions.merge(opts, pulumi.ResourceOptions(depends_on=[nodes])),
        )
    return VnetInfo(vnet.id, nodes, nodes.id, pods, pods.id if pods else None)
