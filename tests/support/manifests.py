"""Offline validation of rendered manifests.

Built-in kinds are checked with kubernetes-validate (OpenAPI schemas of the
target Kubernetes version, strict: unknown fields fail). Custom resources are
checked against the upstream CRDs at the pinned versions, CEL rules included
(:mod:`tests.support.crds`).
"""

from __future__ import annotations

from typing import Any

import kubernetes_validate

from tests.support.crds import validate_custom_resource

BUILTIN_GROUPS = {
    "", "apps", "batch", "policy", "rbac.authorization.k8s.io", "apiextensions.k8s.io",
    "resource.k8s.io", "scheduling.k8s.io", "networking.k8s.io", "storage.k8s.io",
    "admissionregistration.k8s.io", "node.k8s.io", "apiregistration.k8s.io", "autoscaling",
    "coordination.k8s.io", "certificates.k8s.io", "discovery.k8s.io",
}


def _group_version(api_version: str) -> tuple[str, str]:
    group, _, version = api_version.rpartition("/")
    return group, version


def validate(manifest: dict[str, Any], kubernetes_version: str) -> list[str]:
    """Problems found in one manifest (empty list: valid)."""
    kind = manifest.get("kind", "?")
    name = manifest.get("metadata", {}).get("name", "?")
    where = f"{kind}/{name}"
    group, _ = _group_version(manifest.get("apiVersion", ""))
    if group in BUILTIN_GROUPS:
        try:
            kubernetes_validate.validate(manifest, kubernetes_version, strict=True)
        except kubernetes_validate.ValidationError as exc:
            path = ".".join(str(p) for p in exc.path)
            return [f"{where}: {path}: {exc.message}"]
        except kubernetes_validate.SchemaNotFoundError as exc:
            return [f"{where}: {exc.message}"]
        return []
    return validate_custom_resource(manifest)


def validate_all(manifests: list[dict[str, Any]], kubernetes_version: str) -> list[str]:
    problems: list[str] = []
    for manifest in manifests:
        problems += validate(manifest, kubernetes_version)
    return problems
