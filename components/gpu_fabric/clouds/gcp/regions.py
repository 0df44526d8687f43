"""The regions and zones of GCP (data; the provider checks ``location`` against it).

Source: "Available regions and zones", https://cloud.google.com/compute/docs/regions-zones
(zone table, read from a mirror of docs.cloud.google.com taken in 2026);
``us-west8`` (Phoenix: a, b, c) from the NetApp Volumes locations page of the
same site and the seed ``gke-nvidia-dra-dranet.md`` (``us-west8-c``). AI zones
(``<region>-ai<N><letter>``, e.g. ``us-west4-ai2b``) follow the naming rule of
that page and are accepted in any listed region. When GCP opens a region, add
it here with its source.
"""

from __future__ import annotations

import re

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


def zone_ok(region: str, zone: str) -> bool:
    """A lettered zone of the region, or an AI zone of it."""
    return zone in valid_zones(region) or bool(
        re.fullmatch(rf"{re.escape(region)}-ai[0-9][a-z]", zone))


def valid_zones(region: str) -> list[str]:
    return [f"{region}-{letter}" for letter in GCP_ZONES[region]]
