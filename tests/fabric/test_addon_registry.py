"""An add-on is defined once: its key is spelled in its own module, the registry lists
it, and the spec's ``addons:`` section is derived from the registry.

Expected values come from outside the code under test:

- the keys and their order: ``schema/cluster.schema.json``
  (``$defs.AddonsSpec.properties``, the committed, user-facing schema; it sorts them)
  and the field order of ``class AddonsSpec`` in ``components/gpu_fabric/spec/addons.py``
  before the registry (commit 50481cf), which the resolver and ``render`` follow;
- the same strings that mean something else (``COINCIDENCES``): the upstream file
  or the spec field each one names, cited beside it.
"""

from __future__ import annotations

import ast
import importlib
import json
import pkgutil
from collections import Counter
from pathlib import Path

import pytest
from pydantic import ValidationError

from gpu_fabric.cli import main
from gpu_fabric.fabric import addons as addons_package
from gpu_fabric.fabric.addons import ADDONS, Addon
from gpu_fabric.fabric.addons import registry as registry_module
from gpu_fabric.fabric.addons.model import BY_THE_CLOUD
from gpu_fabric.spec import AddonSpec, AddonsSpec
from gpu_fabric.spec import addons as spec_addons
from gpu_fabric.versions import Chart

ROOT = Path(__file__).parents[2]
LIBRARY = ROOT / "components" / "gpu_fabric"

# schema/cluster.schema.json $defs.AddonsSpec.properties, in the declaration order of
# AddonsSpec at 50481cf (the order of ResolvedAddons and of render's layer.yaml), then
# issue 35's cert_manager and nvsentinel (the health layer's, docs/health.md).
KEYS = [
    "multus",
    "rdma_shared_device_plugin",
    "sriov_device_plugin",
    "network_operator",
    "gpu_operator",
    "nvidia_device_plugin",
    "efa_device_plugin",
    "nvidia_dra_driver",
    "dranet",
    "nccl_installer",
    "kyverno",
    "kueue",
    "jobset",
    "mpi_operator",
    "prometheus",
    "cert_manager",
    "nvsentinel",
]

# Modules of the package that define no add-on: the model, the table, the resolver.
NOT_DEFINITIONS = {"model", "registry", "resolve"}

# The same string as an add-on key, meaning something else: (module, string) -> count.
COINCIDENCES = {
    # pulumi-digitalocean KubernetesCluster argument (DOKS-managed component), managed.py
    # docstring: "Keys are the KubernetesCluster argument names".
    ("clouds/digitalocean/managed.py", "rdma_shared_device_plugin"): 1,
    # NicClusterPolicy spec.secondaryNetwork.multus (network-operator 26.4.1 CRD).
    ("clouds/oci/kubernetes.py", "multus"): 1,
    ("fabric/manifests/network_operator.py", "multus"): 1,
    # DaemonSet name and app label of multus-cni deployments/multus-daemonset-thick.yml.
    ("fabric/manifests/multus.py", "multus"): 2,
    # kube-prometheus-stack values key, Grafana datasource type and query.
    ("platform/monitoring.py", "prometheus"): 3,
    # kube-prometheus-stack values key prometheus.prometheusSpec (values.yaml at 79.7.1).
    ("health/plugin.py", "prometheus"): 1,
    # tenancy.gang_scheduling: auto | kueue | none (a spec value, not the add-on).
    ("spec/tenancy.py", "kueue"): 1,
    ("platform/plugin.py", "kueue"): 1,
    # The spec field fabric.dranet (error paths) and DraNet's DeviceClass name.
    ("spec/fabric.py", "dranet"): 2,
    ("fabric/derive.py", "dranet"): 1,
    # Upstream chart names in the pins (Chart(repo, name, version)).
    ("versions.py", "dranet"): 1,
    ("versions.py", "jobset"): 1,
    ("versions.py", "kueue"): 1,
    ("versions.py", "kyverno"): 1,
    ("versions.py", "nvsentinel"): 1,
}


def _key_literals() -> Counter[tuple[str, str]]:
    """(module relative to the library, key) -> string constants equal to that key."""
    found: Counter[tuple[str, str]] = Counter()
    for path in sorted(LIBRARY.rglob("*.py")):
        module = path.relative_to(LIBRARY).as_posix()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Constant) and node.value in KEYS:
                found[(module, node.value)] += 1
    return found


