"""Validate custom resources against the upstream CRDs at the pinned versions.

The CRDs are upstream's own files, copied into ``tests/data/upstream/crds/`` with
their provenance (``tests/data/upstream/sources.json``: repository, tag, path,
commit, sha256; ``scripts/refresh_upstream.py`` refreshes them when
``components/gpu_fabric/versions.py`` moves). A custom resource is checked the way an API
server with strict field validation checks it on create:

* structural schema: types, enums, patterns, bounds, ``required`` (via jsonschema);
* unknown fields are errors (the API server would prune them silently, which is a
  defect in a manifest) except under ``x-kubernetes-preserve-unknown-fields``;
* Kubernetes extensions: ``x-kubernetes-int-or-string`` (integer or string),
  ``x-kubernetes-embedded-resource`` (apiVersion/kind/metadata implied, apiVersion and
  kind required), ``nullable``; ``metadata`` at the root is ObjectMeta (checked by the
  built-in schema of the API server, not by the CRD);
* schema ``default`` values are applied before the CEL rules run (the API server
  defaults, then validates);
* every ``x-kubernetes-validations`` CEL rule is evaluated with cel-python. Transition
  rules (those that read ``oldSelf``) only run on update, never on create: they are
  skipped and reported by :func:`skipped_rules`. A rule cel-python cannot evaluate is a
  problem (fail closed), unless it is listed in :data:`UNSUPPORTED_RULES` with a reason.
"""

from __future__ import annotations

import copy
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import celpy
import jsonschema
import yaml

UPSTREAM = Path(__file__).resolve().parents[1] / "data" / "upstream"
CRDS = UPSTREAM / "crds"

# Rules cel-python cannot evaluate, with the reason (none today: every rule of the
# pinned CRDs uses standard CEL macros and functions). Key: (kind, rule text).
UNSUPPORTED_RULES: dict[tuple[str, str], str] = {}

_VALUE_KEYWORDS = (
    "enum", "pattern", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum",
    "minLength", "maxLength", "minItems", "maxItems", "uniqueItems", "required",
    "multipleOf", "minProperties", "maxProperties",
)


@dataclass(frozen=True)
class CrdVersion:
    group: str
    version: str
    kind: str
    schema: dict[str, Any]  # openAPIV3Schema, as upstream wrote it
    source: str  # file under tests/data/upstream/crds


def _crd_documents() -> Iterator[tuple[str, dict[str, Any]]]:
    for path in sorted(CRDS.rglob("*.y*ml")):
        for doc in yaml.safe_load_all(path.read_text()):
            if isinstance(doc, dict) and doc.get("kind") == "CustomResourceDefinition":
                yield str(path.relative_to(CRDS)), doc


@cache
def crd_index() -> dict[tuple[str, str, str], CrdVersion]:
    """(group, version, kind) -> schema, for every served version (first file wins)."""
    index: dict[tuple[str, str, str], CrdVersion] = {}
    for source, doc in _crd_documents():
        spec = doc["spec"]
        for ver in spec["versions"]:
            if not ver.get("served", True):
                continue
            key = (spec["group"], ver["name"], spec["names"]["kind"])
            schema = ver.get("schema", {}).get("openAPIV3Schema")
            if schema is not None and key not in index:
                index[key] = CrdVersion(*key, schema=schema, source=source)
    return index


# -- structural schema -> JSON schema ------------------------------------------------


def to_json_schema(schema: dict[str, Any], *, root: bool = False, value_only: bool = False
                   ) -> dict[str, Any]:
    """A JSON schema that accepts what the API server accepts for ``schema``.

    ``value_only`` is for the branches of anyOf/allOf/oneOf/not: in a structural
    schema they only add value validations, so they never forbid unknown fields.
    """
    out: dict[str, Any] = {k: schema[k] for k in _VALUE_KEYWORDS if k in schema}
    if schema.get("x-kubernetes-int-or-string"):
        out["anyOf"] = [{"type": "integer"}, {"type": "string"}]
    elif "type" in schema:
        out["type"] = [schema["type"], "null"] if schema.get("nullable") else schema["type"]
    for key in ("anyOf", "allOf", "oneOf"):
        if key in schema:
            branches = [to_json_schema(s, value_only=True) for s in schema[key]]
            out.setdefault("allOf", []).append({key: branches})
    if "not" in schema:
        out["not"] = to_json_schema(schema["not"], value_only=True)
    if "items" in schema and isinstance(schema["items"], dict):
        out["items"] = to_json_schema(schema["items"])
    props = {k: to_json_schema(v) for k, v in schema.get("properties", {}).items()}
    embedded = bool(schema.get("x-kubernetes-embedded-resource"))
    if root or embedded:
        props.setdefault("apiVersion", {"type": "string"})
        props.setdefault("kind", {"type": "string"})
        props["metadata"] = {"type": "object"}  # ObjectMeta: the API server's own schema
    if embedded:
        out["required"] = sorted({*out.get("required", []), "apiVersion", "kind"})
    if props:
        out["properties"] = props
    additional = schema.get("additionalProperties")
    if isinstance(additional, dict):
        out["additionalProperties"] = to_json_schema(additional)
    elif additional is not None:
        out["additionalProperties"] = additional
    elif (
        not value_only
        and schema.get("type") == "object"
        and not schema.get("x-kubernetes-preserve-unknown-fields")
    ):
        # The API server prunes what the schema does not declare: a field we set
        # there never reaches the controller.
        out["additionalProperties"] = False
    return out


