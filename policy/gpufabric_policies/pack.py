"""The pack's policies: the pure validators wired into ``pulumi_policy`` objects."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from pulumi_policy import (
    EnforcementLevel,
    PolicyConfigSchema,
    ReportViolation,
    ResourceValidationArgs,
    ResourceValidationPolicy,
)

from gpufabric_policies.devices import device_counts
from gpufabric_policies.endpoints import public_api_endpoint
from gpufabric_policies.images import unpinned_images
from gpufabric_policies.network import open_ingress
from gpufabric_policies.secrets import secret_kubeconfig
from gpufabric_policies.taints import (
    PROVIDER_TAINTED_CLOUDS,
    daemonset_tolerations,
    gpu_pool_taints,
)

PACK_NAME = "gpu-fabric"
TRUSTED_CLOUDS_KEY = "providerTaintedClouds"

Validator = Callable[[ResourceValidationArgs], list[str]]


def _report_all(check: Validator) -> Callable[[ResourceValidationArgs, ReportViolation], None]:
    def validate(args: ResourceValidationArgs, report_violation: ReportViolation) -> None:
        for message in check(args):
            report_violation(message, None)

    return validate


def _pool_taints(args: ResourceValidationArgs) -> list[str]:
    trusted = args.get_config().get(TRUSTED_CLOUDS_KEY, PROVIDER_TAINTED_CLOUDS)
    return gpu_pool_taints(args.resource_type, args.props, trusted)


def _remediate_kubeconfig(args: ResourceValidationArgs) -> Mapping[str, Any] | None:
    return secret_kubeconfig(args.resource_type, args.props)


def build_policies() -> list[ResourceValidationPolicy]:
    """Every policy of the pack, in the order ``pulumi preview`` reports them."""
    mandatory = EnforcementLevel.MANDATORY
    return [
        ResourceValidationPolicy(
            name="fabric-no-open-ingress",
            description="Firewall, security group, NSG, security list and network ACL rules "
            "(default ones included) never allow ingress from the internet: 0.0.0.0/0, ::/0, "
            "'*', 'Internet', or any range wider than /8 (0.0.0.0/1 + 128.0.0.0/1).",
            validate=_report_all(lambda a: open_ingress(a.resource_type, a.props)),
            enforcement_level=mandatory,
        ),
        ResourceValidationPolicy(
            name="api-endpoint-not-public",
            description="GKE, EKS, AKS and DOKS API servers are private or list their "
            "authorized source ranges (none wider than /8).",
            validate=_report_all(lambda a: public_api_endpoint(a.resource_type, a.props)),
            enforcement_level=mandatory,
        ),
        ResourceValidationPolicy(
            name="fabric-device-counts-match-catalog",
            description="EFA interfaces of AWS launch templates and RDMA/GPUDirect networks of "
            "GKE node pools match the gpu-fabric machine catalog.",
            validate=_report_all(lambda a: device_counts(a.resource_type, a.props)),
            enforcement_level=mandatory,
        ),
        ResourceValidationPolicy(
            name="gpu-node-pools-tainted",
            description="GPU node pools (GKE, EKS, AKS, DOKS, OKE) carry a NoSchedule taint "
            "with a GPU key, so ordinary pods stay off GPU nodes.",
            validate=_report_all(_pool_taints),
            enforcement_level=mandatory,
            config_schema=PolicyConfigSchema(
                properties={
                    TRUSTED_CLOUDS_KEY: {
                        "type": "array",
                        "items": {"type": "string"},
                        "default": list(PROVIDER_TAINTED_CLOUDS),
                        "description": "Clouds that taint GPU nodes themselves; their pools "
                        "need no explicit taint.",
                    }
                }
            ),
        ),
        ResourceValidationPolicy(
            name="fabric-daemonsets-tolerate-gpu-taints",
            description="Every DaemonSet of the gpu-fabric layer tolerates every GPU taint key "
            "with operator Exists.",
            validate=_report_all(
                lambda a: daemonset_tolerations(a.resource_type, a.props, a.urn)
            ),
            enforcement_level=mandatory,
        ),
        ResourceValidationPolicy(
            name="images-pinned",
            description="Container images are pinned by tag or digest (never untagged or a "
            "moving tag: latest, main, stable...) and Helm charts by version, with no moving "
            "tag or version in their values.",
            validate=_report_all(lambda a: unpinned_images(a.resource_type, a.props)),
            enforcement_level=mandatory,
        ),
        ResourceValidationPolicy(
            name="kubeconfig-secret",
            description="A Kubernetes provider's kubeconfig is a Pulumi secret (plaintext "
            "ones are wrapped as secrets: validations cannot see secretness).",
            # The SDK types remediate as returning an Awaitable; Remediate() accepts plain values.
            remediate=_remediate_kubeconfig,  # type: ignore[arg-type]
            enforcement_level=EnforcementLevel.REMEDIATE,
        ),
    ]
