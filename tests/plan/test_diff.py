"""Offline plan diff: matching by URN, changed paths, expensive replacements, CLI."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from gpu_fabric.cli import main
from gpu_fabric.plan.diff import changed_paths, diff_plans, replacing_inputs, to_markdown
from tests.specs import spec_dict, with_pool

SITE = Path(pytest.__file__).resolve().parent.parent


def test_changed_paths_name_the_leaves() -> None:
    before = {"a": {"b": 1, "c": [1, {"d": 2}]}, "gone": 1}
    after = {"a": {"b": 2, "c": [1, {"d": 3}]}, "new": 1}
    assert changed_paths(before, after) == ["a.b", "a.c[1].d", "gone", "new"]
    assert changed_paths([1, 2], [1, 2, 3]) == ["(value)"]
    assert changed_paths({"x": 1}, {"x": 1}) == []


def test_identical_plans_have_no_changes(spec_plan) -> None:
    plan = spec_plan(spec_dict("gcp")).to_json()
    result = diff_plans(plan, plan)
    assert result.changes == []
    assert "No resource changes" in to_markdown(result)


def test_machine_type_change_replaces_the_node_pool(spec_plan) -> None:
    base = spec_plan(spec_dict("gcp")).to_json()
    head = spec_plan(with_pool("gcp", machine_type="a3-ultragpu-8g")).to_json()
    result = diff_plans(base, head)
    pools = [c for c in result.replacements if c.type == "gcp:container/nodePool:NodePool"]
    assert pools, to_markdown(result)
    # A3 Mega -> A3 Ultra changes the accelerator type, which GKE cannot update:
    # guest_accelerator.type ForceNew (hashicorp/terraform-provider-google-beta
    # @93c65b2d60 google-beta/services/container/node_config.go L333); the machine type
    # itself is updated in place there (L555-560, no ForceNew; plan/data/
    # replacing_inputs.json).
    assert pools[0].replacing_paths == ("nodeConfig.guestAccelerators[0].type",)
    assert "nodeConfig.machineType" in pools[0].paths
    text = to_markdown(result)
    assert "would be destroyed" in text and "**nodeConfig.guestAccelerators[0].type**" in text


def test_label_change_is_an_update_not_a_replacement(spec_plan) -> None:
    base = spec_plan(spec_dict("gcp")).to_json()
    head = spec_plan(with_pool("gcp", labels={"team": "a"})).to_json()
    result = diff_plans(base, head)
    pool_changes = [c for c in result.changes if c.type == "gcp:container/nodePool:NodePool"]
    assert pool_changes and all(c.action == "update" for c in pool_changes)
    assert any("team" in p for c in pool_changes for p in c.paths)
    assert not result.replacements


def test_renamed_cluster_removes_and_adds_everything(spec_plan) -> None:
    base = spec_plan(spec_dict("aws")).to_json()
    renamed = spec_dict("aws", name="other")
    head = spec_plan(renamed).to_json()
    result = diff_plans(base, head)
    assert len(result.of("remove")) == len(base["resources"])
    assert len(result.of("add")) == len(head["resources"])
    assert any(c.type == "aws:eks/cluster:Cluster" for c in result.replacements)


def test_not_a_plan_is_refused() -> None:
    with pytest.raises(ValueError, match="resources"):
        diff_plans({"stack": "x"}, {"stack": "x", "resources": []})


def test_replacement_table_names_real_type_tokens() -> None:
    """Every type in the table exists in an installed provider SDK (catches typos)."""
    sdk_dirs = {
        "gcp": "pulumi_gcp", "aws": "pulumi_aws", "azure-native": "pulumi_azure_native",
        "digitalocean": "pulumi_digitalocean", "oci": "pulumi_oci",
    }
    for token in replacing_inputs():
        pkg = sdk_dirs[token.split(":")[0]]
        module, cls = token.split(":")[1:]
        if pkg == "pulumi_azure_native":
            path = SITE / pkg / module / f"_{_snake(cls)}.py"
            if not path.exists():
                path = SITE / pkg / module / f"{_snake(cls)}.py"
        else:
            mod, _, file = module.partition("/")
            folder = SITE / pkg / (mod.lower() if mod != "index" else "")
            path = folder / f"{_snake(file)}.py"
            if not path.exists():  # an acronym: gcp:projects/iAMMember:IAMMember -> iam_member
                path = folder / f"{_snake_acronym(cls)}.py"
        assert path.exists(), f"{token}: no {path}"
        assert f'"{token}"' in path.read_text(), f"{token} not registered in {path}"


def _snake(name: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


def _snake_acronym(name: str) -> str:
    """A run of capitals is one word ("IAMMember" -> "iam_member")."""
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])", "_", name).lower()


def test_cli_diff_of_two_files(tmp_path, spec_plan, capsys) -> None:
    base = spec_plan(spec_dict("gcp")).to_json()
    head = spec_plan(with_pool("gcp", node_count=4)).to_json()
    (tmp_path / "base.json").write_text(json.dumps(base))
    (tmp_path / "head.json").write_text(json.dumps(head))
    code = main(["diff", "--base", str(tmp_path / "base.json"), "--head",
                 str(tmp_path / "head.json"), "--quiet"])
    out = capsys.readouterr().out
    assert code == 0
    assert "| action | type | name | changed inputs |" in out
    assert "nodeCount" in out or "initialNodeCount" in out

    code = main(["diff", "--base", str(tmp_path / "base.json"), "--head",
                 str(tmp_path / "head.json"), "--json", "--quiet"])
    data = json.loads(capsys.readouterr().out)
    assert code == 0 and data["changes"] and {"action", "urn", "paths"} <= set(data["changes"][0])


def test_cli_diff_usage_and_bad_files(tmp_path, capsys) -> None:
    assert main(["diff", "--quiet"]) == 2
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    assert main(["diff", "--base", str(bad), "--head", str(bad), "--quiet"]) == 1
    assert "not JSON" in capsys.readouterr().err


def test_cli_fail_on_replace_exits_4_only_for_replacements(tmp_path, spec_plan) -> None:
    base = spec_plan(spec_dict("gcp")).to_json()
    grown = spec_plan(with_pool("gcp", node_count=4)).to_json()
    for name, plan in (("base", base), ("grown", grown)):
        (tmp_path / f"{name}.json").write_text(json.dumps(plan))
    resized = ["diff", "--base", str(tmp_path / "base.json"), "--head",
               str(tmp_path / "grown.json"), "--quiet", "--fail-on-replace"]
    assert main(resized) == 0  # a node count change updates in place
    swapped = spec_plan(with_pool("gcp", machine_type="a3-ultragpu-8g")).to_json()
    (tmp_path / "swapped.json").write_text(json.dumps(swapped))
    resized[4] = str(tmp_path / "swapped.json")
    assert main(resized) == 4
