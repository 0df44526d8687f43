"""Input paths of a plan (``a.b[2].c``) reduced for matching against provider facts.

One module for it because both the diff (replacing and ignored inputs) and the day-2
verdict (rolling and control-plane inputs) match paths the same way.
"""

from __future__ import annotations

from collections.abc import Iterable


def normalize(path: str) -> str:
    """``a[3].b`` -> ``a.b``: replacement prefixes ignore list indices."""
    out, depth = [], 0
    for ch in path:
        if ch == "[":
            depth += 1
        elif ch == "]":
            depth -= 1
        elif depth == 0:
            out.append(ch)
    return "".join(out)


def at_or_under(path: str, prefixes: Iterable[str]) -> bool:
    """Whether ``path`` is one of ``prefixes`` or below one, whole segments only, list
    indices ignored on both sides (``a[3].b`` is under ``a[*].b`` and ``a``; ``ab`` is
    not under ``a``): how replacing, ignored, rolling and refused inputs all match."""
    norm = normalize(path)
    return any(norm == p or norm.startswith(p + ".") for p in map(normalize, prefixes))
