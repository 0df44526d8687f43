"""Turning layer data into Pulumi Kubernetes resources (the only Pulumi part of the layer).

Built-in kinds become their typed ``pulumi_kubernetes`` classes (so previews show
typed diffs); anything else becomes ``apiextensions.CustomResource``. Helm
charts become ``helm.v3.Release`` (real Helm semantics: hooks, CRD install,
``helm list``), pinned by repo, chart and version.
"""

from __future__ import annotations

import re
from typing import Any

import pulumi
import pulumi_kubernetes as k8s

from gpu_fabric.fabric.layer import HelmRelease, Manifest

_GROUP_MODULES = {
    "": "core",
    "apps": "apps",
    "batch": "batch",
    "policy": "policy",
    "rbac.authorization.k8s.io": "rbac",
    "apiextensions.k8s.io": "apiextensions",
    "resource.k8s.io": "resource",
    "scheduling.k8s.io": "scheduling",
    "networking.k8s.io": "networking",
    "admissionregistration.k8s.io": "admissionregistration",
    "storage.k8s.io": "storage",
    "node.k8s.io": "node",
}


def _snake(name: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


def typed_class(api_version: str, kind: str) -> type | None:
    """The typed pulumi_kubernetes class for a built-in kind, or None for custom resources."""
    group, _, version = api_version.rpartition("/")
    module_name = _GROUP_MODULES.get(group)
    if module_name is None:
        return None
    module = getattr(getattr(k8s, module_name, None), version, None)
    cls = getattr(module, kind, None) if module is not None else None
    return cls if isinstance(cls, type) else None


def resource_name(prefix: str, manifest: Manifest) -> str:
    """Stable Pulumi name: ``<prefix>-<kind>-[<namespace>-]<name>`` in lowercase."""
    meta = manifest.get("metadata", {})
    parts = [prefix, manifest["kind"].lower()]
    if meta.get("namespace"):
        parts.append(meta["namespace"])
    parts.append(meta["name"])
    return "-".join(parts)


def manifest_resource(
    prefix: str, manifest: Manifest, opts: pulumi.ResourceOptions
) -> pulumi.CustomResource:
    name = resource_name(prefix, manifest)
    api_version, kind = manifest["apiVersion"], manifest["kind"]
    cls = typed_class(api_version, kind)
    fields = {k: v for k, v in manifest.items() if k not in ("apiVersion", "kind")}
    if cls is None:
        if set(fields) - {"metadata", "spec"}:
            return _TopLevelCustomResource(name, manifest, opts)
        return k8s.apiextensions.CustomResource(
            name, api_version=api_version, kind=kind, opts=opts, **fields
        )
    kwargs: dict[str, Any] = {_snake(k): v for k, v in fields.items()}
    resource: pulumi.CustomResource = cls(name, opts=opts, **kwargs)
    return resource


class _TopLevelCustomResource(pulumi.CustomResource):
    """A custom resource whose fields sit beside ``spec`` (Kueue's WorkloadPriorityClass
    has top-level ``value`` and ``description``).

    The Python ``apiextensions.CustomResource`` only takes ``metadata`` and ``spec``
    (pulumi/pulumi-kubernetes#2363, open; the Node.js SDK takes ``[otherFields]``).
    The provider reads every input as a field of the object, so this registers the
    same type token (``kubernetes:<apiVersion>:<kind>``) and name with the whole
    manifest as inputs: same URN as ``CustomResource`` would give.
    """

    def __init__(self, name: str, manifest: Manifest, opts: pulumi.ResourceOptions) -> None:
        api_version, kind = manifest["apiVersion"], manifest["kind"]
        super().__init__(f"kubernetes:{api_version}:{kind}", name, dict(manifest), opts)


# The stack config key the spec (and so every addons.<key>.values) is read from.
CLUSTER_CONFIG_KEY = "gpu-fabric:cluster"


def secret_values(release: HelmRelease) -> bool:
    """True when the release carries user values from a config that holds secrets.

    Pulumi marks a structured config key secret as a whole when any value inside is
    ``secure:``; the values cannot be told apart after decryption, so the whole
    values object of every release with user values stays a secret (inputs, state,
    the Release's ``values`` output, previews)."""
    return release.user_values and pulumi.runtime.is_config_secret(CLUSTER_CONFIG_KEY)


def release_resource(
    prefix: str, release: HelmRelease, opts: pulumi.ResourceOptions
) -> k8s.helm.v3.Release:
    chart = release.chart
    values: pulumi.Input[dict[str, Any]] = dict(release.values)
    if secret_values(release):
        values = pulumi.Output.secret(dict(release.values))
        opts = pulumi.ResourceOptions.merge(
            opts, pulumi.ResourceOptions(additional_secret_outputs=["values", "manifest"])
        )
    if chart.is_oci:
        chart_ref, repo_opts = f"{chart.repo}/{chart.name}", None
    else:
        chart_ref, repo_opts = chart.name, k8s.helm.v3.RepositoryOptsArgs(repo=chart.repo)
    return k8s.helm.v3.Release(
        f"{prefix}-{release.release}",
        name=release.release,
        chart=chart_ref,
        version=chart.version,
        repository_opts=repo_opts,
        namespace=release.namespace,
        values=values,
        # The layer creates every namespace itself (its own Namespace objects, with their
        # Pod Security labels), so Helm must not create a bare one first.
        create_namespace=False,
        # Not atomic: a failed install stays for `helm status` / events to explain it
        # (atomic rolls back and hides why); cleanup_on_fail still removes the resources a
        # failed upgrade added.
        atomic=False,
        cleanup_on_fail=True,
        # Bounded release history (Helm keeps every revision's Secret otherwise).
        max_history=5,
        # Seconds Helm waits for the release's workloads: operators that pull large images
        # on GPU nodes (GPU Operator, DOCA driver) take several minutes.
        timeout=900,
        opts=opts,
    )
