"""The CLI used from a team's own repository: its stacks, its git changes (issue 23).

The team repo here is built in a temporary folder: a ``Pulumi.yaml`` with
``stackConfigDir: infra/stacks`` and two stack files (the ``team-p5`` cluster is
a copy of this repo's stacks/Pulumi.aws-p5.yaml cluster with another name).
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from gpu_fabric.cli import main
from gpu_fabric.cli.stacks import stacks_touched
from gpu_fabric.plan.project import find_project

STACK = """config:
  gpu-fabric:cluster:
    name: {name}
    cloud: aws
    location: {{region: us-east-1, zone: us-east-1a}}
    api_access: {{authorized_cidrs: [203.0.113.0/24]}}
    node_pools:
      - {{name: p5, machine_type: p5.48xlarge, node_count: {nodes}}}
    aws: {{}}
"""


def _git(repo: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@example.com", *args],
        cwd=repo, check=True, capture_output=True,
    )


@pytest.fixture
def team_repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    repo = tmp_path / "team"
    stacks = repo / "infra" / "stacks"
    stacks.mkdir(parents=True)
    (repo / "infra" / "Pulumi.yaml").write_text(
        "name: team-training\nruntime: python\nstackConfigDir: stacks\n"
    )
    (stacks / "Pulumi.team-p5.yaml").write_text(STACK.format(name="team-p5", nodes=2))
    (stacks / "Pulumi.team-dev.yaml").write_text(STACK.format(name="team-dev", nodes=1))
    _git(repo, "init", "-q", "-b", "main")
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", "stacks")
    monkeypatch.chdir(repo / "infra" / "stacks")  # anywhere inside the project
    return repo


def test_validate_finds_the_teams_stack_from_its_pulumi_yaml(
    team_repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["validate", "--stack", "team-p5"]) == 0
    out = capsys.readouterr().out
    assert str(team_repo / "infra" / "stacks" / "Pulumi.team-p5.yaml") in out
    assert "'team-p5'" in out


def test_stacks_lists_the_teams_stacks_only(
    team_repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["stacks", "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == [
        {"stack": "team-dev", "cloud": "aws"}, {"stack": "team-p5", "cloud": "aws"},
    ]


def test_changed_since_sees_uncommitted_and_new_stack_files(
    team_repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    stacks = team_repo / "infra" / "stacks"
    assert main(["stacks", "--changed-since", "HEAD", "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == []
    # An edit not yet committed, and a stack file not yet added.
    (stacks / "Pulumi.team-p5.yaml").write_text(STACK.format(name="team-p5", nodes=4))
    (stacks / "Pulumi.team-new.yaml").write_text(STACK.format(name="team-new", nodes=2))
    assert main(["stacks", "--changed-since", "HEAD", "--json"]) == 0
    assert [r["stack"] for r in json.loads(capsys.readouterr().out)] == ["team-new", "team-p5"]


def test_a_program_change_in_the_project_touches_every_stack() -> None:
    changed = ["infra/__main__.py"]
    assert stacks_touched(changed, ["b", "a"], "infra/stacks", "infra") == ["a", "b"]
    assert stacks_touched(["infra/stacks/Pulumi.a.yaml"], ["a", "b"], "infra/stacks",
                          "infra") == ["a"]
    # This repository's own layout: project at the top, stacks in stacks/.
    assert stacks_touched(["stacks/Pulumi.b.yaml"], ["a", "b"], "stacks", ".") == ["b"]
    library = ["components/gpu_fabric/spec.py"]
    assert stacks_touched(library, ["a", "b"], "stacks", ".") == ["a", "b"]


def test_without_pulumi_yaml_the_stacks_folder_of_the_cwd_is_used(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "stacks").mkdir()
    monkeypatch.chdir(tmp_path)
    project = find_project()
    assert project.name is None and project.stacks_dir == tmp_path.resolve() / "stacks"


def test_plan_urns_carry_the_teams_project_name(
    team_repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 36: URNs said ``::gpu-fabric::`` although the team's Pulumi.yaml says
    ``name: team-training``; pulumi names them after the nearest Pulumi.yaml's project."""
    assert main(["plan", "--stack", "team-p5", "--json", "--quiet"]) == 0
    urns = [r["urn"] for r in json.loads(capsys.readouterr().out)["resources"]]
    assert urns and all(u.startswith("urn:pulumi:team-p5::team-training::") for u in urns)


def test_urns_says_where_the_list_is_expected_and_writes_it_there(
    team_repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 36: 50 "new (not in the committed list)" lines and exit 3, no path."""
    expected = team_repo / "infra" / "tests" / "data" / "urns" / "team-p5.txt"
    assert main(["urns", "--stack", "team-p5"]) == 3
    assert capsys.readouterr().out.splitlines() == [
        f"team-p5: no committed URN list at {expected}; write it with "
        "`gpu-fabric urns --write --stack team-p5` (or pass --dir)"]
    assert main(["urns", "--stack", "team-p5", "--write"]) == 0
    assert expected.is_file() and "::team-training::" in expected.read_text()
    capsys.readouterr()
    assert main(["urns", "--stack", "team-p5"]) == 0
    assert capsys.readouterr().out == ""


def test_docs_names_what_it_keeps_and_where(
    team_repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 36: ``cannot use '…/README.md'`` in a team repo."""
    assert main(["docs"]) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"docs: keeps the stack table of {team_repo / 'infra' / 'README.md'} "
                          "(between <!-- stacks:begin --> and <!-- stacks:end -->)")
    assert f"not found: {team_repo / 'infra' / 'README.md'}, " \
           f"{team_repo / 'infra' / 'docs' / 'stacks.md'}." in err
