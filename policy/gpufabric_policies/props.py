"""Reading resource inputs the way the policy SDK hands them over.

The SDK wraps inputs in read-only ``Mapping``/``Sequence`` proxies (not ``dict``/
``list``) that raise ``UnknownValueError`` when an unknown value is touched during a
preview; the SDK turns that into an advisory "can't run policy during preview"
note. Helpers here therefore test for the abstract types only.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping, Sequence
from typing import Any


def snake(name: str) -> str:
    """``sourceRanges`` -> ``source_ranges`` (programs run under mocks may use either)."""
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


def get(props: Any, *path: str) -> Any:
    """The value at ``path`` (wire names, snake_case accepted too), or None."""
    value = props
    for key in path:
        if not isinstance(value, Mapping):
            return None
        if key in value:
            value = value[key]
        elif snake(key) in value:
            value = value[snake(key)]
        else:
            return None
    return value


def items(value: Any) -> list[Any]:
    """A list input as a Python list (None and non-lists give an empty list)."""
    if isinstance(value, Sequence) and not isinstance(value, str | bytes):
        return [value[i] for i in range(len(value))]
    return []


def mappings(value: Any) -> Iterator[Mapping[str, Any]]:
    """The mapping elements of a list input."""
    for item in items(value):
        if isinstance(item, Mapping):
            yield item


def strings(value: Any) -> list[str]:
    """A string or list of strings as a list of strings."""
    if isinstance(value, str):
        return [value]
    return [v for v in items(value) if isinstance(v, str)]
