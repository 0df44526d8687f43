"""Input paths of a plan (``a.b[2].c``) reduced for matching against provider facts.

One module for it because both the diff (replacing and ignored inputs) and the day-2
verdict (rolling and control-plane inputs) match paths the same way.
"""

from __future__ import annotations


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
