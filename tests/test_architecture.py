"""The house rules (issue 22): which way the parts depend, and the cloud contract's tables.

The import graph is read statically (AST) from ``components/gpu_fabric/``: every ``import``
and ``from ... import``, including the lazy ones inside functions (they run, and
a circle of lazy imports is still a circle), but not those under
``if TYPE_CHECKING:`` (they never run; they only name types).
"""

from __future__ import annotations

import ast
import os
import subprocess
import sys
import types
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from gpu_fabric.catalog import Cloud
from gpu_fabric.clouds.contract import CloudProvider
from gpu_fabric.clouds.registry import PROVIDER_MODULES, PROVIDERS, provider_for
from gpu_fabric.fabric.layer import build_layer
from gpu_fabric.fabric.model import Part
from gpu_fabric.fabric.plugins import LayerPlugins
from gpu_fabric.layers import plugins as default_plugins
from gpu_fabric.plan import fakes as fakes_loader
from gpu_fabric.plan.cloud_facts import PlanFacts, every_cloud, plan_facts
from gpu_fabric.plan.fakes import fakes_for
from gpu_fabric.plan.mocks import _load_fakes
from gpu_fabric.spec import load_spec
from tests.specs import spec_dict

ROOT = Path(__file__).resolve().parents[1]
LIBRARY = ROOT / "components"  # holds the one package, gpu_fabric
# Layers that must never see a cloud: the Kubernetes fabric, the platform, NCCL, health
# and the machine catalog every layer (clouds included) reads.
CLOUD_FREE = (
    "components/gpu_fabric/fabric", "components/gpu_fabric/platform",
    "components/gpu_fabric/nccl", "components/gpu_fabric/catalog",
    "components/gpu_fabric/health",
)


def _module_name(root: Path, path: Path) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _type_checking_nodes(tree: ast.AST) -> set[int]:
    skip: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            skip.update(id(sub) for stmt in node.body for sub in ast.walk(stmt))
    return skip


def import_graph(
    root: Path, package: str = "gpu_fabric", *, type_checking: bool = False
) -> dict[str, set[str]]:
    """Module -> the package modules it imports at run time (resolved to real modules);
    with ``type_checking`` also those imported only for type checking."""
    files = {_module_name(root, p): p for p in (root / package).rglob("*.py")}

    def resolve(name: str) -> str:
        while name and name not in files:
            name = name.rpartition(".")[0]
        return name

    graph: dict[str, set[str]] = {}
    for name, path in files.items():
        tree = ast.parse(path.read_text())
        skip = set() if type_checking else _type_checking_nodes(tree)
        deps: set[str] = set()
        for node in ast.walk(tree):
            if id(node) in skip:
                continue
            if isinstance(node, ast.Import):
                deps.update(resolve(a.name) for a in node.names if a.name.startswith(package))
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    pkg = name if path.name == "__init__.py" else name.rpartition(".")[0]
                    for _ in range(node.level - 1):
                        pkg = pkg.rpartition(".")[0]
                    base = f"{pkg}.{base}" if base else pkg
                if base.split(".")[0] != package:
                    continue
                for alias in node.names:
                    full = f"{base}.{alias.name}"
                    deps.add(full if full in files else resolve(base))
        deps.discard(name)
        deps.discard("")
        graph[name] = deps
    return graph


