"""Golden files: each committed stack's render and offline plan, as they are today.

Why: many tests used to restate what the builders produce (a chart version, a
DaemonSet's tolerations) to notice when it changes. A change in output is not a
bug by itself; it must be *seen*. So the whole output of every committed stack
is committed under ``tests/data/golden/<stack>/`` and compared with a fresh run:

- ``render/...``: the files ``python -m gpu_fabric render --stack S --out DIR``
  writes (the part YAMLs, ``helm/*.values.yaml``, ``layer.yaml``; not the
  hidden ``.gpu-fabric-render`` record, which only lists them);
- ``plan.json``: the stdout of ``python -m gpu_fabric plan --stack S --json``
  (already sorted by URN, dependencies and input keys; see
  tests/plan/test_plan_deterministic.py).

An intended change is accepted by re-writing the files (:data:`UPDATE`) and
reviewing the diff, as the URN lists in ``tests/data/urns/`` are. Behaviour
that must hold whatever we render (upstream chart keys, seeds, CEL, error
texts) stays in literal tests: a golden file only says "unchanged".
"""

from __future__ import annotations

import difflib
import json
import tempfile
from pathlib import Path

from gpu_fabric.plan import PlanResult, load_stack_file
from gpu_fabric.preflight import check_spec
from gpu_fabric.render import RECORD, render
from gpu_fabric.spec import load_spec

GOLDEN_DIR = Path(__file__).resolve().parents[1] / "data" / "golden"
UPDATE = "python scripts/update_golden.py  (or: make golden), then review the diff"
PLAN_FILE = "plan.json"
RENDER_DIR = "render"
# One file's diff is cut after this many lines (a pin bump shows in full; a new
# 3000-line part does not flood the test report).
MAX_DIFF_LINES = 200


def plan_json(plan: PlanResult) -> str:
    """Exactly what ``plan --stack S --json`` prints (gpu_fabric/cli/plan.py)."""
    return json.dumps(plan.to_json(), indent=2) + "\n"


def render_files(stack: str) -> dict[str, str]:
    """``render --stack S``'s files, path relative to the output folder -> text.

    The same steps as gpu_fabric/cli/render.py: load, validate, preflight, render.
    """
    stack_file = load_stack_file(stack)
    spec = load_spec(stack_file.cluster, source=str(stack_file.path))
    check_spec(spec, source=str(stack_file.path))
    with tempfile.TemporaryDirectory(prefix=f"golden-{stack}-") as tmp:
        out = Path(tmp) / "render"
        written = render(spec, out)
        return {p.relative_to(out).as_posix(): p.read_text() for p in sorted(written)}


def current_render(stack: str) -> dict[str, str]:
    """The render half of the golden files of ``stack`` as it would be written now."""
    return {f"{RENDER_DIR}/{name}": text for name, text in render_files(stack).items()}


def current(stack: str, plan: PlanResult) -> dict[str, str]:
    """Every golden file of ``stack`` as it would be written now (name -> text)."""
    return dict(sorted({**current_render(stack), PLAN_FILE: plan_json(plan)}.items()))


def committed(stack: str, root: Path = GOLDEN_DIR) -> dict[str, str]:
    """The committed golden files of ``stack`` (empty when there are none)."""
    folder = root / stack
    if not folder.is_dir():
        return {}
    return {
        p.relative_to(folder).as_posix(): p.read_text()
        for p in sorted(folder.rglob("*"))
        if p.is_file() and p.name != RECORD
    }


def differences(stack: str, now: dict[str, str], golden: dict[str, str]) -> list[str]:
    """One readable block per file that is new, gone or changed: a unified diff."""
    out = []
    for name in sorted(now.keys() | golden.keys()):
        if name not in golden:
            out.append(f"{stack}/{name}: new file (not in the golden files)")
        elif name not in now:
            out.append(f"{stack}/{name}: no longer produced")
        elif now[name] != golden[name]:
            diff = list(difflib.unified_diff(
                golden[name].splitlines(), now[name].splitlines(),
                f"golden/{stack}/{name}", f"now/{stack}/{name}", lineterm="",
            ))
            if len(diff) > MAX_DIFF_LINES:
                cut = len(diff) - MAX_DIFF_LINES
                diff = [*diff[:MAX_DIFF_LINES], f"... {cut} more diff lines"]
            out.append("\n".join(diff))
    return out


def write(stack: str, files: dict[str, str], root: Path = GOLDEN_DIR) -> list[str]:
    """Make ``root/stack`` hold exactly ``files``; returns the names that changed."""
    folder = root / stack
    before = committed(stack, root)
    for name in sorted(before.keys() - files.keys()):
        (folder / name).unlink()
    for name, text in files.items():
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if before.get(name) != text:
            path.write_text(text)
    for sub in sorted(folder.rglob("*"), reverse=True):  # folders a removed file left empty
        if sub.is_dir() and not any(sub.iterdir()):
            sub.rmdir()
    return sorted(n for n in files.keys() | before.keys() if before.get(n) != files.get(n))
