"""Every manifest the fabric layer renders validates: built-ins against the Kubernetes
OpenAPI schemas of the stack's version (strict), custom resources against their CRDs."""

from __future__ import annotations

import copy

import pytest

from gpu_fabric.fabric.description import describe_cluster
from gpu_fabric.fabric.layer import Layer, build_layer
from gpu_fabric.plan.stackfile import available_stacks, load_stack_file
from gpu_fabric.spec import ClusterSpec, load_spec
from tests.specs import CLOUDS, spec_dict
from tests.support.manifests import validate, validate_all


def _layer(spec: ClusterSpec) -> Layer:
    return build_layer(spec, describe_cluster(spec))


def _k8s_version(spec: ClusterSpec) -> str:
    return str(spec.kubernetes.version)


@pytest.mark.parametrize("stack", available_stacks())
def test_every_stack_renders_valid_manifests(stack: str) -> None:
    spec = load_spec(load_stack_file(stack).cluster)
    layer = _layer(spec)
    assert layer.manifests()
    assert validate_all(layer.manifests(), _k8s_version(spec)) == []


@pytest.mark.parametrize("cloud", CLOUDS)
@pytest.mark.parametrize("mode", ["auto", "dra"])
def test_each_cloud_and_attach_mode_renders_valid_manifests(cloud: str, mode: str) -> None:
    try:
        spec = load_spec(spec_dict(cloud, fabric={"mode": mode}))
        layer = _layer(spec)  # describers refuse modes a cloud cannot do (AKS: dra)
    except Exception as exc:  # a mode a cloud refuses is covered by the spec tests
        pytest.skip(f"{cloud} refuses fabric.mode={mode}: {str(exc).splitlines()[0]}")
    assert validate_all(layer.manifests(), _k8s_version(spec)) == []


def _first(kind: str):
    spec = load_spec(spec_dict("digitalocean"))
    for manifest in _layer(spec).manifests():
        if manifest["kind"] == kind:
            return copy.deepcopy(manifest)
    raise AssertionError(f"no {kind} in the DO layer")


def test_validator_rejects_an_unknown_field_on_a_builtin() -> None:
    ds = _first("DaemonSet")
    ds["spec"]["template"]["spec"]["containerz"] = []
    assert validate(ds, "1.34")


def test_validator_rejects_a_bad_custom_resource() -> None:
    nad = _first("NetworkAttachmentDefinition")
    assert validate(nad, "1.34") == []
    nad["spec"]["config"] = {"type": "host-device"}  # must be a JSON string
    assert any("config" in p for p in validate(nad, "1.34"))
    policy = _first("ClusterPolicy")
    del policy["spec"]["rules"][0]["match"]
    assert any("match" in p for p in validate(policy, "1.34"))


def test_validator_refuses_a_kind_without_a_schema() -> None:
    problems = validate(
        {"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w"}}, "1.34"
    )
    assert problems and "no upstream CRD serves" in problems[0]
