"""``diff`` shows the rendered objects a Helm release change touches (issue 32).

The plans are the committed golden plan of gcp-a4 and a copy with one release
changed, so the expected objects are those of Kyverno 3.6.1's templates
(charts/kyverno-3.6.1.tgz: `admissionController.replicas` sets the
`kyverno-admission-controller` Deployment's replicas, and with more than one
replica `templates/admission-controller/poddisruptionbudget.yaml` adds a PDB).
"""

from __future__ import annotations

import copy
import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from gpu_fabric.cli import main
from gpu_fabric.plan import chart_diff
from tests.support import helm

GOLDEN = helm.GOLDEN / "gcp-a4" / "plan.json"
KYVERNO = "dranet-fabric-kyverno-kyverno"


def _plans(change: Any) -> tuple[dict[str, Any], dict[str, Any]]:
    base = json.loads(GOLDEN.read_text())
    head = copy.deepcopy(base)
    (release,) = [r for r in head["resources"] if r["name"] == KYVERNO]
    change(release["inputs"])
    return base, head


def _more_replicas(inputs: dict[str, Any]) -> None:
    inputs["values"]["admissionController"]["replicas"] = 3


def test_a_values_change_names_the_objects_it_changes() -> None:
    base, head = _plans(_more_replicas)
    here = chart_diff.tree_reader(helm.ROOT)
    (entry,) = chart_diff.release_changes(base, head, here, here, helm.helm())
    assert (entry["release"], entry["chart"], entry["base_version"], entry["head_version"]) == (
        "kyverno", "kyverno", "3.6.1", "3.6.1")
    assert entry["objects"] == [
        # replicas is outside the pod template: no pod is replaced.
        {"apiVersion": "apps/v1", "kind": "Deployment", "namespace": "kyverno",
         "name": "kyverno-admission-controller", "change": "changed",
         "pods_replaced": False},
        {"apiVersion": "policy/v1", "kind": "PodDisruptionBudget", "namespace": "kyverno",
         "name": "kyverno-admission-controller", "change": "added"},
    ]


DRANET = "dranet-fabric-dranet-dranet"


def test_a_daemonset_whose_pod_template_changes_replaces_its_pods_on_every_node(
        capsys: pytest.CaptureFixture[str]) -> None:
    # dranet v1.4.0's templates/daemonset.yaml puts `podAnnotations` (values.yaml) into
    # the DaemonSet's spec.template.metadata.annotations: every node's dranet pod is
    # replaced, the GPU nodes' included.
    base = json.loads(GOLDEN.read_text())
    head = copy.deepcopy(base)
    (release,) = [r for r in head["resources"] if r["name"] == DRANET]
    release["inputs"]["values"]["podAnnotations"] = {"example.com/rev": "2"}
    here = chart_diff.tree_reader(helm.ROOT)
    (entry,) = chart_diff.release_changes(base, head, here, here, helm.helm())
    assert entry["objects"] == [
        {"apiVersion": "apps/v1", "kind": "DaemonSet", "namespace": "kube-system",
         "name": "dranet", "change": "changed", "pods_replaced": True},
    ]
    assert chart_diff.to_markdown([entry]).splitlines()[-1] == (
        "  - changed: DaemonSet kube-system/dranet (pod template changed: its pod on "
        "every node it runs on is replaced)")


def test_a_version_without_an_archive_is_reported_not_rendered() -> None:
    def bump(inputs: dict[str, Any]) -> None:
        inputs["version"] = "3.7.0"

    base, head = _plans(bump)
    here = chart_diff.tree_reader(helm.ROOT)
    (entry,) = chart_diff.release_changes(base, head, here, here, helm.helm())
    assert entry["not_rendered"] == "kyverno-3.7.0.tgz is not vendored in charts/"
    assert "objects" not in entry


def test_unchanged_releases_are_not_listed() -> None:
    base = json.loads(GOLDEN.read_text())
    here = chart_diff.tree_reader(helm.ROOT)
    assert chart_diff.release_changes(base, base, here, here, helm.helm()) == []


def test_the_cli_adds_the_objects_to_json_and_markdown(tmp_path: Path,
                                                        capsys: pytest.CaptureFixture[str]
                                                        ) -> None:
    base, head = _plans(_more_replicas)
    (tmp_path / "base.json").write_text(json.dumps(base))
    (tmp_path / "head.json").write_text(json.dumps(head))
    files = ["diff", "--base", str(tmp_path / "base.json"), "--head", str(tmp_path / "head.json"),
             "--quiet"]
    assert main([*files, "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert [(o["kind"], o["change"]) for o in data["charts"][0]["objects"]] == [
        ("Deployment", "changed"), ("PodDisruptionBudget", "added")]
    assert {"base", "head", "changes", "charts"} <= set(data)  # the existing keys stay
    assert main(files) == 0
    out = capsys.readouterr().out
    assert "### Helm releases: rendered objects that change" in out
    assert ("- changed: Deployment kyverno/kyverno-admission-controller "
            "(pod template unchanged: no pod restarts)") in out
    assert "- added: PodDisruptionBudget kyverno/kyverno-admission-controller" in out


def test_archives_are_read_from_the_git_ref(tmp_path: Path) -> None:
    git = ["git", "-C", str(tmp_path), "-c", "user.email=t@t", "-c", "user.name=t"]
    subprocess.run([*git, "init", "-q"], check=True)
    (tmp_path / "charts").mkdir()
    (tmp_path / "charts" / "x-1.0.0.tgz").write_bytes(b"archive at the first commit")
    subprocess.run([*git, "add", "-A"], check=True)
    subprocess.run([*git, "commit", "-qm", "one"], check=True)
    (tmp_path / "charts" / "x-1.0.0.tgz").write_bytes(b"changed in the tree")
    read = chart_diff.git_reader(tmp_path, "HEAD")
    assert read("x-1.0.0.tgz") == b"archive at the first commit"
    assert read("y-2.0.0.tgz") is None
    assert chart_diff.tree_reader(tmp_path)("x-1.0.0.tgz") == b"changed in the tree"
