"""``plan_program`` on a tiny team project: config layering, secrets, cwd and sys.path.

The rules are pulumi's (docs/api.md ``plan_program``; components/gpu_fabric/plan/offline.py):
``Pulumi.yaml`` ``config:`` defaults, then ``Pulumi.<stack>.yaml``, then ``config=``
(last wins); keys without a namespace belong to the project; ``{secure: ...}`` reads
as the placeholder ``[secret from stack config]`` and is secret; the program runs
with its folder as the working directory and first on ``sys.path``. The program
below exports what it saw, so each rule is checked on a literal value.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from gpu_fabric.errors import Problem, SpecError
from gpu_fabric.plan.offline import plan_program, project_config
from gpu_fabric.plan.project import load_project

PROGRAM = """
import json
import os
import sys

import pulumi

import helper  # found because the program's folder is first on sys.path

seen = {}
for key in ("team:a", "team:b", "team:c", "team:d", "team:e", "other:x", "team:nodefault"):
    ns, _, name = key.partition(":")
    seen[key] = pulumi.Config(ns).get(name)
pulumi.export("config", seen)
pulumi.export("secret", sorted(k for k in seen if pulumi.runtime.is_config_secret(k)))
pulumi.export("cwd", os.getcwd())
pulumi.export("path0", sys.path[0])
pulumi.export("helper", helper.VALUE)
pulumi.export("name", __name__)
pulumi.CustomResource("test:index:Thing", "t", {})
"""

PROJECT = """name: team
runtime: python
main: app/
stackConfigDir: stacks
config:
  a: {default: from-project}
  b: 1
  other:x: {default: [1, 2]}
  nodefault: {type: string}
"""

STACK = """config:
  team:b: from-stack
  c: {secure: v1:cipher}
  d: {k: [{secure: v1:x}, 2]}
  other:x: plain
"""


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "Pulumi.yaml").write_text(PROJECT)
    (tmp_path / "app").mkdir()
    (tmp_path / "app" / "__main__.py").write_text(PROGRAM)
    (tmp_path / "app" / "helper.py").write_text("VALUE = 'helper'\n")
    (tmp_path / "stacks").mkdir()
    (tmp_path / "stacks" / "Pulumi.dev.yaml").write_text(STACK)
    (tmp_path / "stacks" / "Pulumi.prod.yaml").write_text("config: {}\n")
    return tmp_path


def test_config_layers_and_secrets(project: Path) -> None:
    cwd, path = Path.cwd(), list(sys.path)
    plan = plan_program(project, "dev", config={"e": {"n": 1}, "team:a": "given"},
                        secret_keys=["e"])
    assert plan.outputs["config"] == {
        "team:a": "given",  # config= wins over Pulumi.yaml
        "team:b": "from-stack",  # the stack file wins over Pulumi.yaml
        "team:c": "[secret from stack config]",
        "team:d": '{"k": ["[secret from stack config]", 2]}',
        "team:e": '{"n": 1}',
        "other:x": "plain",
        "team:nodefault": None,
    }
    assert plan.outputs["secret"] == ["team:c", "team:d", "team:e"]
    app = str((project / "app").resolve())
    assert plan.outputs["cwd"] == app and plan.outputs["path0"] == app
    assert plan.outputs["helper"] == "helper"
    assert plan.outputs["name"] == "__main__"  # as `pulumi preview` runs it
    assert [r.urn for r in plan.resources] == ["urn:pulumi:dev::team::test:index:Thing::t"]
    assert plan.preview is False
    assert (Path.cwd(), sys.path) == (cwd, path)  # put back


def test_without_a_stack_only_the_project_defaults(project: Path) -> None:
    plan = plan_program(project, preview=True)
    assert plan.stack == "offline" and plan.preview is True
    assert plan.outputs["config"] == {
        "team:a": "from-project", "team:b": "1", "team:c": None, "team:d": None,
        "team:e": None, "other:x": "[1, 2]", "team:nodefault": None,
    }
    assert plan.outputs["secret"] == []


def test_project_config_reads_full_keys(project: Path) -> None:
    loaded = load_project(project)
    assert project_config(loaded, None) == (
        {"team:a": "from-project", "team:b": 1, "other:x": [1, 2]}, [],
    )
    assert project_config(loaded, "prod") == (
        {"team:a": "from-project", "team:b": 1, "other:x": [1, 2]}, [],
    )
    (project / "Pulumi.yaml").write_text("name: bare\n")
    assert project_config(load_project(project), None) == ({}, [])


def test_a_missing_stack_lists_the_projects_stacks(project: Path) -> None:
    with pytest.raises(SpecError) as info:
        plan_program(project, "qa")
    assert info.value.problems == [Problem(
        "--stack", f"no stack file {project.resolve()}/stacks/Pulumi.qa.yaml (stacks of "
        "project team: dev, prod)",
    )]
    for stack in ("dev", "prod"):
        (project / "stacks" / f"Pulumi.{stack}.yaml").unlink()
    with pytest.raises(SpecError) as info:
        plan_program(project, "qa")
    assert info.value.problems[0].message.endswith("(stacks of project team: none)")


def test_a_missing_program_is_named(project: Path) -> None:
    (project / "app" / "__main__.py").unlink()
    with pytest.raises(SpecError) as info:
        plan_program(project, "dev")
    entry = project.resolve() / "app" / "__main__.py"
    assert info.value.problems == [Problem("main", f"no program at {entry} (Pulumi.yaml 'main')")]


def test_cwd_and_path_come_back_after_a_failing_program(project: Path) -> None:
    (project / "app" / "__main__.py").write_text("raise RuntimeError('boom')\n")
    cwd, path = os.getcwd(), list(sys.path)
    with pytest.raises(RuntimeError, match="boom"):
        plan_program(project, "dev")
    assert (os.getcwd(), sys.path) == (cwd, path)
