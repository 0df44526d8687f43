"""DigitalOcean (DOKS): the cloud contract
(:mod:`components.clouds.contract`) as this cloud's modules implement it.

SDK-free: describing the fabric and building the Kubernetes layer never load
the cloud SDK; only ``cluster.py`` does, when resources are created.
"""

from __future__ import annotations

from components.catalog import Cloud
from components.clouds.adapter import FunctionProvider
from components.clouds.digitalocean import fabric, kubernetes

PROVIDER = FunctionProvider(
    cloud=Cloud.DIGITALOCEAN,
    describe_pool=fabric.describe,
    defaults=kubernetes.addon_defaults,
    values_for=kubernetes.chart_values,
    cloud_parts=kubernetes.parts,
    spec_check=fabric.check_cluster,
)
