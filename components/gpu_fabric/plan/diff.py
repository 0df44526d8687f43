"""Offline plan diff: what a change to a stack does to its resources, readable in a PR.

Input is two ``plan --json`` documents (the contract in
:meth:`gpu_fabric.plan.model.PlanResult.to_json`). Resources are matched by URN,
as the Pulumi engine matches them: a URN that disappears and another that
appears is a delete and a create, whatever their inputs, so a rename shows up
as exactly that.

Changes that replace an expensive resource (cluster, node pool, networks) are
flagged from :func:`replacing_inputs`: which input paths a cloud provider cannot
update in place, stated by each cloud (``clouds/<cloud>/plan_facts.py``). It lists
what the providers mark ``forceNew``/``replaceOnChanges``: for the Terraform-bridged
providers (gcp, digitalocean, oci) extracted from their sources with provenance
(``plan/data/replacing_inputs.json``, :mod:`gpu_fabric.plan.replacing_data`); a path
not listed is reported as an in-place update.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from gpu_fabric.plan.cloud_facts import every_cloud
from gpu_fabric.plan.day2 import Verdict, verdict
from gpu_fabric.plan.paths import at_or_under
from gpu_fabric.plan.paths import normalize as _normalize
from gpu_fabric.plan.replacing_data import kubernetes_replacing


def replacing_inputs() -> Mapping[str, tuple[str, ...]]:
    """Type token -> input path prefixes whose change forces a replacement, every
    cloud's (``clouds/<cloud>/plan_facts.py``, :class:`~gpu_fabric.plan.cloud_facts.PlanFacts`)."""
    return every_cloud().replacing_inputs


def option_paths(resource: Mapping[str, Any], option: str) -> tuple[str, ...]:
    """The input paths a planned resource registers under one of its ``options`` in
    ``plan --json``: ``ignore_changes`` or ``replace_on_changes``.

    Pulumi applies both per resource, from the program being applied, so the diff reads
    the head plan's own options: an image pinned on one pool is ignored there and nowhere
    else (OKE pins only looked-up images, issue 31); a path listed under
    ``replace_on_changes`` replaces the resource whatever the provider marks
    (pulumi.com/docs/iac/concepts/options/replaceonchanges). A plan written before the
    ``options`` key existed has neither.
    """
    options = resource.get("options")
    if not isinstance(options, Mapping):
        return ()
    return tuple(str(p) for p in options.get(option) or ())


@dataclass(frozen=True)
class ResourceChange:
    """One resource's change: ``add``, ``remove`` or ``update``/``replace`` with the paths."""

    action: str
    urn: str
    type: str
    name: str
    paths: tuple[str, ...] = ()
    replacing_paths: tuple[str, ...] = ()
    values: tuple[tuple[Any, Any], ...] = ()
    """(before, after) per entry of ``paths`` (``MISSING`` where the path is absent)."""
    verdict: Verdict | None = None
    """What applying the change does to a running cluster (plan/day2.py)."""

    @property
    def expensive(self) -> bool:
        return self.type in replacing_inputs()


@dataclass
class PlanDiff:
    base_stack: str
    head_stack: str
    changes: list[ResourceChange] = field(default_factory=list)
    other_stacks: tuple[str, str] | None = None
    """(base, head) stack names read from the URNs when the two plans share none."""

    def of(self, action: str) -> list[ResourceChange]:
        return [c for c in self.changes if c.action == action]

    @property
    def replacements(self) -> list[ResourceChange]:
        """Expensive resources that would be destroyed: replaced in place or removed."""
        return [
            c for c in self.changes
            if c.expensive and (c.action == "replace" or c.action == "remove")
        ]

    @property
    def refusals(self) -> list[ResourceChange]:
        """Updates the cloud refuses in place (verdict ``refused``): ``pulumi up`` would
        fail on these resources (clouds/<cloud>/plan_facts.py ``refused_inputs``)."""
        return [c for c in self.changes if c.verdict is not None and c.verdict.kind == "refused"]

    def to_json(self) -> dict[str, Any]:
        return {
            "base": self.base_stack,
            "head": self.head_stack,
            "changes": [
                {
                    "action": c.action, "urn": c.urn, "type": c.type, "name": c.name,
                    "paths": list(c.paths), "replacing_paths": list(c.replacing_paths),
                    "values": {
                        p: {"before": _json_value(b), "after": _json_value(a)}
                        for p, (b, a) in zip(c.paths, c.values, strict=False)
                    },
                    **({"verdict": c.verdict.to_json()} if c.verdict else {}),
                }
                for c in self.changes
            ],
        }