@cache
def _validator(key: tuple[str, str, str]) -> jsonschema.Draft7Validator:
    return jsonschema.Draft7Validator(to_json_schema(crd_index()[key].schema, root=True))


# -- defaults and CEL ------------------------------------------------------------------


def apply_defaults(schema: dict[str, Any], value: Any) -> Any:
    """``value`` with the schema's ``default`` values filled in (structural defaulting)."""
    if isinstance(value, dict):
        out = dict(value)
        props = schema.get("properties", {})
        for key, sub in props.items():
            if key not in out and "default" in sub:
                out[key] = copy.deepcopy(sub["default"])
        for key, item in out.items():
            sub = props.get(key)
            if sub is None and isinstance(schema.get("additionalProperties"), dict):
                sub = schema["additionalProperties"]
            if sub is not None:
                out[key] = apply_defaults(sub, item)
        return out
    if isinstance(value, list) and isinstance(schema.get("items"), dict):
        return [apply_defaults(schema["items"], v) for v in value]
    return value


@dataclass(frozen=True)
class Rule:
    kind: str
    path: str
    rule: str
    message: str


_SKIPPED: dict[tuple[str, str], str] = {}


def skipped_rules() -> dict[tuple[str, str], str]:
    """Rules met so far that were not evaluated, with the reason (for reports/tests)."""
    return dict(_SKIPPED)


@cache
def _program(rule: str) -> celpy.Runner:
    env = celpy.Environment()
    return env.program(env.compile(rule))


def _walk_rules(kind: str, schema: dict[str, Any], value: Any, path: str
                ) -> Iterator[tuple[Rule, Any]]:
    for entry in schema.get("x-kubernetes-validations", []):
        yield Rule(kind, path or ".", entry["rule"], entry.get("message", "")), value
    if isinstance(value, dict):
        props = schema.get("properties", {})
        additional = schema.get("additionalProperties")
        for key, item in value.items():
            sub = props.get(key, additional if isinstance(additional, dict) else None)
            if sub is not None:
                yield from _walk_rules(kind, sub, item, f"{path}.{key}")
    elif isinstance(value, list) and isinstance(schema.get("items"), dict):
        for i, item in enumerate(value):
            yield from _walk_rules(kind, schema["items"], item, f"{path}[{i}]")


def evaluate_rule(rule: str, value: Any) -> bool | str:
    """True/False, or the evaluation error as text."""
    try:
        result = _program(rule).evaluate({"self": celpy.json_to_cel(value)})
    except Exception as exc:  # cel-python raises CELEvalError and friends
        return f"{type(exc).__name__}: {exc}"
    if isinstance(result, Exception):
        return f"{type(result).__name__}: {result}"
    if not isinstance(result, celpy.celtypes.BoolType):
        return f"rule returned {type(result).__name__}, not bool"
    return bool(result)


def cel_problems(kind: str, schema: dict[str, Any], obj: dict[str, Any]) -> list[str]:
    problems: list[str] = []
    for rule, value in _walk_rules(kind, schema, obj, ""):
        if "oldSelf" in rule.rule:
            _SKIPPED[(kind, rule.rule)] = "transition rule (reads oldSelf): runs on update only"
            continue
        if (kind, rule.rule) in UNSUPPORTED_RULES:
            _SKIPPED[(kind, rule.rule)] = UNSUPPORTED_RULES[(kind, rule.rule)]
            continue
        verdict = evaluate_rule(rule.rule, value)
        if verdict is True:
            continue
        why = (rule.message or rule.rule) if verdict is False else f"cannot evaluate: {verdict}"
        problems.append(f"{rule.path}: x-kubernetes-validations: {why} (rule: {rule.rule})")
    return problems


# -- entry point -----------------------------------------------------------------------


def validate_custom_resource(manifest: dict[str, Any]) -> list[str]:
    """Problems with one custom resource (empty list: the API server would take it)."""
    kind = manifest.get("kind", "?")
    name = manifest.get("metadata", {}).get("name", "?")
    where = f"{kind}/{name}"
    group, _, version = str(manifest.get("apiVersion", "")).rpartition("/")
    key = (group, version, kind)
    crd = crd_index().get(key)
    if crd is None:
        return [f"{where}: no upstream CRD serves {group}/{version} {kind} "
                "(tests/data/upstream/crds)"]
    problems = [
        f"{where}: {'.'.join(str(p) for p in e.absolute_path) or '.'}: {e.message}"
        for e in sorted(_validator(key).iter_errors(manifest), key=lambda e: list(e.path))
    ]
    if problems:  # CEL rules assume a structurally valid object
        return problems
    # The API server exposes only name/generateName of the root metadata to CEL.
    meta = manifest.get("metadata", {})
    obj = {**apply_defaults(crd.schema, manifest),
           "metadata": {k: meta[k] for k in ("name", "generateName") if k in meta}}
    return [f"{where}: {p}" for p in cel_problems(kind, crd.schema, obj)]
