"""The CrossGuard pack as the policy SDK runs it, and our own stacks under it."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from pulumi_policy import (
    EnforcementLevel,
    PolicyCustomTimeouts,
    PolicyResourceOptions,
    ResourceValidationArgs,
    ResourceValidationPolicy,
    Secret,
)
from pulumi_policy.deserialize import SPECIAL_SECRET_SIG, SPECIAL_SIG_KEY, deserialize_properties
from pulumi_policy.proxy import UNKNOWN_STRING_VALUE, unknown_checking_proxy

POLICY_DIR = Path(__file__).resolve().parents[2] / "policy"
if str(POLICY_DIR) not in sys.path:
    sys.path.insert(0, str(POLICY_DIR))

from gpu_fabric.plan import PlanResult  # noqa: E402
from gpufabric_policies.devices import device_counts  # noqa: E402
from gpufabric_policies.endpoints import public_api_endpoint  # noqa: E402
from gpufabric_policies.images import unpinned_images  # noqa: E402
from gpufabric_policies.network import open_ingress  # noqa: E402
from gpufabric_policies.pack import build_policies  # noqa: E402
from gpufabric_policies.secrets import secret_kubeconfig  # noqa: E402
from gpufabric_policies.taints import daemonset_tolerations, gpu_pool_taints  # noqa: E402
from tests.conftest import all_stacks  # noqa: E402

EXPECTED = {
    "fabric-no-open-ingress": EnforcementLevel.MANDATORY,
    "api-endpoint-not-public": EnforcementLevel.MANDATORY,
    "fabric-device-counts-match-catalog": EnforcementLevel.MANDATORY,
    "gpu-node-pools-tainted": EnforcementLevel.MANDATORY,
    "fabric-daemonsets-tolerate-gpu-taints": EnforcementLevel.MANDATORY,
    "images-pinned": EnforcementLevel.MANDATORY,
    "kubeconfig-secret": EnforcementLevel.REMEDIATE,
}


def _policies() -> dict[str, ResourceValidationPolicy]:
    return {p.name: p for p in build_policies()}


def _args(type_: str, props: dict[str, Any], config: dict[str, Any] | None = None,
          urn: str = "urn:pulumi:s::p::t::r", *, secrets: bool = False) -> ResourceValidationArgs:
    """What the SDK's Analyze (or, with ``secrets``, Remediate) builds for one resource."""
    wrapped = deserialize_properties(props, proxy_secrets=secrets)
    opts = PolicyResourceOptions(False, [], None, [], PolicyCustomTimeouts(0, 0, 0), [], None)
    return ResourceValidationArgs(type_, unknown_checking_proxy(wrapped), urn, "r", opts, None,
                                  config)


def _violations(policy: ResourceValidationPolicy, args: ResourceValidationArgs) -> list[str]:
    found: list[str] = []

    def report(message: str, urn: str | None = None) -> None:
        found.append(message)

    policy.validate(args, report)
    return found


def test_pack_lists_every_policy_with_its_enforcement_level() -> None:
    policies = build_policies()
    assert {p.name: p.enforcement_level for p in policies} == EXPECTED
    assert all(isinstance(p, ResourceValidationPolicy) for p in policies)
    assert all(p.description for p in policies)
    validating = [p for p in policies if p.enforcement_level is EnforcementLevel.MANDATORY]
    assert all(p.has_validation() for p in validating)
    assert _policies()["kubeconfig-secret"].has_remediation()


def test_mandatory_policy_reports_through_the_sdk_callback() -> None:
    policy = _policies()["fabric-no-open-ingress"]
    bad = _args("gcp:compute/firewall:Firewall",
                {"allows": [{"protocol": "all"}], "sourceRanges": ["0.0.0.0/0"]})
    good = _args("gcp:compute/firewall:Firewall",
                 {"allows": [{"protocol": "all"}], "sourceRanges": ["10.0.0.0/8"]})
    assert len(_violations(policy, bad)) == 1
    assert _violations(policy, good) == []


