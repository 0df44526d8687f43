"""``helm_render.template`` / ``chart_ref`` / ``object_key`` / ``object_changes``, written out.

Two kinds of check:

* the command line and environment ``template`` gives ``helm``, read back from a stand-in
  ``helm`` script that prints them as one YAML document (as
  tests/helm/test_helm_render_functions.py does for helm's error path);
* the real ``helm`` (``make install``'s v3.19.0) on the tiny chart of
  tests/support/tiny_chart.py: the release name defaults to the chart's, the namespace to
  ``default`` (``helm template --namespace``), ``crds/`` is printed only with
  ``--include-crds``, and ``--kube-version`` sets ``.Capabilities.KubeVersion``
  (https://helm.sh/docs/helm/helm_template/; https://helm.sh/docs/chart_template_guide/
  builtin_objects/).
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import pytest

from gpu_fabric.plan import chart_diff, helm_render
from tests.support import helm, tiny_chart

ECHO = """#!/bin/sh
cat <<DOC
kind: Call
args: "$*"
cache: "$HELM_CACHE_HOME"
config: "$HELM_CONFIG_HOME"
data: "$HELM_DATA_HOME"
home: "$HOME"
values: '$(cat "$7")'
DOC
"""


@pytest.fixture
def echo_helm(tmp_path: Path) -> str:
    script = tmp_path / "helm"
    script.write_text(ECHO)
    script.chmod(0o755)
    return str(script)


def _folder(path: str, leaf: str) -> str:
    """The temporary folder ``path`` lives in, checked to be template's own."""
    parent = Path(path).parent
    assert parent.parent == Path(tempfile.gettempdir()), path
    assert parent.name.startswith("gpu-fabric-helm-"), path
    assert Path(path).name == leaf, path
    return str(parent)


def test_the_command_line_and_the_isolated_helm_folders(echo_helm: str) -> None:
    inputs = {"chart": "oci://example.org/charts/tiny", "version": "1.0.0",
              "values": {"level": "debug"}}
    (call,) = helm_render.template(echo_helm, Path("/charts/tiny-1.0.0.tgz"), inputs, "1.31.0")
    tmp = _folder(call["cache"], "cache")
    assert call["args"] == (
        f"template tiny /charts/tiny-1.0.0.tgz --namespace default --values {tmp}/values.json "
        "--include-crds --kube-version 1.31.0")
    assert (call["config"], call["data"]) == (f"{tmp}/config", f"{tmp}/data")
    assert call["home"] == os.environ["HOME"]  # the rest of the environment is kept
    assert call["values"] == '{"level": "debug"}'
    assert not Path(tmp).exists()  # removed after the run


def test_a_named_release_in_a_namespace_without_crds(echo_helm: str) -> None:
    inputs = {"name": "r", "chart": "tiny", "namespace": "team", "skipCrds": True}
    (call,) = helm_render.template(echo_helm, Path("/charts/tiny-1.0.0.tgz"), inputs)
    tmp = _folder(call["cache"], "cache")
    assert call["args"] == (
        f"template r /charts/tiny-1.0.0.tgz --namespace team --values {tmp}/values.json")
    assert call["values"] == "{}"


def test_chart_diff_renders_from_its_own_temporary_copy(echo_helm: str) -> None:
    def read(name: str) -> bytes | None:
        return b"archive bytes"

    (call,) = chart_diff._render(echo_helm, read, {"chart": "tiny", "version": "1.0.0"})
    archive = Path(call["args"].split()[2])
    assert archive.name == "tiny-1.0.0.tgz"
    assert archive.parent.parent == Path(tempfile.gettempdir())
    assert archive.parent.name.startswith("gpu-fabric-chart-")
    assert not archive.exists()  # removed after the run


