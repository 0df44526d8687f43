"""The regions of DigitalOcean (data; the provider checks ``location`` against it).

Source: ``pulumi_digitalocean.Region`` (pulumi-digitalocean 4.84.1) plus
``atl1`` and ``ric1``, the GPU Droplet datacenters the SDK enum lacks
(https://docs.digitalocean.com/products/droplets/details/availability/).
"""

from __future__ import annotations

DIGITALOCEAN_REGIONS: frozenset[str] = frozenset({
    "nyc1", "nyc2", "nyc3", "sgp1", "lon1", "ams2", "ams3", "fra1", "tor1", "sfo1",
    "sfo2", "sfo3", "blr1", "syd1", "atl1", "ric1",
})