class _Missing:
    """The value at a path that one side does not have."""

    def __repr__(self) -> str:
        return "(absent)"


MISSING: Any = _Missing()


def _json_value(value: Any) -> Any:
    return None if value is MISSING else value


def value_at(doc: Any, path: str) -> Any:
    """The value at a dotted path of :func:`changed_paths` (``MISSING`` if absent)."""
    if path == "(value)":
        return doc
    current = doc
    for part in _split(path):
        if isinstance(part, int):
            if not isinstance(current, list) or part >= len(current):
                return MISSING
            current = current[part]
        else:
            if not isinstance(current, Mapping) or part not in current:
                return MISSING
            current = current[part]
    return current


def _split(path: str) -> list[str | int]:
    """``a.b[2].c`` -> ["a", "b", 2, "c"] (keys may contain "/" or "-", not "." or "[")."""
    parts: list[str | int] = []
    for piece in path.split("."):
        name, _, rest = piece.partition("[")
        if name:
            parts.append(name)
        while rest:
            index, _, rest = rest.partition("]")
            parts.append(int(index))
            rest = rest.removeprefix("[")
    return parts


def show_value(value: Any, limit: int = 40) -> str:
    """A value in one table cell: JSON, cut at ``limit`` characters."""
    if value is MISSING:
        return "(absent)"
    text = json.dumps(value, sort_keys=True, default=str)
    text = text if len(text) <= limit else text[: limit - 3] + "..."
    return text.replace("|", "\\|")


def changed_paths(before: Any, after: Any, prefix: str = "") -> list[str]:
    """Dotted paths (``a.b[2].c``) where two JSON values differ, leaves first-differing."""
    if isinstance(before, Mapping) and isinstance(after, Mapping):
        paths: list[str] = []
        for key in sorted(set(before) | set(after), key=str):
            sub = f"{prefix}.{key}" if prefix else str(key)
            if key not in before or key not in after:
                paths.append(sub)
            else:
                paths.extend(changed_paths(before[key], after[key], sub))
        return paths
    if isinstance(before, list) and isinstance(after, list) and len(before) == len(after):
        return [
            p for i, (b, a) in enumerate(zip(before, after, strict=True))
            for p in changed_paths(b, a, f"{prefix}[{i}]")
        ]
    return [] if before == after else [prefix or "(value)"]


def replacing(type_: str, paths: Iterable[str]) -> tuple[str, ...]:
    """The subset of ``paths`` that force ``type_`` to be replaced: at or under a
    replacing input, a replacing block's own path, or above either (a whole object
    or list added, removed or resized carries the replacing input with it)."""
    prefixes = replacing_inputs().get(type_, ()) + kubernetes_replacing(type_)
    blocks = every_cloud().replacing_blocks.get(type_, ())
    hits = []
    for path in paths:
        norm = _normalize(path)
        if (at_or_under(path, prefixes) or norm in blocks
                or any(p.startswith(norm + ".") for p in (*prefixes, *blocks))):
            hits.append(path)
    return tuple(hits)


def diff_plans(base: Mapping[str, Any], head: Mapping[str, Any]) -> PlanDiff:
    """Compare two ``plan --json`` documents resource by resource."""
    for label, doc in (("base", base), ("head", head)):
        if not isinstance(doc, Mapping) or not isinstance(doc.get("resources"), list):
            raise ValueError(
                f"{label} is not a plan: expected the JSON of `python -m gpu_fabric plan --json` "
                "with a 'resources' list"
            )
    before = {r["urn"]: r for r in base["resources"]}
    after = {r["urn"]: r for r in head["resources"]}
    result = PlanDiff(str(base.get("stack", "")), str(head.get("stack", "")),
                      other_stacks=_other_stacks(before, after))
    for urn, res in after.items():
        if urn not in before:
            result.changes.append(ResourceChange(
                "add", urn, res["type"], res["name"],
                verdict=verdict("add", res["type"], (), (), res.get("inputs"))))
            continue
        old, new = before[urn].get("inputs", {}), res.get("inputs", {})
        ignored = option_paths(res, "ignore_changes")
        paths = tuple(p for p in changed_paths(old, new) if not at_or_under(p, ignored))
        if paths:
            by_provider = set(replacing(res["type"], paths))
            own = option_paths(res, "replace_on_changes")
            forced = tuple(p for p in paths if p in by_provider or at_or_under(p, own))
            action = "replace" if forced else "update"
            values = tuple((value_at(old, p), value_at(new, p)) for p in paths)
            result.changes.append(ResourceChange(
                action, urn, res["type"], res["name"], paths, forced, values,
                verdict(action, res["type"], paths, forced, new, values)))
    for urn, res in before.items():
        if urn not in after:
            result.changes.append(ResourceChange(
                "remove", urn, res["type"], res["name"],
                verdict=verdict("remove", res["type"], (), (), None)))
    return result