def test_each_key_is_spelled_in_its_definition_module_only() -> None:
    found = _key_literals()
    definitions = {m for (m, _) in found if m.startswith("fabric/addons/")}
    elsewhere = {k: n for k, n in found.items() if k[0] not in definitions}
    # A module not listed here re-spells a key: refer to the add-on's definition
    # (gpu_fabric.fabric.addons.<KEY>) instead, or, when the string means something else
    # (a chart name, a CRD field), add it to COINCIDENCES with its source.
    assert elsewhere == COINCIDENCES
    assert {k: sorted(m for (m, key) in found if key == k and m in definitions)
            for k in KEYS} == {k: [f"fabric/addons/{k}.py"] for k in KEYS}


def test_one_module_per_addon_each_registered_once() -> None:
    modules = sorted(m.name for m in pkgutil.iter_modules(addons_package.__path__))
    assert sorted(set(modules) - NOT_DEFINITIONS) == sorted(KEYS)
    for name in set(modules) - NOT_DEFINITIONS:
        module = importlib.import_module(f"gpu_fabric.fabric.addons.{name}")
        defined = [v for v in vars(module).values() if isinstance(v, Addon)]
        assert len(defined) == 1, name
        assert defined[0].key == name
        assert ADDONS[name] is defined[0]


def test_registry_order_is_the_spec_order() -> None:
    assert list(ADDONS) == KEYS
    assert [a.key for a in ADDONS.values()] == KEYS


def test_the_spec_section_has_the_registry_keys_as_fields() -> None:
    assert list(AddonsSpec.model_fields) == KEYS
    for key in KEYS:
        field = AddonsSpec.model_fields[key]
        assert field.annotation is AddonSpec
        assert field.default == AddonSpec()
    # Each entry is read through its definition.
    spec = AddonsSpec(gpu_operator={"enabled": True, "version": "v25.3.0"})
    assert spec.choice(ADDONS["gpu_operator"]) == AddonSpec(enabled=True, version="v25.3.0")
    assert spec.choice(ADDONS["kueue"]) == AddonSpec()


def test_the_spec_section_follows_the_registry(monkeypatch: pytest.MonkeyPatch) -> None:
    # A sixth-cloud-style check for add-ons: one more definition in the table is one more
    # spec field, with no edit to the spec module.
    extra = Addon(key="toy_addon", artifact=Chart("oci://example.test/charts", "toy", "1.0.0"),
                  namespace="toy", summary="a toy add-on", built_by="gpu_fabric.platform:parts")
    monkeypatch.setattr(registry_module, "ADDONS", {**ADDONS, extra.key: extra})
    derived = spec_addons._derived()
    assert list(derived.model_fields) == [*KEYS, "toy_addon"]
    assert derived(toy_addon={"enabled": True}).choice(extra) == AddonSpec(enabled=True)


def test_an_unknown_addon_key_is_refused() -> None:
    with pytest.raises(ValidationError) as info:
        AddonsSpec.model_validate({"gpu_operators": {"enabled": True}})
    assert info.value.errors()[0]["loc"] == ("gpu_operators",)
    assert info.value.errors()[0]["type"] == "extra_forbidden"


def test_committed_schema_is_byte_identical_to_the_derived_one(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["schema"]) == 0  # python -m gpu_fabric schema
    out = capsys.readouterr().out
    assert out == (ROOT / "schema" / "cluster.schema.json").read_text(encoding="utf-8")
    # The section as users see it: every key, each an AddonSpec, nothing else.
    section = json.loads(out)["$defs"]["AddonsSpec"]
    assert sorted(section["properties"]) == sorted(KEYS)
    assert {p["$ref"] for p in section["properties"].values()} == {"#/$defs/AddonSpec"}


# The add-ons a cloud builds in its own parts (Azure and OCI: the Network Operator with
# their NicClusterPolicy; AWS: the EFA plugin; GCP: the NCCL installers), from the
# clouds' kubernetes.py modules.
CLOUD_BUILT = ["network_operator", "efa_device_plugin", "nccl_installer"]


def test_the_clouds_build_their_own_addons() -> None:
    assert [k for k, a in ADDONS.items() if a.built_by == BY_THE_CLOUD] == CLOUD_BUILT


@pytest.mark.parametrize("key", sorted(set(KEYS) - set(CLOUD_BUILT)))
def test_built_by_names_code_that_exists(key: str) -> None:
    module_name, _, qualname = ADDONS[key].built_by.partition(":")
    target: object = importlib.import_module(module_name)
    for attr in qualname.split("."):
        target = getattr(target, attr)
    assert callable(target)
