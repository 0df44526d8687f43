"""Offline validation of rendered manifests.

Built-in kinds are checked with kubernetes-validate (OpenAPI schemas of the
target Kubernetes version, strict: unknown fields fail). Custom resources are
checked against the OpenAPI schema of their CRD, kept as test data in
tests/data/crds/<group>/<kind>.json: our own transcriptions of the upstream API
types (fields we use, with their types and required keys), not copies of
upstream files.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

import jsonschema
import kubernetes_validate

CRDS = Path(__file__).resolve().parents[1] / "data" / "crds"

BUILTIN_GROUPS = {
    "", "apps", "batch", "policy", "rbac.authorization.k8s.io", "apiextensions.k8s.io",
    "resource.k8s.io", "scheduling.k8s.io", "networking.k8s.io", "storage.k8s.io",
    "admissionregistration.k8s.io", "node.k8s.io",
}


def _group_version(api_version: str) -> tuple[str, str]:
    group, _, version = api_version.rpartition("/")
    return group, version


@cache
def crd_schema(group: str, version: str, kind: str) -> dict[str, Any] | None:
    path = CRDS / group / f"{kind}.json"
    if not path.is_file():
        return None
    doc = json.loads(path.read_text())
    return doc["versions"].get(version)


def validate(manifest: dict[str, Any], kubernetes_version: str) -> list[str]:
    """Problems found in one manifest (empty list: valid)."""
    kind = manifest.get("kind", "?")
    name = manifest.get("metadata", {}).get("name", "?")
    where = f"{kind}/{name}"
    group, version = _group_version(manifest.get("apiVersion", ""))
    if group in BUILTIN_GROUPS:
        try:
            kubernetes_validate.validate(manifest, kubernetes_version, strict=True)
        except kubernetes_validate.ValidationError as exc:
            path = ".".join(str(p) for p in exc.path)
            return [f"{where}: {path}: {exc.message}"]
        except kubernetes_validate.SchemaNotFoundError as exc:
            return [f"{where}: {exc.message}"]
        return []
    schema = crd_schema(group, version, kind)
    if schema is None:
        return [f"{where}: no CRD schema for {group}/{version} {kind} in tests/data/crds"]
    errors = sorted(jsonschema.Draft202012Validator(schema).iter_errors(manifest),
                    key=lambda e: list(e.path))
    return [f"{where}: {'.'.join(str(p) for p in e.path)}: {e.message}" for e in errors]


def validate_all(manifests: list[dict[str, Any]], kubernetes_version: str) -> list[str]:
    problems: list[str] = []
    for manifest in manifests:
        problems += validate(manifest, kubernetes_version)
    return problems
