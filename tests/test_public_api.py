"""The public API: what gpu_fabric/__init__.py exports is documented and has docstrings."""

from __future__ import annotations

import inspect
import re
from pathlib import Path

import gpu_fabric

API_DOC = Path(__file__).resolve().parents[1] / "docs" / "api.md"


def test_every_export_has_a_reference_entry() -> None:
    headings = set(re.findall(r"^### (\w+)$", API_DOC.read_text(), flags=re.M))
    missing = sorted(set(gpu_fabric.__all__) - headings)
    assert missing == [], f"document these in docs/api.md: {missing}"
    stale = sorted(headings - set(gpu_fabric.__all__))
    assert stale == [], f"docs/api.md documents names that are not exported: {stale}"


def test_every_export_resolves_and_has_a_docstring() -> None:
    for name in gpu_fabric.__all__:
        value = getattr(gpu_fabric, name)
        if inspect.isclass(value) or inspect.isfunction(value):
            assert inspect.getdoc(value), f"gpu_fabric.{name} has no docstring"


def test_unknown_attribute_is_an_attribute_error() -> None:
    try:
        gpu_fabric.NoSuchThing  # noqa: B018
    except AttributeError as exc:
        assert "NoSuchThing" in str(exc)
    else:
        raise AssertionError("expected AttributeError")
