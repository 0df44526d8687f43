"""The regions and zones each cloud really has: one table, checked before anything is created.

A typo in ``location.region`` or ``location.zone`` (``us-west8X-c``, an OCI
availability domain of another region, a region that does not exist) used to
be accepted and fail minutes into ``pulumi up``. :func:`location_problems`
refuses them with the valid choices.

Sources (the table is data; when a cloud opens a region, add it here with its
source):

* GCP: "Available regions and zones", https://cloud.google.com/compute/docs/regions-zones
  (zone table, read from a mirror of docs.cloud.google.com taken in 2026);
  ``us-west8`` (Phoenix: a, b, c) from the NetApp Volumes locations page of
  the same site and the seed ``gke-nvidia-dra-dranet.md`` (``us-west8-c``).
  AI zones (``<region>-ai<N><letter>``, e.g. ``us-west4-ai2b``) follow the
  naming rule of that page and are accepted in any listed region.
* AWS: regions of the pinned provider SDK, ``pulumi_aws.Region`` (pulumi-aws
  7.51.1, ``pulumi_aws/_enums.py``). Zone letters are mapped per account, so a
  zone is the region plus one letter (Local and Wavelength Zones hold no GPU
  fabric machines).
* Azure: ``az account list-locations`` names, https://learn.microsoft.com/azure/reliability/regions-list.
* DigitalOcean: ``pulumi_digitalocean.Region`` (pulumi-digitalocean 4.84.1)
  plus ``atl1`` and ``ric1``, the GPU Droplet datacenters the SDK enum lacks
  (https://docs.digitalocean.com/products/droplets/details/availability/).
* OCI: "Regions and Availability Domains",
  https://docs.oracle.com/iaas/Content/General/Concepts/regions.htm: regions
  with three ADs; every other region has one. An AD name is
  ``<tenancy prefix>:<REGION>-AD-<n>``, with the legacy spellings
  ``US-ASHBURN-AD-n`` and ``PHX-AD-n``.
"""

from __future__ import annotations

import re

from gpu_fabric.catalog import Cloud
from gpu_fabric.errors import Problem

GCP_ZONES: dict[str, str] = {
    # region: zone letters
    "africa-south1": "abc", "asia-east1": "abc", "asia-east2": "abc",
    "asia-northeast1": "abc", "asia-northeast2": "abc", "asia-northeast3": "abc",
    "asia-south1": "abc", "asia-south2": "abc", "asia-southeast1": "abc",
    "asia-southeast2": "abc", "asia-southeast3": "abc", "australia-southeast1": "abc",
    "australia-southeast2": "abc", "europe-central2": "abc", "europe-north1": "abc",
    "europe-north2": "abc", "europe-southwest1": "abc", "europe-west1": "bcd",
    "europe-west2": "abc", "europe-west3": "abc", "europe-west4": "abc",
    "europe-west6": "abc", "europe-west8": "abc", "europe-west9": "abc",
    "europe-west10": "abc", "europe-west12": "abc", "me-central1": "abc",
    "me-central2": "abc", "me-west1": "abc", "northamerica-northeast1": "abc",
    "northamerica-northeast2": "abc", "northamerica-south1": "abc",
    "southamerica-east1": "abc", "southamerica-west1": "abc", "us-central1": "abcf",
    "us-east1": "bcd", "us-east4": "abc", "us-east5": "abc", "us-south1": "abc",
    "us-west1": "abc", "us-west2": "abc", "us-west3": "abc", "us-west4": "abc",
    "us-west8": "abc",
}

AWS_REGIONS: frozenset[str] = frozenset({
    "af-south-1", "ap-east-1", "ap-east-2", "ap-northeast-1", "ap-northeast-2",
    "ap-northeast-3", "ap-south-1", "ap-south-2", "ap-southeast-1", "ap-southeast-2",
    "ap-southeast-3", "ap-southeast-4", "ap-southeast-5", "ap-southeast-6",
    "ap-southeast-7", "ca-central-1", "ca-west-1", "eu-central-1", "eu-central-2",
    "eu-north-1", "eu-south-1", "eu-south-2", "eu-west-1", "eu-west-2", "eu-west-3",
    "il-central-1", "me-central-1", "me-south-1", "mx-central-1", "sa-east-1",
    "us-east-1", "us-east-2", "us-west-1", "us-west-2", "cn-north-1", "cn-northwest-1",
    "eusc-de-east-1", "us-gov-east-1", "us-gov-west-1", "us-iso-east-1", "us-iso-west-1",
    "us-isob-east-1", "us-isob-west-1", "eu-isoe-west-1", "us-isof-east-1",
    "us-isof-south-1",
})

