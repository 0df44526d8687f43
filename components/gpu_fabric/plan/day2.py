"""The day-2 verdict of one changed resource: what applying the change does to a
running cluster (issue 32).

A plan diff says *which* inputs change; an operator needs to know what ``pulumi up``
will then do to the nodes a training job runs on:

* ``create`` / ``in-place``: nothing is taken down (a control-plane upgrade, a
  resize, a chart bump: Helm upgrades the release in place);
* ``rolling``: every node of the pool is drained and replaced, ``nodes_at_once``
  at a time; ``spare_capacity`` says whether new nodes are launched first (a full
  reservation or Capacity Block has none: the update stalls);
* ``replace``: the resource is deleted and created again (fixed names delete first,
  see plan/names.py; so do the types whose provider asks for it, noted with its source):
  ``destroys`` says what is lost;
* ``refused``: the provider sends an in-place update the cloud's API rejects (an AKS
  pool's OS disk size): ``pulumi up`` fails on the resource and nothing changes on
  it; the runbook says how to make the change another way (a new pool beside it);
* ``destroy``: the resource is removed.

The cloud facts (``clouds/<cloud>/plan_facts.py``: ``roles``, ``node_updates``,
``control_plane_inputs``, ``runbook``) hold every provider-specific number with its
source; this module names no cloud. ``runbook`` points into docs/day2.md.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from gpu_fabric.plan.cloud_facts import NodeUpdate, RefusedInput, every_cloud
from gpu_fabric.plan.paths import at_or_under
from gpu_fabric.plan.replacing_data import provider_deletes_first

RUNBOOK_DOC = "docs/day2.md"
DESTROYS = {
    "pool": "the pool's nodes: the jobs running on them and node-local data "
            "(local SSDs, emptyDir, hostPath)",
    "cluster": "the whole cluster: every node, workload and in-cluster state",
    "network": "the network and what is attached to it (node pools, the cluster)",
}
# Kinds whose controller replaces its pods when ``spec.template`` changes, and only then
# (kubernetes.io/docs/concepts/workloads/controllers/deployment/#updating-a-deployment:
# "a Deployment's rollout is triggered if and only if the Deployment's Pod template
# (that is, .spec.template) is changed"; DaemonSet and StatefulSet rolling updates
# likewise act on template changes). A DaemonSet's pods run on every node it selects,
# GPU nodes included: a change to its template restarts them all.
PODS_REPLACED = {
    "DaemonSet": "pod template changed: its pod on every node it runs on is replaced",
    "Deployment": "pod template changed: its pods are replaced",
    "StatefulSet": "pod template changed: its pods are replaced",
}
# The runbook section a verdict points to, per (role, kind).
_SECTION = {
    ("pool", "replace"): "replace-a-pool-without-downtime",
    ("pool", "refused"): "replace-a-pool-without-downtime",
    # A cluster refuses changes of the pools it embeds (the AKS system pool): the same
    # section says how to change such a pool.
    ("cluster", "refused"): "replace-a-pool-without-downtime",
    ("pool", "destroy"): "replace-a-pool-without-downtime",
    ("pool", "rolling"): "roll-node-images",
    ("cluster", "rolling"): "upgrade-kubernetes",
    ("cluster", "in-place"): "upgrade-kubernetes",
    ("pool", "in-place"): "resize",
}


@dataclass(frozen=True)
class Verdict:
    kind: str
    cause: tuple[str, ...] = ()
    nodes_at_once: str | None = None
    spare_capacity: bool | None = None
    nodes_down: bool = False
    destroys: str | None = None
    note: str | None = None
    runbook: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "kind": self.kind, "cause": list(self.cause),
            "nodes_at_once": self.nodes_at_once, "spare_capacity": self.spare_capacity,
            "nodes_down": self.nodes_down, "destroys": self.destroys, "note": self.note,
            "runbook": self.runbook,
        }

    def text(self) -> str:
        """One line for the PR comment."""
        parts = [self.kind]
        if self.nodes_at_once is not None:
            parts.append(f"{self.nodes_at_once} node(s) at a time")
        if self.spare_capacity is not None:
            parts.append("needs spare capacity" if self.spare_capacity
                         else "no spare capacity needed")
        if self.nodes_down:
            parts.append("takes nodes down")
        if self.destroys:
            parts.append(f"destroys {self.destroys}")
        if self.note:
            parts.append(self.note)
        if self.cause:
            parts.append("caused by " + ", ".join(f"`{c}`" for c in self.cause))
        if self.runbook:
            parts.append(f"see {self.runbook}")
        return "; ".join(parts)


def _value(inputs: Mapping[str, Any], path: str | None) -> Any:
    if path is None:
        return None
    current: Any = inputs
    for part in path.split("."):
        if not isinstance(current, Mapping) or part not in current:
            return None
        current = current[part]
    return current


def _zero(value: int | str) -> bool:
    return str(value).strip() in ("0", "0%")


def _runbook(type_: str, role: str | None, kind: str) -> str | None:
    prefix = every_cloud().runbooks.get(type_)
    section = _SECTION.get((role or "", kind))
    if not prefix or not section:
        return None
    return f"{RUNBOOK_DOC}#{prefix}-{section}"


def _rolling(type_: str, role: str | None, update: NodeUpdate, cause: tuple[str, ...],
             inputs: Mapping[str, Any]) -> Verdict:
    if update.only_when and not _value(inputs, update.only_when):
        return Verdict(
            "in-place", cause,
            note=f"reaches new nodes only: existing nodes keep the old version/image "
                 f"until cycled ({update.only_when} is off)",
            runbook=_runbook(type_, role, "rolling"))
    surge = _value(inputs, update.surge_path)
    surge = update.surge_default if surge is None else surge
    if update.no_surge_when and _value(inputs, update.no_surge_when[0]) == update.no_surge_when[1]:
        surge = 0
    unavailable = _value(inputs, update.unavailable_path)
    unavailable = update.unavailable_default if unavailable is None else unavailable
    if _zero(surge) and _zero(unavailable):
        unavailable = 1  # no surge: the nodes are replaced in place, one at a time
    if isinstance(surge, int) and isinstance(unavailable, int):
        at_once = str(surge + unavailable)
    elif _zero(surge):
        at_once = str(unavailable)
    elif _zero(unavailable):
        at_once = str(surge)
    else:
        at_once = f"{surge} + {unavailable}"
    note = f"surge {surge}, unavailable {unavailable}; every node is drained and replaced"
    if update.warn_when and _value(inputs, update.warn_when[0]) == update.warn_when[1]:
        note += f"; {update.warn_when[2]}"
    return Verdict(
        "rolling", cause, nodes_at_once=at_once, spare_capacity=not _zero(surge),
        nodes_down=True, note=note, runbook=_runbook(type_, role, "rolling"))


def _accepted(rule: RefusedInput, before: Any, after: Any) -> bool:
    """Whether the cloud accepts this change of ``rule.path`` in place after all."""
    if rule.allowed_between is None:
        return False
    return all(isinstance(v, str) and re.fullmatch(rule.allowed_between, v)
               for v in (before, after))


def _refused(type_: str, paths: Sequence[str],
             values: Sequence[tuple[Any, Any]]) -> list[tuple[str, RefusedInput]]:
    """The changed ``paths`` the cloud refuses to update in place, with the rule."""
    rules = every_cloud().refused_inputs.get(type_, ())
    hits = []
    for i, path in enumerate(paths):
        before, after = values[i] if i < len(values) else (None, None)
        for rule in rules:
            if at_or_under(path, (rule.path,)) and not _accepted(rule, before, after):
                hits.append((path, rule))
                break
    return hits


def verdict(action: str, type_: str, paths: Sequence[str], replacing_paths: Sequence[str],
            head_inputs: Mapping[str, Any] | None,
            values: Sequence[tuple[Any, Any]] = ()) -> Verdict:
    """The verdict of one change of :func:`gpu_fabric.plan.diff.diff_plans`
    (``values``: (before, after) per entry of ``paths``)."""
    facts = every_cloud()
    role = facts.roles.get(type_)
    if action == "add":
        return Verdict("create")
    if action == "remove":
        return Verdict("destroy", destroys=DESTROYS.get(role or ""),
                       nodes_down=role in ("pool", "cluster"),
                       runbook=_runbook(type_, role, "destroy"))
    if action == "replace":
        first = provider_deletes_first(type_)
        return Verdict("replace", tuple(replacing_paths),
                       destroys=DESTROYS.get(role or "", "the resource (created again)"),
                       note=(f"the provider deletes it before creating the replacement "
                             f"({first}): in between, neither exists") if first else None,
                       nodes_down=role in ("pool", "cluster", "network"),
                       runbook=_runbook(type_, role, "replace"))
    refused = _refused(type_, paths, values)
    if refused:
        reasons = dict.fromkeys(f"{rule.reason} ({rule.source})" for _, rule in refused)
        return Verdict(
            "refused", tuple(p for p, _ in refused),
            note="the provider updates it in place and the cloud rejects the update, so "
                 "`pulumi up` fails on this resource: " + "; ".join(reasons),
            runbook=_runbook(type_, role, "refused"))
    inputs = head_inputs or {}
    update = facts.node_updates.get(type_)
    if update is not None:
        rolled = tuple(p for p in paths if at_or_under(p, update.rolling_inputs))
        if rolled:
            return _rolling(type_, role, update, rolled, inputs)
    through = facts.rolls_through.get(type_)
    if through is not None and paths:
        return Verdict("rolling", tuple(paths), nodes_down=True, note=through,
                       runbook=_runbook(type_, "pool", "rolling"))
    plane = tuple(p for p in paths if at_or_under(p, facts.control_plane_inputs.get(type_, ())))
    if plane:
        return Verdict(
            "in-place", plane,
            note="control plane upgraded in place; this input rolls no node (pools roll "
                 "when their own version changes, or by auto-upgrade where it is on)",
            runbook=_runbook(type_, role, "in-place"))
    template = tuple(p for p in paths if at_or_under(p, ("spec.template",)))
    kind = type_.rsplit(":", 1)[-1]
    if template and type_.startswith("kubernetes:apps/") and kind in PODS_REPLACED:
        return Verdict("in-place", template, note=PODS_REPLACED[kind])
    return Verdict("in-place", tuple(paths),
                   runbook=_runbook(type_, role, "in-place") if role == "pool" else None)
