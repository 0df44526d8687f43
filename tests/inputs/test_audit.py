"""Audit: what a plan sends to a cloud or to Kubernetes is what they accept (issue 34).

Two halves:

* every committed stack's plan (the golden plans in tests/data/golden/, which
  tests/plan/test_golden.py keeps equal to a fresh plan): every resource's cloud
  tags/labels (per the cloud's ``tag_rules``, counted per resource with what this
  project adds), Kubernetes node labels and taints (apimachinery's rules, unique
  by key and effect), object names, namespaces and labels, and the OCI user data's
  kubelet argument (one shell word);
* hypothesis-generated variants of each cloud's spec (tags, pool labels and taints
  drawn from an alphabet that mixes valid and hostile characters): a variant is
  either refused by ``load_spec`` or everything it derives for the nodes and every
  tag it sends is accepted by the same rules. Bounded: a few dozen examples, no
  planning (the derivations are the planned values; the golden half covers the plan).

The rules are ``gpu_fabric.spec.values``, tested on upstream's own cases in
tests/inputs/test_values.py.
"""

from __future__ import annotations

import base64
import json
import re
import shlex
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gpu_fabric.catalog import Cloud
from gpu_fabric.clouds.registry import provider_for
from gpu_fabric.errors import SpecError
from gpu_fabric.spec import load_spec, values
from tests.specs import CLOUDS, spec_dict

GOLDEN = Path(__file__).resolve().parents[1] / "data" / "golden"
PLANS = sorted(GOLDEN.glob("*/plan.json"))

# Where each cloud's resources carry their cloud tags/labels (plan --json inputs).
TAG_FIELDS = {"aws": ("tags",), "azure-native": ("tags",), "oci": ("freeformTags",),
              "gcp": ("resourceLabels", "labels")}
CLOUD_OF = {"aws": Cloud.AWS, "azure-native": Cloud.AZURE, "oci": Cloud.OCI, "gcp": Cloud.GCP,
            "digitalocean": Cloud.DIGITALOCEAN}
# GKE's effect spelling (google_container_node_pool taint.effect) and AWS's
# (aws_eks_node_group taint.effect): the same three Kubernetes effects.
EFFECTS = {"NO_SCHEDULE": "NoSchedule", "PREFER_NO_SCHEDULE": "PreferNoSchedule",
           "NO_EXECUTE": "NoExecute", **{e: e for e in values.TAINT_EFFECTS}}
# Kubernetes kinds whose names are DNS-1123 labels (namespaces, services); every other
# object name is a DNS-1123 subdomain (apimachinery NameIsDNSSubdomain / NameIsDNSLabel
# as pkg/apis/core/validation applies them).
LABEL_NAMED = {"Namespace", "Service"}


def _problems_of(resource: dict[str, Any]) -> Iterator[str]:
    kind_prefix = resource["type"].split(":")[0]
    inputs = resource["inputs"]
    where = resource["urn"].rsplit("::", 1)[-1]
    cloud = CLOUD_OF.get(kind_prefix)
    rules = provider_for(cloud).tag_rules() if cloud is not None else None
    if rules is not None:
        for field in TAG_FIELDS.get(kind_prefix, ()):
            tags = inputs.get(field)
            if isinstance(tags, dict) and not (kind_prefix == "gcp" and field == "labels"
                                               and resource["type"].startswith("gcp:container")):
                for key, why in values.tag_problems(tags, rules):
                    yield f"{where}: {field}.{key}: {why}"
        for spec in inputs.get("tagSpecifications") or []:
            for key, why in values.tag_problems(spec.get("tags") or {}, rules):
                yield f"{where}: tagSpecifications.tags.{key}: {why}"
    node_labels = {
        **(inputs.get("nodeLabels") or {}),
        **((inputs.get("nodeConfig") or {}).get("labels") or {}),
        **{item["key"]: item["value"] for item in inputs.get("initialNodeLabels") or []},
    }
    if kind_prefix in ("aws", "digitalocean") and isinstance(inputs.get("labels"), dict):
        node_labels.update(inputs["labels"])
    if isinstance((inputs.get("nodePool") or {}).get("labels"), dict):
        node_labels.update(inputs["nodePool"]["labels"])
    for key, val in node_labels.items():
        why = values.label_key(key) or values.label_value(str(val))
        if why:
            yield f"{where}: node label {key}={val}: {why}"
    yield from (f"{where}: {p}" for p in _taint_problems(_taints(inputs)))
    if kind_prefix == "oci" and "nodeMetadata" in inputs:
        yield from (f"{where}: user_data: {p}"
                    for p in _user_data_problems(inputs["nodeMetadata"].get("user_data", "")))
    if kind_prefix == "kubernetes":
        yield from (f"{where}: {p}" for p in _object_problems(resource["type"], inputs))