def cycles(graph: Mapping[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = 0
    for start in graph:
        if start in index:
            continue
        work: list[tuple[str, Any]] = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


# -- the checker can fail -------------------------------------------------------------
def _write(root: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


def test_the_checker_finds_a_lazy_cycle_and_ignores_type_checking_imports(tmp_path) -> None:
    _write(tmp_path, {
        "gpu_fabric/__init__.py": "",
        "gpu_fabric/a.py": "def f():\n    from gpu_fabric import b\n",
        "gpu_fabric/b.py": "from gpu_fabric.a import f\n",
        "gpu_fabric/c.py": (
            "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from gpu_fabric.d import x\n"
        ),
        "gpu_fabric/d.py": "from gpu_fabric.c import TYPE_CHECKING\n",
    })
    graph = import_graph(tmp_path)
    assert graph["gpu_fabric.a"] == {"gpu_fabric.b"}
    assert graph["gpu_fabric.c"] == set()
    assert cycles(graph) == [["gpu_fabric.a", "gpu_fabric.b"]]


# -- the rules ------------------------------------------------------------------------
def test_no_import_cycle_among_the_library_modules() -> None:
    # Before issue 22: fabric <-> platform (11 modules), cluster <-> existing and
    # gcp fabric <-> layout <-> rxdm.
    assert cycles(import_graph(LIBRARY)) == []


def _cloud_free_files() -> list[Path]:
    return sorted(p for d in CLOUD_FREE for p in (ROOT / d).rglob("*.py"))


def test_fabric_platform_and_nccl_import_no_cloud_package() -> None:
    """Not even for type checking; the contract (types only) is the one allowed import."""
    graph = import_graph(LIBRARY, type_checking=True)
    offenders = {
        name: sorted(d for d in deps
                     if d.startswith("gpu_fabric.clouds") and d != "gpu_fabric.clouds.contract")
        for name, deps in graph.items()
        if name.startswith(tuple(d.replace("/", ".") for d in CLOUD_FREE))
    }
    assert {k: v for k, v in offenders.items() if v} == {}


@pytest.mark.parametrize("path", _cloud_free_files(), ids=lambda p: str(p.relative_to(ROOT)))
def test_no_cloud_package_by_string_either(path: Path) -> None:
    """No ``importlib``/``__import__`` and no string naming a cloud package (docstrings
    may point a reader to one)."""
    tree = ast.parse(path.read_text())
    docstrings = {id(n.value) for n in ast.walk(tree)
                  if isinstance(n, ast.Expr) and isinstance(n.value, ast.Constant)}
    for node in ast.walk(tree):
        if id(node) in docstrings:
            continue
        if isinstance(node, ast.Name | ast.Attribute):
            name = node.id if isinstance(node, ast.Name) else node.attr
            assert name not in ("importlib", "import_module", "__import__"), (path, node.lineno)
        if isinstance(node, ast.alias):
            assert node.name.split(".")[0] != "importlib", (path, node.name)
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            assert "gpu_fabric.clouds" not in node.value, (path, node.lineno)
        if isinstance(node, ast.JoinedStr):
            text = ast.unparse(node)
            assert "gpu_fabric.clouds" not in text and "clouds." not in text, (path, text)


# -- the contract's tables --------------------------------------------------------------
# The layer's members (a test's own LayerPlugins needs only these), then the cloud's facts.
CONTRACT_MEMBERS = ("cloud", "check", "describe", "node_labels", "addon_defaults",
                    "chart_values", "parts", "critical_pods_need_quota")
PROVIDER_MEMBERS = (
    "options_model", "options_required", "sdk", "cluster_class_name", "cluster_class",
    "check_infrastructure", "infrastructure_needs_fabrics", "docs", "example_location",
    "zone_example", "has_zones",
    "zone_example_in", "location_problems", "legacy_api_cidrs", "public_endpoint",
    "api_access_problems", "encryption_problems", "accepts_key_vault_id", "capacity_types",
    "check_capacity", "check_pool_name", "gpu_taint", "topology_levels", "managed_dranet",
    "own_device_plugins", "tag_rules", "reserved_cidrs", "system_machines", "managed_gpu_plugin",
)


def test_the_member_lists_are_the_protocols() -> None:
    """The lists above are the contract's (a member added to it is added here too)."""
    from gpu_fabric.clouds.contract import CloudLayer

    def members(protocol: type) -> set[str]:
        return {n for n in vars(protocol) if not n.startswith("_")}

    assert members(CloudLayer) | members(CloudLayer.__mro__[1]) | {"chart_values"} == set(
        CONTRACT_MEMBERS)
    assert members(CloudProvider) == set(PROVIDER_MEMBERS)


@pytest.mark.parametrize("cloud", list(Cloud), ids=lambda c: c.value)
def test_every_cloud_has_a_provider_with_the_whole_contract(cloud: Cloud) -> None:
    provider: CloudProvider = provider_for(cloud)
    assert provider.cloud is cloud
    for member in (*CONTRACT_MEMBERS, *PROVIDER_MEMBERS):
        assert hasattr(provider, member), member
    assert default_plugins().cloud(cloud) is provider
    assert PROVIDERS[cloud] is provider


def test_registry_lists_every_cloud_once_as_its_folders_provider() -> None:
    """One line per cloud, naming ``clouds/<cloud>/provider.py`` (the slice's entry)."""
    assert sorted(c.value for c in PROVIDERS) == sorted(c.value for c in Cloud)
    assert {c.value: m for c, m in PROVIDER_MODULES.items()} == {
        c.value: f"gpu_fabric.clouds.{c.value}.provider" for c in Cloud}


def test_a_cloud_missing_from_the_registry_is_named() -> None:
    from gpu_fabric.fabric.plugins import LayerPlugins

    two = LayerPlugins({c: PROVIDERS[c] for c in (Cloud.AWS, Cloud.OCI)})
    with pytest.raises(LookupError,
                       match="no cloud layer registered for 'gcp'; registered: aws, oci"):
        two.cloud(Cloud.GCP)


@pytest.mark.parametrize("cloud", list(Cloud), ids=lambda c: c.value)
def test_every_cloud_has_offline_fakes(cloud: Cloud) -> None:
    fakes = fakes_for(cloud)
    assert fakes.resource_outputs  # every cloud creates resources a plan must answer
    assert all(callable(f) for f in fakes.resource_outputs.values())
    assert all(callable(f) for f in fakes.calls.values())
    # A cloud answers for its own provider's tokens only.
    assert {t.split(":")[0] for t in (*fakes.resource_outputs, *fakes.calls)} == {
        PROVIDER_PACKAGE[cloud]}


# The Pulumi provider package of each cloud (the first part of its type tokens).
PROVIDER_PACKAGE = {Cloud.GCP: "gcp", Cloud.AWS: "aws", Cloud.AZURE: "azure-native",
                    Cloud.DIGITALOCEAN: "digitalocean", Cloud.OCI: "oci"}


def test_a_cloud_without_fakes_fails_loudly_instead_of_being_skipped(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(fakes_loader, "LEAF", "gone")
    message = ("no offline fakes for 'oci': gpu_fabric.clouds.oci.gone is missing (a cloud "
               "folder holds fakes.py with RESOURCE_OUTPUTS and CALLS)")
    with pytest.raises(LookupError) as info:
        _load_fakes([Cloud.OCI])
    assert str(info.value) == message


def test_fakes_without_both_tables_fail_loudly(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(fakes_loader, "cloud_module",
                        lambda cloud, leaf, missing: types.SimpleNamespace(RESOURCE_OUTPUTS={}))
    with pytest.raises(LookupError) as info:
        fakes_for(Cloud.GCP)
    assert str(info.value) == (
        "gpu_fabric.clouds.gcp.fakes must define RESOURCE_OUTPUTS and CALLS (mappings)")


def test_each_clouds_fakes_live_in_its_folder() -> None:
    """Issue 28: everything about a cloud, its planner fakes included, lives in
    ``clouds/<cloud>/``; ``plan/fakes/`` keeps only the generic loader."""
    clouds = ROOT / "components" / "gpu_fabric" / "clouds"
    assert sorted(p.parent.name for p in clouds.glob("*/fakes.py")) == sorted(
        c.value for c in Cloud)
    assert sorted(p.name for p in (ROOT / "components/gpu_fabric/plan/fakes").glob("*.py")) == [
        "__init__.py"]
    assert fakes_loader.fakes_module(Cloud.DIGITALOCEAN) == "gpu_fabric.clouds.digitalocean.fakes"


def test_production_code_never_imports_the_fakes() -> None:
    """The fakes belong to the planner: no module imports one (the planner's loader
    imports them by name, :func:`gpu_fabric.plan.fakes.fakes_for`), and no module but
    that loader names a fakes module in a string."""
    graph = import_graph(LIBRARY, type_checking=True)
    importers = sorted(name for name, deps in graph.items()
                       if any(d.endswith(".fakes") and d != "gpu_fabric.plan.fakes"
                              for d in deps))
    assert importers == []
    naming = []
    for path in sorted((LIBRARY / "gpu_fabric").rglob("*.py")):
        tree = ast.parse(path.read_text())
        docstrings = {id(n.value) for n in ast.walk(tree)
                      if isinstance(n, ast.Expr) and isinstance(n.value, ast.Constant)}
        for node in ast.walk(tree):
            text = (ast.unparse(node) if isinstance(node, ast.JoinedStr)
                    else node.value if isinstance(node, ast.Constant) else None)
            if id(node) not in docstrings and isinstance(text, str) and (
                    ".fakes" in text or text == "fakes"):  # a module path, or its leaf
                naming.append(str(path.relative_to(LIBRARY)))
    assert sorted(set(naming)) == ["gpu_fabric/plan/fakes/__init__.py"]


def test_building_every_clouds_layer_loads_no_fakes() -> None:
    """At run time too: describing and building the Kubernetes layer of every cloud
    (what a program does besides creating cloud resources) imports no fakes module."""
    code = (
        "import sys\n"
        "from gpu_fabric.fabric.layer import build_layer\n"
        "from gpu_fabric.fabric.description import describe_cluster\n"
        "import gpu_fabric.clouds.registry\n"
        "from gpu_fabric.spec import load_spec\n"
        "from tests.specs import spec_dict\n"
        "for cloud in ('gcp', 'aws', 'azure', 'digitalocean', 'oci'):\n"
        "    spec = load_spec(spec_dict(cloud))\n"
        "    build_layer(spec, describe_cluster(spec)).manifests()\n"
        "print(sorted(m for m in sys.modules if m.endswith('fakes')))\n"
    )
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        [str(LIBRARY), str(ROOT), os.environ.get("PYTHONPATH", "")])}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env=env, cwd=ROOT, check=True, timeout=300)
    assert out.stdout.strip() == "[]"


# -- each cloud's plan facts (clouds/<cloud>/plan_facts.py) ----------------------------------
@pytest.mark.parametrize("cloud", list(Cloud), ids=lambda c: c.value)
def test_every_cloud_states_its_plan_facts_for_its_own_provider(cloud: Cloud) -> None:
    facts = plan_facts(cloud)
    assert isinstance(facts, PlanFacts)
    assert facts.replacing_inputs  # every cloud creates a cluster that replacing would destroy
    prefix = PROVIDER_PACKAGE[cloud]
    tokens = {*facts.replacing_inputs}
    assert {t.split(":")[0] for t in tokens} == {prefix}
    # Credential keys are the provider's config keys (Azure's classic provider too).
    assert {k.split(":")[0] for k in facts.credential_keys} <= {prefix, "azure"}


def test_a_cloud_without_plan_facts_fails_loudly(monkeypatch: pytest.MonkeyPatch) -> None:
    import gpu_fabric.clouds.registry as registry

    def missing(name: str) -> Any:
        err = ModuleNotFoundError(f"No module named '{name}'")
        err.name = name
        raise err

    monkeypatch.setattr(registry, "import_module", missing)
    with pytest.raises(LookupError) as info:
        plan_facts(Cloud.AZURE)
    assert str(info.value) == (
        "cloud 'azure' has no plan facts: gpu_fabric.clouds.azure.plan_facts is missing "
        "(every cloud folder states its provider's PLAN_FACTS)")


@pytest.mark.parametrize(("module", "got"), [
    (types.SimpleNamespace(), "NoneType"),
    (types.SimpleNamespace(PLAN_FACTS={"replacing_inputs": {}}), "dict"),
])
def test_plan_facts_of_the_wrong_shape_fail_loudly(
    monkeypatch: pytest.MonkeyPatch, module: Any, got: str
) -> None:
    import gpu_fabric.clouds.registry as registry

    module.__name__ = "gpu_fabric.clouds.azure.plan_facts"
    monkeypatch.setattr(registry, "import_module", lambda name: module)
    with pytest.raises(LookupError) as info:
        plan_facts(Cloud.AZURE)
    assert str(info.value) == (
        f"gpu_fabric.clouds.azure.plan_facts.PLAN_FACTS must be a PlanFacts, got {got}")


def test_the_planner_merges_every_clouds_facts() -> None:
    merged = every_cloud()
    assert sorted(merged.replacing_inputs) == sorted(
        t for c in Cloud for t in plan_facts(c).replacing_inputs)
    # ForceNew at oracle/terraform-provider-oci@8de3c480b4 (v8.28.0) internal/service/core/
    # core_vcn_resource.go L65, L91, L104, L119 (plan/data/replacing_inputs.json).
    assert merged.replacing_inputs["oci:Core/vcn:Vcn"] == (
        "cidrBlock", "dnsLabel", "ipv6privateCidrBlocks", "isOracleGuaAllocationEnabled")
    assert sorted(merged.replacing_blocks) == sorted(
        t for c in Cloud for t in plan_facts(c).replacing_blocks)
    assert "digitalocean:token" in merged.credential_keys


# -- the layer takes the contract as a value ------------------------------------------------
class _MarkerLayer:
    """Wraps a real cloud layer and adds one part, to see the value reach the layer."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    def parts(self, spec, fabrics, addons, values) -> list[Part]:  # type: ignore[no-untyped-def]
        return [*self.inner.parts(spec, fabrics, addons, values), Part("marker")]


def test_build_layer_uses_the_plugins_it_is_given() -> None:
    from gpu_fabric.fabric.description import describe_cluster

    spec = load_spec(spec_dict("aws"))
    plugins = LayerPlugins(clouds={Cloud.AWS: _MarkerLayer(provider_for(Cloud.AWS))},
                           above=default_plugins().above)
    layer = build_layer(spec, describe_cluster(spec, plugins), plugins)
    assert "marker" in layer.names
    assert "marker" not in build_layer(spec, describe_cluster(spec)).names
    with pytest.raises(LookupError, match="no cloud layer registered for 'gcp'"):
        build_layer(load_spec(spec_dict("gcp")), {}, plugins)


# -- one source per fact; nothing kept that nothing uses ----------------------------------------
def test_oci_and_do_nccl_hca_lists_are_the_machines_hca_names() -> None:
    """NCCL_IB_HCA is the machine's RDMA devices in rail order (typed once in the catalog).

    Literal spot checks: BM.GPU.H100.8 from oci-hpc-oke's NCCL_IB_HCA for H100
    (mlx5_2 and mlx5_11 are the host NICs), the DO H200 seed (mlx5_0..7 on fabric0..7).
    """
    from gpu_fabric.catalog import get_machine, machines

    checked = 0
    for m in machines():
        if m.cloud in (Cloud.OCI, Cloud.DIGITALOCEAN) and m.has_fabric and m.nccl is not None:
            assert m.nccl.env["NCCL_IB_HCA"].lstrip("=").split(",") == list(m.hca_names), m.name
            checked += 1
    assert checked >= 10
    assert get_machine("BM.GPU.H100.8").hca_names[:3] == ("mlx5_0", "mlx5_1", "mlx5_3")
    assert get_machine("gpu-h200x8-1128gb-fabric-contracted").nccl.env[  # type: ignore[union-attr]
        "NCCL_IB_HCA"] == "mlx5_0,mlx5_1,mlx5_2,mlx5_3,mlx5_4,mlx5_5,mlx5_6,mlx5_7"


@pytest.mark.parametrize("nad_type", ["macvlan", "ipvlan"])
def test_nad_types_no_cloud_builds_are_refused(nad_type: str) -> None:
    """No cloud produces macvlan/ipvlan NADs; the spec said yes and then ignored it (AWS)."""
    from gpu_fabric.errors import SpecError

    with pytest.raises(SpecError, match=r"fabric\.nad_type"):
        load_spec(spec_dict("aws", fabric={"nad_type": nad_type}))
