"""Loading YAML a user hands us without letting the file choose how much work it costs.

A stack file is a few KB. Three things could make one expensive or crash the
reader, and each is refused with a :class:`~gpu_fabric.errors.SpecError`:

* size: files over :data:`MAX_BYTES` are not read at all (a 50 MB file took
  over a minute with the pure-Python loader);
* aliases: YAML anchors are shared when loaded, but everything after loading
  (validation, JSON for the Pulumi config) walks the expanded tree, so a 1 KB
  "billion laughs" file cost minutes and hundreds of MB. The composed node
  graph is measured *before* any Python object is built: more than
  :data:`MAX_NODES` nodes once aliases are expanded is refused;
* depth: nesting deeper than :data:`MAX_DEPTH` (a stack file needs about 8)
  would overflow Python's recursion in the constructor or the validator;
* duplicate keys: a key written twice in one mapping is refused (YAML keeps the
  last one silently: another cluster, 200 nodes).

The C loader (``yaml.CSafeLoader``, libyaml) parses when PyYAML was built with
it; the pure-Python ``SafeLoader`` is the fallback.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from gpu_fabric.errors import Problem, SpecError

MAX_BYTES = 1024 * 1024
MAX_NODES = 100_000
MAX_DEPTH = 64

Loader: type[yaml.SafeLoader] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def read_text_bounded(file: Path, limit: int = MAX_BYTES) -> str:
    """``file`` as UTF-8 text; a SpecError when it is too big, unreadable, not a regular
    file (a FIFO blocked the read, a device read without end) or not UTF-8."""
    from gpu_fabric.files import read_bytes_bounded

    source = str(file)
    try:
        size = file.stat().st_size
        if size > limit and file.is_file():
            raise SpecError([Problem(
                "", f"the file is {size} bytes; stack files are limited to {limit} bytes "
                "(a stack file holds one cluster spec of a few KB)",
            )], source)
        data = read_bytes_bounded(file, limit)
    except IsADirectoryError:
        raise SpecError([Problem("", "cannot read the file: Is a directory")],
                        source) from None
    except OSError as exc:
        raise SpecError([Problem("", f"cannot read the file: {exc.strerror or exc}")],
                        source) from None
    return decode_utf8(data, source)


def load_file(file: Path, limit: int = MAX_BYTES) -> Any:
    """A YAML file a user names (a Pulumi.yaml, a stack file), read and loaded with
    every bound of this module (SpecError otherwise)."""
    return load_bounded(read_text_bounded(file, limit), str(file))


def decode_utf8(data: bytes, source: str) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise SpecError([Problem(
            f"{source}:{line}",
            f"the file is not UTF-8 (byte 0x{data[exc.start]:02x} at offset {exc.start}); "
            "save it as UTF-8",
        )], source) from None


def load_bounded(
    text: str, source: str, *, max_nodes: int = MAX_NODES, max_depth: int = MAX_DEPTH
) -> Any:
    """``yaml.safe_load(text)``, refusing alias bombs and deep nesting before construction."""
    if len(text) > MAX_BYTES:
        raise SpecError([Problem("", f"the text is over {MAX_BYTES} bytes")], source)
    loader = Loader(text)
    try:
        _check_depth(text, source, max_depth)
        node = loader.get_single_node()
        if node is None:
            return None
        _measure(node, source, max_nodes, max_depth)
        return loader.construct_document(node)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"{source}:{mark.line + 1}:{mark.column + 1}" if mark else source
        reason = getattr(exc, "problem", None) or str(exc)
        raise SpecError([Problem(where, f"YAML syntax error: {reason}")], source) from None
    except RecursionError:
        raise SpecError([Problem(
            "", f"the YAML is nested too deeply (a stack file needs fewer than {max_depth} "
            "levels)",
        )], source) from None
    finally:
        loader.dispose()


def _check_depth(text: str, source: str, max_depth: int) -> None:
    """Refuse deep nesting from the parser's events, before the composer recurses into it.

    libyaml's parser is iterative, but the composer (C or Python) recurses once
    per level: 100 000 nested ``[`` crashed the interpreter (SIGSEGV in the C
    composer), so depth is checked on the event stream first.
    """
    events = Loader(text)
    try:
        depth = 0
        while events.check_event():
            event = events.get_event()
            if isinstance(event, yaml.CollectionStartEvent):
                depth += 1
                if depth > max_depth:
                    raise SpecError([Problem(
                        _where(event, source),
                        f"the YAML is nested more than {max_depth} levels deep; a stack file "
                        "needs about 8",
                    )], source)
            elif isinstance(event, yaml.CollectionEndEvent):
                depth -= 1
    finally:
        events.dispose()


def _measure(root: yaml.Node, source: str, max_nodes: int, max_depth: int) -> None:
    """Count nodes with aliases expanded and the depth, iteratively (no recursion).

    A node reached again through an alias counts again, as every later walk of
    the loaded data would visit it again; the count stops at ``max_nodes``.
    """
    seen = 0
    stack: list[tuple[yaml.Node, int]] = [(root, 1)]
    while stack:
        node, depth = stack.pop()
        seen += 1
        if seen > max_nodes:
            raise SpecError([Problem(
                _where(node, source),
                f"the YAML expands to more than {max_nodes} values (anchors and aliases "
                "repeated inside each other: an alias bomb); write the values out",
            )], source)
        if depth > max_depth:
            raise SpecError([Problem(
                _where(node, source),
                f"the YAML is nested more than {max_depth} levels deep; a stack file needs "
                "about 8",
            )], source)
        if isinstance(node, yaml.SequenceNode):
            stack.extend((child, depth + 1) for child in node.value)
        elif isinstance(node, yaml.MappingNode):
            _no_duplicate_keys(node, source)
            for key, value in node.value:
                stack.append((key, depth + 1))
                stack.append((value, depth + 1))


MERGE = "tag:yaml.org,2002:merge"


def _no_duplicate_keys(node: yaml.MappingNode, source: str) -> None:
    """Refuse a key written twice in one mapping: YAML loaders keep the last silently
    (``node_count: 2`` then ``node_count: 200`` gave 200 nodes). Keys a ``<<`` merge
    brings in may be overridden, as YAML intends."""
    first: dict[tuple[str, str], yaml.Node] = {}
    for key, _ in node.value:
        if not isinstance(key, yaml.ScalarNode) or key.tag == MERGE:
            continue
        seen = first.setdefault((key.tag, key.value), key)
        if seen is not key:
            raise SpecError([Problem(
                _where(key, source),
                f"the key '{key.value[:80]}' is written twice in the same mapping (first "
                f"at line {seen.start_mark.line + 1}); YAML would keep only the last one "
                "silently: remove one",
            )], source)


def _where(node: yaml.Node | yaml.Event, source: str) -> str:
    mark = node.start_mark
    return f"{source}:{mark.line + 1}:{mark.column + 1}" if mark else source
