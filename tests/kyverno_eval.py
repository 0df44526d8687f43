"""A small evaluator of the Kyverno features our fabric policies use (not Kyverno).

Kyverno cannot run here, so the pod-shape tests apply the rendered ClusterPolicies
with this evaluator. It implements only what components/gpu_fabric/fabric/injection.py
writes, with Kyverno's documented semantics, and fails loudly on anything else
(an unknown operator, anchor or rule type), so a policy that grows a new feature
cannot pass untested:

- match/exclude ``any`` of ``resources`` with ``kinds``, ``operations``,
  ``namespaces`` (exact names) and ``annotations`` (exact values);
- ``preconditions.all`` and ``deny.conditions.all`` with ``Equals``,
  ``NotEquals``, ``AnyNotIn`` and ``GreaterThan``; ``{{ }}`` variables are
  JMESPath (the ``jmespath`` package; Kyverno uses go-jmespath, same grammar) over
  ``request.object``, ``request.namespace``, ``element``, ``elementIndex``;
- ``patchStrategicMerge`` with Kubernetes' merge keys for the lists we patch
  (containers, initContainers, volumes, env, resourceClaims by ``name``;
  volumeMounts by ``mountPath``; other lists are replaced, as strategic merge
  does for lists without a merge key such as tolerations) and the ``+(key)``
  add-if-absent anchor;
- ``foreach`` over a list with per-element preconditions and
  ``patchStrategicMerge`` / ``patchesJson6902`` (``add`` / ``remove``);
- mutate policies run first, rules in order, each seeing the previous rules'
  result; validate rules run on the mutated pod (Kyverno's webhook order).
"""

from __future__ import annotations

import copy
import json
import re
from dataclasses import dataclass
from typing import Any

import jmespath

MERGE_KEYS = {
    "containers": "name", "initContainers": "name", "volumes": "name", "env": "name",
    "resourceClaims": "name", "volumeMounts": "mountPath",
}
_VAR = re.compile(r"\{\{\s*(.+?)\s*\}\}")


@dataclass
class Admission:
    pod: dict[str, Any]
    denied: str | None = None  # the refusing rule's message
    rule: str | None = None


def _substitute(value: Any, ctx: dict[str, Any]) -> Any:
    if isinstance(value, str):
        whole = _VAR.fullmatch(value.strip())
        if whole:
            return jmespath.search(whole.group(1), ctx)
        return _VAR.sub(lambda m: _text(jmespath.search(m.group(1), ctx)), value)
    if isinstance(value, dict):
        return {_substitute(k, ctx): _substitute(v, ctx) for k, v in value.items()}
    if isinstance(value, list):
        return [_substitute(v, ctx) for v in value]
    return value


def _substitute_text(text: str, ctx: dict[str, Any]) -> str:
    return _VAR.sub(lambda m: _text(jmespath.search(m.group(1), ctx)), text)


def _text(value: Any) -> str:
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return "" if value is None else str(value)


def _number(value: Any) -> float:
    return float(value)


def _condition(cond: dict[str, Any], ctx: dict[str, Any]) -> bool:
    key = _substitute(cond["key"], ctx)
    value = cond["value"]
    op = cond["operator"]
    if op in ("Equals", "NotEquals"):
        if isinstance(key, (int, float)) and isinstance(value, (int, float)):
            same = _number(key) == _number(value)
        else:
            same = _text(key) == _text(value)
        return same if op == "Equals" else not same
    if op == "AnyNotIn":
        keys = key if isinstance(key, list) else [key]
        return any(_text(k) not in [_text(v) for v in value] for k in keys)
    if op == "GreaterThan":
        return _number(key) > _number(value)
    raise NotImplementedError(f"operator {op}")


def _all(conditions: dict[str, Any] | None, ctx: dict[str, Any]) -> bool:
    if not conditions:
        return True
    unknown = set(conditions) - {"all"}
    if unknown:
        raise NotImplementedError(f"conditions {unknown}")
    return all(_condition(c, ctx) for c in conditions["all"])


def _resource_matches(res: dict[str, Any], pod: dict[str, Any], ns: str) -> bool:
    unknown = set(res) - {"kinds", "operations", "namespaces", "annotations"}
    if unknown:
        raise NotImplementedError(f"resource filter {unknown}")
    if "kinds" in res and "Pod" not in res["kinds"]:
        return False
    if "operations" in res and "CREATE" not in res["operations"]:
        return False
    if "namespaces" in res and ns not in res["namespaces"]:
        return False
    annotations = pod.get("metadata", {}).get("annotations", {})
    return all(annotations.get(k) == v for k, v in res.get("annotations", {}).items())


