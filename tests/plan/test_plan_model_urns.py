"""The plan's data and the URN list format, written out literally.

``plan --json`` prints ``PlanResult.to_json()``: exactly
``{"stack", "resources": [{"urn", "type", "name", "parent", "dependencies", "inputs",
"options"}], "outputs"}`` (README.md "plan --json prints exactly", docs/api.md PlanResult): a
contract other tools read, so the whole document is compared. ``options`` was added by
issue 32 (additive: the keys before it are unchanged). ``tests/data/urns/*.txt``
is written by ``UrnFile.render`` in the format of the components/gpu_fabric/plan/urns.py
docstring (URNs, then ``retired OLD -> NEW``, then ``dropped OLD``).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from gpu_fabric.plan import urns as urnfile
from gpu_fabric.plan.model import PlannedResource, PlanResult

U = "urn:pulumi:s::p::"


def _res(name: str, parent: str | None = None, deps: tuple[str, ...] = (),
         type_: str = "t:m:R", aliases: tuple[str, ...] = ()) -> PlannedResource:
    return PlannedResource(f"{U}{type_}::{name}", type_, name, parent, deps, {"n": name},
                           aliases=aliases)


def test_plan_json_is_exactly_the_contract() -> None:
    root = _res("root", type_="t:m:Box")
    child = PlannedResource(
        f"{U}t:m:Box$t:m:R::leaf", "t:m:R", "leaf", root.urn, (root.urn,),
        {"data": {"token": "[secret]"}}, custom=True, provider="prov", remote=False,
        aliases=("old",), property_dependencies={"data": (root.urn,)},
        ignore_changes=("data",), delete_before_replace=True, replace_on_changes=("spec",),
        protect=True,
    )
    plan = PlanResult("dev", [root, child], {"endpoint": "[unknown]"}, preview=True)
    assert plan.to_json() == {
        "stack": "dev",
        "resources": [
            {"urn": "urn:pulumi:s::p::t:m:Box::root", "type": "t:m:Box", "name": "root",
             "parent": None, "dependencies": [], "inputs": {"n": "root"},
             "options": {"delete_before_replace": False, "replace_on_changes": [],
                         "ignore_changes": [], "protect": False, "provider": None,
                         "aliases": []}},
            {"urn": "urn:pulumi:s::p::t:m:Box$t:m:R::leaf", "type": "t:m:R", "name": "leaf",
             "parent": "urn:pulumi:s::p::t:m:Box::root",
             "dependencies": ["urn:pulumi:s::p::t:m:Box::root"],
             "inputs": {"data": {"token": "[secret]"}},
             "options": {"delete_before_replace": True, "replace_on_changes": ["spec"],
                         "ignore_changes": ["data"], "protect": True, "provider": "prov",
                         "aliases": ["old"]}},
        ],
        "outputs": {"endpoint": "[unknown]"},
    }
    assert type(plan.to_json()["resources"][1]["dependencies"]) is list  # JSON arrays
    # The original six keys first, in their order; "options" appended (additive).
    assert list(plan.to_json()["resources"][1]) == [
        "urn", "type", "name", "parent", "dependencies", "inputs", "options"]


def test_planned_resource_defaults() -> None:
    res = PlannedResource("u", "t", "n", None, (), {})
    assert (res.custom, res.provider, res.remote, res.aliases, res.property_dependencies,
            res.ignore_changes, res.delete_before_replace, res.replace_on_changes,
            res.protect) == (True, None, False, (), {}, (), False, (), False)
    assert PlanResult("s", [], {}).preview is False


def test_queries() -> None:
    a = _res("a")
    b = _res("b", parent=a.urn, deps=(a.urn,))
    c = _res("c", parent=b.urn, deps=(b.urn, f"{U}t:m:R::elsewhere"))
    box = _res("box", type_="t:m:Box")
    plan = PlanResult("s", [a, b, c, box], {})
    assert plan.by_type("t:m:R") == [a, b, c]
    assert plan.by_type("t:m:None") == []
    assert plan.one("t:m:Box") is box
    assert plan.one("t:m:R", "b") is b
    assert plan.by_urn() == {a.urn: a, b.urn: b, c.urn: c, box.urn: box}
    assert plan.children(a.urn) == [b]
    assert plan.children(c.urn) == []
    assert plan.type_counts() == {"t:m:R": 3, "t:m:Box": 1}
    assert plan.ancestors(c) == [b, a]
    assert plan.ancestors(a) == []
    assert plan.depends_on(c, a)  # through b
    assert plan.depends_on(c, b)
    assert not plan.depends_on(a, c)
    assert not plan.depends_on(b, c)


def test_one_names_what_it_found() -> None:
    plan = PlanResult("s", [_res("a"), _res("b")], {})
    with pytest.raises(LookupError) as info:
        plan.one("t:m:R")
    assert str(info.value) == "expected one t:m:R named None, found 2: ['a', 'b']"
    with pytest.raises(LookupError) as info:
        plan.one("t:m:R", "z")
    assert str(info.value) == "expected one t:m:R named 'z', found 0: ['a', 'b']"


def test_ancestors_stop_at_an_unknown_parent() -> None:
    orphan = _res("o", parent=f"{U}pulumi:pulumi:Stack::s")
    assert PlanResult("s", [orphan], {}).ancestors(orphan) == []


def test_depends_on_survives_a_cycle() -> None:
    a = _res("a", deps=(f"{U}t:m:R::b",))
    b = _res("b", deps=(a.urn,))
    other = _res("z")
    plan = PlanResult("s", [a, b, other], {})
    assert not plan.depends_on(a, other)  # a -> b -> a: visited once, then stop
    assert plan.depends_on(a, a)


# -- URN files --------------------------------------------------------------------------

TEXT = "# comment\nurn:b\n  urn:a  \n" + """

