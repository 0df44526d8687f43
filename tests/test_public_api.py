"""The public API: what components/__init__.py exports is documented and has docstrings."""

from __future__ import annotations

import inspect
import re
from pathlib import Path

import components

API_DOC = Path(__file__).resolve().parents[1] / "docs" / "api.md"


def test_every_export_has_a_reference_entry() -> None:
    headings = set(re.findall(r"^### (\w+)$", API_DOC.read_text(), flags=re.M))
    missing = sorted(set(components.__all__) - headings)
    assert missing == [], f"document these in docs/api.md: {missing}"
    stale = sorted(headings - set(components.__all__))
    assert stale == [], f"docs/api.md documents names that are not exported: {stale}"


def test_every_export_resolves_and_has_a_docstring() -> None:
    for name in components.__all__:
        value = getattr(components, name)
        if inspect.isclass(value) or inspect.isfunction(value):
            assert inspect.getdoc(value), f"components.{name} has no docstring"


def test_unknown_attribute_is_an_attribute_error() -> None:
    try:
        components.NoSuchThing  # noqa: B018
    except AttributeError as exc:
        assert "NoSuchThing" in str(exc)
    else:
        raise AssertionError("expected AttributeError")
