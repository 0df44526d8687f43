"""The plan's data: what the program registered, in registration order."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class PlannedResource:
    urn: str
    type: str
    name: str
    parent: str | None
    dependencies: tuple[str, ...]
    inputs: dict[str, Any]
    custom: bool = True
    provider: str | None = None
    remote: bool = False
    aliases: tuple[str, ...] = ()
    property_dependencies: dict[str, tuple[str, ...]] = field(default_factory=dict)
    ignore_changes: tuple[str, ...] = ()
    delete_before_replace: bool = False
    replace_on_changes: tuple[str, ...] = ()
    protect: bool = False

    def options(self) -> dict[str, Any]:
        """The resource options the engine would act on, as registered.

        Why in the plan: whether a replacement collides on a fixed name
        (``delete_before_replace``), which inputs are forced to replace or never
        diffed, which provider and which old URNs (``aliases``) a resource carries
        decide what ``pulumi up`` does on a live stack; a review must see them.
        """
        return {
            "delete_before_replace": self.delete_before_replace,
            "replace_on_changes": list(self.replace_on_changes),
            "ignore_changes": list(self.ignore_changes),
            "protect": self.protect,
            "provider": self.provider,
            "aliases": list(self.aliases),
        }

    def to_json(self) -> dict[str, Any]:
        """The stable ``plan --json`` shape of one resource (``options`` was added last:
        the keys before it are the original contract, unchanged)."""
        return {
            "urn": self.urn,
            "type": self.type,
            "name": self.name,
            "parent": self.parent,
            "dependencies": list(self.dependencies),
            "inputs": self.inputs,
            "options": self.options(),
        }


@dataclass
class PlanResult:
    stack: str
    resources: list[PlannedResource]
    outputs: dict[str, Any]
    preview: bool = False

    def to_json(self) -> dict[str, Any]:
        """Exactly ``{"stack", "resources": [...], "outputs": {...}}`` (a contract)."""
        return {
            "stack": self.stack,
            "resources": [r.to_json() for r in self.resources],
            "outputs": self.outputs,
        }

    # -- queries tests and tools use -----------------------------------------
    def by_type(self, type_: str) -> list[PlannedResource]:
        return [r for r in self.resources if r.type == type_]

    def one(self, type_: str, name: str | None = None) -> PlannedResource:
        found = [r for r in self.by_type(type_) if name is None or r.name == name]
        if len(found) != 1:
            names = [r.name for r in self.by_type(type_)]
            raise LookupError(f"expected one {type_} named {name!r}, found {len(found)}: {names}")
        return found[0]

    def by_urn(self) -> dict[str, PlannedResource]:
        return {r.urn: r for r in self.resources}

    def children(self, parent_urn: str) -> list[PlannedResource]:
        return [r for r in self.resources if r.parent == parent_urn]

    def type_counts(self) -> Counter[str]:
        return Counter(r.type for r in self.resources)

    def ancestors(self, resource: PlannedResource) -> list[PlannedResource]:
        index = self.by_urn()
        chain = []
        parent = resource.parent
        while parent and parent in index:
            chain.append(index[parent])
            parent = index[parent].parent
        return chain

    def depends_on(self, resource: PlannedResource, other: PlannedResource) -> bool:
        """True if ``resource`` waits on ``other``, directly or through its dependencies."""
        index = self.by_urn()
        seen: set[str] = set()
        todo = list(resource.dependencies)
        while todo:
            urn = todo.pop()
            if urn == other.urn:
                return True
            if urn in seen or urn not in index:
                continue
            seen.add(urn)
            todo.extend(index[urn].dependencies)
        return False
