"""Replacements that would collide on a name: found in a ``plan --json`` document.

Pulumi replaces a resource create-before-delete unless ``delete_before_replace``
is set. A resource whose physical name the cloud requires unique (a GKE node
pool, an EKS node group, an AKS agent pool, a DOKS pool...) cannot have its
replacement created beside it: the create fails with "already exists" and the
stack is left half-applied. Each cloud lists such types and their name inputs
(``PlanFacts.unique_names``) and the types whose replacement cannot collide, with
the reason (``PlanFacts.free_names``); this module checks a plan against both
using the plan's ``options`` key.

Kubernetes objects need no entry: pulumi-kubernetes deletes first by itself when a
replaced object keeps its ``metadata.name`` and namespace (pulumi/pulumi-kubernetes
provider/pkg/provider/provider.go, ``deleteBeforeReplace :=`` in ``Diff``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from gpu_fabric.plan.cloud_facts import every_cloud

# Types with no physical object of their own to collide: components and providers;
# Kubernetes objects, which their provider deletes first (module docstring).
EXEMPT_PREFIXES = ("gpufabric:", "pulumi:providers:", "kubernetes:")
AUTONAMED = "autonamed"


def _present(inputs: Mapping[str, Any], path: str) -> bool:
    current: Any = inputs
    for part in path.split("."):
        if not isinstance(current, Mapping) or current.get(part) is None:
            return False
        current = current[part]
    return True


def name_collisions(plan: Mapping[str, Any]) -> list[str]:
    """One line per resource of ``plan`` (a ``plan --json`` document) whose replacement
    would collide on a name, or whose type no cloud has classified; [] when none."""
    facts = every_cloud()
    problems: list[str] = []
    for res in plan.get("resources", []):
        type_, name = res["type"], res["name"]
        if type_.startswith(EXEMPT_PREFIXES):
            continue
        inputs = res.get("inputs", {})
        options = res.get("options", {})
        if type_ in facts.unique_names:
            fixed = [p for p in facts.unique_names[type_] if _present(inputs, p)]
            if fixed and not options.get("delete_before_replace"):
                problems.append(
                    f"{name} ({type_}): fixed {', '.join(fixed)} without "
                    "delete_before_replace: a replacement would fail with 'already exists'")
        elif type_ in facts.free_names:
            if facts.free_names[type_].startswith(AUTONAMED) and _present(inputs, "name"):
                problems.append(
                    f"{name} ({type_}): listed as autonamed but sets 'name'; list it in "
                    "unique_names with delete_before_replace, or drop the name")
        else:
            problems.append(
                f"{name} ({type_}): not classified; add it to the cloud's plan_facts "
                "unique_names (with delete_before_replace) or free_names (with the reason)")
    return problems
