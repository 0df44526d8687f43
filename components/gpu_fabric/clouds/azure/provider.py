"""Azure (AKS): this cloud's one provider object, the value the registry names.

Every fact the rest of the library asks of Azure is here or reached from here;
importing this module loads only the spec's ``azure:`` section, the rest of the
folder (and pulumi_azure_native) when a member is called.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from gpu_fabric.catalog import Cloud, GpuVendor
from gpu_fabric.clouds.adapter import ProviderBase
from gpu_fabric.clouds.azure.options import AzureOptions
from gpu_fabric.clouds.contract import CloudDocs, CloudProvider
from gpu_fabric.errors import Problem

if TYPE_CHECKING:
    from gpu_fabric.fabric.description import Taint
    from gpu_fabric.spec.values import MachineNaming, TagRules


class AzureProvider(ProviderBase):
    cloud = Cloud.AZURE
    options_model = AzureOptions
    sdk = "pulumi_azure_native"
    cluster_class_name = "AzureGpuCluster"
    example_location = ("eastus", None)
    docs = CloudDocs(
        "AKS", "https://azure.microsoft.com/pricing/details/kubernetes-service/",
        "https://azure.microsoft.com/pricing/details/virtual-machines/linux/",
        "`az login`; the subscription",
    )
    capacity_types = ("on_demand", "spot")
    # AKS sizes its pools from the fabric descriptions; the other clouds' plans do not
    # need them, so their address checks still run when a pool could not be described.
    infrastructure_needs_fabrics = True
    gpu_taint_value = "gpu"  # AKS GPU docs: sku=gpu:NoSchedule
    key_format = (
        re.compile(r"^https://[a-z0-9-]+\.vault\.azure\.net/keys/[^/]+/[0-9a-f]{32}$"),
        "https://VAULT.vault.azure.net/keys/NAME/VERSION (Key Vault key identifier with its "
        "version)",
    )
    accepts_key_vault_id = True

    def location_problems(self, region: str, zone: str | None) -> list[Problem]:
        from gpu_fabric.clouds.azure.regions import AZURE_REGIONS
        from gpu_fabric.regions import unknown_region

        return unknown_region(self.cloud, region, AZURE_REGIONS)

    def check_pool_name(self, name: str) -> None:
        from gpu_fabric.spec.base import _fail

        if not re.match(r"^[a-z][a-z0-9]{0,11}$", name):
            raise _fail(
                "azure_pool_name",
                "Azure agent pool names are 1-12 lowercase letters and digits, starting with "
                "a letter (no '-')",
            )

    def gpu_taint(self, vendor: GpuVendor) -> Taint:
        from gpu_fabric.fabric.description import Taint

        return Taint("sku", self.gpu_taint_value)

    def reserved_cidrs(self) -> dict[str, tuple[str, ...]]:
        """"AKS clusters may not use 169.254.0.0/16, 172.30.0.0/16, 172.31.0.0/16, or
        192.0.2.0/24 for the Kubernetes service address range" (https://learn.microsoft.
        com/azure/aks/configure-azure-cni, prerequisites); the overlay pod range alike."""
        reserved = ("169.254.0.0/16", "172.30.0.0/16", "172.31.0.0/16", "192.0.2.0/24")
        return {"service_cidr": reserved, "pod_cidr": reserved}

    def system_machines(self) -> MachineNaming:
        """https://learn.microsoft.com/azure/virtual-machines/vm-naming-conventions:
        Standard_<family><sub-family><vCPUs>[-<constrained vCPUs>]<features>[_<accelerator>]
        [_<version>]; the N family (NC, ND, NG, NV) is GPU-accelerated
        (https://learn.microsoft.com/azure/virtual-machines/sizes/overview)."""
        from gpu_fabric.spec.values import MachineNaming

        return MachineNaming(
            re.compile(r"Standard_[A-Z][A-Za-z0-9-]*(_[A-Za-z0-9]+)*", re.ASCII),
            "Standard_<family><vCPUs><features>[_<version>], e.g. Standard_D4s_v5, "
            "Standard_D8ds_v5, Standard_E4s_v5",
            re.compile(r"Standard_N.*", re.ASCII),
            "https://learn.microsoft.com/azure/virtual-machines/vm-naming-conventions",
        )

    def tag_rules(self) -> TagRules:
        """Azure tags (https://learn.microsoft.com/azure/azure-resource-manager/management/
        tag-resources#limitations): <= 50 per resource, names <= 512 and values <= 256
        characters, names without < > % & \\ ? /. This project adds gpufabric-cluster and
        gpufabric-pool (cluster.py, blocks.py): 2 added."""
        from gpu_fabric.spec.values import TagRules, printable

        return TagRules(50, 512, 256, _tag_name_ok, printable, added=2,
                        shape="names without < > % & \\ ? / or control characters")


def _tag_name_ok(text: str) -> bool:
    """An Azure tag name has none of < > % & \\ ? / (nor control characters)."""
    return not any(c in "<>%&\\?/" or not c.isprintable() for c in text)


PROVIDER: CloudProvider = AzureProvider()
