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

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

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
    try:
        doc: Any = yaml.safe_load(file.read_text())
    except yaml.YAMLError as exc:
        raise ProjectError(f"{file}: not valid YAML: {exc}") from None
    if not isinstance(doc, dict) or not isinstance(doc.get("name"), str):
        raise ProjectError(f"{file}: needs a 'name:' (the Pulumi project name)")
    root = file.parent
    config_dir = doc.get("stackConfigDir")
    main = doc.get("main")
    return Project(
        root=root,
        name=doc["name"],
        stacks_dir=(root / str(config_dir)) if config_dir else root,
        main=(root / str(main)) if main else root,
        file=file,
    )
