"""The ``oci:`` section of the cluster spec (SDK-free).

Checks that need the Kubernetes version (which OKE versions exist) read it from
the validation context, so they are reported together with every other problem
of the stack file.
"""

from __future__ import annotations

import ipaddress
import re
from typing import Literal, Self

from pydantic import Field, ValidationInfo, field_validator, model_validator

from gpu_fabric.clouds.options_base import CloudOptions
from gpu_fabric.kube_version import KubeVersion
from gpu_fabric.versions import OKE_KUBERNETES_VERSIONS

DEFAULT_SYSTEM_SHAPE = "VM.Standard.E5.Flex"


# OCI "Resource Identifiers" (https://docs.oracle.com/iaas/Content/General/Concepts/
# identifiers.htm): ocid1.<RESOURCE TYPE>.<REALM>.[REGION][.FUTURE USE].<UNIQUE ID>, the
# region empty for tenancy-wide resources (ocid1.compartment.oc1..<unique ID>); lowercase.
_OCID = re.compile(
    r"ocid1\.(?P<kind>[a-z0-9]+)\.oc[0-9]+\.[a-z0-9-]*(\.[a-z0-9-]+)?\.[a-z0-9]+", re.ASCII
)
OCID_FORMAT = "ocid1.<resource type>.<realm>.[region][.future use].<unique id>"


def ocid_problem(value: str, kinds: tuple[str, ...]) -> str | None:
    """Why ``value`` is no OCID of one of ``kinds`` (issue 34), or None."""
    found = _OCID.fullmatch(value)
    if not found:
        return (f"is not an OCID: {OCID_FORMAT} (lowercase letters and digits, e.g. "
                f"ocid1.{kinds[0]}.oc1..aaaa... or ocid1.{kinds[0]}.oc1.iad.aaaa...)")
    if found["kind"] not in kinds:
        return (f"is the OCID of a {found['kind']}; this field takes the OCID of a "
                f"{' or '.join(kinds)} (ocid1.{kinds[0]}....)")
    return None


def _ocid(value: str | None, kinds: tuple[str, ...]) -> str | None:
    problem = ocid_problem(value, kinds) if value is not None else None
    if problem:
        raise ValueError(f"'{value}' {problem}")
    return value


def oke_version(version: KubeVersion) -> str:
    """The OKE version string (``v1.34.1``) for a spec version; ValueError if OKE has none."""
    if version.patch is not None:
        return f"v{version.major}.{version.minor}.{version.patch}"
    try:
        return OKE_KUBERNETES_VERSIONS[version.minor_version]
    except KeyError:
        valid = ", ".join(OKE_KUBERNETES_VERSIONS)
        raise ValueError(
            f"kubernetes.version {version.minor_version}: OKE has no such version in this "
            "library's table; "
            f"valid: {valid} (or a full version such as 1.34.1)"
        ) from None


class OciExistingNetwork(CloudOptions):
    """Use a VCN and subnets that already exist (nothing network-related is created)."""

    vcn_id: str
    endpoint_subnet_id: str
    worker_subnet_id: str
    pod_subnet_id: str | None = Field(
        default=None, description="Required with cni: npn (VCN-native pod networking)"
    )
    lb_subnet_id: str | None = None

    @field_validator("vcn_id")
    @classmethod
    def _vcn(cls, value: str) -> str:
        return _ocid(value, ("vcn",)) or value

    @field_validator("endpoint_subnet_id", "worker_subnet_id", "pod_subnet_id", "lb_subnet_id")
    @classmethod
    def _subnet(cls, value: str | None) -> str | None:
        return _ocid(value, ("subnet",))