AZURE_REGIONS: frozenset[str] = frozenset({
    "australiacentral", "australiacentral2", "australiaeast", "australiasoutheast",
    "austriaeast", "belgiumcentral", "brazilsouth", "brazilsoutheast", "canadacentral",
    "canadaeast", "centralindia", "centralus", "chilecentral", "eastasia", "eastus",
    "eastus2", "francecentral", "francesouth", "germanynorth", "germanywestcentral",
    "indonesiacentral", "israelcentral", "italynorth", "japaneast", "japanwest",
    "jioindiacentral", "jioindiawest", "koreacentral", "koreasouth", "malaysiawest",
    "mexicocentral", "newzealandnorth", "northcentralus", "northeurope", "norwayeast",
    "norwaywest", "polandcentral", "qatarcentral", "southafricanorth", "southafricawest",
    "southcentralus", "southeastasia", "southindia", "spaincentral", "swedencentral",
    "swedensouth", "switzerlandnorth", "switzerlandwest", "uaecentral", "uaenorth",
    "uksouth", "ukwest", "westcentralus", "westeurope", "westindia", "westus", "westus2",
    "westus3", "usgovarizona", "usgovtexas", "usgovvirginia",
})

DIGITALOCEAN_REGIONS: frozenset[str] = frozenset({
    "nyc1", "nyc2", "nyc3", "sgp1", "lon1", "ams2", "ams3", "fra1", "tor1", "sfo1",
    "sfo2", "sfo3", "blr1", "syd1", "atl1", "ric1",
})

# OCI region -> number of availability domains (1 unless listed with 3).
OCI_REGIONS: dict[str, int] = {
    "us-ashburn-1": 3, "us-phoenix-1": 3, "us-chicago-1": 3, "eu-frankfurt-1": 3,
    "uk-london-1": 3,
    **{r: 1 for r in (
        "us-sanjose-1", "ca-toronto-1", "ca-montreal-1", "mx-queretaro-1",
        "mx-monterrey-1", "sa-saopaulo-1", "sa-vinhedo-1", "sa-santiago-1",
        "sa-valparaiso-1", "sa-bogota-1", "uk-cardiff-1", "eu-amsterdam-1",
        "eu-zurich-1", "eu-milan-1", "eu-marseille-1", "eu-paris-1", "eu-stockholm-1",
        "eu-madrid-1", "eu-jovanovac-1", "eu-turin-1", "il-jerusalem-1", "me-jeddah-1",
        "me-dubai-1", "me-abudhabi-1", "me-riyadh-1", "af-johannesburg-1", "ap-tokyo-1",
        "ap-osaka-1", "ap-seoul-1", "ap-chuncheon-1", "ap-mumbai-1", "ap-hyderabad-1",
        "ap-singapore-1", "ap-singapore-2", "ap-sydney-1", "ap-melbourne-1",
        "ap-batam-1", "us-langley-1", "us-luke-1",
    )},
}
_OCI_AD_STEM = {"us-ashburn-1": "US-ASHBURN", "us-phoenix-1": "PHX"}


def oci_ad_names(region: str) -> list[str]:
    """The AD names of an OCI region without the tenancy prefix (``US-ASHBURN-AD-1``...)."""
    stem = _OCI_AD_STEM.get(region, region.upper())
    return [f"{stem}-AD-{n}" for n in range(1, OCI_REGIONS[region] + 1)]


def _closest(value: str, choices: list[str]) -> str:
    import difflib

    near = difflib.get_close_matches(value, choices, n=3, cutoff=0.6)
    return f"; did you mean {' or '.join(near)}?" if near else ""


def _regions(cloud: Cloud) -> list[str]:
    table: dict[Cloud, object] = {
        Cloud.GCP: GCP_ZONES, Cloud.AWS: AWS_REGIONS, Cloud.AZURE: AZURE_REGIONS,
        Cloud.DIGITALOCEAN: DIGITALOCEAN_REGIONS, Cloud.OCI: OCI_REGIONS,
    }
    return sorted(table[cloud])  # type: ignore[call-overload]


def location_problems(cloud: Cloud, region: str, zone: str | None) -> list[Problem]:
    """Problems with ``location.region`` / ``location.zone`` on ``cloud`` (empty: fine)."""
    regions = _regions(cloud)
    if region not in regions:
        return [Problem(
            "location.region",
            f"'{region}' is not a {cloud.display} region{_closest(region, regions)} "
            f"(known: {', '.join(regions)}; a region opened since is added to "
            "components/gpu_fabric/regions.py with its source)",
            region, True,
        )]
    if zone is None:
        return []
    valid: list[str]
    if cloud is Cloud.GCP:
        valid = [f"{region}-{letter}" for letter in GCP_ZONES[region]]
        if zone in valid or re.fullmatch(rf"{re.escape(region)}-ai\d[a-z]", zone):
            return []
    elif cloud is Cloud.AWS:
        if re.fullmatch(rf"{re.escape(region)}[a-z]", zone):
            return []
        valid = [f"{region}a", f"{region}b", "..."]
    elif cloud is Cloud.OCI:
        valid = oci_ad_names(region)
        if zone.rpartition(":")[2] in valid:
            return []
        valid = [f"<tenancy prefix>:{ad}" for ad in valid]
    else:
        return []
    return [Problem(
        "location.zone",
        f"'{zone}' is not a zone of {cloud.display} region {region}{_closest(zone, valid)} "
        f"(valid: {', '.join(valid)})",
        zone, True,
    )]
