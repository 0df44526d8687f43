"""Every custom resource any plan creates is one the upstream CRD at the pinned version
accepts (schema, Kubernetes extensions, CEL rules), and the checker bites."""

from __future__ import annotations

import copy
import json
from functools import cache
from typing import Any

import jsonschema
import pytest

from tests.support.crds import (
    UPSTREAM,
    crd_index,
    evaluate_rule,
    skipped_rules,
    to_json_schema,
    validate_custom_resource,
)
from tests.support.manifests import BUILTIN_GROUPS
from tests.support.scripts import load_script
from tests.support.variants import plan_of, usable


def custom_resources(variant: str) -> list[dict[str, Any]]:
    """The custom resources of a plan, as the provider would send them."""
    out = []
    for res in plan_of(variant).resources:
        api = res.inputs.get("apiVersion") if res.type.startswith("kubernetes:") else None
        if not isinstance(api, str) or api.rpartition("/")[0] in BUILTIN_GROUPS:
            continue
        if res.type == "kubernetes:helm.sh/v3:Release":
            continue
        out.append({k: v for k, v in res.inputs.items() if k != "__inputs"})
    return out


@pytest.mark.parametrize("variant", usable())
def test_every_custom_resource_matches_its_upstream_crd(variant: str) -> None:
    problems = [p for cr in custom_resources(variant) for p in validate_custom_resource(cr)]
    assert problems == []


def test_the_variants_cover_every_kind_the_project_renders() -> None:
    kinds = {cr["kind"] for v in usable() for cr in custom_resources(v)}
    # Every custom kind in components/ (grep '"kind":'), minus none: each is checked.
    assert kinds == {
        "ClusterPolicy", "ClusterQueue", "ComputeDomain", "GKENetworkParamSet", "IPPool",
        "LocalQueue", "MPIJob", "Network", "NetworkAttachmentDefinition", "NicClusterPolicy",
        "ResourceFlavor", "SriovNetworkNodePolicy", "Topology", "WorkloadPriorityClass",
    }


def test_only_transition_rules_are_skipped() -> None:
    for variant in usable():
        for cr in custom_resources(variant):
            validate_custom_resource(cr)
    # Rules that read oldSelf only run on update (Kubernetes CEL docs, "transition
    # rules"); nothing else may be skipped.
    assert set(skipped_rules().values()) <= {
        "transition rule (reads oldSelf): runs on update only"
    }


def test_provenance_names_every_upstream_file() -> None:
    sources = json.loads((UPSTREAM / "sources.json").read_text())
    listed = {s["file"] for s in sources}
    on_disk = {str(p.relative_to(UPSTREAM)) for p in UPSTREAM.rglob("*")
               if p.is_file() and p.name not in ("sources.json", "README.md")}
    assert listed == on_disk
    for source in sources:
        assert len(source["commit"]) == 40 and source["repo"].count("/") == 1


# -- the checker bites -------------------------------------------------------------------


def _first(kind: str) -> dict[str, Any]:
    for variant in usable():
        for cr in custom_resources(variant):
            if cr["kind"] == kind:
                assert validate_custom_resource(cr) == []
                return copy.deepcopy(cr)
    raise AssertionError(f"no {kind} in any plan")


def test_a_misspelled_crd_field_fails() -> None:
    policy = _first("NicClusterPolicy")
    policy["spec"]["ofedDriverr"] = policy["spec"].pop("ofedDriver", {})
    assert any("ofedDriverr" in p for p in validate_custom_resource(policy))


def test_a_wrong_type_and_a_bad_enum_fail() -> None:
    nad = _first("NetworkAttachmentDefinition")
    nad["spec"]["config"] = {"type": "host-device"}  # upstream: a JSON string
    assert any("spec.config" in p for p in validate_custom_resource(nad))
    flavor = _first("ResourceFlavor")
    flavor["spec"]["nodeTaints"] = [{"key": "k", "effect": "NoShedule"}]
    assert validate_custom_resource(flavor)


def test_a_cel_rule_violation_fails() -> None:
    topology = _first("Topology")
    # kueue v0.14.4 Topology.spec.levels: kubernetes.io/hostname must be the last level.
    levels = topology["spec"]["levels"]
    topology["spec"]["levels"] = [{"nodeLabel": "kubernetes.io/hostname"},
                                  {"nodeLabel": "cloud.example/block"}]
    problems = validate_custom_resource(topology)
    assert any("x-kubernetes-validations" in p for p in problems), (levels, problems)


def test_a_cel_rule_sees_schema_defaults() -> None:
    queue = _first("ClusterQueue")
    # preemption.reclaimWithinCohort defaults to Never; borrowWithinCohort.policy
    # LowerPriority then violates "reclaimWithinCohort Never => borrowWithinCohort Never".
    queue["spec"]["preemption"] = {"borrowWithinCohort": {"policy": "LowerPriority"}}
    assert any("reclaimWithinCohort" in p for p in validate_custom_resource(queue))