def _taints(inputs: dict[str, Any]) -> list[tuple[str, str, str]]:
    raw = [*(inputs.get("taints") or []), *((inputs.get("nodeConfig") or {}).get("taints") or []),
           *((inputs.get("nodePool") or {}).get("taints") or [])]
    found = [(t["key"], t.get("value") or "", EFFECTS.get(t["effect"], t["effect"]))
             for t in raw if isinstance(t, dict)]
    for text in inputs.get("nodeTaints") or []:  # AKS: "key=value:Effect"
        spec, _, effect = text.rpartition(":")
        key, _, value = spec.partition("=")
        found.append((key, value, effect))
    return found


def _taint_problems(taints: list[tuple[str, str, str]]) -> Iterator[str]:
    for key, value, effect in taints:
        why = values.label_key(key) or values.label_value(value)
        if why or effect not in values.TAINT_EFFECTS:
            yield f"taint {key}={value}:{effect}: {why or 'unknown effect'}"
    for key, effect in values.duplicate_taints((k, e) for k, _, e in taints):
        yield f"taint {key}:{effect} twice (must be unique by key and effect)"


_TAINT_ARG = re.compile(r"--register-with-taints=(\S+)")


def _user_data_problems(user_data: str) -> Iterator[str]:
    text = base64.b64decode(user_data).decode()
    config = json.loads(text.split("\n", 1)[1])
    script = next(f["content"] for f in config["write_files"] if f["path"].endswith(".sh"))
    for line in script.splitlines():
        if not line.startswith("oke bootstrap"):
            continue
        words = shlex.split(line)
        if len(words) != 4 or words[2] != "--kubelet-extra-args":
            yield f"the bootstrap line is not one quoted kubelet argument: {line}"
            continue
        match = _TAINT_ARG.fullmatch(words[3])
        taints = []
        for item in (match.group(1).split(",") if match else []):
            spec, _, effect = item.rpartition(":")
            key, _, value = spec.partition("=")
            taints.append((key, value, effect))
        yield from _taint_problems(taints)


def _object_problems(kind: str, inputs: dict[str, Any]) -> Iterator[str]:
    meta = inputs.get("metadata") or {}
    name, namespace = meta.get("name"), meta.get("namespace")
    short = kind.rsplit(":", 1)[-1]
    if isinstance(name, str) and short != "Release":
        why = (values.dns1123_label(name) if short in LABEL_NAMED
               else values.dns1123_subdomain(name))
        if why:
            yield f"{short} name '{name}' {why}"
    if isinstance(namespace, str) and (why := values.dns1123_label(namespace)):
        yield f"namespace '{namespace}' {why}"
    for key, val in (meta.get("labels") or {}).items():
        why = values.label_key(key) or values.label_value(str(val))
        if why:
            yield f"{short} label {key}={val}: {why}"


@pytest.mark.parametrize("plan_file", PLANS, ids=lambda p: p.parent.name)
def test_every_planned_resource_is_acceptable(plan_file: Path) -> None:
    plan = json.loads(plan_file.read_text())
    assert plan["resources"]
    problems = [p for r in plan["resources"] for p in _problems_of(r)]
    assert problems == []


