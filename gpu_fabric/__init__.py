"""``gpu_fabric`` in a checkout of this repository: an alias of ``components``.

The installed wheel holds the library itself under this name (see setup.py: the
build renames ``components`` to ``gpu_fabric``, so a team's own ``components/``
package cannot shadow it). In the repository the code stays in ``components/``;
this alias lets examples and docs say ``import gpu_fabric as gf`` here too:
``gpu_fabric`` and ``gpu_fabric.<module>`` are the very ``components`` module
objects (no second copy, so classes and exceptions are shared). Not packaged.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import sys
import types
from collections.abc import Sequence

import components as _library

_PREFIX = __name__ + "."


class _AliasFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """``gpu_fabric.x.y`` -> the already importable ``components.x.y`` module."""

    def find_spec(
        self,
        fullname: str,
        path: Sequence[str] | None = None,
        target: types.ModuleType | None = None,
    ) -> importlib.machinery.ModuleSpec | None:
        if not fullname.startswith(_PREFIX):
            return None
        real = importlib.util.find_spec("components." + fullname[len(_PREFIX):])
        if real is None:
            return None
        return importlib.machinery.ModuleSpec(fullname, self, origin=real.origin)

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> types.ModuleType:
        return importlib.import_module("components." + spec.name[len(_PREFIX):])

    def exec_module(self, module: types.ModuleType) -> None:
        """The module ran when ``components.*`` imported it."""

    def get_code(self, fullname: str) -> types.CodeType | None:
        """For ``python -m gpu_fabric``: runpy runs ``components/__main__.py``'s code."""
        spec = importlib.util.find_spec("components." + fullname[len(_PREFIX):])
        if spec is None or spec.loader is None or not hasattr(spec.loader, "get_code"):
            return None
        code: types.CodeType | None = spec.loader.get_code(spec.name)
        return code


if not any(isinstance(f, _AliasFinder) for f in sys.meta_path):
    sys.meta_path.insert(0, _AliasFinder())
sys.modules[__name__] = _library
