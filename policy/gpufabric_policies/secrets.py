"""Kubeconfigs stay Pulumi secrets.

What the policy SDK can see: ``pulumi_policy`` 1.21 deserializes inputs for
*validation* (``Analyze``/``AnalyzeStack``) with ``proxy_secrets=False``, which
unwraps every secret into its plain value; a validation therefore cannot tell a
secret kubeconfig from a plaintext one. Only *remediations* get inputs with
secrets kept as ``pulumi_policy.Secret`` wrappers (``proxy_secrets=True``, reached
through ``props["__target"]``). So this policy is a remediation: a plaintext
kubeconfig on a Kubernetes provider is wrapped in ``Secret``, which makes the
engine encrypt it in the state and mask it in diffs.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pulumi_policy import Secret
from pulumi_policy.proxy import UNKNOWN_STRING_VALUE

KUBERNETES_PROVIDER = "pulumi:providers:kubernetes"
SECRET_INPUTS: dict[str, tuple[str, ...]] = {KUBERNETES_PROVIDER: ("kubeconfig",)}


def raw_inputs(props: Mapping[str, Any]) -> Mapping[str, Any]:
    """The inputs with secret wrappers intact (the SDK's secrets proxy hides them)."""
    try:
        target = props["__target"]
    except KeyError:
        return props
    return target if isinstance(target, Mapping) else props


def plaintext_secret_inputs(resource_type: str, props: Mapping[str, Any]) -> list[str]:
    """Names of inputs of this resource that must be secret but are not."""
    raw = raw_inputs(props)
    found = []
    for key in SECRET_INPUTS.get(resource_type, ()):
        value = raw.get(key) if key in raw else None
        if value is None or isinstance(value, Secret):
            continue
        if value == UNKNOWN_STRING_VALUE:
            continue  # unknown at preview: judged again at update time, when known
        found.append(key)
    return found


def secret_kubeconfig(resource_type: str, props: Mapping[str, Any]) -> dict[str, Any] | None:
    """The inputs with every plaintext kubeconfig wrapped as a secret, or None if none is."""
    keys = plaintext_secret_inputs(resource_type, props)
    if not keys:
        return None
    raw = raw_inputs(props)
    fixed = {key: raw[key] for key in raw}
    for key in keys:
        fixed[key] = Secret(fixed[key])
    return fixed