retired urn:old -> urn:a
dropped urn:gone
"""


def test_urn_file_parse_and_render() -> None:
    parsed = urnfile.parse(TEXT)
    assert parsed == urnfile.UrnFile(current=["urn:b", "urn:a"], retired={"urn:old": "urn:a"},
                                     dropped=["urn:gone"])
    assert parsed.render() == "urn:a\nurn:b\nretired urn:old -> urn:a\ndropped urn:gone\n"
    two = urnfile.UrnFile(current=["c"], retired={"z": "c", "y": "c"}, dropped=["q", "p"])
    assert two.render() == "c\nretired y -> c\nretired z -> c\ndropped p\ndropped q\n"
    assert urnfile.UrnFile().render() == "\n"


def test_urn_file_read(tmp_path: Path) -> None:
    assert urnfile.read(tmp_path / "none.txt") == urnfile.UrnFile()
    (tmp_path / "s.txt").write_text("urn:x\n")
    assert urnfile.read(tmp_path / "s.txt") == urnfile.UrnFile(current=["urn:x"])


def _plan(*resources: PlannedResource) -> PlanResult:
    return PlanResult("s", list(resources), {})


def test_check_lists_every_problem_in_order() -> None:
    kept, renamed, new = _res("kept"), _res("b", aliases=(f"{U}t:m:R::a",)), _res("n")
    committed = urnfile.UrnFile(
        current=[kept.urn, f"{U}t:m:R::a", f"{U}t:m:R::gone"],
        retired={f"{U}t:m:R::old": f"{U}t:m:R::kept", f"{U}t:m:R::a": renamed.urn},
    )
    assert urnfile.check(_plan(kept, renamed, new), committed) == [
        "renamed with an alias, record it: urn:pulumi:s::p::t:m:R::a -> "
        "urn:pulumi:s::p::t:m:R::b",
        "vanished (pulumi up would DELETE it): urn:pulumi:s::p::t:m:R::gone",
        "new (not in the committed list): urn:pulumi:s::p::t:m:R::b",
        "new (not in the committed list): urn:pulumi:s::p::t:m:R::n",
        "retired URN lost its alias (upgrades would replace it): urn:pulumi:s::p::t:m:R::old",
    ]


def test_update_keeps_live_aliases_and_drops_dead_ones() -> None:
    renamed = _res("b", aliases=(f"{U}t:m:R::a",))
    committed = urnfile.UrnFile(
        current=[f"{U}t:m:R::a", f"{U}t:m:R::z"],
        retired={f"{U}t:m:R::older": f"{U}t:m:R::gone"},
        dropped=["urn:x"],
    )
    new = urnfile.update(_plan(_res("y"), renamed), committed, allow_drop=True)
    assert new == urnfile.UrnFile(
        current=[f"{U}t:m:R::b", f"{U}t:m:R::y"],
        retired={f"{U}t:m:R::a": f"{U}t:m:R::b"},
        dropped=[f"{U}t:m:R::z", "urn:x"],
    )


def test_update_refusal_lists_the_urns() -> None:
    committed = urnfile.UrnFile(current=[f"{U}t:m:R::a", f"{U}t:m:R::b"])
    with pytest.raises(ValueError) as info:
        urnfile.update(_plan(), committed)
    assert str(info.value) == (
        "these URNs would be deleted and re-created by pulumi up; add pulumi.Alias(...) to "
        "the renamed resource, or pass --allow-drop if the removal is intended:\n"
        "  urn:pulumi:s::p::t:m:R::a\n  urn:pulumi:s::p::t:m:R::b"
    )
    # Nothing vanished: no refusal, and allow_drop defaults to False.
    same = urnfile.update(_plan(_res("a"), _res("b")), committed)
    assert same == urnfile.UrnFile(current=[f"{U}t:m:R::a", f"{U}t:m:R::b"])
