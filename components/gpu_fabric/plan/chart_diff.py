"""Which Kubernetes objects a changed Helm release changes, for ``gpu-fabric diff``.

Why: the plan diff shows a chart bump as ``version: 3.6.1 -> 3.7.0`` and a values
change as a changed ``values`` path; a reviewer cannot see from that which
Deployments, webhooks or RBAC objects move. Each side's release is rendered
with the real ``helm`` from that side's vendored archive (``charts/<name>-<version>.tgz``,
read from the working tree or from the git ref being compared), and the objects
are compared by apiVersion, kind, namespace and name.

A release is left unrendered, with the reason, when ``helm`` is missing or a
side's archive is not vendored (e.g. a team's repository, or a pin bumped
without ``scripts/vendor_charts.py``); the plan diff itself is unaffected.
"""

from __future__ import annotations

import subprocess
import tempfile
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from gpu_fabric.plan import day2, helm_render

# name of an archive in charts/ -> its bytes, or None when that side has none
ArchiveReader = Callable[[str], bytes | None]


def tree_reader(root: Path) -> ArchiveReader:
    """Archives from a checkout's ``charts/`` folder."""

    def read(name: str) -> bytes | None:
        path = root / helm_render.CHARTS_DIR / name
        return path.read_bytes() if path.is_file() else None

    return read


def git_reader(top: Path, ref: str) -> ArchiveReader:
    """Archives from ``charts/`` at a git ref of the repository at ``top``."""

    def read(name: str) -> bytes | None:
        shown = subprocess.run(
            ["git", "-C", str(top), "show", f"{ref}:{helm_render.CHARTS_DIR}/{name}"],
            capture_output=True, check=False,
        )
        return shown.stdout if shown.returncode == 0 else None

    return read


def _releases(plan: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    return {
        str(r["urn"]): dict(r.get("inputs") or {})
        for r in plan.get("resources", [])
        if r.get("type") == helm_render.RELEASE_TYPE
    }


def _render(helm: str, read: ArchiveReader, inputs: Mapping[str, Any]
            ) -> list[dict[str, Any]] | str:
    """The release's objects, or why they could not be rendered."""
    name = helm_render.chart_ref(inputs).archive
    data = read(name)
    if data is None:
        return f"{name} is not vendored in charts/"
    with tempfile.TemporaryDirectory(prefix="gpu-fabric-chart-") as tmp:
        archive = Path(tmp) / name
        archive.write_bytes(data)
        try:
            return helm_render.template(helm, archive, inputs)
        except (helm_render.HelmError, OSError, subprocess.SubprocessError) as exc:
            return str(exc)


def release_changes(base: Mapping[str, Any], head: Mapping[str, Any],
                    read_base: ArchiveReader, read_head: ArchiveReader,
                    helm: str | None = None) -> list[dict[str, Any]]:
    """One entry per Release whose chart, version or values differ between the plans.

    Each entry: ``urn``, ``release``, ``chart``, ``base_version``, ``head_version``
    (``None`` for a side without the release), and either ``objects`` (from
    :func:`gpu_fabric.plan.helm_render.object_changes`) or ``not_rendered`` (why).
    """
    before, after = _releases(base), _releases(head)
    helm = helm or helm_render.find_helm()
    out = []
    for urn in sorted(before.keys() | after.keys()):
        old, new = before.get(urn), after.get(urn)
        if old == new:
            continue
        either = new if new is not None else old
        assert either is not None
        entry: dict[str, Any] = {
            "urn": urn,
            "release": either.get("name"),
            "chart": helm_render.chart_ref(either).name,
            "base_version": None if old is None else old.get("version"),
            "head_version": None if new is None else new.get("version"),
        }
        if helm is None:
            entry["not_rendered"] = "no helm binary (make install puts one in .venv/bin)"
            out.append(entry)
            continue
        before_objects = [] if old is None else _render(helm, read_base, old)
        after_objects = [] if new is None else _render(helm, read_head, new)
        if isinstance(before_objects, str) or isinstance(after_objects, str):
            entry["not_rendered"] = "; ".join(
                s for s in (before_objects, after_objects) if isinstance(s, str))
        else:
            entry["objects"] = helm_render.object_changes(before_objects, after_objects)
        out.append(entry)
    return out


def to_markdown(changes: list[dict[str, Any]], max_objects: int = 30) -> str:
    """A section for the PR comment: each release and the objects it changes."""
    if not changes:
        return ""
    lines = ["", "### Helm releases: rendered objects that change", ""]
    for entry in changes:
        versions = f"{entry['base_version'] or '(new)'} -> {entry['head_version'] or '(removed)'}"
        lines.append(f"- `{entry['release']}` ({entry['chart']} {versions})")
        if "not_rendered" in entry:
            lines.append(f"  - not rendered: {entry['not_rendered']}")
            continue
        objects = entry["objects"]
        if not objects:
            lines.append("  - no rendered object changes")
        for obj in objects[:max_objects]:
            where = f"{obj['namespace']}/" if obj["namespace"] else ""
            lines.append(f"  - {obj['change']}: {obj['kind']} {where}{obj['name']}"
                         f"{_pods(obj)}")
        if len(objects) > max_objects:
            lines.append(f"  - ... and {len(objects) - max_objects} more")
    return "\n".join(lines)


def _pods(obj: Mapping[str, Any]) -> str:
    """What a changed workload does to its pods (the day-2 question of a chart bump)."""
    if "pods_replaced" not in obj:
        return ""
    if not obj["pods_replaced"]:
        return " (pod template unchanged: no pod restarts)"
    return f" ({day2.PODS_REPLACED[obj['kind']]})"
