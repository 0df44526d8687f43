"""Errors users see: every problem names the field path, the bad value and what is valid.

A spec is validated as a whole and all of its problems are reported together,
before any resource is created.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Problem:
    path: str
    message: str
    value: Any = None
    has_value: bool = False

    def __str__(self) -> str:
        where = cut(self.path, MAX_PATH) or "(top level)"
        message = cut(_LONG_RUN.sub(_cut_run, self.message), MAX_MESSAGE)
        if self.has_value:
            return f"{where}: {message} (got {_show(self.value)})"
        return f"{where}: {message}"

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"path": self.path, "message": self.message}
        if self.has_value:
            out["value"] = self.value
        return out


# A user's value can be any size (a 1 MB string was echoed whole): messages quote
# values, so long runs inside a message, the message and the path are cut.
MAX_PATH = 200
MAX_MESSAGE = 1000
MAX_RUN = 80
_LONG_RUN = re.compile(r"\S{" + str(MAX_RUN + 1) + ",}")


def cut(text: str, limit: int) -> str:
    """``text`` if short enough, else its head and how much was left out."""
    if len(text) <= limit:
        return text
    return f"{text[: limit - 30]}... ({len(text)} characters)"


def _cut_run(match: re.Match[str]) -> str:
    return cut(match.group(0), MAX_RUN)


def _show(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


class SpecError(ValueError):
    """A cluster spec is invalid. ``problems`` lists every problem found."""

    def __init__(self, problems: Sequence[Problem], source: str | None = None) -> None:
        self.problems = list(problems)
        self.source = source
        super().__init__(self.render())

    def render(self) -> str:
        head = f"invalid cluster spec{f' in {self.source}' if self.source else ''}"
        n = len(self.problems)
        lines = [f"{head}: {n} problem{'s' if n != 1 else ''}"]
        lines += [f"  - {p}" for p in self.problems]
        return "\n".join(lines)


def format_path(loc: Iterable[Any]) -> str:
    """``("node_pools", 0, "machine_type")`` -> ``node_pools[0].machine_type``."""
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += f".{part}" if out else str(part)
    return out