def _selected(rule: dict[str, Any], pod: dict[str, Any], ns: str) -> bool:
    matched = any(_resource_matches(m["resources"], pod, ns) for m in rule["match"]["any"])
    excluded = any(_resource_matches(e["resources"], pod, ns)
                   for e in rule.get("exclude", {}).get("any", []))
    return matched and not excluded


def merge(target: Any, patch: Any, key: str | None = None) -> Any:
    """Strategic merge of ``patch`` into ``target`` (``key``: the field name)."""
    if isinstance(patch, dict) and isinstance(target, dict):
        out = copy.deepcopy(target)
        for k, v in patch.items():
            anchor = re.fullmatch(r"\+\((.+)\)", k)
            if anchor:
                out.setdefault(anchor.group(1), copy.deepcopy(v))
            elif k in out:
                out[k] = merge(out[k], v, k)
            elif isinstance(v, dict) or (isinstance(v, list) and k in MERGE_KEYS):
                # A new map or keyed list is built through merge, so anchors inside it
                # become plain keys (Kyverno adds an absent parent with its anchored keys).
                out[k] = merge({} if isinstance(v, dict) else [], v, k)
            else:
                out[k] = copy.deepcopy(v)
        return out
    if isinstance(patch, list) and isinstance(target, list) and key in MERGE_KEYS:
        field = MERGE_KEYS[key]
        out = copy.deepcopy(target)
        for item in patch:
            at = next((i for i, t in enumerate(out) if t.get(field) == item.get(field)), None)
            if at is None:
                out.append(merge({}, item))
            else:
                out[at] = merge(out[at], item)
        return out
    return copy.deepcopy(patch)


def _pointer(path: str) -> list[str]:
    return [p.replace("~1", "/").replace("~0", "~") for p in path.lstrip("/").split("/")]


def json_patch(doc: dict[str, Any], ops: list[dict[str, Any]]) -> dict[str, Any]:
    out = copy.deepcopy(doc)
    for op in ops:
        *parents, last = _pointer(op["path"])
        node: Any = out
        for part in parents:
            node = node[int(part)] if isinstance(node, list) else node[part]
        if op["op"] == "remove":
            if isinstance(node, list):
                del node[int(last)]
            else:
                del node[last]  # KeyError: JSON patch fails on a missing path, as Kyverno's
        elif op["op"] == "add":
            node[last] = copy.deepcopy(op["value"])
        else:
            raise NotImplementedError(f"json patch op {op['op']}")
    return out


def _context(pod: dict[str, Any], ns: str, **extra: Any) -> dict[str, Any]:
    return {"request": {"object": pod, "namespace": ns, "operation": "CREATE"}, **extra}


def _mutate(rule: dict[str, Any], pod: dict[str, Any], ns: str) -> dict[str, Any]:
    mutate = rule["mutate"]
    unknown = set(mutate) - {"patchStrategicMerge", "foreach"}
    if unknown:
        raise NotImplementedError(f"mutate {unknown}")
    if "patchStrategicMerge" in mutate:
        pod = merge(pod, _substitute(mutate["patchStrategicMerge"], _context(pod, ns)))
    for each in mutate.get("foreach", []):
        items = jmespath.search(each["list"], _context(pod, ns)) or []
        for index, element in enumerate(items):
            ctx = _context(pod, ns, element=element, elementIndex=index)
            if not _all(each.get("preconditions"), ctx):
                continue
            if "patchStrategicMerge" in each:
                pod = merge(pod, _substitute(each["patchStrategicMerge"], ctx))
            if "patchesJson6902" in each:
                text = _substitute_text(each["patchesJson6902"], ctx)
                pod = json_patch(pod, json.loads(text))
    return pod


def admit(policies: list[dict[str, Any]], pod: dict[str, Any], ns: str) -> Admission:
    """The pod after Kyverno's mutating then validating admission, or the refusal."""
    pod = copy.deepcopy(pod)
    rules = [r for p in policies for r in p["spec"]["rules"]]
    for rule in rules:
        if "mutate" in rule and _selected(rule, pod, ns) and _all(
                rule.get("preconditions"), _context(pod, ns)):
            pod = _mutate(rule, pod, ns)
    for rule in rules:
        if "validate" not in rule or not _selected(rule, pod, ns):
            continue
        ctx = _context(pod, ns)
        if not _all(rule.get("preconditions"), ctx):
            continue
        deny = rule["validate"]["deny"]
        if _all(deny.get("conditions"), ctx):
            return Admission(pod, _substitute(rule["validate"]["message"], ctx), rule["name"])
    return Admission(pod)
