"""Build hook: the wheel installs the library under the import name ``gpu_fabric``.

Why (issue 23): ``components`` is a common folder name in Pulumi projects (and a
distribution on PyPI). Installed as ``components``, the library was shadowed by a
team's own ``components/`` package, and its internal ``from components.x import``
lines then read the team's code. A thin ``gpu_fabric`` package that re-exported
``components`` would not help: the internals would still import ``components``.

So the wheel (and the sdist's wheel) copies this repository's ``components/``
folder to ``gpu_fabric/`` and renames the package inside the code: every Python
name token ``components`` and every ``components.<module>`` reference inside a
string (lazy-import tables, ``importlib.import_module(f"components.cli.{name}")``)
becomes ``gpu_fabric``. The two names have the same length, so every line and
column stays where it was (tracebacks match the source). Nothing named
``components`` is installed.

In a checkout (tests, ``python -m components``, editable installs) the code runs
as ``components``; the repository's ``gpu_fabric/`` folder is an alias of it for
examples and docs, and is not packaged. Config lives in pyproject.toml.
"""

from __future__ import annotations

import io
import re
import sys
import tokenize
from pathlib import Path

SOURCE, TARGET = "components", "gpu_fabric"
assert len(SOURCE) == len(TARGET)  # replacements keep every column
_IN_STRING = re.compile(rf"\b{SOURCE}(?=\.[A-Za-z_])")


def rename(text: str) -> str:
    """``text`` (Python source) with the package renamed from SOURCE to TARGET."""
    lines = text.splitlines(keepends=True)
    for tok in tokenize.generate_tokens(io.StringIO(text).readline):
        if tok.type == tokenize.NAME and tok.string == SOURCE:
            spans = [(tok.start, tok.string.replace(SOURCE, TARGET))]
        elif tok.type == tokenize.STRING and _IN_STRING.search(tok.string):
            spans = [(tok.start, _IN_STRING.sub(TARGET, tok.string))]
        else:
            continue
        for (row, col), new in spans:
            # A string token may span lines: rewrite it line by line from its start.
            pieces = new.splitlines(keepends=True)
            for i, piece in enumerate(pieces):
                line = lines[row - 1 + i]
                start = col if i == 0 else 0
                lines[row - 1 + i] = line[:start] + piece.rstrip("\r\n") + line[
                    start + len(piece.rstrip("\r\n")):
                ]
    return "".join(lines)


def rename_tree(src: Path, dst: Path) -> list[Path]:
    """Write the renamed copy of every ``.py`` file of ``src`` under ``dst``."""
    written = []
    for path in sorted(src.rglob("*.py")):
        if "__pycache__" in path.parts:
            continue
        out = dst / path.relative_to(src)
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(rename(path.read_text(encoding="utf-8")), encoding="utf-8")
        written.append(out)
    return written


def _setup() -> None:
    from setuptools import find_packages, setup
    from setuptools.command.build_py import build_py

    class BuildRenamed(build_py):
        """build_py, then the package rename in the built copy."""

        def build_module(self, module, module_file, package):  # type: ignore[no-untyped-def]
            outfile, copied = super().build_module(module, module_file, package)
            path = Path(outfile)
            if path.suffix == ".py" and path.is_file():
                path.write_text(rename(path.read_text(encoding="utf-8")), encoding="utf-8")
            return outfile, copied

    editable = any(arg.startswith("editable") for arg in sys.argv)
    source_packages = find_packages(include=[SOURCE, f"{SOURCE}.*"])
    data = ["py.typed", "**/*.xml", "**/*.json", "**/*.yaml"]
    if editable:
        # The checkout's own layout: components/ as is, plus the gpu_fabric alias.
        setup(packages=[*source_packages, TARGET], package_data={SOURCE: data})
        return
    setup(
        packages=[TARGET + p[len(SOURCE):] for p in source_packages],
        package_dir={TARGET: SOURCE},
        package_data={TARGET: data},
        cmdclass={"build_py": BuildRenamed},
    )


if __name__ == "__main__":
    _setup()
