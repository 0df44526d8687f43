"""The VCN of an OKE cluster: subnets, gateways, route tables and security lists.

Rules follow OKE's "Network Resource Configuration" for enhanced clusters,
narrowed to the cluster's own ranges: nothing enters any subnet from
``0.0.0.0/0``. Egress to ``0.0.0.0/0`` (through the NAT gateway, for image
pulls) is the only world-wide rule. Path-MTU ICMP (type 3 code 4) is allowed
from the VCN only. The RDMA network of the GPU nodes is outside the VCN (OCI
wires it between the members of a compute cluster), so no rule here touches it.
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import pulumi
from pulumi_oci import core

from gpu_fabric.clouds.oci.addressing import AddressPlan

ANYWHERE = "0.0.0.0/0"
ALL = "all"
TCP = "6"
ICMP = "1"
OSN_SERVICES = "All .* Services In Oracle Services Network"
NODE_PORTS = (30000, 32767)
KUBE_PROXY_HEALTH = 10256
API = 6443
OKE_CONTROL = 12250  # worker -> control plane (OKE proxymux)


@dataclass(frozen=True)
class NetworkIds:
    """What the cluster and node pools need from the network (new or existing)."""

    vcn_id: pulumi.Input[str]
    endpoint_subnet_id: pulumi.Input[str]
    worker_subnet_id: pulumi.Input[str]
    pod_subnet_id: pulumi.Input[str] | None
    lb_subnet_id: pulumi.Input[str] | None


def dns_label(text: str, limit: int = 15) -> str:
    """An OCI DNS label: letters and digits, starting with a letter, at most 15 chars."""
    label = re.sub(r"[^a-z0-9]", "", text.lower())
    if not label or not label[0].isalpha():
        label = "k" + label
    return label[:limit]


def _ingress(source: str, protocol: str, description: str, *, ports: tuple[int, int] | None = None,
             icmp: tuple[int, int] | None = None) -> core.SecurityListIngressSecurityRuleArgs:
    return core.SecurityListIngressSecurityRuleArgs(
        protocol=protocol,
        source=source,
        source_type="CIDR_BLOCK",
        description=description,
        tcp_options=core.SecurityListIngressSecurityRuleTcpOptionsArgs(min=ports[0], max=ports[1])
        if ports else None,
        icmp_options=core.SecurityListIngressSecurityRuleIcmpOptionsArgs(type=icmp[0], code=icmp[1])
        if icmp else None,
    )


def _egress(destination: pulumi.Input[str], protocol: str, description: str, *,
            ports: tuple[int, int] | None = None, icmp: tuple[int, int] | None = None,
            service: bool = False) -> core.SecurityListEgressSecurityRuleArgs:
    return core.SecurityListEgressSecurityRuleArgs(
        protocol=protocol,
        destination=destination,
        destination_type="SERVICE_CIDR_BLOCK" if service else "CIDR_BLOCK",
        description=description,
        tcp_options=core.SecurityListEgressSecurityRuleTcpOptionsArgs(min=ports[0], max=ports[1])
        if ports else None,
        icmp_options=core.SecurityListEgressSecurityRuleIcmpOptionsArgs(type=icmp[0], code=icmp[1])
        if icmp else None,
    )


class OkeNetwork:
    """Creates the VCN and everything in it with the options ``child()`` gives (parent,
    aliases): :class:`~gpu_fabric.clouds.oci.blocks.OciFabricNetwork` passes its own."""

    def __init__(
        self,
        name: str,
        child: Callable[..., pulumi.ResourceOptions],
        compartment_id: str,
        addresses: AddressPlan,
        *,
        tags: dict[str, str],
        endpoint_public: bool,
        endpoint_allowed_cidrs: Sequence[str],
        public_load_balancers: bool,
    ) -> None:
        self.name = name
        self.child = child
        self.compartment_id = compartment_id
        self.a = addresses
        self.tags = tags
        vcn_cidr = str(addresses.vcn_blocks[0])
        self.vcn = core.Vcn(
            f"{name}-vcn",
            compartment_id=compartment_id,
            cidr_blocks=[str(b) for b in addresses.vcn_blocks],
            display_name=f"{name}-vcn",
            dns_label=dns_label(name),
            freeform_tags=tags,
            opts=self._opts(),
        )
        services = core.get_services_output(
            filters=[core.GetServicesFilterArgs(name="name", values=[OSN_SERVICES], regex=True)],
            opts=pulumi.InvokeOutputOptions(parent=child().parent),
        )
        service = services.services.apply(lambda s: s[0])
        self.osn_cidr = service.apply(lambda s: s.cidr_block)
        self.nat = core.NatGateway(
            f"{name}-nat", compartment_id=compartment_id, vcn_id=self.vcn.id,
            display_name=f"{name}-nat", freeform_tags=tags, opts=self._opts(),
        )
        self.sgw = core.ServiceGateway(
            f"{name}-sgw", compartment_id=compartment_id, vcn_id=self.vcn.id,
            services=[core.ServiceGatewayServiceArgs(service_id=service.apply(lambda s: s.id))],
            display_name=f"{name}-sgw", freeform_tags=tags, opts=self._opts(),
        )
        self.private_rt = core.RouteTable(
            f"{name}-private-rt", compartment_id=compartment_id, vcn_id=self.vcn.id,
            display_name=f"{name}-private-rt", freeform_tags=tags,
            route_rules=[
                core.RouteTableRouteRuleArgs(
                    network_entity_id=self.nat.id, destination=ANYWHERE,
                    destination_type="CIDR_BLOCK", description="Egress to the internet via NAT",
                ),
                core.RouteTableRouteRuleArgs(
                    network_entity_id=self.sgw.id, destination=self.osn_cidr,
                    destination_type="SERVICE_CIDR_BLOCK",
                    description="OCI services (OKE, registry, object storage) via the SGW",
                ),
            ],
            opts=self._opts(),
        )
        needs_public = endpoint_public or public_load_balancers
        self.igw: core.InternetGateway | None = None
        self.public_rt: core.RouteTable | None = None
        if needs_public:
            self.igw = core.InternetGateway(
                f"{name}-igw", compartment_id=compartment_id, vcn_id=self.vcn.id,
                display_name=f"{name}-igw", enabled=True, freeform_tags=tags, opts=self._opts(),
            )
            self.public_rt = core.RouteTable(
                f"{name}-public-rt", compartment_id=compartment_id, vcn_id=self.vcn.id,
                display_name=f"{name}-public-rt", freeform_tags=tags,
                route_rules=[core.RouteTableRouteRuleArgs(
                    network_entity_id=self.igw.id, destination=ANYWHERE,
                    destination_type="CIDR_BLOCK", description="Public endpoint / LBs",
                )],
                opts=self._opts(),
            )
        workers, pods = str(addresses.workers), str(addresses.pods)
        endpoint, lbs = str(addresses.endpoint), str(addresses.load_balancers)
        npn = addresses.pods_in_vcn
        pmtu = (3, 4)

        endpoint_in = [
            _ingress(workers, TCP, "Workers to the API", ports=(API, API)),
            _ingress(workers, TCP, "Workers to OKE control plane", ports=(OKE_CONTROL,
                                                                           OKE_CONTROL)),
            _ingress(vcn_cidr, ICMP, "Path MTU discovery", icmp=pmtu),
        ]
        if npn:
            endpoint_in += [
                _ingress(pods, TCP, "Pods to the API", ports=(API, API)),
                _ingress(pods, TCP, "Pods to OKE control plane", ports=(OKE_CONTROL,
                                                                         OKE_CONTROL)),
            ]
        endpoint_in += [
            _ingress(cidr, TCP, "Administrators to the public API endpoint", ports=(API, API))
            for cidr in endpoint_allowed_cidrs
        ]
        endpoint_out = [
            _egress(self.osn_cidr, TCP, "Control plane to OCI services", service=True),
            _egress(workers, TCP, "Control plane to workers (kubelet, webhooks)"),
            _egress(workers, ICMP, "Path MTU discovery", icmp=pmtu),
        ]
        if npn:
            endpoint_out.append(_egress(pods, TCP, "Control plane to pods (webhooks)"))

        worker_in = [
            _ingress(workers, ALL, "Node to node"),
            _ingress(endpoint, TCP, "Control plane to workers (kubelet, webhooks, logs)"),
            _ingress(vcn_cidr, ICMP, "Path MTU discovery", icmp=pmtu),
            _ingress(lbs, TCP, "Load balancers to NodePorts", ports=NODE_PORTS),
            _ingress(lbs, TCP, "Load balancer health checks",
                     ports=(KUBE_PROXY_HEALTH, KUBE_PROXY_HEALTH)),
        ]
        if npn:
            worker_in.append(_ingress(pods, ALL, "Pods to nodes"))
        worker_out = [
            _egress(ANYWHERE, ALL, "Image pulls and updates through the NAT gateway"),
        ]
        lb_in = [] if public_load_balancers else [
            _ingress(vcn_cidr, TCP, "Private load balancers: HTTP from the VCN", ports=(80, 80)),
            _ingress(vcn_cidr, TCP, "Private load balancers: HTTPS from the VCN",
                     ports=(443, 443)),
        ]
        lb_out = [
            _egress(workers, TCP, "Load balancers to NodePorts", ports=NODE_PORTS),
            _egress(workers, TCP, "Load balancer health checks",
                    ports=(KUBE_PROXY_HEALTH, KUBE_PROXY_HEALTH)),
        ]
        if npn:
            lb_out.append(_egress(pods, TCP, "Load balancers to pods (native backends)"))

        private_rt = self.private_rt.id
        public_rt = self.public_rt.id if self.public_rt else private_rt
        self.endpoint_subnet = self._subnet(
            "endpoint", endpoint, endpoint_in, endpoint_out,
            public_rt if endpoint_public else private_rt, public=endpoint_public,
        )
        self.worker_subnet = self._subnet("workers", workers, worker_in, worker_out, private_rt)
        self.pod_subnet: core.Subnet | None = None
        if npn:
            pod_in = [
                _ingress(pods, ALL, "Pod to pod"),
                _ingress(workers, ALL, "Nodes to pods"),
                _ingress(endpoint, TCP, "Control plane to pods (webhooks)"),
                _ingress(vcn_cidr, ICMP, "Path MTU discovery", icmp=pmtu),
            ]
            pod_out = [_egress(ANYWHERE, ALL, "Pod egress through the NAT gateway")]
            self.pod_subnet = self._subnet("pods", pods, pod_in, pod_out, private_rt)
        self.lb_subnet = self._subnet(
            "lb", lbs, lb_in, lb_out, public_rt if public_load_balancers else private_rt,
            public=public_load_balancers,
        )

    def ids(self) -> NetworkIds:
        return NetworkIds(
            vcn_id=self.vcn.id,
            endpoint_subnet_id=self.endpoint_subnet.id,
            worker_subnet_id=self.worker_subnet.id,
            pod_subnet_id=self.pod_subnet.id if self.pod_subnet else None,
            lb_subnet_id=self.lb_subnet.id,
        )

    def _opts(self, **kwargs: Any) -> pulumi.ResourceOptions:
        return self.child(**kwargs)

    def _subnet(
        self,
        role: str,
        cidr: str,
        ingress: list[core.SecurityListIngressSecurityRuleArgs],
        egress: list[core.SecurityListEgressSecurityRuleArgs],
        route_table_id: pulumi.Input[str],
        *,
        public: bool = False,
    ) -> core.Subnet:
        ipaddress.IPv4Network(cidr)  # planned by addressing.plan; fail loudly if not a CIDR
        security_list = core.SecurityList(
            f"{self.name}-{role}-sl",
            compartment_id=self.compartment_id,
            vcn_id=self.vcn.id,
            display_name=f"{self.name}-{role}",
            ingress_security_rules=ingress,
            egress_security_rules=egress,
            freeform_tags=self.tags,
            opts=self._opts(),
        )
        return core.Subnet(
            f"{self.name}-{role}-subnet",
            compartment_id=self.compartment_id,
            vcn_id=self.vcn.id,
            cidr_block=cidr,
            display_name=f"{self.name}-{role}",
            dns_label=dns_label(role),
            route_table_id=route_table_id,
            security_list_ids=[security_list.id],
            prohibit_public_ip_on_vnic=not public,
            prohibit_internet_ingress=not public,
            freeform_tags=self.tags,
            opts=self._opts(),
        )
