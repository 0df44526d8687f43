"""Only a cloud's own folder names the cloud (issue 28, "each cloud is one folder").

Everything about a cloud lives in ``components/gpu_fabric/clouds/<cloud>/`` behind its
provider; every other module asks the registry. This test reads every other module
(AST: code, not comments or docstrings) and fails on what names one cloud:

* ``Cloud.<MEMBER>``;
* a string equal to a cloud's value (``"gcp"``), naming a cloud's module
  (``"gpu_fabric.clouds.gcp..."``), a cloud SDK (``"pulumi_gcp"``) or a resource or
  config key of one (``"gcp:container/cluster:Cluster"``, ``"aws:accessKey"``);
* an import of a cloud's folder or of a cloud SDK;
* a name (function, class, variable, attribute, import alias) one of whose
  ``_``-separated words is a cloud's value (``gcp_problems``, ``AWS_REGIONS``).

The exceptions are listed below, each with its reason; a file that no longer needs
its exception fails the test too, so the list only shrinks.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "components" / "gpu_fabric"
# The five clouds' values, enum members and SDKs, written out (the enum may grow; a new
# cloud is added here with its folder).
CLOUDS = ("gcp", "aws", "azure", "digitalocean", "oci")
MEMBERS = ("GCP", "AWS", "AZURE", "DIGITALOCEAN", "OCI")
SDKS = ("pulumi_gcp", "pulumi_aws", "pulumi_azure_native", "pulumi_digitalocean", "pulumi_oci")
# Pulumi packages of the SDKs: resource type tokens and config keys start with them.
# "oci://" is a Helm chart registry scheme (OCI the image format), not the cloud.
TOKEN = re.compile(r"^(gcp|aws|azure-native|digitalocean|oci):(?!//)")

# Whole files that may name clouds, and why (paths relative to components/gpu_fabric).
# Besides these, the catalog's per-cloud data files, catalog/<cloud>.py and
# catalog/<cloud>_*.py (issue 28 excepts them), may name their cloud.
EXCEPTED: dict[str, str] = {
    "catalog/model.py": "the Cloud enum itself (issue 28 excepts it)",
    "catalog/lookup.py": "the catalog's list of its per-cloud data files",
    "clouds/registry.py": "the registry: one line per cloud (issue 28 excepts it)",
    **{f"{c}.py": "the public facade gpu_fabric.<cloud> of the folder's blocks: its names, "
       "re-exported from clouds/<cloud>/blocks.py" for c in CLOUDS},
}
# Names with a cloud's word that do not name the cloud, or cannot change, and why.
ALLOWED_NAMES: dict[str, str] = {
    "is_oci": "an OCI (image format) chart registry, oci://, not the cloud",
    "azure_key_vault_id": "a field of the spec's secrets_encryption section (stacks use it)",
    "_AZURE_VAULT_ID": "the format of that field's value",
    "AZURE_DOCA_DRIVER": "a pin's name in versions.py, the one table of pins (a bump is one "
                         "file; docs/images.md lists pins by it)",
}


def _docstrings(tree: ast.AST) -> set[int]:
    """Ids of string constants that are docstrings or bare string statements."""
    return {id(n.value) for n in ast.walk(tree)
            if isinstance(n, ast.Expr) and isinstance(n.value, ast.Constant)
            and isinstance(n.value.value, str)}


def _names_a_cloud_string(value: str) -> bool:
    return (value in CLOUDS or value in SDKS or bool(TOKEN.match(value))
            or any(value == s or value.startswith(f"{s}.") for s in SDKS)
            or any(f"gpu_fabric.clouds.{c}" in value for c in CLOUDS))


def _is_cloud_module(module: str) -> bool:
    return module.split(".")[0] in SDKS or any(
        module == f"gpu_fabric.clouds.{c}" or module.startswith(f"gpu_fabric.clouds.{c}.")
        for c in CLOUDS)


def _cloud_word(name: str) -> bool:
    return name not in ALLOWED_NAMES and bool(
        set(re.split(r"_+", name.lower())) & set(CLOUDS))


def cloud_names(source: str) -> list[tuple[int, str]]:
    """(line, what) for every place ``source`` names a cloud in code."""
    tree = ast.parse(source)
    skip = _docstrings(tree)
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        line = getattr(node, "lineno", 0)
        if (isinstance(node, ast.Attribute) and node.attr in MEMBERS
                and isinstance(node.value, ast.Name) and node.value.id == "Cloud"):
            found.append((line, f"Cloud.{node.attr}"))
        elif (isinstance(node, ast.Constant) and isinstance(node.value, str)
              and id(node) not in skip and _names_a_cloud_string(node.value)):
            found.append((line, repr(node.value)))
        elif isinstance(node, ast.ImportFrom):
            module = node.module or ""
            if _is_cloud_module(module) or (
                    module == "gpu_fabric.clouds" and any(a.name in CLOUDS for a in node.names)):
                found.append((line, f"from {module} import"))
        elif isinstance(node, ast.Import):
            found += [(line, f"import {a.name}") for a in node.names if _is_cloud_module(a.name)]
        names: list[str] = []
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names = [node.name]
        elif isinstance(node, ast.Name):
            names = [node.id]
        elif isinstance(node, ast.Attribute) and node.attr not in MEMBERS:
            names = [node.attr]
        elif isinstance(node, ast.alias) and node.asname:
            names = [node.asname]
        elif isinstance(node, ast.arg):
            names = [node.arg]
        found += [(line, f"name {n}") for n in names if _cloud_word(n)]
    return sorted(set(found))


def _in_a_cloud_folder(rel: str) -> bool:
    parts = rel.split("/")
    return len(parts) > 2 and parts[0] == "clouds" and parts[1] in CLOUDS


def _catalog_data(rel: str) -> bool:
    parts = rel.removesuffix(".py").split("/")
    return len(parts) == 2 and parts[0] == "catalog" and parts[1].split("_")[0] in CLOUDS


def _checked_files() -> list[str]:
    return sorted(rel for p in PACKAGE.rglob("*.py")
                  if not _in_a_cloud_folder(rel := p.relative_to(PACKAGE).as_posix())
                  and not _catalog_data(rel))


# -- the checker can fail ----------------------------------------------------------------
def test_the_checker_finds_each_way_of_naming_a_cloud() -> None:
    source = '''"""A docstring may say gcp, pulumi_gcp and gpu_fabric.clouds.gcp."""
from gpu_fabric.catalog import Cloud
from gpu_fabric.clouds.aws.layout import options_of
from gpu_fabric.clouds import oci
import pulumi_azure_native
# a comment may say digitalocean
x = Cloud.GCP
y = "digitalocean"
z = f"{x}-gcp"
token = "aws:eks/cluster:Cluster"
chart = "oci://registry.k8s.io/kueue/charts"
def gcp_problems(spec): ...
is_oci = True
'''
    assert cloud_names(source) == [
        (3, "from gpu_fabric.clouds.aws.layout import"),
        (4, "from gpu_fabric.clouds import"),
        (5, "import pulumi_azure_native"),
        (7, "Cloud.GCP"),
        (8, "'digitalocean'"),
        (10, "'aws:eks/cluster:Cluster'"),
        (12, "name gcp_problems"),
    ]


def test_the_checker_sees_the_registry_naming_every_cloud() -> None:
    """The registry is the one place allowed to: the checker does see it."""
    found = cloud_names((PACKAGE / "clouds/registry.py").read_text())
    assert {what for _, what in found} >= {f"Cloud.{m}" for m in MEMBERS}


# -- the rule --------------------------------------------------------------------------
@pytest.mark.parametrize("rel", [r for r in _checked_files() if r not in EXCEPTED])
def test_no_module_outside_a_cloud_folder_names_a_cloud(rel: str) -> None:
    assert cloud_names((PACKAGE / rel).read_text()) == [], (
        f"components/gpu_fabric/{rel} names a cloud: move it into clouds/<cloud>/ "
        "(the provider) and ask gpu_fabric.clouds.registry.provider_for(spec.cloud)")


@pytest.mark.parametrize("rel", sorted(EXCEPTED))
def test_every_exception_is_still_needed(rel: str) -> None:
    """An excepted file that no longer names a cloud leaves the list."""
    assert (PACKAGE / rel).exists(), f"{rel} is gone: remove its exception"
    assert cloud_names((PACKAGE / rel).read_text()) != [], f"{rel} names no cloud now"


def test_the_allowed_names_are_still_used() -> None:
    used = {name for rel in _checked_files()
            for node in ast.walk(ast.parse((PACKAGE / rel).read_text()))
            for name in (getattr(node, "id", None), getattr(node, "attr", None),
                         getattr(node, "arg", None))
            if name in ALLOWED_NAMES}
    assert used == set(ALLOWED_NAMES)