class OciOptions(CloudOptions):
    compartment_id: str = Field(description="Compartment OCID for every resource")
    cni: Literal["npn", "flannel"] = Field(
        default="npn", description="VCN-native pod networking (npn) or flannel overlay"
    )
    gpu_image_id: str | None = Field(
        default=None,
        description="Custom image OCID with the RDMA (DOCA-OFED) stack for RDMA pools (OKE RDMA "
        "pools accept only custom images, e.g. the oci-hpc-oke images); a pool's os_image "
        "overrides it",
    )
    system_image_id: str | None = Field(
        default=None,
        description="Image OCID of the system pool; default: the newest OKE Oracle Linux image "
        "for the cluster version (looked up at deploy time)",
    )
    system_ocpus: int = Field(default=4, ge=1, le=64, description="OCPUs per system node (Flex)")
    system_memory_gbs: int = Field(
        default=32, ge=4, le=1024, description="Memory per system node in GB (Flex shapes)"
    )
    network_operator: Literal["addon", "chart"] = Field(
        default="chart", description="NVIDIA Network Operator as OKE add-on or Helm chart"
    )
    endpoint_public: bool = Field(
        default=False,
        description="Give the Kubernetes API endpoint a public IP (needs endpoint_allowed_cidrs)",
    )
    endpoint_allowed_cidrs: list[str] = Field(
        default_factory=list,
        description="Sources allowed to reach a public API endpoint on 6443 (never 0.0.0.0/0)",
    )
    public_load_balancers: bool = Field(
        default=False,
        description="Make the load balancer subnet public (internet gateway); default private",
    )
    compute_cluster_policy: Literal["compute-cluster", "compartment"] = Field(
        default="compartment",
        description="Scope of the IAM policy that lets node pools launch into the compute "
        "cluster: 'compartment' (what oci-hpc-oke grants) or 'compute-cluster' (also "
        "matches target.resource.id to the compute cluster; narrower, unconfirmed)",
    )
    home_region: str | None = Field(
        default=None,
        description="The tenancy's home region (e.g. us-ashburn-1): IAM policies are written "
        "there (oci-hpc-oke's `provider = oci.home`); default: looked up from the tenancy "
        "(`oci:tenancyOcid` config, or a tenancy compartment_id)",
    )
    existing_network: OciExistingNetwork | None = None
    ssh_public_key: str | None = None

    @field_validator("compartment_id")
    @classmethod
    def _compartment(cls, value: str) -> str:
        return _ocid(value, ("compartment", "tenancy")) or value

    @field_validator("gpu_image_id", "system_image_id")
    @classmethod
    def _image(cls, value: str | None) -> str | None:
        return _ocid(value, ("image",))

    @field_validator("home_region")
    @classmethod
    def _home_region(cls, value: str | None) -> str | None:
        from gpu_fabric.clouds.oci.regions import OCI_REGIONS

        if value is not None and value not in OCI_REGIONS:
            raise ValueError(f"'{value}' is not an OCI region; valid: {', '.join(OCI_REGIONS)}")
        return value

    @field_validator("endpoint_allowed_cidrs")
    @classmethod
    def _cidrs(cls, value: list[str]) -> list[str]:
        for cidr in value:
            try:
                net = ipaddress.IPv4Network(cidr, strict=True)
            except ValueError as exc:
                raise ValueError(f"'{cidr}' is not a valid IPv4 CIDR ({exc})") from None
            if net.prefixlen == 0:
                raise ValueError(
                    f"'{cidr}' opens the API endpoint to the whole internet; list the networks "
                    "that administer the cluster (e.g. 203.0.113.0/24)"
                )
        return value

    @model_validator(mode="after")
    def _consistent(self, info: ValidationInfo) -> Self:
        if self.endpoint_public and not self.endpoint_allowed_cidrs:
            raise ValueError(
                "endpoint_public: true needs endpoint_allowed_cidrs (the networks allowed to "
                "reach the API on 6443)"
            )
        if self.endpoint_allowed_cidrs and not self.endpoint_public:
            raise ValueError("endpoint_allowed_cidrs is only used with endpoint_public: true")
        net = self.existing_network
        if net is not None and self.cni == "npn" and net.pod_subnet_id is None:
            raise ValueError(
                "existing_network.pod_subnet_id is required with cni: npn (VCN-native pods "
                "take their IPs from a pod subnet); set it or use cni: flannel"
            )
        version = (info.context or {}).get("kubernetes_version")
        if isinstance(version, KubeVersion):
            oke_version(version)
        return self