def test_a_helm_that_hangs_is_stopped(tmp_path: Path, monkeypatch) -> None:
    script = tmp_path / "helm"
    script.write_text("#!/bin/sh\nsleep 5\n")
    script.chmod(0o755)
    monkeypatch.setattr(helm_render, "_TIMEOUT_SECONDS", 0.5)
    with pytest.raises(helm_render.subprocess.TimeoutExpired):
        helm_render.template(str(script), tmp_path / "x-1.0.0.tgz", {"chart": "x"})


def test_the_real_helm_names_defaults_crds_and_kube_version(tmp_path: Path) -> None:
    archive = tmp_path / "tiny-1.0.0.tgz"
    archive.write_bytes(tiny_chart.archive())
    objects = helm_render.template(helm.helm(), archive, {"chart": "tiny"}, "1.31.0")
    assert [(o["kind"], o["metadata"]["name"], o["metadata"].get("namespace"))
            for o in objects] == [
        ("CustomResourceDefinition", "widgets.example.org", None),
        ("ConfigMap", "tiny-settings", "default")]
    assert objects[1]["data"] == {"level": "info", "kube": "v1.31.0"}
    skipped = helm_render.template(helm.helm(), archive,
                                   {"chart": "tiny", "skipCrds": True, "name": "r"})
    assert [o["metadata"]["name"] for o in skipped] == ["r-settings"]


def test_chart_ref_edges() -> None:
    # A chart name has lower-case letters, digits and dashes
    # (https://helm.sh/docs/chart_best_practices/conventions/#chart-names).
    assert helm_render.chart_ref({"chart": "oci://example.org/charts/tiny/",
                                  "version": "1.0.0"}) == helm_render.ChartRef("tiny", "1.0.0")
    assert helm_render.chart_ref({"chart": "tiny"}) == helm_render.ChartRef("tiny", "")
    assert helm_render.chart_ref({}) == helm_render.ChartRef("", "")


def test_object_key_of_an_empty_document() -> None:
    assert helm_render.object_key({}) == ("", "", "", "")
    assert helm_render.object_key({"metadata": {"namespace": "n"}}) == ("", "", "n", "")


def test_object_changes_sort_by_kind_namespace_name_then_api_version() -> None:
    def obj(api: str, kind: str, ns: str, name: str, v: int = 1) -> dict[str, object]:
        return {"apiVersion": api, "kind": kind, "metadata": {"namespace": ns, "name": name},
                "v": v}

    same = obj("a/v1", "Aaa", "a", "a")
    base = [same, obj("z/v1", "Role", "b", "b"), obj("a/v1", "Role", "b", "b"),
            obj("a/v1", "Role", "a", "z"), obj("a/v1", "Role", "z", "a")]
    head = [same, obj("z/v1", "Role", "b", "b", 2), obj("a/v1", "Role", "b", "b", 2),
            obj("a/v1", "Role", "a", "z", 2), obj("a/v1", "Role", "z", "a", 2)]
    got = helm_render.object_changes(base, head)
    assert [(c["namespace"], c["name"], c["apiVersion"]) for c in got] == [
        ("a", "z", "a/v1"), ("b", "b", "a/v1"), ("b", "b", "z/v1"), ("z", "a", "a/v1")]


def test_find_helm_beside_python_then_on_path(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.delenv(helm_render.HELM_ENV, raising=False)
    prefix, on_path = tmp_path / "venv", tmp_path / "path"
    (prefix / "bin").mkdir(parents=True)
    on_path.mkdir()
    monkeypatch.setattr(helm_render.sys, "prefix", str(prefix))
    monkeypatch.setenv("PATH", str(on_path))
    assert helm_render.find_helm() is None
    (prefix / "bin" / "helm").write_text("#!/bin/sh\n")  # not executable: not used
    assert helm_render.find_helm() is None
    (on_path / "helm").write_text("#!/bin/sh\n")
    (on_path / "helm").chmod(0o755)
    assert helm_render.find_helm() == str(on_path / "helm")
    (prefix / "bin" / "helm").chmod(0o755)
    assert helm_render.find_helm() == str(prefix / "bin" / "helm")
