"""The stack name a ``--config`` file gives, and its refusal written out whole
(plan/stackfile.py ``check_file_stack_name``).

Pulumi stack names "may only contain alphanumeric, hyphens, underscores, or periods"
(https://www.pulumi.com/docs/iac/concepts/stacks/), at most 100 characters; "." and ".."
match that pattern but name no stack (they are path components), so they are refused too.
tests/inputs/test_files_and_programs.py checks the CLI's stderr in part.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from gpu_fabric.errors import Problem, SpecError
from gpu_fabric.plan.runner import project_of
from gpu_fabric.plan.stackfile import StackFile, check_file_stack_name, check_stack_name

RULE = ("which Pulumi refuses: a stack name has 1 to 100 letters, digits, '-', '_' and '.'; "
        "rename the file (Pulumi.<stack>.yaml)")


@pytest.mark.parametrize(("file_name", "stack"), [
    ("Pulumi...yaml", "."),
    ("Pulumi....yaml", ".."),
    ("Pulumi.a b.yml", "a b"),
])
def test_a_file_name_giving_a_refused_stack_name(file_name: str, stack: str) -> None:
    with pytest.raises(SpecError) as info:
        check_file_stack_name(Path("/x") / file_name)
    assert info.value.problems == [Problem(
        "--config", f"the file name {file_name!r} gives the stack name {stack!r}, {RULE}")]


def test_long_names_are_cut_at_80_characters_in_the_message() -> None:
    stack = "a b" + "x" * 90  # 93 characters, a space: refused
    with pytest.raises(SpecError) as info:
        check_file_stack_name(Path(f"/x/Pulumi.{stack}.yaml"))
    file_80 = "Pulumi.a b" + "x" * 70
    stack_80 = "a b" + "x" * 77
    assert info.value.problems == [Problem(
        "--config", f"the file name {file_80!r} gives the stack name {stack_80!r}, {RULE}")]


@pytest.mark.parametrize(("file_name", "stack"), [
    ("Pulumi.dev.yaml", "dev"),
    ("Pulumi.gpu.team-1.yml", "gpu.team-1"),
    ("team_stack.yaml", "team_stack"),
    ("Pulumi.x.yaml.bak", "Pulumi.x.yaml"),
])
def test_accepted_names(file_name: str, stack: str) -> None:
    assert check_file_stack_name(Path("/x") / file_name) == stack


@pytest.mark.parametrize("name", [".", "..", "a/b"])
def test_a_stack_name_pulumi_refuses_is_refused_whole(name: str) -> None:
    with pytest.raises(SpecError) as info:
        check_stack_name(name)
    assert info.value.problems == [Problem(
        "--stack", f"'{name}' is not a stack name: letters, digits, '-', '_' and '.' only "
                   "(no path separators); a file elsewhere is read with --config FILE")]


def test_a_long_stack_name_is_cut_at_80_characters_in_the_message() -> None:
    with pytest.raises(SpecError) as info:
        check_stack_name("x" * 101)
    assert info.value.problems[0].message.startswith(f"'{'x' * 80}' is not a stack name")


def test_the_project_of_a_stack_file_is_its_nearest_pulumi_yaml(tmp_path: Path,
                                                                 monkeypatch) -> None:
    """``pulumi`` takes the project from the nearest Pulumi.yaml above the stack file
    (https://www.pulumi.com/docs/iac/concepts/projects/project-file/), whatever the
    working directory is."""
    (tmp_path / "team").mkdir()
    (tmp_path / "team" / "Pulumi.yaml").write_text("name: team-training\nruntime: python\n")
    (tmp_path / "team" / "stacks").mkdir()
    stack = tmp_path / "team" / "stacks" / "Pulumi.dev.yaml"
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "elsewhere" / "Pulumi.yaml").write_text("name: other\nruntime: python\n")
    monkeypatch.chdir(tmp_path / "elsewhere")
    assert project_of(StackFile("dev", stack, {})) == "team-training"
    assert project_of(StackFile("dev", None, {})) == "gpu-fabric"
