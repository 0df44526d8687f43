"""Work never lands on a node NVSentinel cordoned or the check tainted: neither the fabric
injection (Kyverno) nor Kueue's ResourceFlavors tolerate more than the pool's own taints.

``kubectl cordon`` (and NVSentinel's fault quarantine, which cordons: fault-quarantine
values.yaml ruleSets ``cordon.shouldCordon``) sets ``spec.unschedulable``; the node
lifecycle controller then taints the node ``node.kubernetes.io/unschedulable:NoSchedule``
(https://kubernetes.io/docs/reference/labels-annotations-taints/
#node-kubernetes-io-unschedulable), which the scheduler's NodeUnschedulable filter and
Kueue's topology-aware scheduling honour unless a pod tolerates it. A toleration without
a key and ``operator: Exists`` tolerates every taint (core/v1 Toleration docs), so none
may appear either.
"""

from __future__ import annotations

import json
import re
from functools import cache
from typing import Any

import pytest

from gpu_fabric.fabric.description import describe_cluster
from gpu_fabric.fabric.layer import Layer, build_layer
from gpu_fabric.spec import load_spec
from tests.specs import CLOUDS, spec_dict

TEAMS = [{"name": "vision", "group": "vision-eng", "gpus": 16}]
# The GPU taint each cloud's pools carry (clouds/<cloud>/provider.py gpu_taint).
POOL_TAINTS = {"gcp": {"nvidia.com/gpu"}, "aws": {"nvidia.com/gpu"}, "azure": {"sku"},
               "digitalocean": {"nvidia.com/gpu"}, "oci": {"nvidia.com/gpu"}}
_EMBEDDED = re.compile(r"`(\[.*?\])`")


@cache
def layer(cloud: str) -> Layer:
    spec = load_spec(spec_dict(cloud, tenancy={"teams": TEAMS}, health={"enabled": True}))
    return build_layer(spec, describe_cluster(spec))


def tolerations(obj: Any) -> list[dict[str, Any]]:
    """Every toleration in a manifest, including those a Kyverno patch appends through a
    JMESPath expression (``[request.object.spec.tolerations || `[]`, `[...]`][]``)."""
    out: list[dict[str, Any]] = []
    if isinstance(obj, dict):
        for key, value in obj.items():
            if key == "tolerations" and isinstance(value, list):
                out += value
            elif key == "tolerations" and isinstance(value, str):
                for found in _EMBEDDED.findall(value):
                    out += [t for t in json.loads(found) if isinstance(t, dict)]
            else:
                out += tolerations(value)
    elif isinstance(obj, list):
        for value in obj:
            out += tolerations(value)
    return out


def placing(cloud: str, kind: str) -> list[dict[str, Any]]:
    return [m for m in layer(cloud).manifests() if m["kind"] == kind]


@pytest.mark.parametrize("cloud", CLOUDS)
def test_injection_and_kueue_tolerate_only_the_pools_taints(cloud: str) -> None:
    policies = [p for p in placing(cloud, "ClusterPolicy") if "inject" in p["metadata"]["name"]]
    flavors = placing(cloud, "ResourceFlavor")
    assert policies and flavors
    for obj in policies + flavors:
        found = tolerations(obj)
        assert found, obj["metadata"]["name"]
        assert {t.get("key") for t in found} == POOL_TAINTS[cloud], obj["metadata"]["name"]


def test_the_checker_sees_a_blanket_toleration() -> None:
    # The check bites: a policy appending a key-less Exists toleration is caught.
    policy = {"spec": {"rules": [{"mutate": {"patchStrategicMerge": {"spec": {
        "tolerations": '{{ [request.object.spec.tolerations || `[]`, '
                       '`[{"operator":"Exists"}]`][] }}'}}}}]}}
    assert [t.get("key") for t in tolerations(policy)] == [None]
