"""DigitalOcean (DOKS): this cloud's one provider object, the value the registry names.

Every fact the rest of the library asks of DigitalOcean is here or reached from
here; importing this module loads only the spec's ``digitalocean:`` section,
the rest of the folder (and pulumi_digitalocean) when a member is called.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from gpu_fabric.catalog import Cloud
from gpu_fabric.clouds.adapter import ProviderBase
from gpu_fabric.clouds.contract import CloudDocs, CloudProvider
from gpu_fabric.clouds.digitalocean.options import DigitalOceanOptions
from gpu_fabric.errors import Problem

if TYPE_CHECKING:
    from gpu_fabric.security import ApiAccessSpec
    from gpu_fabric.spec import ClusterSpec
    from gpu_fabric.spec.values import MachineNaming


class DigitalOceanProvider(ProviderBase):
    cloud = Cloud.DIGITALOCEAN
    options_model = DigitalOceanOptions
    sdk = "pulumi_digitalocean"
    cluster_class_name = "DigitalOceanGpuCluster"
    example_location = ("nyc2", None)
    docs = CloudDocs(
        "DOKS", "https://www.digitalocean.com/pricing/kubernetes",
        "https://www.digitalocean.com/pricing/gpu-droplets",
        "`DIGITALOCEAN_TOKEN`",
    )
    options_required = False  # every digitalocean: setting has a default
    capacity_types = ("on_demand",)
    gpu_taint_value = ""  # DOKS taints GPU nodes nvidia.com/gpu / amd.com/gpu
    has_zones = False

    def check(self, spec: ClusterSpec) -> None:
        self._slice("fabric").check_cluster(spec)

    def location_problems(self, region: str, zone: str | None) -> list[Problem]:
        from gpu_fabric.clouds.digitalocean.regions import DIGITALOCEAN_REGIONS
        from gpu_fabric.regions import unknown_region

        return unknown_region(self.cloud, region, DIGITALOCEAN_REGIONS)

    def api_access_problems(self, spec: ClusterSpec, access: ApiAccessSpec) -> list[Problem]:
        if access.private_endpoint:
            return [Problem(
                "api_access.private_endpoint",
                "DOKS has no private-only API endpoint; list authorized_cidrs instead (they "
                "become the cluster's control-plane firewall)", True, True,
            )]
        return []


    def system_machines(self) -> MachineNaming:
        """Droplet size slugs (https://docs.digitalocean.com/reference/api/digitalocean/
        #tag/Sizes): s-4vcpu-8gb, c-4, c2-4vcpu-8gb, g-2vcpu-8gb, m-2vcpu-16gb,
        so1_5-2vcpu-16gb, s-4vcpu-8gb-amd; GPU Droplets are gpu-<model>x<count>-<memory>."""
        import re

        from gpu_fabric.spec.values import MachineNaming

        return MachineNaming(
            re.compile(r"[a-z][a-z0-9_]*-[0-9]+(vcpu-[0-9]+[mg]b)?(-[a-z0-9]+)*", re.ASCII),
            "<plan>-<vCPUs>vcpu-<GB>gb, e.g. s-4vcpu-8gb, c-4, g-2vcpu-8gb",
            re.compile(r"gpu-.*", re.ASCII),
            "https://docs.digitalocean.com/reference/api/digitalocean/#tag/Sizes",
        )

PROVIDER: CloudProvider = DigitalOceanProvider()
