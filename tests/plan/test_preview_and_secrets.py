"""Every stack under a first `pulumi preview` (outputs unknown) and the secrecy of credentials."""

from __future__ import annotations

import json
import re

import pytest

from gpu_fabric.plan.stackfile import available_stacks
from gpu_fabric.plan.values import SECRET, UNKNOWN

STACKS = available_stacks()

# Text that would only be in a plan if a credential leaked into it.
LEAK = re.compile(
    r"kind:\s*Config|client-key-data|client-certificate-data|BEGIN (RSA |EC )?PRIVATE KEY"
    r"|\btoken:\s*\S|certificate-authority-data:\s*\S"
)


@pytest.mark.parametrize("stack", STACKS)
def test_preview_with_unknown_outputs_builds_the_same_graph(stack: str, stack_plan) -> None:
    """Nothing may need a real value of a computed output: a preview registers the same
    resources (same URNs) as a plan with known outputs."""
    preview = stack_plan(stack, preview=True)
    full = stack_plan(stack)
    assert sorted(r.urn for r in preview.resources) == sorted(r.urn for r in full.resources)
    assert preview.outputs["kubeconfig"] == SECRET


@pytest.mark.parametrize("stack", STACKS)
def test_preview_leaves_computed_values_unknown(stack: str, stack_plan) -> None:
    preview = stack_plan(stack, preview=True)
    text = json.dumps(preview.to_json())
    clouds = {r.type.split(":")[0] for r in preview.resources}
    if clouds - {"kubernetes", "gpufabric", "pulumi"}:
        # A cloud stack: something downstream of the cluster must be unknown at preview.
        assert UNKNOWN in text or SECRET in text


@pytest.mark.parametrize("stack", STACKS)
def test_credentials_never_appear_in_plan_or_outputs(stack: str, stack_plan) -> None:
    for plan in (stack_plan(stack), stack_plan(stack, preview=True)):
        assert plan.outputs["kubeconfig"] == SECRET
        text = json.dumps(plan.to_json())
        assert not LEAK.search(text), LEAK.search(text)
        providers = plan.by_type("pulumi:providers:kubernetes")
        assert providers and all(p.inputs["kubeconfig"] in (SECRET, UNKNOWN) for p in providers)


def test_the_leak_detector_can_fail() -> None:
    assert LEAK.search("apiVersion: v1\nkind: Config\nusers: []")
    assert LEAK.search("users:\n- user:\n    token: abc")
    assert not LEAK.search("[secret]")
