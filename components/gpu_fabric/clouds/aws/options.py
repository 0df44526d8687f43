"""The ``aws:`` section of the cluster spec."""

from __future__ import annotations

import ipaddress
import re
from typing import Literal, Self

from pydantic import Field, field_validator, model_validator

from gpu_fabric.clouds.options_base import CloudOptions


class AwsExistingVpc(CloudOptions):
    vpc_id: str = Field(pattern=r"^vpc-[0-9a-f]+$")
    private_subnet_ids: list[str] = Field(
        min_length=2, description="Private subnets in >= 2 AZs (control plane, system nodes)"
    )
    gpu_subnet_id: str = Field(
        pattern=r"^subnet-[0-9a-f]+$",
        description="Private subnet in location.zone for the GPU nodes (EFA stays in one AZ)",
    )

    @field_validator("private_subnet_ids")
    @classmethod
    def _subnets(cls, value: list[str]) -> list[str]:
        bad = [s for s in value if not re.match(r"^subnet-[0-9a-f]+$", s)]
        if bad:
            raise ValueError(f"not subnet ids: {', '.join(bad)} (expected subnet-0123abcd...)")
        return value


class AwsOptions(CloudOptions):
    availability_zones: list[str] = Field(
        default_factory=list,
        description="AZs for control-plane and system subnets (>= 2). Default: the GPU zone plus "
        "the next AZ of the region",
    )
    existing_vpc: AwsExistingVpc | None = None
    efa_interface_layout: Literal["ena-primary", "efa-primary"] = Field(
        default="ena-primary",
        description="ena-primary: card 0 device 0 is a plain ENA and every EFA is efa-only "
        "(current AWS guidance, saves IPs). efa-primary: card 0 device 0 is a combined EFA+ENA.",
    )
    admin_principal_arns: list[str] = Field(
        default_factory=list, description="IAM principals given cluster-admin via access entries"
    )
    endpoint_public_access: bool = True
    public_access_cidrs: list[ipaddress.IPv4Network] = Field(default_factory=list)
    single_nat_gateway: bool = Field(default=True, description="One NAT gateway for all AZs")
    vpc_cni_version: str | None = Field(
        default=None, pattern=r"^v[0-9]+\.[0-9]+\.[0-9]+-eksbuild\.[0-9]+$",
        description="Version of the managed vpc-cni EKS add-on (e.g. v1.20.1-eksbuild.3); "
        "default: the pinned one. efa-only interfaces need 1.18.5 or later",
    )

    placement_groups: dict[str, str] = Field(
        default_factory=dict,
        description="Existing cluster placement group per GPU pool name (pool -> group name): "
        "a reservation made in a cluster placement group is used by launching into that "
        "group (EC2 cr-cpg); no new group is created for such a pool",
    )

    @field_validator("placement_groups")
    @classmethod
    def _groups(cls, value: dict[str, str]) -> dict[str, str]:
        # EC2 CreatePlacementGroup: GroupName is up to 255 ASCII characters.
        bad = [g for g in value.values() if not g or len(g) > 255 or not g.isascii()]
        if bad:
            raise ValueError(f"not placement group names: {', '.join(map(repr, bad))} "
                             "(1-255 ASCII characters)")
        return value

    @field_validator("availability_zones")
    @classmethod
    def _azs(cls, value: list[str]) -> list[str]:
        if len(set(value)) != len(value):
            raise ValueError("availability_zones lists an AZ twice")
        return value

    @field_validator("admin_principal_arns")
    @classmethod
    def _arns(cls, value: list[str]) -> list[str]:
        bad = [a for a in value if not a.startswith("arn:aws")]
        if bad:
            raise ValueError(f"not IAM ARNs: {', '.join(bad)}")
        return value

    @model_validator(mode="after")
    def _enough_azs(self) -> Self:
        if self.availability_zones and len(self.availability_zones) < 2:
            raise ValueError("EKS needs subnets in at least 2 availability_zones")
        return self
