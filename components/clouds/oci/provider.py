"""Oracle Cloud (OKE): the cloud contract
(:mod:`components.clouds.contract`) as this cloud's modules implement it.

SDK-free: describing the fabric and building the Kubernetes layer never load
the cloud SDK; only ``cluster.py`` does, when resources are created.
"""

from __future__ import annotations

from components.catalog import Cloud
from components.clouds.adapter import FunctionProvider
from components.clouds.oci import fabric, kubernetes

PROVIDER = FunctionProvider(
    cloud=Cloud.OCI,
    describe_pool=fabric.describe,
    defaults=kubernetes.addon_defaults,
    values_for=kubernetes.chart_values,
    cloud_parts=kubernetes.parts,
)
