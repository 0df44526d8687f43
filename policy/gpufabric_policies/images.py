"""Every container image pinned by tag or digest, every chart by version.

``:latest`` and untagged images change under a running cluster: a node that
joins next month pulls a different driver or device plugin than its peers, and
a fabric that passed NCCL tests silently degrades.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from gpufabric_policies.props import get, items, mappings

_CONTAINER_LISTS = ("containers", "initContainers", "ephemeralContainers")
HELM_TYPES = ("kubernetes:helm.sh/v3:Release", "kubernetes:helm.sh/v4:Chart")


def image_tag(image: str) -> str | None:
    """The tag of an image reference, ``"@digest"`` for a digest, None when untagged."""
    if "@" in image:
        return "@" + image.split("@", 1)[1]
    last = image.rsplit("/", 1)[-1]  # a registry port (host:5000/...) is not a tag
    return last.split(":", 1)[1] if ":" in last else None


# Tags that name a branch or a channel, not a release: they move like :latest does.
MUTABLE_TAGS = frozenset({
    "latest", "main", "master", "stable", "edge", "nightly", "dev", "develop", "head",
    "canary", "current", "rolling", "testing", "unstable", "beta", "alpha", "snapshot",
})


def is_mutable(tag: str) -> bool:
    return tag.strip().lower() in MUTABLE_TAGS


def unpinned_reason(image: str) -> str | None:
    """Why ``image`` is not pinned, or None when it is."""
    tag = image_tag(image)
    if tag is None:
        return "has no tag (resolves to :latest)"
    if tag == "" or is_mutable(tag):
        return f"uses the moving tag :{tag or 'latest'}"
    return None


def _containers(value: Any, path: str) -> Iterator[tuple[str, Mapping[str, Any]]]:
    """Every container mapping anywhere in ``value`` (pod specs, templates, CR bodies)."""
    if isinstance(value, Mapping):
        for key in value:
            child = value[key]
            if key in _CONTAINER_LISTS:
                for i, item in enumerate(mappings(child)):
                    yield f"{path}.{key}[{i}]", item
            else:
                yield from _containers(child, f"{path}.{key}")
    else:
        for i, item in enumerate(items(value)):
            yield from _containers(item, f"{path}[{i}]")


def _helm_latest_tags(value: Any, path: str) -> Iterator[str]:
    """Chart values that ask for a moving tag: ``tag: latest``, ``tag: main``,
    ``operator: {version: latest}``, or an ``image:`` string on one."""
    if isinstance(value, Mapping):
        for key in value:
            child = value[key]
            if key in ("tag", "version") and isinstance(child, str) and is_mutable(child):
                yield f"{path}.{key}"
            elif key == "image" and isinstance(child, str) and (
                    is_mutable(image_tag(child) or "")):
                yield f"{path}.image"
            else:
                yield from _helm_latest_tags(child, f"{path}.{key}")
    else:
        for i, item in enumerate(items(value)):
            yield from _helm_latest_tags(item, f"{path}[{i}]")


def _helm(props: Mapping[str, Any]) -> list[str]:
    out = []
    chart = str(get(props, "chart") or "")
    local = chart.startswith((".", "/")) and not chart.startswith("oci://")
    if not local and not str(get(props, "version") or "").strip():
        out.append(f"chart {chart or '?'} has no version: pin it (version: x.y.z)")
    for where in _helm_latest_tags(get(props, "values"), "values"):
        out.append(f"{where} uses a moving tag (latest, main, stable...): pin a release")
    return out


def unpinned_images(resource_type: str, props: Mapping[str, Any]) -> list[str]:
    """Violations of "images pinned to a version" for one resource (empty: compliant)."""
    if resource_type in HELM_TYPES:
        return _helm(props)
    if not resource_type.startswith("kubernetes:"):
        return []
    out = []
    for where, container in _containers(props, ""):
        image = get(container, "image")
        if not isinstance(image, str):
            continue  # a patch (Kyverno, strategic merge) may name a container without image
        reason = unpinned_reason(image)
        if reason:
            out.append(f"{where.lstrip('.')}.image {image} {reason}: pin a version tag or digest")
    return out
