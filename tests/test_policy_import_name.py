"""The policy pack's validators use the installed library (``gpu_fabric``) first.

The wheel installs the library as ``gpu_fabric`` (setup.py); a pack virtualenv
with the wheel and a team repository with its own ``components`` package must
still get the catalog. Same renamed build as tests/test_import_name.py.
"""

from __future__ import annotations

import os
import runpy
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SETUP = runpy.run_path(str(ROOT / "setup.py"), run_name="gpu_fabric_setup")


def test_validators_read_the_installed_gpu_fabric(tmp_path: Path) -> None:
    site = tmp_path / "site"
    SETUP["rename_tree"](ROOT / "components", site / "gpu_fabric")
    team = tmp_path / "team"
    (team / "components").mkdir(parents=True)
    (team / "components" / "__init__.py").write_text("TEAM = True\n")
    code = (
        "import sys\n"
        "from gpufabric_policies import devices, taints\n"
        "print(devices.Cloud.__module__)\n"
        "print(taints.GPU_TAINT_KEYS is sys.modules['gpu_fabric.fabric.taints'].GPU_TAINT_KEYS)\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] == 'components'))\n"
    )
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(site), str(ROOT / "policy")])}
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=team, env=env, capture_output=True, text=True,
        check=False,
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines() == [
        "gpu_fabric.catalog.model",  # where Cloud is defined (components/catalog/model.py)
        "True",
        "[]",
    ]
