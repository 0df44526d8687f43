"""The project's ``scripts/*.py`` loaded as modules, for tests of their functions.

Why here: scripts/ is not a package (each file runs on its own), so a test imports one by
its path; every test that did so carried the same five lines.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

SCRIPTS = Path(__file__).resolve().parents[2] / "scripts"


def load_script(name: str) -> ModuleType:
    """``scripts/<name>.py`` as a module named ``name``. It is registered in
    ``sys.modules`` first: a script's dataclasses look their module up there."""
    spec = importlib.util.spec_from_file_location(name, SCRIPTS / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module
