"""Render a planned Helm release with the real ``helm`` and the vendored chart archive.

Why: in a plan, a ``kubernetes:helm.sh/v3:Release`` is one resource whose inputs
are a chart name, a version and a values tree. A chart bump or a values change
shows there as one changed input, while in the cluster it may add, remove or
rewrite dozens of objects (a DaemonSet's image, a webhook, RBAC). Rendering the
release as ``helm template`` would, from the archive vendored at the pin in the
repository's ``charts/`` folder (``scripts/vendor_charts.py``; chart repositories
are unreachable offline), turns that input into the objects it stands for: the
suite validates them like the rest of the layer, and ``diff`` lists the objects
a change touches.

Nothing here imports a cloud SDK or talks to a cluster; ``helm`` runs with its
config and cache folders in a temporary directory.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from gpu_fabric.plan import day2

RELEASE_TYPE = "kubernetes:helm.sh/v3:Release"
CHARTS_DIR = "charts"
HELM_ENV = "GPU_FABRIC_HELM"
_TIMEOUT_SECONDS = 120

_Base: type[yaml.SafeLoader] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # libyaml if built


class _Loader(_Base):  # type: ignore[valid-type,misc]
    """A safe loader that reads a bare ``=`` as the string it is.

    YAML 1.1 resolves a plain ``=`` to the ``value`` tag, which PyYAML's safe
    loader cannot construct; Go's YAML (Kubernetes, helm) reads it as "=".
    kube-prometheus-stack's Prometheus CRD has one (a relabel action enum).
    """


_Loader.add_constructor(
    "tag:yaml.org,2002:value", lambda loader, node: loader.construct_scalar(node)
)


class HelmError(RuntimeError):
    """``helm template`` refused the chart or the values (its stderr is the message)."""


@dataclass(frozen=True)
class ChartRef:
    """Which archive a release needs: ``<name>-<version>.tgz`` in ``charts/``."""

    name: str
    version: str

    @property
    def archive(self) -> str:
        return f"{self.name}-{self.version}.tgz"


def chart_ref(inputs: Mapping[str, Any]) -> ChartRef:
    """The chart a Release's inputs name (an ``oci://`` chart is named by its last segment)."""
    chart = str(inputs.get("chart", ""))
    return ChartRef(chart.rstrip("/").rsplit("/", 1)[-1], str(inputs.get("version", "")))


def find_helm() -> str | None:
    """``$GPU_FABRIC_HELM``, then the virtualenv's ``bin/helm`` (``make install``), then PATH."""
    configured = os.environ.get(HELM_ENV)
    if configured:
        return configured
    beside_python = Path(sys.prefix) / "bin" / "helm"
    if beside_python.is_file() and os.access(beside_python, os.X_OK):
        return str(beside_python)
    return shutil.which("helm")


def parse_manifests(text: str) -> list[dict[str, Any]]:
    """The objects of a multi-document YAML stream (empty documents dropped)."""
    return [doc for doc in yaml.load_all(text, Loader=_Loader) if isinstance(doc, dict)]


def template(
    helm: str, archive: Path, inputs: Mapping[str, Any], kubernetes_version: str | None = None
) -> list[dict[str, Any]]:
    """``helm template`` of one release: its objects, CRDs included unless ``skipCrds``."""
    with tempfile.TemporaryDirectory(prefix="gpu-fabric-helm-") as tmp:
        values = Path(tmp) / "values.json"  # JSON is YAML: no dumper needed
        values.write_text(json.dumps(inputs.get("values") or {}))
        command = [
            helm,
            "template",
            str(inputs.get("name") or chart_ref(inputs).name),
            str(archive),
            "--namespace",
            str(inputs.get("namespace") or "default"),
            "--values",
            str(values),
        ]
        if not inputs.get("skipCrds"):
            command.append("--include-crds")
        if kubernetes_version:
            command += ["--kube-version", kubernetes_version]
        env = {
            **os.environ,
            "HELM_CACHE_HOME": f"{tmp}/cache",
            "HELM_CONFIG_HOME": f"{tmp}/config",
            "HELM_DATA_HOME": f"{tmp}/data",
        }
        done = subprocess.run(
            command, capture_output=True, text=True, env=env, timeout=_TIMEOUT_SECONDS, check=False
        )
    if done.returncode != 0:
        raise HelmError(f"helm template {archive.name}: {done.stderr.strip()}")
    return parse_manifests(done.stdout)


def object_key(obj: Mapping[str, Any]) -> tuple[str, str, str, str]:
    """(apiVersion, kind, namespace, name): what makes two rendered objects the same one."""
    meta = obj.get("metadata") or {}
    return (
        str(obj.get("apiVersion", "")),
        str(obj.get("kind", "")),
        str(meta.get("namespace", "")),
        str(meta.get("name", "")),
    )


def _pod_template(obj: Mapping[str, Any]) -> Any:
    return (obj.get("spec") or {}).get("template")


def object_changes(
    base: Iterable[Mapping[str, Any]], head: Iterable[Mapping[str, Any]]
) -> list[dict[str, Any]]:
    """Objects added, removed or changed between two renders, sorted by kind and name.

    A changed Deployment, DaemonSet or StatefulSet also says ``pods_replaced``: whether
    its pod template changed, i.e. whether applying the change restarts its pods (a
    replicas or strategy change does not)."""
    before = {object_key(o): o for o in base}
    after = {object_key(o): o for o in head}
    changes = []
    for key in sorted(before.keys() | after.keys(), key=lambda k: (k[1], k[2], k[3], k[0])):
        if key not in after:
            change = "removed"
        elif key not in before:
            change = "added"
        elif before[key] != after[key]:
            change = "changed"
        else:
            continue
        api_version, kind, namespace, name = key
        entry: dict[str, Any] = {
            "apiVersion": api_version,
            "kind": kind,
            "namespace": namespace,
            "name": name,
            "change": change,
        }
        if change == "changed" and kind in day2.PODS_REPLACED:
            entry["pods_replaced"] = _pod_template(before[key]) != _pod_template(after[key])
        changes.append(entry)
    return changes
