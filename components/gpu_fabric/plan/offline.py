"""Plan a team's own Pulumi program offline: the public ``plan_program`` API.

The program is run the way ``pulumi preview`` runs it (its project folder as the
working directory and first on ``sys.path``, its ``__main__.py`` as
``__main__``, its stack's config), but under the recording mock runtime of
:mod:`gpu_fabric.plan.runner`: no Pulumi CLI, backend, cloud account or
Kubernetes API is needed, so a CI job can plan every pull request of the team's
repository. ``gpu-fabric plan --program DIR [--stack NAME]`` is the CLI of it.

Config comes from the project's ``Pulumi.yaml`` (``config:`` defaults), then the
stack file ``<stackConfigDir>/Pulumi.<stack>.yaml``, then ``config=`` (last
wins); keys without a namespace belong to the project, as with pulumi. Secure
values cannot be decrypted offline: they read as a placeholder and are secret.
"""

from __future__ import annotations

import contextlib
import json
import os
import runpy
import sys
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any

from gpu_fabric.errors import Problem, SpecError
from gpu_fabric.plan.model import PlanResult
from gpu_fabric.plan.plaintext_secrets import plaintext_problems
from gpu_fabric.plan.project import Project, load_project
from gpu_fabric.plan.runner import run_program
from gpu_fabric.plan.safe_yaml import load_file
from gpu_fabric.plan.stackfile import SECRET_PLACEHOLDER, check_stack_name

DEFAULT_STACK = "offline"


class ProgramExit(RuntimeError):
    """The team's program ended with ``sys.exit(N)``, N not 0: the program failed."""


def plan_program(
    folder: str | Path,
    stack: str | None = None,
    *,
    config: Mapping[str, Any] | None = None,
    secret_keys: Iterable[str] = (),
    preview: bool = False,
) -> PlanResult:
    """The resources the Pulumi program in ``folder`` would create, computed offline.

    ``stack`` names ``Pulumi.<stack>.yaml`` in the project's stack folder (None: no
    stack file, only ``config``). ``secret_keys`` marks keys of ``config`` as secrets
    (as ``pulumi config set --secret`` would). Raises :class:`~gpu_fabric.errors.SpecError` for a
    missing project or stack file; whatever the program raises propagates (a
    ``SpecError`` from ``load_spec``, pulumi's ``ConfigMissingError``...).
    """
    project = load_project(Path(folder))
    if project.runtime not in (None, "python"):
        raise SpecError([Problem(
            "runtime", f"the project's runtime is '{str(project.runtime)[:40]}'; plan "
            "--program runs Python Pulumi programs only (runtime: python)",
        )], str(project.file))
    if stack is not None:
        check_stack_name(stack)
    values, secret_keys_of_stack = project_config(project, stack)
    for key, value in (config or {}).items():
        values[_full_key(project, key)] = value
    secret_keys = [*secret_keys_of_stack, *(_full_key(project, k) for k in secret_keys)]
    entry = project.entry_point
    if not entry.is_file():
        raise SpecError([Problem("main", f"no program at {entry} (Pulumi.yaml 'main')")])

    def program() -> None:
        try:
            runpy.run_path(str(entry), run_name="__main__")
        except SystemExit as exc:  # sys.exit(7) in the team's program is its failure
            if exc.code not in (None, 0):
                raise ProgramExit(f"the program called sys.exit({exc.code!r})") from None

    with _inside(entry.parent):
        return run_program(
            program,
            stack=stack or DEFAULT_STACK,
            preview=preview,
            config={k: v if isinstance(v, str) else json.dumps(v) for k, v in values.items()},
            secret_keys=secret_keys,
            project=str(project.name),
        )


def project_config(project: Project, stack: str | None) -> tuple[dict[str, Any], list[str]]:
    """Pulumi.yaml defaults, then the stack file's ``config:`` (full keys; secret keys)."""
    values: dict[str, Any] = {}
    secret: list[str] = []
    if project.file is not None:
        doc = load_file(project.file) or {}
        defaults = doc.get("config") or {}
        if not isinstance(defaults, dict):
            raise SpecError([Problem("config", "Pulumi.yaml's 'config:' must be a mapping of "
                                     "keys to defaults")], str(project.file))
        for key, value in defaults.items():
            default = value.get("default") if isinstance(value, dict) else value
            if default is not None:
                values[_full_key(project, key)] = default
    if stack is None:
        return values, secret
    path = project.stacks_dir / f"Pulumi.{stack}.yaml"
    if not path.is_file():
        found = sorted(p.name[7:-5] for p in project.stacks_dir.glob("Pulumi.*.yaml"))
        raise SpecError([Problem(
            "--stack", f"no stack file {path} (stacks of project {project.name}: "
            f"{', '.join(found) or 'none'})",
        )])
    doc = load_file(path) or {}
    stack_config = doc.get("config") if isinstance(doc, dict) else None
    if not isinstance(stack_config, dict):
        raise SpecError([Problem("config", "a stack file needs a top-level 'config:' mapping")],
                        str(path))
    # The same refusal as --config: credentials in plain text (pulumi config set --secret).
    leaks = plaintext_problems({_full_key(project, str(k)): v for k, v in stack_config.items()})
    if leaks:
        raise SpecError(leaks, str(path))
    for key, value in stack_config.items():
        full = _full_key(project, key)
        masked, had_secret = _mask(value)
        values[full] = masked
        if had_secret:
            secret.append(full)
    return values, secret


def _full_key(project: Project, key: str) -> str:
    return key if ":" in key else f"{project.name}:{key}"


def _mask(value: Any) -> tuple[Any, bool]:
    if isinstance(value, dict):
        if set(value) == {"secure"}:
            return SECRET_PLACEHOLDER, True
        pairs = {k: _mask(v) for k, v in value.items()}
        return {k: v for k, (v, _) in pairs.items()}, any(s for _, s in pairs.values())
    if isinstance(value, list):
        items = [_mask(v) for v in value]
        return [v for v, _ in items], any(s for _, s in items)
    return value, False


@contextlib.contextmanager
def _inside(folder: Path) -> Iterator[None]:
    """The program's folder as cwd and first on sys.path, as pulumi runs it; then back."""
    # The library must stay importable under its own name once cwd has changed.
    with contextlib.suppress(ImportError):
        import gpu_fabric  # noqa: F401
    cwd, path = Path.cwd(), list(sys.path)
    os.chdir(folder)
    sys.path.insert(0, str(folder))
    try:
        yield
    finally:
        os.chdir(cwd)
        sys.path[:] = path