def test_the_audit_finds_what_it_looks_for() -> None:
    """Each check fires on a resource carrying the fault (so an empty answer means clean)."""
    bad_user_data = base64.b64encode(("#cloud-config\n" + json.dumps({"write_files": [
        {"path": "/x.sh", "content": "oke bootstrap --kubelet-extra-args "
         "--register-with-taints=a=b:NoSchedule ; id"}]})).encode()).decode()
    faults = [
        {"type": "aws:ec2/vpc:Vpc", "urn": "u::vpc", "inputs": {"tags": {"aws:x": "1"}}},
        {"type": "gcp:compute/network:Network", "urn": "u::n", "inputs": {"labels": {"A": "b"}}},
        {"type": "azure-native:containerservice:AgentPool", "urn": "u::p",
         "inputs": {"nodeTaints": ["a=b c:NoSchedule", "a=d:NoSchedule"]}},
        {"type": "oci:ContainerEngine/nodePool:NodePool", "urn": "u::o",
         "inputs": {"nodeMetadata": {"user_data": bad_user_data}}},
        {"type": "kubernetes:core/v1:Namespace", "urn": "u::ns",
         "inputs": {"metadata": {"name": "Team_A", "labels": {"-x": "y"}}}},
        {"type": "digitalocean:index/kubernetesNodePool:KubernetesNodePool", "urn": "u::d",
         "inputs": {"labels": {"node-role.kubernetes.io/gpu": "x" * 64}}},
    ]
    found = [p for r in faults for p in _problems_of(r)]
    assert [p.split(":")[0] for p in found] == [
        "vpc", "n", "p", "p", "o", "ns", "ns", "d"], found


# -- hypothesis variants ---------------------------------------------------------------
# Characters a user might type: valid ones, separators, shell metacharacters, Unicode
# letters and digits, whitespace.
ALPHABET = st.sampled_from(list("abcxyzABZ0189-_./:=+@ ;'\"$`|&<>%?\\\u00e9\u0663\uff18\n"))
# Half of the draws are plain names, so that many variants are accepted and audited.
TEXT = st.one_of(st.from_regex(r"[a-z][a-z0-9_-]{0,12}", fullmatch=True),
                 st.text(ALPHABET, min_size=0, max_size=70))


@st.composite
def variants(draw: st.DrawFn) -> dict[str, Any]:
    cloud = draw(st.sampled_from(CLOUDS))
    data = spec_dict(cloud, tags=draw(st.dictionaries(TEXT, TEXT, max_size=4)))
    pool = data["node_pools"][0]
    pool["labels"] = draw(st.dictionaries(TEXT, TEXT, max_size=3))
    pool["taints"] = draw(st.lists(st.fixed_dictionaries({
        "key": TEXT, "value": TEXT,
        "effect": st.sampled_from(values.TAINT_EFFECTS)}), max_size=3))
    return data


@settings(max_examples=60, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow])
@given(variants())
def test_an_accepted_variant_sends_only_acceptable_values(data: dict[str, Any]) -> None:
    try:
        spec = load_spec(data)
    except SpecError:
        return  # refused before any resource: what the cloud would have done
    from gpu_fabric.fabric.description import describe_cluster

    rules = provider_for(spec.cloud).tag_rules()
    if rules is not None:
        assert values.tag_problems(spec.tags, rules) == []
    for fabric in describe_cluster(spec).values():
        for key, val in fabric.node_labels.items():
            assert values.label_key(key) is None and values.label_value(val) is None
        assert list(_taint_problems([(t.key, t.value, t.effect) for t in fabric.taints])) == []
    if spec.cloud is Cloud.OCI:
        from gpu_fabric.clouds.oci.nodepool import taint_user_data

        for fabric in describe_cluster(spec).values():
            user_data = taint_user_data(fabric.taints, spec.kubernetes.version)
            assert list(_user_data_problems(user_data)) == []
