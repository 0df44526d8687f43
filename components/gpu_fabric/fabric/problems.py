"""Raising spec problems found while deriving things from a valid spec."""

from __future__ import annotations

from typing import Any, NoReturn

from gpu_fabric.errors import Problem, SpecError


def refuse(path: str, message: str, value: Any = None) -> NoReturn:
    """Stop with one spec problem (before any resource is created)."""
    raise SpecError([Problem(path, message, value, value is not None)])
