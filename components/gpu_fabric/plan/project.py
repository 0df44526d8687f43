"""Where the commands find a project's stacks and program, the way the pulumi CLI does.

Pulumi's rule (https://www.pulumi.com/docs/iac/concepts/projects/ and the
project-file reference): the nearest parent folder of the working directory
that holds ``Pulumi.yaml`` (or ``Pulumi.yml``) is the project; stack files are
``Pulumi.<stack>.yaml`` in its ``stackConfigDir`` (relative to ``Pulumi.yaml``,
default: next to it); the program is at ``main`` (default: the project folder).

So an installed ``gpu-fabric`` run from a team's repository reads the team's
stacks, never a folder inside site-packages. Without any ``Pulumi.yaml`` up the
tree, ``./stacks`` is used when it exists, else the working directory.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

PROJECT_FILES = ("Pulumi.yaml", "Pulumi.yml")


class ProjectError(ValueError):
    """A Pulumi.yaml that cannot be used (not YAML, no name, main that does not exist)."""


@dataclass(frozen=True)
class Project:
    root: Path
    """The folder holding Pulumi.yaml (the working directory when there is none)."""
    name: str | None
    stacks_dir: Path
    main: Path
    """The program: a ``.py`` file, or a folder holding ``__main__.py``."""
    file: Path | None = None
    runtime: str | None = field(default=None, compare=False)
    """``runtime:`` of Pulumi.yaml (its ``name`` when a mapping); None when absent."""

    @property
    def entry_point(self) -> Path:
        return self.main / "__main__.py" if self.main.is_dir() else self.main


def find_project_file(start: Path | None = None) -> Path | None:
    """The nearest ``Pulumi.yaml`` in ``start`` (default: cwd) or one of its parents."""
    here = (start or Path.cwd()).resolve()
    for folder in (here, *here.parents):
        for name in PROJECT_FILES:
            if (folder / name).is_file():
                return folder / name
    return None


def load_project(folder: Path) -> Project:
    """The project whose ``Pulumi.yaml`` is in ``folder`` (a ProjectError if there is none)."""
    folder = folder.resolve()
    file = next((folder / n for n in PROJECT_FILES if (folder / n).is_file()), None)
    if file is None:
        raise ProjectError(f"{folder}: no Pulumi.yaml (a Pulumi project folder holds one)")
    return _from_file(file)


def find_project(start: Path | None = None) -> Project:
    """The project the working directory belongs to (see the module docstring)."""
    file = find_project_file(start)
    if file is not None:
        return _from_file(file)
    here = (start or Path.cwd()).resolve()
    stacks = here / "stacks"
    return Project(here, None, stacks if stacks.is_dir() else here, here)


def stacks_dir(start: Path | None = None) -> Path:
    return find_project(start).stacks_dir


def _from_file(file: Path) -> Project:
    from gpu_fabric.errors import SpecError
    from gpu_fabric.plan.safe_yaml import load_file

    try:
        doc: Any = load_file(file)
    except SpecError as exc:
        reason = "; ".join(str(p) if p.path else p.message for p in exc.problems)
        raise ProjectError(f"{file}: not valid YAML: {reason}") from None
    if not isinstance(doc, dict) or not isinstance(doc.get("name"), str):
        raise ProjectError(f"{file}: needs a 'name:' (the Pulumi project name)")
    root = file.parent
    return Project(
        root=root,
        name=doc["name"],
        stacks_dir=_inside_project(root, file, "stackConfigDir", doc.get("stackConfigDir")),
        main=_inside_project(root, file, "main", doc.get("main")),
        file=file,
        runtime=_runtime(doc.get("runtime")),
    )


def _inside_project(root: Path, file: Path, key: str, value: Any) -> Path:
    """``root / value``, refused unless it is a relative path that stays in the project
    (Pulumi resolves both relative to Pulumi.yaml; a team's stack file or program from
    elsewhere on the machine is not what its project says)."""
    if value is None or value == "":
        return root
    if not isinstance(value, str):
        raise ProjectError(f"{file}: '{key}' must be a path (a string), not "
                           f"{type(value).__name__}")
    path = (root / value).resolve()
    if not path.is_relative_to(root.resolve()):
        raise ProjectError(f"{file}: '{key}: {value[:80]}' leads outside the project folder "
                           f"{root}; give a path inside it")
    return root / value


def _runtime(value: Any) -> str | None:
    """The runtime's name (``runtime: python`` or ``runtime: {name: python}``)."""
    if isinstance(value, dict):
        value = value.get("name")
    return value if isinstance(value, str) else None
