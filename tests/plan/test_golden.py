"""Each committed stack renders and plans exactly as its golden files say.

A difference is not necessarily a bug: it is output that changed and must be
reviewed. If the change is intended, re-write the files (tests/support/golden.py
UPDATE) and commit the diff with the change that caused it. The render check
needs no plan (about 0.2 s a stack); the plan check reuses the cached plan of
tests/conftest.py, which the URN tests compute anyway.
"""

from __future__ import annotations

import pytest

from gpu_fabric.plan.stackfile import available_stacks
from tests.support import golden


def _fail_on(problems: list[str]) -> None:
    if problems:  # the diff itself, not pytest's repr of a list of diffs
        pytest.fail("\n\n".join([*problems, f"if intended: {golden.UPDATE}"]), pytrace=False)


@pytest.mark.parametrize("stack", available_stacks())
def test_render_matches_the_golden_files(stack: str) -> None:
    committed = golden.committed(stack)
    assert committed, f"no golden files for stack {stack}; {golden.UPDATE}"
    rendered = {n: t for n, t in committed.items() if n.startswith(f"{golden.RENDER_DIR}/")}
    _fail_on(golden.differences(stack, golden.current_render(stack), rendered))


@pytest.mark.parametrize("stack", available_stacks())
def test_plan_matches_the_golden_file(stack: str, stack_plan) -> None:
    committed = golden.committed(stack)
    assert golden.PLAN_FILE in committed, f"no golden plan for stack {stack}; {golden.UPDATE}"
    now = {golden.PLAN_FILE: golden.plan_json(stack_plan(stack))}
    _fail_on(golden.differences(stack, now, {golden.PLAN_FILE: committed[golden.PLAN_FILE]}))


def test_every_golden_folder_belongs_to_a_stack() -> None:
    folders = {p.name for p in golden.GOLDEN_DIR.iterdir() if p.is_dir()}
    orphans = sorted(folders - set(available_stacks()))
    assert orphans == [], f"golden files without a stack file: {orphans}; git rm -r them"


def test_a_changed_line_is_shown_as_a_unified_diff() -> None:
    golden_files = {"plan.json": "a\nversion: v1\nc\n", "render/old.yaml": "x\n"}
    now = {"plan.json": "a\nversion: v2\nc\n", "render/new.yaml": "y\n"}
    assert golden.differences("s", now, golden_files) == [
        "--- golden/s/plan.json\n+++ now/s/plan.json\n@@ -1,3 +1,3 @@\n a\n"
        "-version: v1\n+version: v2\n c",
        "s/render/new.yaml: new file (not in the golden files)",
        "s/render/old.yaml: no longer produced",
    ]


def test_write_leaves_exactly_the_given_files(tmp_path) -> None:
    golden.write("s", {"plan.json": "1\n", "render/helm/a.yaml": "a\n"}, root=tmp_path)
    changed = golden.write("s", {"plan.json": "2\n"}, root=tmp_path)
    assert changed == ["plan.json", "render/helm/a.yaml"]
    assert golden.committed("s", root=tmp_path) == {"plan.json": "2\n"}
    assert not (tmp_path / "s" / "render").exists()
