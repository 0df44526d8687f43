"""Writing the Kubernetes fabric layer as files (for GitOps users and for review).

One multi-document YAML per part (``NN-<part>.yaml``), the values of every Helm
release (``helm/<release>.values.yaml``) and an index (``layer.yaml``) listing
the parts in install order with what each waits for and which pinned charts it
installs. The same :class:`~components.fabric.layer.Layer` feeds Pulumi, so the
files are what ``pulumi up`` applies.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from components.fabric.description import describe_cluster
from components.fabric.layer import Layer, build_layer
from components.spec import ClusterSpec


def layer_for(spec: ClusterSpec) -> Layer:
    return build_layer(spec, describe_cluster(spec))


class _Dumper(yaml.SafeDumper):
    """Block style, keys in insertion order, multi-line strings as literal blocks."""


def _str(dumper: yaml.SafeDumper, value: str) -> yaml.Node:
    style = "|" if "\n" in value else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)


_Dumper.add_representer(str, _str)


def dump(documents: list[Any]) -> str:
    return yaml.dump_all(documents, Dumper=_Dumper, sort_keys=False, default_flow_style=False)


def render(spec: ClusterSpec, out: Path) -> list[Path]:
    """Write the layer of ``spec`` under ``out``; returns the files written."""
    layer = layer_for(spec)
    out.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    index: list[dict[str, Any]] = []
    for i, part in enumerate(layer.parts, start=1):
        entry: dict[str, Any] = {"part": part.name, "description": part.description,
                                 "after": list(part.after)}
        if part.manifests:
            path = out / f"{i:02d}-{part.name}.yaml"
            path.write_text(dump(list(part.manifests)))
            written.append(path)
            entry["manifests"] = path.name
        charts = []
        for release in part.charts:
            values_path = out / "helm" / f"{release.release}.values.yaml"
            values_path.parent.mkdir(exist_ok=True)
            values_path.write_text(dump([dict(release.values)]))
            written.append(values_path)
            charts.append({
                "release": release.release,
                "namespace": release.namespace,
                "repo": release.chart.repo,
                "chart": release.chart.name,
                "version": release.chart.version,
                "values": f"helm/{values_path.name}",
            })
        if charts:
            entry["helm"] = charts
        index.append(entry)
    layer_file = out / "layer.yaml"
    layer_file.write_text(dump([{
        "cluster": spec.name,
        "cloud": spec.cloud.value,
        "kubernetes": spec.kubernetes.version,
        "addons": {k: {"enabled": a.enabled, "version": a.version}
                   for k, a in layer.addons.items()},
        "parts": index,
    }]))
    written.append(layer_file)
    return written
