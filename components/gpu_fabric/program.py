"""The Pulumi program: read ``gpu-fabric:cluster``, validate it, build the cluster, export.

``__main__.py`` calls :func:`main`; the offline ``plan`` runs the same function
under Pulumi's mock runtime.
"""

from __future__ import annotations

import pulumi

from gpu_fabric.clouds.factory import build_cluster
from gpu_fabric.spec import ClusterSpec, load_spec

PROJECT = "gpu-fabric"
CONFIG_KEY = "cluster"


def read_spec(config: pulumi.Config | None = None) -> ClusterSpec:
    """The stack's ``gpu-fabric:cluster`` value as a validated spec (SpecError if invalid)."""
    config = config or pulumi.Config(PROJECT)
    raw = config.require_object(CONFIG_KEY)
    return load_spec(raw, source=f"{PROJECT}:{CONFIG_KEY}")


def main() -> None:
    spec = read_spec()
    cluster = build_cluster(spec.name, spec)
    for key, value in cluster.outputs().items():
        pulumi.export(key, value)
