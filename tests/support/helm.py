"""Every committed stack's Helm releases, rendered by the real ``helm`` from ``charts/``.

Why here: the golden plan of each stack (tests/data/golden/<stack>/plan.json,
kept equal to a fresh plan by tests/plan/test_golden.py) holds every
``helm.sh/v3:Release`` with its chart, version and values, so the releases can
be rendered without planning again. ``helm`` comes from ``make install``
(scripts/install_helm.py, pinned by sha256); a missing binary fails the tests
that need it with the command that installs it, rather than skipping them.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from gpu_fabric.plan import helm_render, load_stack_file
from gpu_fabric.spec import load_spec
from tests.support.crds import to_json_schema
from tests.support.manifests import BUILTIN_GROUPS, validate

ROOT = Path(__file__).resolve().parents[2]
CHARTS = ROOT / helm_render.CHARTS_DIR
GOLDEN = ROOT / "tests" / "data" / "golden"
INSTALL = "python scripts/install_helm.py  (make install runs it)"


def helm() -> str:
    found = helm_render.find_helm()
    if found is None:
        pytest.fail(f"no helm binary: {INSTALL}")
    return found


def committed_releases() -> list[tuple[str, dict[str, Any]]]:
    """(stack, Release resource) for every release of every committed stack."""
    out = []
    for plan in sorted(GOLDEN.glob("*/plan.json")):
        for resource in json.loads(plan.read_text())["resources"]:
            if resource["type"] == helm_render.RELEASE_TYPE:
                out.append((plan.parent.name, resource))
    return out


@cache
def kubernetes_version(stack: str) -> str:
    stack_file = load_stack_file(stack)
    return str(load_spec(stack_file.cluster, source=str(stack_file.path)).kubernetes.version)


def render(stack: str, inputs: dict[str, Any]) -> list[dict[str, Any]]:
    archive = CHARTS / helm_render.chart_ref(inputs).archive
    assert archive.is_file(), f"{archive} is not vendored: python scripts/vendor_charts.py"
    return helm_render.template(helm(), archive, inputs, kubernetes_version(stack))


def validate_rendered(objects: list[dict[str, Any]], kubernetes_version: str,
                      crds: list[dict[str, Any]] = ()) -> list[str]:  # type: ignore[assignment]
    """Built-ins strictly; custom resources against the CRDs the same release renders
    (or ``crds``: rendered by another release of the same cluster, e.g. cert-manager's
    for NVSentinel's Certificates), else against the upstream CRDs at the pins
    (tests/support/crds.py)."""
    own: dict[tuple[str, str, str], dict[str, Any]] = {}
    for obj in [*crds, *objects]:
        if obj.get("kind") == "CustomResourceDefinition":
            spec = obj["spec"]
            for ver in spec["versions"]:
                schema = ver.get("schema", {}).get("openAPIV3Schema")
                if schema:
                    own[(spec["group"], ver["name"], spec["names"]["kind"])] = schema
    problems: list[str] = []
    for obj in objects:
        group, _, version = str(obj.get("apiVersion", "")).rpartition("/")
        key = (group, version, str(obj.get("kind")))
        if group not in BUILTIN_GROUPS and key in own:
            validator = jsonschema.Draft7Validator(to_json_schema(own[key], root=True))
            name = obj.get("metadata", {}).get("name", "?")
            problems += [
                f"{key[2]}/{name}: {'.'.join(map(str, e.absolute_path))}: {e.message}"
                for e in validator.iter_errors(obj)
            ]
        else:
            problems += validate(obj, kubernetes_version)
    return problems
