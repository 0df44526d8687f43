"""safe_yaml's refusals and Pulumi.yaml's, each problem written out with its source
(plan/safe_yaml.py, plan/project.py).

A key written twice is refused (YAML 1.2 says mapping keys are unique,
https://yaml.org/spec/1.2.2/#3221-mapping; PyYAML keeps the last one silently); keys a
``<<`` merge brings in are not duplicates (https://yaml.org/type/merge.html). Pulumi.yaml's
``stackConfigDir`` and ``main`` are paths relative to the project folder
(https://www.pulumi.com/docs/iac/concepts/projects/project-file/), ``runtime`` a name or
``{name: ...}``.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from gpu_fabric.errors import Problem, SpecError
from gpu_fabric.plan.project import ProjectError, load_project
from gpu_fabric.plan.safe_yaml import load_bounded, load_file

TWICE = ("the key '{key}' is written twice in the same mapping (first at line {line}); YAML "
         "would keep only the last one silently: remove one")


def test_merge_keys_are_not_duplicates_but_a_key_after_one_is_checked() -> None:
    merged = load_bounded("a: &a {x: 1}\nb: &b {y: 2}\nc:\n  <<: *a\n  <<: *b\n", "src")
    assert merged == {"a": {"x": 1}, "b": {"y": 2}, "c": {"x": 1, "y": 2}}
    with pytest.raises(SpecError) as info:
        load_bounded("a: &a {x: 1}\nc:\n  <<: *a\n  k: 1\n  k: 2\n", "src")
    assert info.value.problems == [Problem("src:5:3", TWICE.format(key="k", line=4))]
    assert info.value.source == "src"


def test_a_long_duplicate_key_is_cut_at_80_characters() -> None:
    key = "k" * 90
    with pytest.raises(SpecError) as info:
        load_bounded(f"{key}: 1\n{key}: 2\n", "src")
    assert info.value.problems == [Problem("src:2:1", TWICE.format(key="k" * 80, line=1))]


def test_load_file_names_the_file_and_keeps_its_limit(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("a: b: c\n")
    with pytest.raises(SpecError) as info:
        load_file(bad)
    assert info.value.problems == [Problem(
        f"{bad}:1:5", "YAML syntax error: mapping values are not allowed in this context")]
    big = tmp_path / "big.yaml"
    big.write_text("a: 12345678\n")  # 12 bytes
    with pytest.raises(SpecError) as info:
        load_file(big, limit=10)
    assert info.value.problems == [Problem(
        "", "the file is 12 bytes; stack files are limited to 10 bytes (a stack file holds "
            "one cluster spec of a few KB)")]
    assert info.value.source == str(big)


def test_a_folder_is_refused_naming_it(tmp_path: Path) -> None:
    with pytest.raises(SpecError) as info:
        load_file(tmp_path)
    assert info.value.problems == [Problem("", "cannot read the file: Is a directory")]
    assert info.value.source == str(tmp_path)


def _project_error(folder: Path, text: str) -> str:
    (folder / "Pulumi.yaml").write_text(text)
    with pytest.raises(ProjectError) as info:
        load_project(folder)
    return str(info.value)


@pytest.mark.parametrize(("text", "says"), [
    # 1 MiB + 1 byte: safe_yaml.MAX_BYTES is 1024 * 1024; a problem without a path.
    ("#" * 1048576 + "\n", "not valid YAML: the file is 1048577 bytes; stack files are "
                           "limited to 1048576 bytes (a stack file holds one cluster spec of "
                           "a few KB)"),
    ("a: b: c\n", "not valid YAML: {file}:1:5: YAML syntax error: mapping values are not "
                  "allowed in this context"),
    ("name: t\nstackConfigDir: [a]\n", "'stackConfigDir' must be a path (a string), not list"),
    ("name: t\nmain: {a: 1}\n", "'main' must be a path (a string), not dict"),
    ("name: t\nstackConfigDir: ../up\n",
     "'stackConfigDir: ../up' leads outside the project folder {root}; give a path inside it"),
    ("name: t\nmain: ../" + "x" * 90 + "\n",
     "'main: ../" + "x" * 77 + "' leads outside the project folder {root}; give a path "
     "inside it"),
])
def test_pulumi_yaml_refusals_name_the_file_and_the_key(tmp_path: Path, text: str,
                                                        says: str) -> None:
    file = tmp_path / "Pulumi.yaml"
    assert _project_error(tmp_path, text) == f"{file}: " + says.format(file=file, root=tmp_path)


def test_a_runtime_that_is_not_a_name_is_none(tmp_path: Path) -> None:
    (tmp_path / "Pulumi.yaml").write_text("name: t\nruntime: 7\n")
    assert load_project(tmp_path).runtime is None
    (tmp_path / "Pulumi.yaml").write_text("name: t\nruntime: {name: python}\n")
    assert load_project(tmp_path).runtime == "python"
