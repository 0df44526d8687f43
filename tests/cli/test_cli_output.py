"""CLI output details from issue 23: closed pipes, program name, render folders, layer.yaml."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from gpu_fabric import versions
from gpu_fabric.cli import main, prog_name
from gpu_fabric.render import RECORD

ROOT = Path(__file__).resolve().parents[2]


def test_closed_pipe_exits_quietly_with_0() -> None:
    """``gpu-fabric schema | head -0``: the reader is gone before the first write."""
    read_end, write_end = os.pipe()
    os.close(read_end)
    proc = subprocess.run(
        [sys.executable, "-m", "gpu_fabric", "schema"],
        stdout=write_end, stderr=subprocess.PIPE, text=True, cwd=ROOT, check=False,
    )
    os.close(write_end)
    assert proc.stderr == ""  # no BrokenPipeError traceback
    assert proc.returncode == 0  # 1 means invalid input; this is not


def test_program_name_is_the_installed_script_or_python_m() -> None:
    assert prog_name("/home/me/.venv/bin/gpu-fabric") == "gpu-fabric"
    assert prog_name("/repo/components/gpu_fabric/__main__.py") == "python -m gpu_fabric"


def test_help_names_the_script(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["--help"], prog="gpu-fabric")
    assert capsys.readouterr().out.startswith("usage: gpu-fabric ")


def _render(stack: str, out: Path) -> int:
    return main(["render", "--stack", stack, "--out", str(out), "--quiet"])


def test_render_into_a_folder_of_another_stack_leaves_only_this_stacks_files(
    tmp_path: Path,
) -> None:
    out = tmp_path / "render"
    assert _render("do-h200", out) == 0
    assert (out / "01-multus.yaml").is_file()  # DOKS host-device NADs need Multus
    (out / "kustomization.yaml").write_text("resources: []\n")  # the user's own file
    assert _render("aws-p5", out) == 0
    files = sorted(p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file())
    record = [ln for ln in (out / RECORD).read_text().splitlines() if not ln.startswith("#")]
    assert sorted([*record, RECORD, "kustomization.yaml"]) == files
    assert not (out / "01-multus.yaml").exists()  # EKS p5 has no Multus part
    assert yaml.safe_load((out / "layer.yaml").read_text())["cluster"] == "eks-p5"


def test_render_refuses_a_folder_it_did_not_write(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "deployment.yaml").write_text("kind: Deployment\n")
    assert _render("aws-p5", tmp_path) == 1
    err = capsys.readouterr().err
    assert "--out" in err and "not written by render" in err
    assert [p.name for p in tmp_path.iterdir()] == ["deployment.yaml"]


def test_layer_index_gives_the_pinned_versions(tmp_path: Path) -> None:
    assert _render("aws-p5", tmp_path) == 0
    addons = yaml.safe_load((tmp_path / "layer.yaml").read_text())["addons"]
    # The pins (components/gpu_fabric/versions.py); literally in tests/data/golden/*/render/.
    assert addons["kyverno"] == {"enabled": True, "version": versions.KYVERNO.version}
    assert addons["efa_device_plugin"]["version"] == versions.EFA_DEVICE_PLUGIN.version
    pinned = {k: a for k, a in addons.items() if k != "nccl_installer"}
    assert all(a["version"] for a in pinned.values()), pinned


def _doc(inputs: dict) -> dict:
    urn = "urn:pulumi:s::p::gcp:container/nodePool:NodePool::pool"
    return {"stack": "s", "outputs": {}, "resources": [{
        "urn": urn, "type": "gcp:container/nodePool:NodePool", "name": "pool",
        "parent": None, "dependencies": [], "inputs": inputs,
    }]}


def test_diff_shows_old_and_new_values() -> None:
    from gpu_fabric.plan.diff import diff_plans, to_markdown

    base = _doc({"nodeCount": 2, "nodeConfig": {"labels": {"a": "x"}}, "tags": ["p", "q"]})
    head = _doc({"nodeCount": 4, "nodeConfig": {"labels": {"a": "y", "b": "z"}},
                 "tags": ["p", "r"]})
    result = diff_plans(base, head)
    change = result.changes[0]
    assert change.paths == ("nodeConfig.labels.a", "nodeConfig.labels.b", "nodeCount", "tags[1]")
    text = to_markdown(result)
    assert "nodeCount: `2` → `4`" in text
    assert 'nodeConfig.labels.a: `"x"` → `"y"`' in text
    assert 'nodeConfig.labels.b: `(absent)` → `"z"`' in text
    assert 'tags[1]: `"q"` → `"r"`' in text
    values = result.to_json()["changes"][0]["values"]
    assert values["nodeCount"] == {"before": 2, "after": 4}
    assert values["nodeConfig.labels.b"] == {"before": None, "after": "z"}
