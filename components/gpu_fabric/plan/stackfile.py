"""Reading ``stacks/Pulumi.<name>.yaml`` the way the pulumi CLI would hand it to the program."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gpu_fabric.errors import Problem, SpecError
from gpu_fabric.plan.project import stacks_dir

PROJECT = "gpu-fabric"
CLUSTER_KEY = f"{PROJECT}:cluster"
REPO_ROOT = Path(__file__).resolve().parents[3]
STACKS_DIR = REPO_ROOT / "stacks"  # this repository's; commands use stacks_dir() (cwd)
SECRET_PLACEHOLDER = "[secret from stack config]"


@dataclass
class StackFile:
    name: str
    path: Path | None
    config: dict[str, Any]
    secret_keys: list[str] = field(default_factory=list)

    @property
    def cluster(self) -> Any:
        return self.config.get(CLUSTER_KEY)

    def pulumi_config(self) -> dict[str, str]:
        """Config as the Pulumi runtime holds it: strings, structured values as JSON."""
        out = {}
        for key, value in self.config.items():
            full = key if ":" in key else f"{PROJECT}:{key}"
            out[full] = value if isinstance(value, str) else json.dumps(value)
        return out


# Pulumi stack names "may only contain alphanumeric, hyphens, underscores, or periods"
# (https://www.pulumi.com/docs/iac/concepts/stacks/): no path separator, so
# `--stack x/../../outside` cannot name a file outside the stack folder.
STACK_NAME = re.compile(r"[A-Za-z0-9_.-]{1,100}", re.ASCII)


def check_stack_name(name: str) -> str:
    """``name``, or a SpecError naming --stack when Pulumi would refuse it."""
    if not STACK_NAME.fullmatch(name) or name in (".", ".."):
        raise SpecError([Problem(
            "--stack", f"'{name[:80]}' is not a stack name: letters, digits, '-', '_' and "
            "'.' only (no path separators); a file elsewhere is read with --config FILE",
        )])
    return name


def check_file_stack_name(file: Path) -> str:
    """The stack name a ``--config`` file gives (``Pulumi.<stack>.yaml``, else its stem),
    or a SpecError naming --config when Pulumi would refuse that name (issue 34): the
    plan and the URNs are the stack's, and ``pulumi stack init`` refuses the name."""
    name = _stack_name_from(file)
    if not STACK_NAME.fullmatch(name) or name in (".", ".."):
        raise SpecError([Problem(
            "--config", f"the file name {file.name[:80]!r} gives the stack name "
            f"{name[:80]!r}, which Pulumi refuses: a stack name has 1 to 100 letters, "
            "digits, '-', '_' and '.'; rename the file (Pulumi.<stack>.yaml)",
        )])
    return name


def stack_path(name: str, root: Path | None = None) -> Path:
    """``root`` (default: the stack folder of the working directory's project)."""
    return (root or stacks_dir()) / f"Pulumi.{check_stack_name(name)}.yaml"


def available_stacks(root: Path | None = None) -> list[str]:
    return sorted(
        p.name[len("Pulumi.") : -len(".yaml")] for p in (root or stacks_dir()).glob("Pulumi.*.yaml")
    )


def load_stack_file(
    name: str | None = None, path: str | Path | None = None, root: Path | None = None
) -> StackFile:
    """Load a stack by name (``stacks/Pulumi.<name>.yaml``) or by file path."""
    if (name is None) == (path is None):
        raise ValueError("give a stack name or a file path")
    file = Path(path) if path is not None else stack_path(str(name), root)
    stack = name or check_file_stack_name(file)
    if not file.exists() or file.is_dir():  # a FIFO or device: refused by the bounded read
        known = ", ".join(available_stacks(root)) or "none"
        raise SpecError([Problem("", f"no stack file {file} (stacks: {known})")])
    return parse_stack_text(read_stack_bytes(file), stack, file)


def read_stack_bytes(file: Path) -> str:
    """The text of a stack file: bounded in size, UTF-8, readable (else a SpecError)."""
    from gpu_fabric.plan.safe_yaml import read_text_bounded

    return read_text_bounded(file)


def parse_stack_text(text: str, stack: str, path: Path | None = None) -> StackFile:
    from gpu_fabric.plan.safe_yaml import load_bounded

    source = str(path) if path else stack
    doc = load_bounded(text, source)
    if not isinstance(doc, dict) or not isinstance(doc.get("config"), dict):
        raise SpecError(
            [Problem("config", "a stack file needs a top-level 'config:' mapping")], source
        )
    from gpu_fabric.plan.plaintext_secrets import plaintext_problems

    raw = {(str(k) if ":" in str(k) else f"{PROJECT}:{k}"): v for k, v in doc["config"].items()}
    leaks = plaintext_problems(raw)
    if leaks:
        raise SpecError(leaks, source)
    config: dict[str, Any] = {}
    secret_keys: list[str] = []
    for key, value in doc["config"].items():
        full = str(key) if ":" in str(key) else f"{PROJECT}:{key}"
        masked, had_secret = _mask_secure(value)
        config[full] = masked
        if had_secret:
            secret_keys.append(full)
    if CLUSTER_KEY not in config:
        raise SpecError(
            [Problem(CLUSTER_KEY, "required key is missing: the cluster spec lives under it")],
            source,
        )
    return StackFile(stack, path, config, secret_keys)


def _mask_secure(value: Any) -> tuple[Any, bool]:
    """``{secure: v1:...}`` cannot be decrypted offline: use a placeholder, mark secret."""
    if isinstance(value, dict):
        if set(value) == {"secure"}:
            return SECRET_PLACEHOLDER, True
        items = {k: _mask_secure(v) for k, v in value.items()}
        return {k: v for k, (v, _) in items.items()}, any(s for _, s in items.values())
    if isinstance(value, list):
        pairs = [_mask_secure(v) for v in value]
        return [v for v, _ in pairs], any(s for _, s in pairs)
    return value, False


def _stack_name_from(file: Path) -> str:
    name = file.name
    if name.startswith("Pulumi.") and name.endswith((".yaml", ".yml")):
        return name[len("Pulumi.") :].rsplit(".", 1)[0]
    return file.stem
