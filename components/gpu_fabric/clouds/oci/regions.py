"""The regions and availability domains of OCI (data; the provider checks ``location``).

Source: "Regions and Availability Domains",
https://docs.oracle.com/iaas/Content/General/Concepts/regions.htm: regions with
three ADs; every other region has one. An AD name is
``<tenancy prefix>:<REGION>-AD-<n>``, with the legacy spellings
``US-ASHBURN-AD-n`` and ``PHX-AD-n``.
"""

from __future__ import annotations

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
