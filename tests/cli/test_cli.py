"""The command line: plan --json shape (a contract), exit codes, validate, render, schema."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from gpu_fabric.cli import main

ROOT = Path(__file__).resolve().parents[2]
BAD = ROOT / "tests" / "data" / "bad_stacks"


def test_plan_json_has_exactly_the_contract_shape(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["plan", "--stack", "existing", "--json", "--quiet"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert set(doc) == {"stack", "resources", "outputs"}
    assert doc["stack"] == "existing"
    assert doc["resources"], "the plan lists resources"
    urns = {r["urn"] for r in doc["resources"]}
    for res in doc["resources"]:
        assert set(res) == {"urn", "type", "name", "parent", "dependencies", "inputs",
                            "options"}
        # The original keys keep their order; "options" was added last (issue 32).
        assert list(res)[-1] == "options"
        assert set(res["options"]) == {"delete_before_replace", "replace_on_changes",
                                       "ignore_changes", "protect", "provider", "aliases"}
        assert isinstance(res["dependencies"], list)
        assert isinstance(res["inputs"], dict)
        assert res["parent"] is None or res["parent"].startswith("urn:pulumi:")
        assert all(d in urns for d in res["dependencies"])
    assert doc["outputs"]["kubeconfig"] == "[secret]"


def test_plan_text_lists_the_tree_and_counts(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["plan", "--stack", "existing", "--quiet"]) == 0
    out = capsys.readouterr().out
    assert "gpufabric:existing:GpuCluster" in out
    assert "count  type" in out


def test_plan_of_a_bad_config_exits_non_zero_without_resources(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code = main(["plan", "--config", str(BAD / "unknown-machine-gcp.yaml"), "--json", "--quiet"])
    captured = capsys.readouterr()
    assert code == 1
    assert captured.out == ""  # no resource output at all
    assert "node_pools[0].machine_type" in captured.err


def test_validate_reports_every_problem(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["validate", "--config", str(BAD / "wrong-types.yaml")]) == 1
    err = capsys.readouterr().err
    assert "node_pools[0].node_count" in err and "kubernetes.auto_upgrade" in err


def test_unknown_stack_is_a_clear_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["plan", "--stack", "no-such-stack", "--quiet"]) == 1
    assert "Pulumi.no-such-stack.yaml" in capsys.readouterr().err


def test_render_writes_the_layer(tmp_path: Path) -> None:
    assert main(["render", "--stack", "existing", "--out", str(tmp_path), "--quiet"]) == 0
    index = yaml.safe_load((tmp_path / "layer.yaml").read_text())
    files = {p["manifests"] for p in index["parts"] if "manifests" in p}
    for name in files:
        docs = list(yaml.safe_load_all((tmp_path / name).read_text()))
        assert docs and all("apiVersion" in d and "kind" in d for d in docs)


def test_schema_command_prints_json(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["schema"]) == 0
    assert json.loads(capsys.readouterr().out)["title"] == "gpu-fabric:cluster"


def test_module_entry_point_runs() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "gpu_fabric", "validate", "--stack", "existing"],
        cwd=ROOT, capture_output=True, text=True, check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert "valid" in proc.stdout
