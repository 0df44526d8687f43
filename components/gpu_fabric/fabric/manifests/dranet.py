"""DraNet (kubernetes-sigs/dranet, driver ``dra.net``) chart values."""

from __future__ import annotations

from typing import Any

from gpu_fabric.catalog import Cloud
from gpu_fabric.fabric.taints import daemonset_tolerations

# The chart's ``args.cloudProviderHint`` picks the provider plugin that adds cloud
# attributes (e.g. ``dra.net/cloudNetwork``) to NIC devices; unset, DraNet probes
# for one. Allowed values (dranet v1.4.0 cmd/dranet/app.go and values.schema.json):
# AWS, GCE, AZURE, OKE, ALIBABA, webhook, NONE. DigitalOcean has no plugin.
CLOUD_PROVIDER_HINTS: dict[Cloud, str] = {
    Cloud.GCP: "GCE",
    Cloud.AWS: "AWS",
    Cloud.AZURE: "AZURE",
    Cloud.OCI: "OKE",
    Cloud.DIGITALOCEAN: "NONE",
}


def values(cloud: Cloud) -> dict[str, Any]:
    return {
        "tolerations": daemonset_tolerations(),
        "args": {"cloudProviderHint": CLOUD_PROVIDER_HINTS[cloud]},
    }
