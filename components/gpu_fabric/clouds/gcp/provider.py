"""GCP (GKE): this cloud's one provider object, the value the registry names.

Every fact the rest of the library asks of GCP is here or reached from here;
importing this module loads only the spec's ``gcp:`` section, the rest of the
folder (and pulumi_gcp) when a member is called.
"""

from __future__ import annotations

import re
import unicodedata
from typing import TYPE_CHECKING, Any

from gpu_fabric.catalog import Cloud
from gpu_fabric.clouds.adapter import HOSTNAME, ProviderBase
from gpu_fabric.clouds.contract import CloudDocs, CloudProvider
from gpu_fabric.clouds.gcp.options import GcpOptions
from gpu_fabric.errors import Problem

if TYPE_CHECKING:
    from gpu_fabric.security import ApiAccessSpec
    from gpu_fabric.spec import ClusterSpec
    from gpu_fabric.spec.values import MachineNaming, TagRules


GKE_MAX_AUTHORIZED_NETWORKS = 100
# A VPC network's MTU: "any value from 1300 through 8896" (https://cloud.google.com/vpc/
# docs/mtu); fabric.mtu sets the fabric VPCs' MTU.
VPC_MTU = (1300, 8896)


class GcpProvider(ProviderBase):
    cloud = Cloud.GCP
    options_model = GcpOptions
    sdk = "pulumi_gcp"
    cluster_class_name = "GcpGpuCluster"
    example_location = ("us-central1", "us-central1-a")
    docs = CloudDocs(
        "GKE", "https://cloud.google.com/kubernetes-engine/pricing",
        "https://cloud.google.com/compute/gpus-pricing",
        "`gcloud auth application-default login`; `gcp.project`",
    )
    capacity_types = ("on_demand", "spot", "reservation", "flex_start", "queued")
    # GKE labels nodes in compact placement / dense reservations with their block,
    # sub-block and host (outermost first, hostname last as Kueue requires).
    topology_levels = (
        "cloud.google.com/gce-topology-block",
        "cloud.google.com/gce-topology-subblock",
        "cloud.google.com/gce-topology-host",
        HOSTNAME,
    )
    gpu_taint_value = "present"  # GKE adds nvidia.com/gpu=present:NoSchedule itself
    zone_example = "us-west8-c"
    managed_dranet = True
    # GKE admits system-node-critical / system-cluster-critical pods outside kube-system
    # only under a ResourceQuota scoped to those classes: cluster-toolkit's gke-a4x
    # (1047080375af) examples/gke-a4x/nvidia-dra-driver.yaml lines 19-33 adds one for the
    # DRA driver's namespace, NVIDIA's GKE guide one for the GPU Operator's.
    critical_pods_need_quota = True
    key_format = (
        re.compile(r"^projects/[^/]+/locations/[^/]+/keyRings/[^/]+/cryptoKeys/[^/]+$"),
        "projects/PROJECT/locations/REGION/keyRings/RING/cryptoKeys/KEY (Cloud KMS, same "
        "region as the cluster)",
    )

    def check(self, spec: ClusterSpec) -> None:
        from gpu_fabric.addressing import raise_problems

        mtu = spec.fabric.mtu
        if mtu is not None and not VPC_MTU[0] <= mtu <= VPC_MTU[1]:
            raise_problems([Problem("fabric.mtu", f"a GCP VPC's MTU is {VPC_MTU[0]} to "
                                    f"{VPC_MTU[1]}", mtu, True)])
        self._slice("checks").check_spec(spec)

    def managed_gpu_plugin(self) -> tuple[str, str]:
        """GKE installs its NVIDIA device plugin on GPU nodes unless the node label
        (fabric.py) turns it off (GKE set-up-dra; NVIDIA's GKE guide)."""
        return "GKE's own NVIDIA device plugin", self._slice("fabric").NO_DEVICE_PLUGIN_LABEL

    def system_machines(self) -> MachineNaming:
        """https://cloud.google.com/compute/docs/machine-resource: <series>-<type>-<vCPUs>
        (e2-standard-8, n2-highmem-16, c3-standard-8-lssd, e2-medium), custom types
        custom-<vCPUs>-<MB> and <series>-custom-<vCPUs>-<MB>[-ext]; the accelerator-optimized
        series A4X, A4, A3, A2, G4 and G2 carry GPUs (https://cloud.google.com/compute/docs/gpus)."""
        from gpu_fabric.spec.values import MachineNaming

        return MachineNaming(
            re.compile(r"[a-z][a-z0-9]*[0-9][a-z]?-[a-z]+(-[0-9]+)?(-[a-z0-9]+)*"
                       r"|custom-[0-9]+-[0-9]+(-ext)?", re.ASCII),
            "<series>-<type>[-<vCPUs>], e.g. e2-standard-8, n2-standard-16, c3-standard-8",
            re.compile(r"(a2|a3|a4|a4x|g2|g4)-.*", re.ASCII),
            "https://cloud.google.com/compute/docs/machine-resource",
        )

    def zone_example_in(self, region: str) -> str:
        return f"{region}-a"  # GCP zones are <region>-<letter>

    def location_problems(self, region: str, zone: str | None) -> list[Problem]:
        from gpu_fabric.clouds.gcp import regions
        from gpu_fabric.regions import unknown_region, unknown_zone

        found = unknown_region(self.cloud, region, regions.GCP_ZONES)
        if found or zone is None or regions.zone_ok(region, zone):
            return found
        return unknown_zone(self.cloud, region, zone, regions.valid_zones(region))

    def legacy_api_cidrs(self, options: Any) -> list[str]:
        return [str(c) for c in options.master_authorized_networks] if options else []

    def api_access_problems(self, spec: ClusterSpec, access: ApiAccessSpec) -> list[Problem]:
        opts = spec.options
        if access.private_endpoint and opts is not None and not opts.private_nodes:
            return [Problem(
                "api_access.private_endpoint",
                "a GKE private endpoint needs private nodes; remove gcp.private_nodes: false",
                True, True,
            )]
        # "up to 100 authorized networks" on a private cluster (the clusters this project
        # creates have private nodes): https://cloud.google.com/kubernetes-engine/docs/
        # how-to/authorized-networks#limitations.
        count = len(access.authorized_cidrs) + len(self.legacy_api_cidrs(opts))
        if count > GKE_MAX_AUTHORIZED_NETWORKS:
            return [Problem("api_access.authorized_cidrs", f"{count} authorized networks; GKE "
                            f"allows at most {GKE_MAX_AUTHORIZED_NETWORKS}", count, True)]
        return []

    def tag_rules(self) -> TagRules:
        """GCP labels (https://cloud.google.com/resource-manager/docs/labels-overview
        #requirements): <= 64 per resource, keys 1-63 and values <= 63 characters of
        lowercase letters (international allowed), digits, '_' and '-', keys starting
        with a lowercase letter, each under 128 bytes."""
        from gpu_fabric.spec.values import TagRules

        return TagRules(64, 63, 63, lambda k: _label_ok(k, key=True),
                        lambda v: _label_ok(v, key=False),
                        shape="lowercase letters, digits, '_' and '-', keys starting with "
                        "a lowercase letter")


def _label_ok(text: str, *, key: bool) -> bool:
    """A GCP label key or value: lowercase letters (international allowed), digits, '_'
    and '-'; a key starts with a lowercase letter; each under 128 bytes."""
    if len(text.encode()) >= 128:
        return False
    if key and (not text or unicodedata.category(text[0]) not in ("Ll", "Lo")):
        return False
    return all(c in "_-" or unicodedata.category(c) in ("Ll", "Lo", "Nd") for c in text)


PROVIDER: CloudProvider = GcpProvider()
