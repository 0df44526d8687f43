"""The VPC of an EKS GPU cluster: subnets per AZ, the GPU subnet, IGW, NAT, routes.

Or, with ``aws.existing_vpc``, the ids the user gives (nothing is created).
Subnet tags are the ones EKS and the AWS Load Balancer Controller look for.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import pulumi
import pulumi_aws as aws

from gpu_fabric.clouds.aws.layout import NetworkPlan, SubnetPlan

Opts = Callable[..., pulumi.ResourceOptions]


@dataclass
class Network:
    vpc_id: pulumi.Input[str]
    private_subnet_ids: list[pulumi.Input[str]]
    gpu_subnet_id: pulumi.Input[str]
    # Resources the node groups must wait for (NAT routes: nodes pull images at boot).
    ready: list[pulumi.Resource] = field(default_factory=list)


def existing_network(
    vpc_id: pulumi.Input[str], private: list[pulumi.Input[str]], gpu: pulumi.Input[str]
) -> Network:
    return Network(vpc_id, list(private), gpu)


def _tags(base: dict[str, str], name: str, **extra: str) -> dict[str, str]:
    return {**base, "Name": name, **extra}


def create_network(
    name: str, cluster_name: str, cidr: str, plan: NetworkPlan, tags: dict[str, str], opts: Opts
) -> Network:
    owned = {f"kubernetes.io/cluster/{cluster_name}": "shared"}
    vpc = aws.ec2.Vpc(
        f"{name}-vpc",
        cidr_block=cidr,
        enable_dns_hostnames=True,  # EKS private endpoint and node names need DNS
        enable_dns_support=True,
        tags=_tags(tags, f"{cluster_name}-vpc"),
        opts=opts(),
    )

    def subnet(sub: SubnetPlan, role: dict[str, str]) -> aws.ec2.Subnet:
        return aws.ec2.Subnet(
            f"{name}-{sub.key}",
            vpc_id=vpc.id,
            cidr_block=sub.cidr,
            availability_zone=sub.zone,
            # Never a public IP on instances: EC2 refuses one with several interfaces.
            map_public_ip_on_launch=False,
            tags=_tags(tags, f"{cluster_name}-{sub.key}", **owned, **role),
            opts=opts(),
        )

    private = [subnet(s, {"kubernetes.io/role/internal-elb": "1"}) for s in plan.private]
    public = [subnet(s, {"kubernetes.io/role/elb": "1"}) for s in plan.public]
    gpu = subnet(plan.gpu, {"gpufabric.dev/subnet": "gpu"})

    igw = aws.ec2.InternetGateway(
        f"{name}-igw", vpc_id=vpc.id, tags=_tags(tags, f"{cluster_name}-igw"), opts=opts()
    )
    public_rt = aws.ec2.RouteTable(
        f"{name}-public-rt", vpc_id=vpc.id, tags=_tags(tags, f"{cluster_name}-public"),
        opts=opts(),
    )
    ready: list[pulumi.Resource] = [
        aws.ec2.Route(
            f"{name}-public-default", route_table_id=public_rt.id,
            destination_cidr_block="0.0.0.0/0", gateway_id=igw.id, opts=opts(),
        )
    ]
    for sub_plan, sub in zip(plan.public, public, strict=True):
        aws.ec2.RouteTableAssociation(
            f"{name}-{sub_plan.key}-rta", subnet_id=sub.id, route_table_id=public_rt.id,
            opts=opts(),
        )

    nats: dict[str, aws.ec2.NatGateway] = {}
    for zone in plan.nat_zones:
        idx = plan.zones.index(zone)
        eip = aws.ec2.Eip(
            f"{name}-nat-eip-{idx}", domain="vpc",
            tags=_tags(tags, f"{cluster_name}-nat-{zone}"), opts=opts(),
        )
        nats[zone] = aws.ec2.NatGateway(
            f"{name}-nat-{idx}", allocation_id=eip.id, subnet_id=public[idx].id,
            tags=_tags(tags, f"{cluster_name}-nat-{zone}"),
            opts=opts(depends_on=[igw]),
        )

    private_rts: list[aws.ec2.RouteTable] = []

    def private_route_table(key: str, sub: aws.ec2.Subnet, zone: str) -> None:
        nat = nats.get(zone) or nats[plan.nat_zones[0]]
        rt = aws.ec2.RouteTable(
            f"{name}-{key}-rt", vpc_id=vpc.id, tags=_tags(tags, f"{cluster_name}-{key}"),
            opts=opts(),
        )
        ready.append(aws.ec2.Route(
            f"{name}-{key}-default", route_table_id=rt.id, destination_cidr_block="0.0.0.0/0",
            nat_gateway_id=nat.id, opts=opts(),
        ))
        aws.ec2.RouteTableAssociation(
            f"{name}-{key}-rta", subnet_id=sub.id, route_table_id=rt.id, opts=opts()
        )
        private_rts.append(rt)

    for sub_plan, sub in zip(plan.private, private, strict=True):
        private_route_table(sub_plan.key, sub, sub_plan.zone)
    private_route_table(plan.gpu.key, gpu, plan.gpu.zone)
    # S3 through a gateway endpoint, not the NAT: checkpoints, datasets and image layers
    # from S3 skip the NAT's bandwidth and per-GB charge (no cost for the endpoint). As
    # awsome-distributed-training's HyperPod EKS stack adds (nested-stacks/
    # s3-endpoint-stack.yaml lines 28-35: com.amazonaws.<region>.s3 on the private route table).
    region = plan.gpu_zone[:-1]
    aws.ec2.VpcEndpoint(
        f"{name}-s3", vpc_id=vpc.id, service_name=f"com.amazonaws.{region}.s3",
        vpc_endpoint_type="Gateway", route_table_ids=[rt.id for rt in private_rts],
        tags=_tags(tags, f"{cluster_name}-s3"), opts=opts(),
    )
    return Network(vpc.id, [s.id for s in private], gpu.id, ready)


def network_outputs(net: Network) -> dict[str, Any]:
    return {
        "vpc_id": net.vpc_id,
        "private_subnet_ids": net.private_subnet_ids,
        "gpu_subnet_id": net.gpu_subnet_id,
    }
