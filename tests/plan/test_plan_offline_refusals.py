"""``plan_program`` / ``project_config`` refusals, written out whole: field, message, file.

The CLI tests (tests/inputs/test_files_and_programs.py) check a part of each message
through stderr; these call the functions and compare the whole ``SpecError``: its
problem (field and text) and its ``source``, the file a user must edit. The rules are
pulumi's project and stack files (https://www.pulumi.com/docs/iac/concepts/projects/
project-file/: ``runtime``, ``config`` "a map of config keys to their default values or
type definitions"; https://www.pulumi.com/docs/iac/concepts/config/: a stack file's
``config:`` map, ``pulumi config set --secret`` for secrets).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from gpu_fabric.errors import Problem, SpecError
from gpu_fabric.plan.offline import plan_program, project_config
from gpu_fabric.plan.project import load_project

HOW = ('store it encrypted instead: pulumi config set --secret team:password "$(cat FILE)" '
       '(or --secret team:password VALUE), and remove the plain value')


def _project(tmp_path: Path, pulumi_yaml: str, stack: str | None = None) -> Path:
    (tmp_path / "Pulumi.yaml").write_text(pulumi_yaml)
    (tmp_path / "__main__.py").write_text("import pulumi\n")
    if stack is not None:
        (tmp_path / "Pulumi.dev.yaml").write_text(stack)
    return tmp_path


def test_a_project_config_that_is_not_a_mapping_names_pulumi_yaml(tmp_path: Path) -> None:
    folder = _project(tmp_path, "name: team\nruntime: python\nconfig: [a, b]\n")
    with pytest.raises(SpecError) as info:
        project_config(load_project(folder), None)
    assert info.value.problems == [Problem(
        "config", "Pulumi.yaml's 'config:' must be a mapping of keys to defaults")]
    assert info.value.source == str(folder / "Pulumi.yaml")


def test_a_stack_file_without_a_config_mapping_names_the_stack_file(tmp_path: Path) -> None:
    folder = _project(tmp_path, "name: team\nruntime: python\n", stack="- a\n")
    with pytest.raises(SpecError) as info:
        project_config(load_project(folder), "dev")
    assert info.value.problems == [Problem(
        "config", "a stack file needs a top-level 'config:' mapping")]
    assert info.value.source == str(folder / "Pulumi.dev.yaml")


def test_a_plain_credential_in_the_stack_file_names_the_stack_file(tmp_path: Path) -> None:
    folder = _project(tmp_path, "name: team\nruntime: python\n",
                      stack="config:\n  password: hunter2-plain\n")
    with pytest.raises(SpecError) as info:
        project_config(load_project(folder), "dev")
    assert info.value.problems == [Problem(
        "team:password", f"is a credential-named key in plain text; {HOW}")]
    assert info.value.source == str(folder / "Pulumi.dev.yaml")


def test_a_secure_value_is_masked_and_listed_secret(tmp_path: Path) -> None:
    folder = _project(tmp_path, "name: team\nruntime: python\nconfig:\n  a: 1\n",
                      stack="config:\n  password: {secure: v1:abc}\n  b: two\n")
    assert project_config(load_project(folder), "dev") == (
        {"team:a": 1, "team:password": "[secret from stack config]", "team:b": "two"},
        ["team:password"])


def test_a_runtime_other_than_python_is_refused_naming_pulumi_yaml(tmp_path: Path) -> None:
    # 41 characters: the message keeps the first 40.
    runtime = "nodejs-" + "x" * 34
    folder = _project(tmp_path, f"name: team\nruntime: {runtime}\n")
    with pytest.raises(SpecError) as info:
        plan_program(folder)
    assert info.value.problems == [Problem(
        "runtime", f"the project's runtime is 'nodejs-{'x' * 33}'; plan --program runs "
                   "Python Pulumi programs only (runtime: python)")]
    assert info.value.source == str(folder / "Pulumi.yaml")
