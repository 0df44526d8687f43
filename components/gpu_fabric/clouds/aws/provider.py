"""AWS (EKS): this cloud's one provider object, the value the registry names.

Every fact the rest of the library asks of AWS is here or reached from here;
importing this module loads only the spec's ``aws:`` section, the rest of the
folder (and pulumi_aws) when a member is called.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from gpu_fabric.catalog import Cloud
from gpu_fabric.clouds.adapter import HOSTNAME, ProviderBase
from gpu_fabric.clouds.aws.options import AwsOptions
from gpu_fabric.clouds.contract import CloudDocs, CloudProvider
from gpu_fabric.errors import Problem

if TYPE_CHECKING:
    from gpu_fabric.spec import CapacitySpec, ClusterSpec
    from gpu_fabric.spec.values import MachineNaming, TagRules


class AwsProvider(ProviderBase):
    cloud = Cloud.AWS
    options_model = AwsOptions
    sdk = "pulumi_aws"
    cluster_class_name = "AwsGpuCluster"
    example_location = ("us-east-1", "us-east-1a")
    docs = CloudDocs(
        "EKS", "https://aws.amazon.com/eks/pricing/",
        "https://aws.amazon.com/ec2/pricing/on-demand/",
        "`aws sso login` (or other AWS credentials)",
    )
    capacity_types = ("on_demand", "spot", "reservation", "capacity_block")
    # EKS labels instances with their EC2 instance topology (outermost first).
    topology_levels = (
        "topology.k8s.aws/network-node-layer-1",
        "topology.k8s.aws/network-node-layer-2",
        "topology.k8s.aws/network-node-layer-3",
        HOSTNAME,
    )
    gpu_taint_value = "true"
    zone_example = "us-east-1a"
    own_device_plugins = ("efa",)
    key_format = (
        re.compile(r"^arn:aws[a-z-]*:kms:[a-z0-9-]+:[0-9]{12}:(key|alias)/[A-Za-z0-9/_-]+$"),
        "arn:aws:kms:REGION:ACCOUNT:key/KEY-ID (symmetric KMS key in the cluster's region)",
    )

    def zone_example_in(self, region: str) -> str:
        return f"{region}a"  # AWS AZs are <region><letter> (us-east-1a)

    def location_problems(self, region: str, zone: str | None) -> list[Problem]:
        from gpu_fabric.clouds.aws.regions import AWS_REGIONS, AWS_ZONE_LETTERS
        from gpu_fabric.regions import unknown_region, unknown_zone

        found = unknown_region(self.cloud, region, AWS_REGIONS)
        zones = [f"{region}{letter}" for letter in AWS_ZONE_LETTERS]
        if found or zone is None or zone in zones:
            return found
        return unknown_zone(self.cloud, region, zone, zones)

    def legacy_api_cidrs(self, options: Any) -> list[str]:
        return [str(c) for c in options.public_access_cidrs] if options else []

    def public_endpoint(self, options: Any, requested: bool) -> bool:
        if options is not None and options.endpoint_public_access is False:  # EKS's own switch
            return False
        return requested

    def key_problems(self, spec: ClusterSpec, kms_key: str) -> list[Problem]:
        if f":kms:{spec.location.region}:" in kms_key:
            return []
        return [Problem("secrets_encryption.kms_key",
                        f"EKS needs a KMS key in the cluster's region {spec.location.region}",
                        kms_key, True)]

    def check_capacity(self, capacity: CapacitySpec) -> None:
        from gpu_fabric.spec.base import _fail

        if capacity.reservation and not capacity.reservation.startswith("cr-"):
            raise _fail(
                "aws_reservation",
                "AWS capacity reservations and Capacity Blocks have ids like "
                "cr-0123456789abcdef0",
                at="reservation", got=capacity.reservation,
            )

    def system_machines(self) -> MachineNaming:
        """https://docs.aws.amazon.com/ec2/latest/instancetypes/instance-type-names.html:
        <family><generation><processor and capabilities>.<size>; the accelerated families
        (https://docs.aws.amazon.com/ec2/latest/instancetypes/ac.html) DL, F, G, Gr, Inf,
        P, Trn and VT carry accelerators. The processor letter g is AWS Graviton (arm64),
        which the system node group's AMI type AL2023_x86_64_STANDARD (nodegroup.py)
        cannot run."""
        from gpu_fabric.spec.values import MachineNaming

        return MachineNaming(
            re.compile(r"[a-z][a-z0-9-]*\.[a-z0-9]+", re.ASCII),
            "<family><generation>[attributes].<size>, e.g. m7i.xlarge, m6i.2xlarge, c7i.large",
            re.compile(r"(p[0-9]|g[0-9]|gr[0-9]|dl[0-9]|f[0-9]|inf[0-9]|trn[0-9]|vt[0-9]).*",
                       re.ASCII),
            "https://docs.aws.amazon.com/ec2/latest/instancetypes/instance-type-names.html",
            re.compile(r"[a-z]+[0-9]+g[a-z0-9-]*\..*", re.ASCII),
            "is an AWS Graviton (arm64) type; the system node group runs the x86_64 AMI "
            "(AL2023_x86_64_STANDARD)",
        )

    def tag_rules(self) -> TagRules:
        """AWS tags (https://docs.aws.amazon.com/tag-editor/latest/userguide/tagging.html
        and each service's "Tag restrictions"): <= 50 per resource, keys 1-128 and values
        <= 256 characters of letters, numbers, spaces and + - = . _ : / @, no ``aws:``
        prefix on keys or values. Subnets also get Name, kubernetes.io/cluster/<name>
        and a kubernetes.io/role/ tag (network.py): 3 added."""
        from gpu_fabric.spec.values import TagRules

        return TagRules(50, 128, 256, _tag_chars_ok, _tag_chars_ok, added=3,
                        reserved_prefixes=("aws:",), reserved_values=True,
                        shape="letters, numbers, spaces and + - = . _ : / @")


def _tag_chars_ok(text: str) -> bool:
    """Letters, numbers and spaces (UTF-8) and + - = . _ : / @."""
    return all(c.isalnum() or c == " " or c in "+-=._:/@" for c in text)


PROVIDER: CloudProvider = AwsProvider()