def test_taint_policy_reads_its_config() -> None:
    policy = _policies()["gpu-node-pools-tainted"]
    pool = {"nodeConfig": {"machineType": "a4-highgpu-8g"}}
    assert _violations(policy, _args("gcp:container/nodePool:NodePool", pool)) == []
    strict = _args("gcp:container/nodePool:NodePool", pool, {"providerTaintedClouds": []})
    assert len(_violations(policy, strict)) == 1


def test_daemonset_policy_uses_the_urn() -> None:
    policy = _policies()["fabric-daemonsets-tolerate-gpu-taints"]
    ds = {"metadata": {"name": "x"}, "spec": {"template": {"spec": {"tolerations": []}}}}
    urn = "urn:pulumi:s::p::gpufabric:kubernetes:FabricStack$kubernetes:apps/v1:DaemonSet::x"
    assert len(_violations(policy, _args("kubernetes:apps/v1:DaemonSet", ds, urn=urn))) == 1


def _secret(value: Any) -> dict[str, Any]:
    return {SPECIAL_SIG_KEY: SPECIAL_SECRET_SIG, "value": value}


def test_validation_cannot_see_secretness_so_kubeconfig_is_a_remediation() -> None:
    # Analyze unwraps secrets: a validation sees the same plain string either way.
    plain = _args("pulumi:providers:kubernetes", {"kubeconfig": "apiVersion: v1"})
    secret = _args("pulumi:providers:kubernetes", {"kubeconfig": _secret("apiVersion: v1")})
    assert plain.props["kubeconfig"] == secret.props["kubeconfig"] == "apiVersion: v1"


def test_plaintext_kubeconfig_is_wrapped_as_a_secret() -> None:
    policy = _policies()["kubeconfig-secret"]
    args = _args("pulumi:providers:kubernetes",
                 {"kubeconfig": "apiVersion: v1", "namespace": "x"}, secrets=True)
    fixed = policy.remediate(args)
    assert isinstance(fixed, dict)
    assert isinstance(fixed["kubeconfig"], Secret) and fixed["kubeconfig"].value == "apiVersion: v1"
    assert fixed["namespace"] == "x"


@pytest.mark.parametrize(
    "kubeconfig", [_secret("apiVersion: v1"), UNKNOWN_STRING_VALUE], ids=["secret", "unknown"]
)
def test_secret_or_unknown_kubeconfig_is_left_alone(kubeconfig: Any) -> None:
    args = _args("pulumi:providers:kubernetes", {"kubeconfig": kubeconfig}, secrets=True)
    assert _policies()["kubeconfig-secret"].remediate(args) is None


def test_other_resources_are_not_remediated() -> None:
    assert secret_kubeconfig("kubernetes:core/v1:Secret", {"kubeconfig": "x"}) is None


# -- our own stacks comply -----------------------------------------------------------------

VALIDATORS: list[Callable[[str, Any, str], list[str]]] = [
    lambda t, p, u: open_ingress(t, p),
    lambda t, p, u: device_counts(t, p),
    lambda t, p, u: gpu_pool_taints(t, p),
    daemonset_tolerations,
    lambda t, p, u: unpinned_images(t, p),
    lambda t, p, u: public_api_endpoint(t, p),
]


@pytest.mark.parametrize("stack", all_stacks())
def test_every_stack_passes_every_validator(
    stack: str, stack_plan: Callable[..., PlanResult]
) -> None:
    plan = stack_plan(stack)
    problems = [
        f"{r.type} {r.name}: {message}"
        for r in plan.resources
        for check in VALIDATORS
        for message in check(r.type, unknown_checking_proxy(r.inputs), r.urn)
    ]
    assert problems == []
    daemonsets = plan.by_type("kubernetes:apps/v1:DaemonSet")
    releases = plan.by_type("kubernetes:helm.sh/v3:Release")
    # Some stacks install their fabric only through charts (values checked by the
    # image/taint validators); one of the two must exist or the test is vacuous.
    assert daemonsets or releases, "a plan without DaemonSets or Releases makes this vacuous"
