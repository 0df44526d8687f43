"""``make plan-json > plan.json`` writes JSON and only JSON (issue 36: make echoed the
command line first, and a first run's install messages went to stdout)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")
def test_make_plan_json_stdout_is_the_plan(tmp_path: Path) -> None:
    # A venv stand-in whose python is this one, already "installed" (the stamps make
    # checks are newer than pyproject.toml), so make runs only the plan.
    venv = tmp_path / "venv"
    (venv / "bin").mkdir(parents=True)
    python = venv / "bin" / "python"
    python.write_text(f'#!/bin/sh\nexec {sys.executable} "$@"\n')
    python.chmod(0o755)
    for stamp in (".installed-digitalocean", ".installed-dev"):
        (venv / stamp).touch()
    env = {**os.environ, "PYTHONPATH": f"{ROOT / 'components'}{os.pathsep}{ROOT / 'policy'}"}
    done = subprocess.run(
        ["make", "--no-print-directory", "-C", str(ROOT), "plan-json", f"VENV={venv}",
         "STACK=existing"],
        capture_output=True, text=True, env=env, timeout=300,
    )
    assert done.returncode == 0, done.stderr
    plan = json.loads(done.stdout)  # the whole stdout parses: nothing before or after
    assert plan["stack"] == "existing"
    assert {"stack", "resources", "outputs"} <= set(plan)  # the contract keys
