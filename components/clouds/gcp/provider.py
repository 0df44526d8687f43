"""Google Cloud (GKE): the cloud contract
(:mod:`components.clouds.contract`) as this cloud's modules implement it.

SDK-free: describing the fabric and building the Kubernetes layer never load
the cloud SDK; only ``cluster.py`` does, when resources are created.
"""

from __future__ import annotations

from components.catalog import Cloud
from components.clouds.adapter import FunctionProvider
from components.clouds.gcp import fabric, kubernetes
from components.clouds.gcp.layout import build_layout
from components.spec import ClusterSpec


def check(spec: ClusterSpec) -> None:
    """Network layout and GKE rules: refuse what cannot be built before any resource."""
    if spec.existing is None:
        build_layout(spec)


PROVIDER = FunctionProvider(
    cloud=Cloud.GCP,
    describe_pool=fabric.describe,
    defaults=kubernetes.addon_defaults,
    values_for=kubernetes.chart_values,
    cloud_parts=kubernetes.parts,
    spec_check=check,
)
