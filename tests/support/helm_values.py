"""Check Helm values against the chart's defaults at the pinned version.

Helm ignores a value key no template reads: a typo or a key from another chart
version is silently dropped. The chart's default ``values.yaml`` (plus its
``values.schema.json`` where it ships one, and its subcharts' ``values.yaml`` under
``charts/<name>/``) lists what the templates read, so every key we set must be there,
at the same path, with a compatible type. Copies live in
``tests/data/upstream/values/<chart>/<version>/`` (provenance: sources.json).

Where a default is an empty map or a list of objects, the keys inside are data
(label names, tolerations), not chart keys; each such place is allow-listed in
:data:`FREE_FORM` with the reason, and lists of tolerations are checked item by item
against the core/v1 Toleration fields.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from functools import cache
from pathlib import Path
from typing import Any

import jsonschema
import yaml

VALUES = Path(__file__).resolve().parents[1] / "data" / "upstream" / "values"

# core/v1 Toleration (k8s.io/api core/v1 types.go).
TOLERATION_FIELDS = frozenset({"key", "operator", "value", "effect", "tolerationSeconds"})

# (chart, dotted path) -> why the keys below it are data, not chart keys.
FREE_FORM: dict[tuple[str, str], str] = {
    ("aws-efa-k8s-device-plugin", "nodeSelector"):
        "node labels; templates/daemonset.yaml renders .Values.nodeSelector verbatim",
    ("nvidia-dra-driver-gpu", "kubeletPlugin.affinity"):
        "a core/v1 Affinity; the kubelet-plugin DaemonSet template renders it verbatim "
        "(the chart's default is a nodeAffinity on nvidia.com/gpu.present, same shape)",
    ("nvidia-dra-driver-gpu", "controller.affinity"):
        "a core/v1 Affinity rendered verbatim into the controller Deployment",
}

# Values whose items are core/v1 Tolerations (checked field by field).
TOLERATION_LISTS = frozenset({"tolerations", "daemonsets.tolerations"})


@cache
def chart_defaults(chart: str, version: str) -> dict[str, Any]:
    path = VALUES / chart / version / "values.yaml"
    if not path.is_file():  # a pin moved: say what to run, not a bare FileNotFoundError
        raise FileNotFoundError(
            f"no upstream copy of {chart} {version} values.yaml ({path}): the pin in "
            "gpu_fabric/versions.py moved; python scripts/refresh_upstream.py --write "
            "fetches it"
        )
    return yaml.safe_load(path.read_text()) or {}


@cache
def subcharts(chart: str, version: str) -> dict[str, dict[str, Any]]:
    root = VALUES / chart / version / "charts"
    if not root.is_dir():
        return {}
    return {p.name: yaml.safe_load((p / "values.yaml").read_text()) or {}
            for p in sorted(root.iterdir()) if (p / "values.yaml").is_file()}


@cache
def values_schema(chart: str, version: str) -> dict[str, Any] | None:
    path = VALUES / chart / version / "values.schema.json"
    return json.loads(path.read_text()) if path.is_file() else None


def has_upstream(chart: str, version: str) -> bool:
    return (VALUES / chart / version / "values.yaml").is_file()


def _schema_props(schema: Mapping[str, Any] | None) -> Mapping[str, Any]:
    return (schema or {}).get("properties", {}) if isinstance(schema, Mapping) else {}


def _compatible(default: Any, value: Any) -> bool:
    if default is None:
        return True
    if isinstance(default, bool):
        return isinstance(value, bool)
    if isinstance(default, Mapping):
        return isinstance(value, Mapping)
    if isinstance(default, list):
        return isinstance(value, list)
    if isinstance(default, (int, float)):
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    if isinstance(default, str):
        # Helm templates often print strings: numbers are fine where a string is.
        return isinstance(value, (str, int, float)) and not isinstance(value, bool)
    return True


def check_values(chart: str, version: str, values: Mapping[str, Any]) -> list[str]:
    """Problems with ``values`` for ``chart`` at ``version`` (empty list: every key is read)."""
    if not has_upstream(chart, version):
        return [f"{chart} {version}: no upstream values.yaml in tests/data/upstream/values"]
    problems: list[str] = []
    schema = values_schema(chart, version)
    _walk(chart, chart_defaults(chart, version), schema, values, "",
          subcharts(chart, version), problems)
    if schema is not None:  # Helm validates the merged values against it and refuses
        merged = _deep_merge(chart_defaults(chart, version), values)
        for err in jsonschema.Draft7Validator(schema).iter_errors(merged):
            where = ".".join(str(p) for p in err.absolute_path) or "."
            problems.append(f"{chart}: {where}: values.schema.json: {err.message}")
    return problems


def _walk(chart: str, defaults: Any, schema: Mapping[str, Any] | None, values: Mapping[str, Any],
          prefix: str, subs: Mapping[str, dict[str, Any]], problems: list[str]) -> None:
    for key, value in values.items():
        path = f"{prefix}{key}"
        if (chart, path) in FREE_FORM:
            continue
        sub_defaults: Any
        if isinstance(defaults, Mapping) and key in defaults:
            sub_defaults = defaults[key]
        elif not prefix and key in subs:
            sub_defaults = subs[key]  # a subchart's values, under its name
        elif key in _schema_props(schema):
            sub_defaults = None
        else:
            problems.append(f"{chart}: {path}: not a value of the chart (no such key in its "
                            "values.yaml or values.schema.json at the pinned version)")
            continue
        if not prefix and key in subs and isinstance(sub_defaults, Mapping):
            # Parent keys for a subchart: the parent may set some, the subchart reads all.
            sub_defaults = _deep_merge(subs[key], sub_defaults)
        if path in TOLERATION_LISTS or path.endswith(".tolerations"):
            problems += _check_tolerations(chart, path, value)
            continue
        if not _compatible(sub_defaults, value):
            problems.append(f"{chart}: {path}: {type(value).__name__} where the chart's default "
                            f"is {type(sub_defaults).__name__} ({sub_defaults!r})")
            continue
        if isinstance(value, Mapping):
            if isinstance(sub_defaults, Mapping) and not sub_defaults and not _schema_props(
                _schema_props(schema).get(key)
            ) and value:
                problems.append(f"{chart}: {path}: the default is an empty map; its keys are "
                                "data, not chart keys: allow-list it in FREE_FORM with a reason")
                continue
            _walk(chart, sub_defaults, _schema_props(schema).get(key), value, f"{path}.",
                  {}, problems)


def _deep_merge(base: Mapping[str, Any], top: Mapping[str, Any]) -> dict[str, Any]:
    out = dict(base)
    for key, value in top.items():
        old = out.get(key)
        out[key] = (_deep_merge(old, value) if isinstance(old, Mapping)
                    and isinstance(value, Mapping) else value)
    return out


def _check_tolerations(chart: str, path: str, value: Any) -> list[str]:
    if not isinstance(value, list):
        return [f"{chart}: {path}: tolerations must be a list, got {type(value).__name__}"]
    problems = []
    for i, item in enumerate(value):
        unknown = set(item) - TOLERATION_FIELDS if isinstance(item, Mapping) else {"<not a map>"}
        if unknown:
            problems.append(f"{chart}: {path}[{i}]: not Toleration fields: {sorted(unknown)}")
    return problems
