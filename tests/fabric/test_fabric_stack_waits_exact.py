"""What each object of a part waits for (fabric/stack.py ``_MadeBy``, issue 36), written
out on small parts with stand-in resources.

The rule (stack.py's docstring of ``_MadeBy``): a namespaced object waits for the earlier
parts' cluster-wide resources and for what lives in its own namespace, never another
namespace's; anything else (a Helm release, a cluster-scoped object, a Namespace)
waits for everything except what lives in a namespace the earlier part itself creates.
Stand-ins are plain strings: ``_MadeBy`` only files and returns what it is given.
"""

from __future__ import annotations

from typing import Any

from gpu_fabric.fabric.model import Part
from gpu_fabric.fabric.stack import _MadeBy, _namespace_of


def _obj(kind: str, name: str, namespace: str | None = None) -> dict[str, Any]:
    meta: dict[str, Any] = {"name": name}
    if namespace:
        meta["namespace"] = namespace
    return {"apiVersion": "v1", "kind": kind, "metadata": meta}


NS_A = _obj("Namespace", "team-a")
QUOTA_A = _obj("ResourceQuota", "quota", "team-a")
CRD = _obj("CustomResourceDefinition", "x.example.com")
CM_SYS = _obj("ConfigMap", "cfg", "kube-system")


def _made() -> _MadeBy:
    made = _MadeBy()
    # Part "teams" creates team-a (its Namespace and quota), a CRD and an object in
    # kube-system (a namespace it does not create).
    teams = Part("teams", (NS_A, QUOTA_A, CRD, CM_SYS))
    made.add(teams, [("ns-a", NS_A), ("quota-a", QUOTA_A), ("crd", CRD), ("cm-sys", CM_SYS)])
    # Part "chart": one Helm release (no manifest).
    made.add(Part("chart"), [("release", None)])
    return made


def test_namespace_of() -> None:
    assert _namespace_of(None) is None
    assert _namespace_of(NS_A) == "team-a"
    assert _namespace_of(QUOTA_A) == "team-a"
    assert _namespace_of(CRD) is None
    assert _namespace_of({"kind": "ConfigMap", "metadata": {"name": "x", "namespace": ""}}
                         ) is None
    assert _namespace_of({"kind": "ConfigMap"}) is None


def test_a_namespaced_object_waits_for_cluster_wide_and_its_own_namespace() -> None:
    made = _made()
    # In team-a: the CRD (cluster-wide) and team-a's Namespace and quota, in that order
    # (cluster-wide first); not kube-system's ConfigMap.
    assert made.waits(("teams",), _obj("Role", "r", "team-a")) == ["crd", "ns-a", "quota-a"]
    # In kube-system: the CRD and kube-system's ConfigMap; not team-a's objects.
    assert made.waits(("teams",), _obj("Role", "r", "kube-system")) == ["crd", "cm-sys"]
    # In a namespace nobody made: the cluster-wide ones only.
    assert made.waits(("teams",), _obj("Role", "r", "other")) == ["crd"]
    # Across parts, in the order asked.
    assert made.waits(("chart", "teams"), _obj("Role", "r", "team-a")) == [
        "release", "crd", "ns-a", "quota-a"]


def test_a_release_or_cluster_scoped_object_skips_the_parts_own_namespaces() -> None:
    made = _made()
    everything_but_team_a = ["crd", "cm-sys"]
    assert made.waits(("teams",), None) == everything_but_team_a
    assert made.waits(("teams",), _obj("ClusterRole", "c")) == everything_but_team_a
    # A Namespace is treated as cluster-scoped here, even one of the same name.
    assert made.waits(("teams",), _obj("Namespace", "team-a")) == everything_but_team_a
    assert made.waits(("teams", "chart"), None) == ["crd", "cm-sys", "release"]
    assert made.waits((), None) == []


def test_parts_are_filed_apart() -> None:
    made = _made()
    assert made.waits(("chart",), _obj("Role", "r", "team-a")) == ["release"]
    assert made.waits(("chart",), None) == ["release"]
    # A second part may create the same namespace name: each keeps its own.
    other = Part("other", (NS_A,))
    made.add(other, [("ns-a-2", NS_A)])
    assert made.waits(("other",), _obj("Role", "r", "team-a")) == ["ns-a-2"]
    assert made.waits(("other",), None) == []