def test_int_or_string_quantities() -> None:
    queue = _first("ClusterQueue")
    resource = queue["spec"]["resourceGroups"][0]["flavors"][0]["resources"][0]
    for good in (16, "16", "1Gi"):  # nominalQuota: x-kubernetes-int-or-string
        resource["nominalQuota"] = good
        assert validate_custom_resource(queue) == [], good
    resource["nominalQuota"] = [16]
    assert any("nominalQuota" in p for p in validate_custom_resource(queue))


def test_embedded_resources_and_preserved_fields() -> None:
    # No pinned CRD uses x-kubernetes-embedded-resource today; check the translation
    # on a minimal schema so a future CRD that does is handled.
    schema = to_json_schema({
        "type": "object",
        "properties": {
            "template": {"type": "object", "x-kubernetes-embedded-resource": True,
                         "properties": {"spec": {"type": "object",
                                                 "x-kubernetes-preserve-unknown-fields": True}}},
            "strict": {"type": "object", "properties": {"a": {"type": "string"}}},
        },
    }, root=True)
    check = jsonschema.Draft7Validator(schema).is_valid
    embedded = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "x"},
                "spec": {"anything": 1}}
    assert check({"template": embedded, "strict": {"a": "b"}})
    assert not check({"template": {"spec": {}}})  # apiVersion/kind required
    assert not check({"strict": {"a": "b", "typo": 1}})  # pruned by the API server


def test_evaluate_rule_reports_errors_instead_of_passing() -> None:
    assert evaluate_rule("self.a > 1", {"a": 2}) is True
    assert evaluate_rule("self.a > 1", {"a": 0}) is False
    assert isinstance(evaluate_rule("self.missing > 1", {"a": 0}), str)
    assert isinstance(evaluate_rule("self.a", {"a": 1}), str)  # not a bool


def _refresh_script():  # type: ignore[no-untyped-def]
    return load_script("refresh_upstream")


def test_upstream_copies_are_at_the_pinned_versions() -> None:
    """A version bump in gpu_fabric/versions.py without scripts/refresh_upstream.py fails."""
    script = _refresh_script()
    pins = script.pinned_versions()
    sources = json.loads((UPSTREAM / "sources.json").read_text())
    assert [s["file"] for s in sources if script.is_stale(s, pins)] == []
    bumped = {**pins, "KUEUE": "0.15.0"}
    stale = [s["file"] for s in sources if script.is_stale(s, bumped)]
    assert "crds/kueue.x-k8s.io/kueue.x-k8s.io_topologies.yaml" in stale
    entry = next(s for s in sources if s["file"].startswith("values/kueue/"))
    assert script.new_ref(entry, bumped) == "v0.15.0"


# -- CRDs the project installs itself ----------------------------------------------------

# Own CRDs known to differ from upstream's schema (none: the MPIJob CRD is now
# kubeflow/mpi-operator v0.6.0's, shipped in components/gpu_fabric/nccl/crds/).
OWN_CRD_DEFECTS: dict[str, str] = {}


def _without_descriptions(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _without_descriptions(v) for k, v in value.items() if k != "description"}
    if isinstance(value, list):
        return [_without_descriptions(v) for v in value]
    return value


@cache
def _own_crds() -> dict[str, dict[str, Any]]:
    out: dict[str, dict[str, Any]] = {}
    for variant in usable():
        for res in plan_of(variant).resources:
            if res.type == "kubernetes:apiextensions.k8s.io/v1:CustomResourceDefinition":
                out.setdefault(res.inputs["metadata"]["name"], res.inputs)
    return out


# The CRDs plans install (Multus's NAD CRD; the MPI Operator's with NCCL acceptance).
OWN_CRDS = ("mpijobs.kubeflow.org", "network-attachment-definitions.k8s.cni.cncf.io")


def test_own_crds_are_listed() -> None:
    assert sorted(_own_crds()) == list(OWN_CRDS)


@pytest.mark.parametrize("name", [
    pytest.param(n, marks=pytest.mark.xfail(strict=True, reason=OWN_CRD_DEFECTS[n]))
    if n in OWN_CRD_DEFECTS else n for n in OWN_CRDS
])
def test_a_crd_we_install_is_upstreams_schema(name: str) -> None:
    ours = _own_crds()[name]
    for version in ours["spec"]["versions"]:
        key = (ours["spec"]["group"], version["name"], ours["spec"]["names"]["kind"])
        upstream = crd_index()[key].schema
        assert _without_descriptions(version["schema"]["openAPIV3Schema"]) == \
            _without_descriptions(upstream), key
