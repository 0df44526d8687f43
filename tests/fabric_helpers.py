"""Building fabric descriptions and layers straight from raw specs (no Pulumi run)."""

from __future__ import annotations

from typing import Any

from gpu_fabric.fabric.description import FabricDescription, describe_cluster
from gpu_fabric.fabric.layer import Layer, build_layer
from gpu_fabric.spec import ClusterSpec, load_spec
from tests.specs import spec_dict


def existing(cloud: str, machine: str | None = None, **overrides: Any) -> ClusterSpec:
    """A valid existing-cluster spec (no cloud SDK involved) for ``cloud``/``machine``."""
    data = spec_dict(cloud, existing={"kubeconfig": {"path": "/nonexistent"}}, **overrides)
    if machine:
        data["node_pools"][0]["machine_type"] = machine
    return load_spec(data)


def fabric_of(spec: ClusterSpec, pool: str = "gpu") -> FabricDescription:
    return describe_cluster(spec)[pool]


def layer_of(spec: ClusterSpec) -> Layer:
    return build_layer(spec, describe_cluster(spec))