def _urn_stack(urn: str) -> str:
    """``urn:pulumi:<stack>::<project>::<type>::<name>`` -> ``<stack>``."""
    return urn.split("::", 1)[0].removeprefix("urn:pulumi:")


def _other_stacks(before: Mapping[str, Any], after: Mapping[str, Any]
                  ) -> tuple[str, str] | None:
    """The two stacks' names when the plans are of different stacks: a user who plans
    ``base.yaml`` and ``head.yaml`` gets two stacks (the file name is the stack name),
    and every resource would otherwise show as removed and added without a word why."""
    if not before or not after or before.keys() & after.keys():
        return None
    base = sorted({_urn_stack(u) for u in before})
    head = sorted({_urn_stack(u) for u in after})
    if base == head:
        return None
    return ", ".join(base), ", ".join(head)


_ICONS = {"add": "+ add", "remove": "- remove", "update": "~ update", "replace": "+- replace"}


def to_markdown(diff: PlanDiff, max_paths: int = 6) -> str:
    """The PR comment: summary line, warnings for expensive replacements, then the table."""
    counts = {a: len(diff.of(a)) for a in ("add", "update", "replace", "remove")}
    title = diff.head_stack or diff.base_stack
    lines = [f"### Offline plan diff: `{title}`", ""]
    if diff.other_stacks:
        base, head = diff.other_stacks
        lines.extend([
            f"> **Note**: the base plan is of stack `{base}`, the head plan of stack "
            f"`{head}`. A URN holds its stack's name, so no resource matches: compare two "
            "plans of the same stack (stack files of the same name).",
            ""])
    if not diff.changes:
        lines.append("No resource changes.")
        return "\n".join(lines) + "\n"
    lines.append(", ".join(f"{n} to {a}" for a, n in counts.items() if n))
    lines.append("")
    for change in diff.replacements:
        why = ", ".join(f"`{p}`" for p in change.replacing_paths) or "removed or renamed"
        lines.append(
            f"> **Warning**: `{change.name}` ({change.type}) would be destroyed: {why}"
        )
    for change in diff.refusals:
        why = ", ".join(f"`{p}`" for p in change.verdict.cause) if change.verdict else ""
        lines.append(
            f"> **Warning**: `{change.name}` ({change.type}) cannot be updated in place: "
            f"the cloud refuses a change of {why}"
        )
    if diff.replacements or diff.refusals:
        lines.append("")
    lines.extend(_day2_lines(diff))
    lines.append("| action | type | name | changed inputs |")
    lines.append("|---|---|---|---|")
    order = {"replace": 0, "remove": 1, "update": 2, "add": 3}
    for change in sorted(diff.changes, key=lambda c: (order[c.action], c.type, c.name)):
        shown = []
        for i, p in enumerate(change.paths[:max_paths]):
            label = f"**{p}**" if p in change.replacing_paths else p
            if i < len(change.values):
                old, new = change.values[i]
                label += f": `{show_value(old)}` → `{show_value(new)}`"
            shown.append(label)
        if len(change.paths) > max_paths:
            shown.append(f"... {len(change.paths) - max_paths} more")
        flag = " :warning:" if change in diff.replacements or change in diff.refusals else ""
        lines.append(
            f"| {_ICONS[change.action]}{flag} | `{change.type}` | `{change.name}` | "
            f"{', '.join(shown)} |"
        )
    return "\n".join(lines) + "\n"


def _day2_lines(diff: PlanDiff) -> list[str]:
    """The day-2 verdicts of the changes that touch nodes or destroy something (the
    other changes are in place and say nothing more than the table)."""
    shown = [
        c for c in diff.changes
        if c.verdict is not None and (
            c.verdict.kind in ("rolling", "replace", "destroy") or c.verdict.note
            or c.verdict.nodes_down)
    ]
    if not shown:
        return []
    lines = ["#### Day-2 verdict", ""]
    lines.extend(f"- `{c.name}` (`{c.type}`): {c.verdict.text()}" for c in shown
                 if c.verdict is not None)
    return [*lines, ""]
