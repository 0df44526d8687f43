"""Every stack is documented in docs/stacks.md: what it creates, cost, prerequisites."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from gpu_fabric.plan.stackfile import available_stacks, load_stack_file
from gpu_fabric.spec import load_spec

DOC = Path(__file__).resolve().parents[2] / "docs" / "stacks.md"


def _sections() -> dict[str, str]:
    parts = re.split(r"^## (\S+)\s*$", DOC.read_text(), flags=re.M)
    return dict(zip(parts[1::2], parts[2::2], strict=True))


FIX = "run `python -m gpu_fabric docs --write`, then complete the section it adds"


def test_sections_are_exactly_the_stacks() -> None:
    missing = sorted(set(available_stacks()) - set(_sections()))
    extra = sorted(set(_sections()) - set(available_stacks()))
    assert missing == [], f"docs/stacks.md has no section for {missing}: {FIX}"
    assert extra == [], f"docs/stacks.md has sections for stacks that are gone {extra}: {FIX}"


@pytest.mark.parametrize("stack", available_stacks())
def test_section_names_what_the_stack_runs(stack: str) -> None:
    assert stack in _sections(), f"docs/stacks.md has no section '## {stack}': {FIX}"
    text = _sections()[stack]
    spec = load_spec(load_stack_file(stack).cluster)
    for pool in spec.node_pools:
        assert f"{pool.node_count} x `{pool.machine_type}`" in text, pool.name
    where = spec.location.zone or spec.location.region
    assert where in text
    for heading in ("- Creates:", "- Cost:", "- Prerequisites:"):
        assert heading in text, heading
    # Costs point at the price pages instead of quoting numbers that go stale.
    if spec.existing is None:
        assert "https://" in text.split("- Cost:")[1].split("- Prerequisites:")[0]
