"""URN stability: each stack's URNs match the committed list; renames need an alias."""

from __future__ import annotations

import pytest

from gpu_fabric.cli.urns import URN_DIR
from gpu_fabric.plan import urns as urnfile
from gpu_fabric.plan.model import PlannedResource, PlanResult
from gpu_fabric.plan.stackfile import available_stacks

HOW = "if intended: python -m gpu_fabric urns --write (renames need a pulumi.Alias)"


@pytest.mark.parametrize("stack", available_stacks())
def test_stack_urns_match_the_committed_list(stack: str, stack_plan) -> None:
    path = URN_DIR / f"{stack}.txt"
    assert path.is_file(), f"no committed URN list for stack {stack}; {HOW}"
    problems = urnfile.check(stack_plan(stack), urnfile.read(path))
    assert problems == [], "\n".join([*problems, HOW])


def test_every_committed_list_belongs_to_a_stack() -> None:
    lists = {p.stem for p in URN_DIR.glob("*.txt")}
    orphans = sorted(lists - set(available_stacks()))
    assert orphans == [], f"URN lists without a stack file: {orphans}; delete them (git rm)"
    missing = sorted(set(available_stacks()) - lists)
    assert missing == [], f"stacks without a URN list: {missing}; {HOW}"


def _res(name: str, aliases: tuple[str, ...] = ()) -> PlannedResource:
    urn = f"urn:pulumi:s::p::t:m:R::{name}"
    return PlannedResource(urn, "t:m:R", name, None, (), {}, aliases=aliases)


def _plan(*resources: PlannedResource) -> PlanResult:
    return PlanResult("s", list(resources), {})


def test_rename_with_alias_is_recorded_as_retired() -> None:
    old = _res("pool-a")
    committed = urnfile.UrnFile(current=[old.urn])
    renamed = _res("pool-b", aliases=(old.urn,))
    plan = _plan(renamed)
    assert any("renamed with an alias" in p for p in urnfile.check(plan, committed))
    new = urnfile.update(plan, committed)
    assert new.current == [renamed.urn] and new.retired == {old.urn: renamed.urn}
    assert urnfile.check(plan, urnfile.parse(new.render())) == []
    # Dropping the alias later is caught.
    assert any("lost its alias" in p for p in urnfile.check(_plan(_res("pool-b")), new))


def test_rename_without_alias_is_refused_unless_allowed() -> None:
    committed = urnfile.UrnFile(current=[_res("pool-a").urn])
    plan = _plan(_res("pool-b"))
    assert any("DELETE" in p for p in urnfile.check(plan, committed))
    with pytest.raises(ValueError, match="pool-a"):
        urnfile.update(plan, committed)
    forced = urnfile.update(plan, committed, allow_drop=True)
    assert forced.dropped == [_res("pool-a").urn]


def test_new_resource_is_reported() -> None:
    committed = urnfile.UrnFile(current=[_res("a").urn])
    problems = urnfile.check(_plan(_res("a"), _res("b")), committed)
    assert problems == [f"new (not in the committed list): {_res('b').urn}"]
