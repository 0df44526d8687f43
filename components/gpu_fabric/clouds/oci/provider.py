"""OCI (OKE): this cloud's one provider object, the value the registry names.

Every fact the rest of the library asks of OCI is here or reached from here;
importing this module loads only the spec's ``oci:`` section, the rest of the
folder (and pulumi_oci) when a member is called.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from gpu_fabric.catalog import Cloud
from gpu_fabric.clouds.adapter import ProviderBase
from gpu_fabric.clouds.contract import CloudDocs, CloudProvider
from gpu_fabric.clouds.oci.options import OciOptions
from gpu_fabric.errors import Problem

if TYPE_CHECKING:
    from gpu_fabric.security import ApiAccessSpec
    from gpu_fabric.spec import ClusterSpec
    from gpu_fabric.spec.values import MachineNaming, TagRules


class OciProvider(ProviderBase):
    cloud = Cloud.OCI
    options_model = OciOptions
    sdk = "pulumi_oci"
    cluster_class_name = "OciGpuCluster"
    example_location = ("us-ashburn-1", "Uocm:US-ASHBURN-AD-1")
    docs = CloudDocs(
        "OKE", "https://www.oracle.com/cloud/cloud-native/kubernetes-engine/pricing/",
        "https://www.oracle.com/cloud/compute/gpu/pricing/",
        "`~/.oci/config`; `oci.compartment_id`",
    )
    capacity_types = ("on_demand", "reservation", "spot")
    gpu_taint_value = "present"
    zone_example = "Uocm:US-ASHBURN-AD-1"
    key_format = (
        re.compile(r"^ocid1\.key\.oc1\.[a-z0-9-]*\.[a-z0-9.]+$"),
        "ocid1.key.oc1.REGION.... (OCI Vault master encryption key OCID)",
    )

    def location_problems(self, region: str, zone: str | None) -> list[Problem]:
        from gpu_fabric.clouds.oci.regions import OCI_REGIONS, oci_ad_names
        from gpu_fabric.regions import unknown_region, unknown_zone

        found = unknown_region(self.cloud, region, OCI_REGIONS)
        if found or zone is None:
            return found
        valid = oci_ad_names(region)
        if zone.rpartition(":")[2] in valid:
            return []
        return unknown_zone(self.cloud, region, zone,
                            [f"<tenancy prefix>:{ad}" for ad in valid])

    def managed_gpu_plugin(self) -> tuple[str, str]:
        """OKE runs its NVIDIA GPU plugin on GPU nodes unless the node label (fabric.py,
        as oci-hpc-oke sets it) turns it off."""
        return ("OKE's own NVIDIA GPU device plugin",
                self._slice("fabric").DISABLE_OKE_GPU_PLUGIN)

    def system_machines(self) -> MachineNaming:
        """https://docs.oracle.com/iaas/Content/Compute/References/computeshapes.htm:
        VM.<series>.<...> and BM.<series>.<...> (VM.Standard.E5.Flex, VM.Standard3.Flex,
        BM.Standard.E5.192); GPU shapes are VM.GPU.* and BM.GPU.*."""
        from gpu_fabric.spec.values import MachineNaming

        return MachineNaming(
            re.compile(r"(VM|BM)\.[A-Za-z][A-Za-z0-9]*(\.[A-Za-z0-9]+)+", re.ASCII),
            "VM.<series>.<...> or BM.<series>.<...>, e.g. VM.Standard.E5.Flex, "
            "VM.Standard.E4.Flex, VM.Standard3.Flex",
            re.compile(r"(VM|BM)\.GPU.*", re.ASCII),
            "https://docs.oracle.com/iaas/Content/Compute/References/computeshapes.htm",
        )

    def legacy_api_cidrs(self, options: Any) -> list[str]:
        return [str(c) for c in options.endpoint_allowed_cidrs] if options else []

    def public_endpoint(self, options: Any, requested: bool) -> bool:
        return True if options is not None and options.endpoint_public else requested

    def api_access_problems(self, spec: ClusterSpec, access: ApiAccessSpec) -> list[Problem]:
        opts = spec.options
        if access.private_endpoint and opts is not None and opts.endpoint_public:
            return [Problem(
                "oci.endpoint_public",
                "contradicts api_access.private_endpoint: true; remove one", True, True,
            )]
        return []

    def tag_rules(self) -> TagRules:
        """OCI freeform tags (https://docs.oracle.com/iaas/Content/Tagging/Concepts/
        taggingoverview.htm, "Tag limits"): <= 64 tags per resource, keys <= 100 and
        values <= 256 characters. This project adds gpufabric-cluster (cluster.py)."""
        from gpu_fabric.spec.values import TagRules, printable

        return TagRules(64, 100, 256, printable, printable, added=1,
                        shape="printable characters")


PROVIDER: CloudProvider = OciProvider()
