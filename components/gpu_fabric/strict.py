"""Integers in a spec are integers and booleans are booleans: ``node_count: true`` is
refused, not read as 1, and ``enabled: "false"`` is refused, not read as False.

YAML turns ``true``/``yes`` into booleans and pydantic's lax mode turns a
boolean (or the string ``"2"``, or ``2.0``) into an int, so a typo became a
one-node pool. :func:`strict_int` is a ``mode="before"`` field validator the
spec's base models apply to every field whose type is ``int`` or ``int | None``; the same
validator holds ``bool`` fields to YAML's ``true``/``false`` (pydantic's lax mode read
``"no"``, ``"off"``, ``0`` and ``1.0`` as booleans: issue 34).
"""

from __future__ import annotations

import types
from typing import Any, Union, get_args, get_origin

from pydantic import ValidationInfo
from pydantic_core import PydanticCustomError


def _is_annotation(annotation: Any, kind: type) -> bool:
    if annotation is kind:
        return True
    if get_origin(annotation) in (Union, types.UnionType):
        args = [a for a in get_args(annotation) if a is not type(None)]
        return args == [kind]
    return False


def is_int_annotation(annotation: Any) -> bool:
    return _is_annotation(annotation, int)


def is_bool_annotation(annotation: Any) -> bool:
    return _is_annotation(annotation, bool)


def strict_int(model: Any, value: Any, info: ValidationInfo) -> Any:
    """Refuse anything but a real integer (or null) for an ``int`` field of ``model``."""
    field = model.model_fields.get(info.field_name or "")
    if field is not None and is_bool_annotation(field.annotation):
        if value is None or isinstance(value, bool):
            return value
        raise PydanticCustomError(
            "strict_bool",
            "must be true or false written without quotes, not {kind} {shown}",
            {"kind": type(value).__name__, "shown": repr(value)[:40]},
        )
    if field is None or not is_int_annotation(field.annotation):
        return value
    if value is None or (isinstance(value, int) and not isinstance(value, bool)):
        return value
    raise PydanticCustomError(
        "strict_int",
        "must be a whole number written without quotes (e.g. 2), not {kind} {shown}",
        {"kind": type(value).__name__, "shown": repr(value)[:40]},
    )
