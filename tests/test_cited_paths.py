"""Every test file the library, the docs and the scripts cite exists.

Docstrings and docs point readers at the test that pins a rule
(``tests/catalog/test_catalog_rows.py``...); the test tree mirrors the source tree
(issue 28), so a move must carry the citations along.
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CITED = re.compile(r"\btests/[A-Za-z0-9_/]+\.py\b")
WHERE = ("components", "docs", "scripts", "policy", "tests")


def _citations(text: str) -> list[str]:
    return CITED.findall(text)


def test_the_pattern_finds_a_citation() -> None:
    assert _citations("see ``tests/clouds/test_toy_cloud.py`` and tests/x.pyc") == [
        "tests/clouds/test_toy_cloud.py",
    ]


def test_every_cited_test_file_exists() -> None:
    files = [ROOT / "README.md", *(p for d in WHERE for p in (ROOT / d).rglob("*")
                                    if p.suffix in (".py", ".md", ".yaml") and p.is_file())]
    upstream = ROOT / "tests" / "data" / "upstream"  # upstream's own files, their paths
    missing = sorted(
        f"{path.relative_to(ROOT)}: {cited}"
        for path in files if upstream not in path.parents
        for cited in _citations(path.read_text(errors="replace"))
        if not (ROOT / cited).exists()
    )
    assert missing == []
