"""``chart_diff`` on a tiny chart, rendered by the real ``helm``: every entry written out.

tests/helm/test_chart_diff.py renders the vendored Kyverno chart (seconds a render);
here a two-template chart (tests/support/tiny_chart.py) is written in the test's folder,
so each case renders in a fraction of a second and every branch of ``release_changes`` /
``to_markdown`` is compared whole. The chart layout and ``helm template``'s behaviour are Helm's
(https://helm.sh/docs/topics/charts/: ``Chart.yaml`` with ``apiVersion: v2``, ``name``,
``version``; a chart archive holds one top folder named after the chart;
``{{ if }}`` leaves a template empty, and an empty document is no object; ``crds/`` is
rendered unless the release skips CRDs).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from gpu_fabric.plan import chart_diff, helm_render
from tests.support import helm, tiny_chart

URN = "urn:pulumi:s::p::kubernetes:helm.sh/v3:Release::tiny"


@pytest.fixture
def charts(tmp_path: Path) -> chart_diff.ArchiveReader:
    (tmp_path / "charts").mkdir()
    for version in ("1.0.0", "1.1.0"):
        (tmp_path / "charts" / f"tiny-{version}.tgz").write_bytes(tiny_chart.archive(version))
    return chart_diff.tree_reader(tmp_path)


def _plan(*releases: dict[str, Any]) -> dict[str, Any]:
    resources = [{"urn": URN, "type": helm_render.RELEASE_TYPE, "inputs": inputs}
                 for inputs in releases]
    other = {"urn": "urn:pulumi:s::p::kubernetes:core/v1:Namespace::ns",
             "type": "kubernetes:core/v1:Namespace", "inputs": {"metadata": {"name": "x"}}}
    return {"resources": [other, *resources]}


def _release(version: str = "1.0.0", **values: Any) -> dict[str, Any]:
    return {"name": "tiny", "chart": "oci://example.org/charts/tiny", "version": version,
            "namespace": "team", "values": values}


def _obj(kind: str, name: str, change: str) -> dict[str, str]:
    return {"apiVersion": "v1", "kind": kind, "namespace": "team", "name": name,
            "change": change}


def test_a_values_change_lists_the_changed_and_added_objects(charts) -> None:
    base = _plan(_release(level="info"))
    head = _plan(_release(level="debug", token="t"))
    assert chart_diff.release_changes(base, head, charts, charts, helm.helm()) == [{
        "urn": URN, "release": "tiny", "chart": "tiny",
        "base_version": "1.0.0", "head_version": "1.0.0",
        "objects": [_obj("ConfigMap", "tiny-settings", "changed"),
                    _obj("Secret", "tiny-token", "added")],
    }]


CRD_ADDED = {"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
             "namespace": "", "name": "widgets.example.org", "change": "added"}


def test_a_new_release_adds_every_object_and_a_removed_one_removes_them(charts) -> None:
    added = chart_diff.release_changes(_plan(), _plan(_release(token="t")), charts, charts,
                                       helm.helm())
    assert added == [{
        "urn": URN, "release": "tiny", "chart": "tiny",
        "base_version": None, "head_version": "1.0.0",
        "objects": [_obj("ConfigMap", "tiny-settings", "added"), CRD_ADDED,
                    _obj("Secret", "tiny-token", "added")],
    }]
    removed = chart_diff.release_changes(_plan(_release("1.1.0")), _plan(), charts, charts,
                                         helm.helm())
    assert removed == [{
        "urn": URN, "release": "tiny", "chart": "tiny",
        "base_version": "1.1.0", "head_version": None,
        "objects": [_obj("ConfigMap", "tiny-settings", "removed"),
                    {**CRD_ADDED, "change": "removed"}],
    }]


def test_a_version_bump_with_the_same_objects_lists_none(charts) -> None:
    # 1.0.0 and 1.1.0 render the same objects (the templates name no chart version).
    got = chart_diff.release_changes(_plan(_release("1.0.0")), _plan(_release("1.1.0")),
                                     charts, charts, helm.helm())
    assert got == [{"urn": URN, "release": "tiny", "chart": "tiny", "base_version": "1.0.0",
                    "head_version": "1.1.0", "objects": []}]


def test_each_side_read_from_its_own_reader(charts) -> None:
    def nothing(name: str) -> bytes | None:
        return None

    base, head = _plan(_release("1.0.0")), _plan(_release("1.1.0", token="t"))
    from_base = chart_diff.release_changes(base, head, charts, nothing, helm.helm())
    assert from_base[0]["not_rendered"] == "tiny-1.1.0.tgz is not vendored in charts/"
    assert "objects" not in from_base[0]
    from_head = chart_diff.release_changes(base, head, nothing, charts, helm.helm())
    assert from_head[0]["not_rendered"] == "tiny-1.0.0.tgz is not vendored in charts/"
    both = chart_diff.release_changes(base, head, nothing, nothing, helm.helm())
    assert both[0]["not_rendered"] == (
        "tiny-1.0.0.tgz is not vendored in charts/; tiny-1.1.0.tgz is not vendored in charts/")


def test_a_helm_that_cannot_run_is_reported_per_release(charts, tmp_path: Path) -> None:
    missing = str(tmp_path / "no-helm")
    got = chart_diff.release_changes(_plan(_release(level="a")), _plan(_release(level="b")),
                                     charts, charts, missing)
    error = f"[Errno 2] No such file or directory: '{missing}'"
    assert got == [{"urn": URN, "release": "tiny", "chart": "tiny", "base_version": "1.0.0",
                    "head_version": "1.0.0", "not_rendered": f"{error}; {error}"}]


def test_a_chart_helm_refuses_is_reported_with_helms_words(tmp_path: Path) -> None:
    def broken(name: str) -> bytes | None:
        return b"not a gzip archive"

    got = chart_diff.release_changes(_plan(), _plan(_release()), broken, broken, helm.helm())
    assert got[0]["not_rendered"].startswith("helm template tiny-1.0.0.tgz: Error: ")


def test_without_helm_every_changed_release_says_so(charts, monkeypatch) -> None:
    monkeypatch.setattr(helm_render, "find_helm", lambda: None)
    got = chart_diff.release_changes(_plan(_release(level="a")), _plan(_release(level="b")),
                                     charts, charts)
    assert got == [{"urn": URN, "release": "tiny", "chart": "tiny", "base_version": "1.0.0",
                    "head_version": "1.0.0",
                    "not_rendered": "no helm binary (make install puts one in .venv/bin)"}]


def test_the_default_helm_is_the_one_found(charts) -> None:
    assert helm_render.find_helm() is not None  # make install's helm (tests/support/helm.py)
    got = chart_diff.release_changes(_plan(_release(level="a")), _plan(_release(level="b")),
                                     charts, charts)
    assert got[0]["objects"] == [_obj("ConfigMap", "tiny-settings", "changed")]


def test_markdown_lists_each_release_and_its_objects() -> None:
    changes = [
        {"release": "kyverno", "chart": "kyverno", "base_version": "3.6.1",
         "head_version": "3.6.1",
         "objects": [_obj("ConfigMap", "a", "changed"),
                     {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole",
                      "namespace": "", "name": "b", "change": "added"}]},
        {"release": "old", "chart": "tiny", "base_version": "1.0.0", "head_version": None,
         "not_rendered": "tiny-1.0.0.tgz is not vendored in charts/"},
        {"release": "new", "chart": "tiny", "base_version": None, "head_version": "1.0.0",
         "objects": []},
    ]
    assert chart_diff.to_markdown(changes) == (
        "\n### Helm releases: rendered objects that change\n\n"
        "- `kyverno` (kyverno 3.6.1 -> 3.6.1)\n"
        "  - changed: ConfigMap team/a\n"
        "  - added: ClusterRole b\n"
        "- `old` (tiny 1.0.0 -> (removed))\n"
        "  - not rendered: tiny-1.0.0.tgz is not vendored in charts/\n"
        "- `new` (tiny (new) -> 1.0.0)\n"
        "  - no rendered object changes")
    assert chart_diff.to_markdown([]) == ""


def test_markdown_cuts_a_long_list_after_max_objects() -> None:
    objects = [_obj("ConfigMap", f"cm-{i:02}", "added") for i in range(32)]
    entry = {"release": "r", "chart": "c", "base_version": "1", "head_version": "2",
             "objects": objects}
    lines = chart_diff.to_markdown([entry]).splitlines()
    assert lines[4:] == [f"  - added: ConfigMap team/cm-{i:02}" for i in range(30)] + [
        "  - ... and 2 more"]
    short = chart_diff.to_markdown([entry], max_objects=31).splitlines()
    assert short[-2:] == ["  - added: ConfigMap team/cm-30", "  - ... and 1 more"]
    exact = chart_diff.to_markdown([{**entry, "objects": objects[:30]}]).splitlines()
    assert exact[-1] == "  - added: ConfigMap team/cm-29"


def test_an_object_key_without_fields_is_empty_strings() -> None:
    # A rendered document may lack apiVersion or metadata (helm prints what the template
    # gives); the key then holds "" rather than "None".
    assert helm_render.object_key({"kind": "ConfigMap"}) == ("", "ConfigMap", "", "")
    assert helm_render.object_key({"apiVersion": "v1", "metadata": {"name": "a"}}) == (
        "v1", "", "", "a")


def test_plans_without_resources_and_a_missing_archive(tmp_path: Path) -> None:
    here = chart_diff.tree_reader(tmp_path)
    assert chart_diff.release_changes({}, {}, here, here, helm.helm()) == []
    assert here("tiny-1.0.0.tgz") is None  # no charts/ folder


def test_every_changed_release_is_listed_past_unchanged_and_unrendered_ones(
        charts, monkeypatch) -> None:
    def plan(first: dict[str, Any], second: dict[str, Any]) -> dict[str, Any]:
        return {"resources": [
            {"urn": f"{URN}-a", "type": helm_render.RELEASE_TYPE, "inputs": first},
            {"urn": f"{URN}-b", "type": helm_render.RELEASE_TYPE, "inputs": second}]}

    got = chart_diff.release_changes(plan(_release(), _release(level="a")),
                                     plan(_release(), _release(level="b")),
                                     charts, charts, helm.helm())
    assert [(e["urn"], e["objects"]) for e in got] == [
        (f"{URN}-b", [_obj("ConfigMap", "tiny-settings", "changed")])]
    monkeypatch.setattr(helm_render, "find_helm", lambda: None)
    both = chart_diff.release_changes(plan(_release(level="a"), _release(level="a")),
                                      plan(_release(level="b"), _release(level="b")),
                                      charts, charts)
    assert [e["urn"] for e in both] == [f"{URN}-a", f"{URN}-b"]


def test_markdown_says_what_a_changed_workload_does_to_its_pods() -> None:
    # A Deployment's rollout is triggered only by a change of .spec.template
    # (https://kubernetes.io/docs/concepts/workloads/controllers/deployment/
    # #updating-a-deployment); a DaemonSet runs one pod per node.
    def changed(kind: str, name: str, **extra: Any) -> dict[str, Any]:
        return {**_obj(kind, name, "changed"), **extra}

    entry = {"release": "r", "chart": "c", "base_version": "1", "head_version": "1",
             "objects": [changed("ConfigMap", "cm"),
                         changed("DaemonSet", "agent", pods_replaced=True),
                         changed("Deployment", "api", pods_replaced=True),
                         changed("Deployment", "scaled", pods_replaced=False)]}
    assert chart_diff.to_markdown([entry]).splitlines()[4:] == [
        "  - changed: ConfigMap team/cm",
        "  - changed: DaemonSet team/agent (pod template changed: its pod on every node it "
        "runs on is replaced)",
        "  - changed: Deployment team/api (pod template changed: its pods are replaced)",
        "  - changed: Deployment team/scaled (pod template unchanged: no pod restarts)",
    ]
