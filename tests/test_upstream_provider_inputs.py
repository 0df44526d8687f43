"""Every resource's inputs in every plan match the pinned provider SDK's input types
(keys at every depth, required properties, closed enums, value types), and the check
bites. The SDK metadata is read by tests/support/provider_schema.py."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from gpu_fabric.plan.values import SECRET, UNKNOWN
from tests.support.provider_schema import args_class, check_inputs, is_custom_resource
from tests.support.variants import plan_of, usable


@pytest.mark.parametrize("variant", usable())
def test_every_resource_input_matches_the_provider_sdk(variant: str) -> None:
    problems = [p for r in plan_of(variant).resources if r.custom
                for p in check_inputs(r.type, r.inputs)]
    assert problems == []


def test_every_resource_type_resolves_to_an_sdk_input_type() -> None:
    tokens = {r.type for v in usable() for r in plan_of(v).resources if r.custom}
    unresolved = sorted(t for t in tokens if args_class(t) is None and not is_custom_resource(t))
    assert unresolved == []
    # The five clouds' SDKs and Kubernetes all take part.
    assert {t.split(":")[0] for t in tokens} >= {
        "gcp", "aws", "azure-native", "digitalocean", "oci", "kubernetes", "pulumi"}


# -- the check bites ---------------------------------------------------------------------


def _inputs(variant: str, token: str, has: str = "") -> dict[str, Any]:
    for res in plan_of(variant).resources:
        if res.type == token and (not has or has in str(res.inputs)):
            assert check_inputs(token, res.inputs) == []
            return copy.deepcopy(res.inputs)
    raise AssertionError(f"no {token} in {variant}")


NODE_POOL = "gcp:container/nodePool:NodePool"


def test_a_misspelled_nested_input_fails() -> None:
    inputs = _inputs("stack:gcp-a4", NODE_POOL, "guestAccelerators")
    accel = inputs["nodeConfig"]["guestAccelerators"][0]
    accel["countt"] = accel.pop("count")
    assert check_inputs(NODE_POOL, inputs) == [
        f"{NODE_POOL}.nodeConfig.guestAccelerators[0]: missing required property 'count' "
        "of NodePoolNodeConfigGuestAcceleratorArgs",
        f"{NODE_POOL}.nodeConfig.guestAccelerators[0].countt: not a property of "
        "NodePoolNodeConfigGuestAcceleratorArgs (properties: count, "
        "gpuDriverInstallationConfig, gpuPartitionSize, gpuSharingConfig, type)",
    ]


def test_a_misspelled_top_level_input_fails_on_every_cloud() -> None:
    for variant, token in [
        ("stack:aws-p5", "aws:eks/cluster:Cluster"),
        ("stack:azure-ndv5", "azure-native:containerservice:ManagedCluster"),
        ("stack:do-h200", "digitalocean:index/kubernetesCluster:KubernetesCluster"),
        ("stack:oci-h100", "oci:ContainerEngine/cluster:Cluster"),
    ]:
        inputs = _inputs(variant, token)
        inputs["nmae"] = inputs.pop("name", "x")
        assert any(".nmae: not a property" in p for p in check_inputs(token, inputs)), token


def test_a_wrong_type_fails() -> None:
    inputs = _inputs("stack:gcp-a4", NODE_POOL, "guestAccelerators")
    inputs["nodeCount"] = "2"
    assert check_inputs(NODE_POOL, inputs) == [f"{NODE_POOL}.nodeCount: expected int, got '2'"]


def test_a_value_outside_a_closed_enum_fails() -> None:
    token = "azure-native:containerservice:ManagedCluster"
    inputs = _inputs("stack:azure-ndv5", token)
    inputs["identity"] = {"type": "SystemAsigned"}
    problems = check_inputs(token, inputs)
    assert any("identity.type: 'SystemAsigned' is not one of" in p for p in problems), problems


def test_engine_filled_values_match_any_type() -> None:
    inputs = _inputs("stack:gcp-a4", NODE_POOL, "guestAccelerators")
    inputs["nodeCount"] = UNKNOWN
    inputs["cluster"] = SECRET
    assert check_inputs(NODE_POOL, inputs) == []


def test_a_custom_resource_metadata_is_checked() -> None:
    token = "kubernetes:k8s.cni.cncf.io/v1:NetworkAttachmentDefinition"
    inputs = _inputs("stack:do-h200", token)
    inputs["metadata"]["lables"] = {"a": "b"}
    assert any("metadata.lables: not a property of ObjectMetaArgs" in p
               for p in check_inputs(token, inputs))
