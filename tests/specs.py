"""Small valid specs per cloud for tests; override any key with keyword arguments."""

from __future__ import annotations

import copy
from typing import Any

# A4, A3 Ultra and A4X are sold reserved, flex-start or Spot (A4X: reserved only), never on
# demand (https://cloud.google.com/ai-hypercomputer/docs/consumption-models).
GCP_RESERVED: dict[str, str] = {"type": "reservation", "reservation": "test-reservation"}
# 203.0.113.0/24: RFC 5737 documentation range (TEST-NET-3), as in the committed stacks.
API_ACCESS: dict[str, Any] = {"authorized_cidrs": ["203.0.113.0/24"]}

BASE: dict[str, dict[str, Any]] = {
    "gcp": {
        "name": "test-gcp",
        "cloud": "gcp",
        "location": {"region": "us-west8", "zone": "us-west8-c"},
        "kubernetes": {"version": "1.34"},
        "api_access": API_ACCESS,
        "node_pools": [{"name": "gpu", "machine_type": "a4-highgpu-8g", "node_count": 2,
                        "capacity": GCP_RESERVED}],
        "gcp": {"project": "test-project"},
    },
    "aws": {
        "name": "test-aws",
        "cloud": "aws",
        "location": {"region": "us-east-1", "zone": "us-east-1a"},
        "kubernetes": {"version": "1.34"},
        "api_access": API_ACCESS,
        "node_pools": [{"name": "gpu", "machine_type": "p5.48xlarge", "node_count": 2}],
        "aws": {},
    },
    "azure": {
        "name": "test-azure",
        "cloud": "azure",
        "location": {"region": "eastus"},
        "kubernetes": {"version": "1.34"},
        "api_access": API_ACCESS,
        "node_pools": [
            {"name": "gpu", "machine_type": "Standard_ND96isr_H100_v5", "node_count": 2}
        ],
        "azure": {},
    },
    "digitalocean": {
        "name": "test-do",
        "cloud": "digitalocean",
        "location": {"region": "nyc2"},
        "kubernetes": {"version": "1.34"},
        "api_access": API_ACCESS,
        "node_pools": [
            {
                "name": "gpu",
                "machine_type": "gpu-h200x8-1128gb-fabric-contracted",
                "node_count": 2,
            }
        ],
    },
    "oci": {
        "name": "test-oci",
        "cloud": "oci",
        "location": {"region": "us-ashburn-1", "zone": "Uocm:US-ASHBURN-AD-1"},
        "kubernetes": {"version": "1.34"},
        "api_access": {"private_endpoint": True},  # OKE: private endpoint, as before
        "node_pools": [{"name": "gpu", "machine_type": "BM.GPU.H100.8", "node_count": 2}],
        "oci": {
            "compartment_id": "ocid1.compartment.oc1..aaaatest",
            "gpu_image_id": "ocid1.image.oc1.iad.aaaatest",
            "home_region": "us-ashburn-1",
        },
    },
}

CLOUDS = tuple(BASE)


def spec_dict(cloud: str, **overrides: Any) -> dict[str, Any]:
    """A valid raw spec for ``cloud``; top-level keys in ``overrides`` replace the defaults."""
    data = copy.deepcopy(BASE[cloud])
    for key, value in overrides.items():
        if value is None:
            data.pop(key, None)
        else:
            data[key] = value
    return data


def with_pool(cloud: str, **pool: Any) -> dict[str, Any]:
    """A valid spec whose single GPU pool has the given fields changed."""
    data = spec_dict(cloud)
    data["node_pools"][0].update(pool)
    return data
