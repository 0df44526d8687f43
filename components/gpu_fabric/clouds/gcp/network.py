"""VPCs, subnets and firewall rules of a GKE GPU cluster, from the pure layout.

Child names are ``<component>-<vpc key>`` / ``<component>-<subnet key>`` (e.g.
``dranet-rdma-sub-3``) and the GCP names follow the same pattern from the
cluster name: stable, and equal to the seed's names for a cluster called
``dranet``. Existing VPCs (``gcp.existing_networks``) are referenced by name and
get no resources.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import pulumi
import pulumi_gcp as gcp

from gpu_fabric.clouds.gcp.egress import nat_name, router_name
from gpu_fabric.clouds.gcp.layout import GcpLayout, Vpc

ROCE_PROFILE_URL = "projects/{project}/global/networkProfiles/{profile}"


@dataclass
class CreatedVpc:
    """A VPC as node pools reference it: names (Outputs when created) and the resources."""

    layout: Vpc
    name: pulumi.Input[str]
    subnet_names: list[pulumi.Input[str]]
    resources: list[pulumi.Resource] = field(default_factory=list)
    network: gcp.compute.Network | None = None
    subnets: list[gcp.compute.Subnetwork] = field(default_factory=list)

    @property
    def ids(self) -> dict[str, Any]:
        """Output view: network id and subnet ids (names for existing VPCs)."""
        return {
            "network": self.network.id if self.network else self.name,
            "subnets": [s.id for s in self.subnets] if self.subnets else self.subnet_names,
        }


def create_vpcs(
    prefix: str,
    layout: GcpLayout,
    *,
    project: str,
    region: str,
    opts: Callable[..., pulumi.ResourceOptions],
) -> dict[str, CreatedVpc]:
    """Every VPC of the layout, keyed by layout key (``net``, ``rdma-net``...)."""
    return {
        vpc.key: _vpc(prefix, vpc, project=project, region=region, opts=opts)
        for vpc in (layout.primary, *layout.fabric_vpcs)
    }


def _vpc(
    prefix: str, vpc: Vpc, *, project: str, region: str,
    opts: Callable[..., pulumi.ResourceOptions],
) -> CreatedVpc:
    if vpc.existing:
        return CreatedVpc(vpc, vpc.name, [s.name for s in vpc.subnets])
    network = gcp.compute.Network(
        f"{prefix}-{vpc.key}",
        name=vpc.name,
        project=project,
        auto_create_subnetworks=False,
        routing_mode="REGIONAL",
        mtu=vpc.mtu,
        network_profile=(
            ROCE_PROFILE_URL.format(project=project, profile=vpc.rdma_profile)
            if vpc.rdma_profile else None
        ),
        description=_description(vpc),
        opts=opts(delete_before_replace=True),  # fixed name (plan_facts UNIQUE_NAMES)
    )
    subnets = [
        gcp.compute.Subnetwork(
            f"{prefix}-{sub.key}",
            name=sub.name,
            project=project,
            region=region,
            network=network.id,
            ip_cidr_range=sub.cidr,
            # Nodes are private by default; let them reach Google APIs (image pulls).
            private_ip_google_access=vpc.key == "net",
            opts=opts(delete_before_replace=True),  # fixed name (plan_facts UNIQUE_NAMES)
        )
        for sub in vpc.subnets
    ]
    created: list[pulumi.Resource] = [network, *subnets]
    if vpc.firewall and vpc.source_ranges:
        created.append(gcp.compute.Firewall(
            f"{prefix}-{vpc.key.removesuffix('-net')}-internal",
            name=f"{vpc.name.removesuffix('-net')}-internal",
            project=project,
            network=network.id,
            direction="INGRESS",
            allows=[
                gcp.compute.FirewallAllowArgs(protocol="tcp", ports=["0-65535"]),
                gcp.compute.FirewallAllowArgs(protocol="udp", ports=["0-65535"]),
                gcp.compute.FirewallAllowArgs(protocol="icmp"),
            ],
            # Only this fabric's own ranges: never 0.0.0.0/0.
            source_ranges=vpc.source_ranges,
            opts=opts(delete_before_replace=True),  # fixed name (plan_facts UNIQUE_NAMES)
        ))
    return CreatedVpc(vpc, network.name, [s.name for s in subnets], created, network, subnets)


def _description(vpc: Vpc) -> str:
    if vpc.rdma_profile:
        return f"RoCE VPC for GPU RDMA NICs ({len(vpc.subnets)} subnets, one per NIC)"
    if vpc.key == "net":
        return "Primary VPC: nodes, pods, services"
    if vpc.key == "gvnic-net":
        return "Second gVNIC VPC of RDMA GPU machines"
    return "GPUDirect-TCPX/TCPXO GPU NIC VPC"


def create_nat(
    prefix: str, vpc: CreatedVpc, *, project: str, region: str,
    opts: Callable[..., pulumi.ResourceOptions],
) -> list[pulumi.Resource]:
    """Cloud Router + Cloud NAT for the node VPC's region (see ``egress``).

    Only the node subnet (all its ranges: nodes and pods) is translated, so a NAT
    someone else runs for other subnets of an existing VPC does not conflict. IPs are
    allocated by Google (``AUTO_ONLY``); only errors are logged.
    """
    network = vpc.network.id if vpc.network else vpc.name
    router = gcp.compute.Router(
        f"{prefix}-router",
        name=router_name(vpc.layout.name),
        project=project,
        region=region,
        network=network,
        description="Cloud Router for the Cloud NAT of private GKE nodes",
        opts=opts(delete_before_replace=True),  # fixed name (plan_facts UNIQUE_NAMES)
    )
    subnet = vpc.subnets[0].id if vpc.subnets else vpc.subnet_names[0]
    nat = gcp.compute.RouterNat(
        f"{prefix}-nat",
        name=nat_name(region),
        project=project,
        region=region,
        router=router.name,
        nat_ip_allocate_option="AUTO_ONLY",
        source_subnetwork_ip_ranges_to_nat="LIST_OF_SUBNETWORKS",
        subnetworks=[gcp.compute.RouterNatSubnetworkArgs(
            name=subnet, source_ip_ranges_to_nats=["ALL_IP_RANGES"],
        )],
        log_config=gcp.compute.RouterNatLogConfigArgs(enable=True, filter="ERRORS_ONLY"),
        opts=opts(delete_before_replace=True),  # fixed name (plan_facts UNIQUE_NAMES)
    )
    return [router, nat]
