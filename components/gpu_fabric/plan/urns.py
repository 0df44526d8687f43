"""URN stability: the committed list of every stack's resource URNs, and the rules for changing it.

A URN is a resource's identity to the Pulumi engine (type chain + name). If a
library upgrade changes one, ``pulumi up`` deletes the old resource and creates
a new one: for a node pool or a VPC that is an outage. So every stack's URNs
are committed under ``tests/data/urns/<stack>.txt`` and a test compares them
with a fresh plan.

File format, one entry per line::

    urn:pulumi:...                       a URN the stack has now
    retired urn:pulumi:OLD -> urn:...NEW  a renamed resource; NEW carries OLD as an alias
    dropped urn:pulumi:OLD               removed on purpose (written with --allow-drop)

:func:`update` refuses to forget a URN unless the new plan has a resource
aliasing it (a safe rename) or the caller allows dropping it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from gpu_fabric.plan.model import PlanResult


@dataclass
class UrnFile:
    current: list[str] = field(default_factory=list)
    retired: dict[str, str] = field(default_factory=dict)
    dropped: list[str] = field(default_factory=list)

    def render(self) -> str:
        lines = sorted(self.current)
        lines += [f"retired {old} -> {new}" for old, new in sorted(self.retired.items())]
        lines += [f"dropped {urn}" for urn in sorted(self.dropped)]
        return "\n".join(lines) + "\n"


def parse(text: str) -> UrnFile:
    out = UrnFile()
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("retired "):
            old, _, new = line[len("retired "):].partition(" -> ")
            out.retired[old] = new
        elif line.startswith("dropped "):
            out.dropped.append(line[len("dropped "):])
        else:
            out.current.append(line)
    return out


def read(path: Path) -> UrnFile:
    return parse(path.read_text()) if path.is_file() else UrnFile()


def check(plan: PlanResult, committed: UrnFile) -> list[str]:
    """Problems: URNs that appeared or vanished, and retired URNs no longer aliased."""
    now = {r.urn for r in plan.resources}
    aliases = {a: r.urn for r in plan.resources for a in r.aliases}
    problems = []
    for urn in sorted(set(committed.current) - now):
        if urn in aliases:
            problems.append(f"renamed with an alias, record it: {urn} -> {aliases[urn]}")
        else:
            problems.append(f"vanished (pulumi up would DELETE it): {urn}")
    for urn in sorted(now - set(committed.current)):
        problems.append(f"new (not in the committed list): {urn}")
    for old, new in sorted(committed.retired.items()):
        if aliases.get(old) != new:
            problems.append(f"retired URN lost its alias (upgrades would replace it): {old}")
    return problems


def update(plan: PlanResult, committed: UrnFile, allow_drop: bool = False) -> UrnFile:
    """The new file for ``plan``; raises ValueError for an un-aliased disappearance."""
    now = {r.urn for r in plan.resources}
    aliases = {a: r.urn for r in plan.resources for a in r.aliases}
    gone = sorted(set(committed.current) - now)
    unaliased = [u for u in gone if u not in aliases]
    if unaliased and not allow_drop:
        raise ValueError(
            "these URNs would be deleted and re-created by pulumi up; add "
            "pulumi.Alias(...) to the renamed resource, or pass --allow-drop if the "
            "removal is intended:\n  " + "\n  ".join(unaliased)
        )
    retired = dict(committed.retired)
    retired.update({u: aliases[u] for u in gone if u in aliases})
    return UrnFile(
        current=sorted(now),
        retired={old: new for old, new in retired.items() if aliases.get(old) == new},
        dropped=sorted(set(committed.dropped) | set(unaliased)),
    )
