"""render writes YAML with libyaml's emitter, byte for byte what the pure-Python one writes
(issue 36: the pure-Python dumper was 33 of 44 s of render at 256 teams)."""

from __future__ import annotations

import pytest
import yaml

from gpu_fabric import render
from gpu_fabric.plan import load_stack_file
from gpu_fabric.plan.stackfile import available_stacks
from gpu_fabric.spec import load_spec

# Strings where emitters could differ: quoting, line folding past 80 columns, literal
# blocks with trailing spaces or no final newline, non-ASCII (escaped: allow_unicode is
# off), values YAML would read as other types.
TRICKY = [
    "plain", "", " leading space", "trailing space ", "yes", "no", "on", "null", "~",
    "0755", "1e3", "0x1F", "12:30", "a: b", "- item", "# hash", "quote's", 'dq"', "tab\there",
    "x" * 200, " ".join(["word"] * 60), "line one\nline two\n", "no final newline\nend",
    "trailing spaces \nnext", "\nleading newline", "über ✓", "emoji 🚀", "{braces}", "[list]",
    "*anchor", "&ref", "!tag", "%percent", "@at", "`tick`", "a\\b", "\x07bell",
]


def test_the_fast_emitter_is_libyaml() -> None:
    assert yaml.__with_libyaml__ is True  # PyYAML wheels ship libyaml (pyproject pin)
    assert issubclass(render._Dumper, yaml.CSafeDumper)


@pytest.mark.parametrize("value", TRICKY)
def test_same_bytes_for_tricky_strings(value: str) -> None:
    docs = [{"k": value, "list": [value, {"nested": value}]}, {value or "empty": 1}]
    assert render.dump(docs) == render.dump(docs, pure=True)


@pytest.mark.parametrize("stack", available_stacks())
def test_same_bytes_for_every_committed_stack(stack: str) -> None:
    layer = render.layer_for(load_spec(load_stack_file(stack).cluster))
    for part in layer.parts:
        docs = list(part.manifests)
        assert render.dump(docs) == render.dump(docs, pure=True), part.name
    for release in layer.charts():
        assert render.dump([release.values]) == render.dump([release.values], pure=True)
