"""The installed library is ``gpu_fabric``: a team's own ``components`` cannot shadow it.

setup.py builds the wheel from components/ renamed to gpu_fabric. These tests
run the same renaming (setup.rename_tree, what the build calls per file) into a
temporary folder and use that copy from a "team repository" that has its own
``components`` package first on sys.path, as a Pulumi project often does.
"""

from __future__ import annotations

import io
import os
import runpy
import subprocess
import sys
import tokenize
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SETUP = runpy.run_path(str(ROOT / "setup.py"), run_name="gpu_fabric_setup")


def test_rename_touches_names_and_module_strings_only() -> None:
    src = (
        'import components as gf\n'
        'from components.cli import main  # components\n'
        'X = {"a": "components.clouds.gcp.cluster:GcpGpuCluster"}\n'
        'm = f"components.cli.{name}"\n'
        '"""Pulumi components for GPU clusters."""\n'
    )
    assert SETUP["rename"](src) == (
        'import gpu_fabric as gf\n'
        'from gpu_fabric.cli import main  # components\n'
        'X = {"a": "gpu_fabric.clouds.gcp.cluster:GcpGpuCluster"}\n'
        'm = f"gpu_fabric.cli.{name}"\n'
        '"""Pulumi components for GPU clusters."""\n'
    )


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    site = tmp_path_factory.mktemp("site")
    SETUP["rename_tree"](ROOT / "components", site / "gpu_fabric")
    return site


def test_renamed_tree_has_no_components_import(built: Path) -> None:
    for path in (built / "gpu_fabric").rglob("*.py"):
        text = path.read_text()
        names = [
            t.string for t in tokenize.generate_tokens(io.StringIO(text).readline)
            if t.type == tokenize.NAME
        ]
        assert "components" not in names, path
        compile(text, str(path), "exec")


def test_team_components_package_does_not_shadow_the_library(
    built: Path, tmp_path: Path
) -> None:
    team = tmp_path / "team"
    (team / "components").mkdir(parents=True)
    (team / "components" / "__init__.py").write_text("TEAM = True\n")
    code = (
        "import sys, components, gpu_fabric as gf\n"
        "from gpu_fabric.plan import run_spec\n"
        "assert components.TEAM\n"
        "spec = {'name': 't', 'cloud': 'digitalocean', 'location': {'region': 'nyc2'},\n"
        "        'api_access': {'authorized_cidrs': ['203.0.113.0/24']},\n"
        "        'node_pools': [{'name': 'g', 'node_count': 2,\n"
        "                        'machine_type': 'gpu-h200x8-1128gb-fabric-contracted'}]}\n"
        "plan = run_spec(spec)\n"
        "print(gf.__file__)\n"
        "print(len(plan.resources))\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] == 'components'))\n"
    )
    env = {**os.environ, "PYTHONPATH": str(built)}
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=team, env=env, capture_output=True, text=True,
        check=False,
    )
    assert out.returncode == 0, out.stderr
    where, count, modules = out.stdout.splitlines()
    assert where == str(built / "gpu_fabric" / "__init__.py")
    assert int(count) > 10
    assert modules == "['components']"  # only the team's own package


def test_checkout_alias_is_the_same_module() -> None:
    import components
    import gpu_fabric
    from components.plan import run_plan
    from gpu_fabric.plan import run_plan as aliased

    assert gpu_fabric is components and aliased is run_plan
