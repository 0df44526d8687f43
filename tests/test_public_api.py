"""The public API: what gpu_fabric/__init__.py and the per-cloud modules (gpu_fabric.gcp,
gpu_fabric.aws...) export is documented in docs/api.md and has docstrings; every field
of a building block's Args is documented in its source and listed in the reference."""

from __future__ import annotations

import ast
import dataclasses
import importlib
import inspect
import itertools
import re
import textwrap
from pathlib import Path

import pytest

import gpu_fabric

DOCS = Path(__file__).resolve().parents[1] / "docs"
API_DOC = DOCS / "api.md"
CLOUD_MODULES = ["gcp", "aws", "azure", "digitalocean", "oci"]
# The two blocks of each cloud (docs/architecture.md "Building blocks").
BLOCKS = {
    "gcp": ("FabricNetwork", "GpuNodePool"),
    "aws": ("FabricNetwork", "EfaNodeGroup"),
    "azure": ("FabricNetwork", "NdAgentPool"),
    "digitalocean": ("FabricNetwork", "GpuNodePool"),
    "oci": ("FabricNetwork", "GpuNodePool"),
}


def _headings(prefix: str = "") -> set[str]:
    pattern = rf"^### {re.escape(prefix)}(\w+)$"
    return set(re.findall(pattern, API_DOC.read_text(), flags=re.M))


def _section(heading: str) -> str:
    """The text of docs/api.md under ``### heading`` up to the next heading."""
    text = API_DOC.read_text()
    start = text.index(f"\n### {heading}\n")
    end = text.find("\n#", start + 1)
    return text[start:end if end != -1 else None]


def test_every_export_has_a_reference_entry() -> None:
    headings = _headings()
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


# -- the per-cloud modules -----------------------------------------------------------
@pytest.mark.parametrize("cloud", CLOUD_MODULES)
def test_every_cloud_export_has_a_reference_entry(cloud: str) -> None:
    module = importlib.import_module(f"gpu_fabric.{cloud}")
    headings = _headings(f"{cloud}.")
    assert sorted(set(module.__all__) - headings) == [], f"document in docs/api.md ({cloud})"
    assert sorted(headings - set(module.__all__)) == [], f"not exported by gpu_fabric.{cloud}"


@pytest.mark.parametrize("cloud", CLOUD_MODULES)
def test_every_cloud_export_resolves_and_has_a_docstring(cloud: str) -> None:
    module = importlib.import_module(f"gpu_fabric.{cloud}")
    assert inspect.getdoc(module)
    for block in BLOCKS[cloud]:
        assert {block, f"{block}Args"} <= set(module.__all__)
    for name in module.__all__:
        value = getattr(module, name)
        assert inspect.isclass(value) or inspect.isfunction(value), name
        assert inspect.getdoc(value), f"gpu_fabric.{cloud}.{name} has no docstring"
        assert name in dir(module)


@pytest.mark.parametrize("cloud", CLOUD_MODULES)
def test_unknown_cloud_attribute_is_an_attribute_error(cloud: str) -> None:
    module = importlib.import_module(f"gpu_fabric.{cloud}")
    with pytest.raises(AttributeError, match=f"gpu_fabric.{cloud}' has no attribute 'Cluster'"):
        module.Cluster  # noqa: B018


def _field_docs(cls: type) -> dict[str, str]:
    """Attribute docstrings of a dataclass: the string right after each field."""
    tree = ast.parse(textwrap.dedent(inspect.getsource(cls)))
    body = tree.body[0].body  # type: ignore[attr-defined]
    docs = {}
    for node, after in itertools.pairwise(body):
        if (isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name)
                and isinstance(after, ast.Expr) and isinstance(after.value, ast.Constant)
                and isinstance(after.value.value, str)):
            docs[node.target.id] = after.value.value
    return docs


def _dataclass_exports() -> list[tuple[str, str]]:
    out = []
    for cloud in CLOUD_MODULES:
        module = importlib.import_module(f"gpu_fabric.{cloud}")
        out += [(cloud, name) for name in module.__all__
                if dataclasses.is_dataclass(getattr(module, name))]
    return out


@pytest.mark.parametrize(("cloud", "name"), _dataclass_exports())
def test_every_args_field_is_documented_in_source_and_reference(cloud: str, name: str) -> None:
    cls = getattr(importlib.import_module(f"gpu_fabric.{cloud}"), name)
    documented = _field_docs(cls)
    section = _section(f"{cloud}.{name}")
    for field in dataclasses.fields(cls):
        assert documented.get(field.name, "").strip(), f"{name}.{field.name}: no docstring"
        assert f"`{field.name}`" in section, f"docs/api.md {cloud}.{name}: no `{field.name}`"


@pytest.mark.parametrize("cloud", CLOUD_MODULES)
def test_each_cloud_page_lists_its_public_blocks(cloud: str) -> None:
    page = (DOCS / "clouds" / f"{cloud}.md").read_text()
    module = importlib.import_module(f"gpu_fabric.{cloud}")
    for block in BLOCKS[cloud]:
        assert f"gpu_fabric.{cloud}.{block}" in page, block
        assert f"{block}Args" in page, block
        for field in dataclasses.fields(getattr(module, f"{block}Args")):
            assert f"`{field.name}`" in page, f"docs/clouds/{cloud}.md: {block}Args.{field.name}"
