"""Writing the Kubernetes fabric layer as files (for GitOps users and for review).

One multi-document YAML per part (``NN-<part>.yaml``), the values of every Helm
release (``helm/<release>.values.yaml``) and an index (``layer.yaml``) listing
the parts in install order with what each waits for and which pinned charts it
installs. The same :class:`~gpu_fabric.fabric.layer.Layer` feeds Pulumi, so the
files are what ``pulumi up`` applies.

The folder is the stack's own: render records what it wrote in
``.gpu-fabric-render`` and removes those files before writing again, so a
folder never mixes two stacks (or two versions of one). It refuses a non-empty
folder it did not write rather than delete or mix in someone else's files.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from gpu_fabric.fabric.description import describe_cluster
from gpu_fabric.fabric.layer import Layer, build_layer
from gpu_fabric.files import read_bytes_bounded
from gpu_fabric.layers import plugins
from gpu_fabric.spec import ClusterSpec

# Hidden and without a YAML suffix: kubectl -f DIR, kustomize and Argo CD skip it.
RECORD = ".gpu-fabric-render"
_RECORD_HEADER = "# files written by gpu-fabric render; it removes them before the next render\n"


class RenderTargetError(ValueError):
    """The output folder holds files render did not write."""


def layer_for(spec: ClusterSpec) -> Layer:
    return build_layer(spec, describe_cluster(spec, plugins()), plugins())


# libyaml's emitter when PyYAML was built with it (the wheels are): the same bytes as the
# pure-Python one (tests/cli/test_render_dumper.py), ~5x faster (issue 36: 33 of 44 s of
# render at 256 teams were the pure-Python dumper).
_BaseDumper: type[yaml.SafeDumper] = getattr(yaml, "CSafeDumper", yaml.SafeDumper)


class _Dumper(_BaseDumper):  # type: ignore[misc,valid-type]
    """Block style, keys in insertion order, multi-line strings as literal blocks."""


class _PureDumper(yaml.SafeDumper):
    """The same, pure Python (what the bytes are checked against)."""


def _str(dumper: yaml.SafeDumper, value: str) -> yaml.Node:
    style = "|" if "\n" in value else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)


_Dumper.add_representer(str, _str)
_PureDumper.add_representer(str, _str)


def dump(documents: list[Any], *, pure: bool = False) -> str:
    return yaml.dump_all(documents, Dumper=_PureDumper if pure else _Dumper, sort_keys=False,
                         default_flow_style=False)


def written_before(out: Path) -> list[Path]:
    """The files a previous render recorded in ``out`` (empty when there was none)."""
    record = out / RECORD
    if not record.is_file():
        return []
    text = read_bytes_bounded(record, MAX_RECORD_BYTES).decode("utf-8", errors="replace")
    names = [line.strip() for line in text.splitlines()]
    return [out / n for n in names if n and not n.startswith("#") and _inside(out, n)]


# A record lists a few dozen file names.
MAX_RECORD_BYTES = 1024 * 1024


def _inside(out: Path, name: str) -> bool:
    """Whether the recorded ``name`` is a file render could have written in ``out``: a
    relative path that stays inside it, symlinks resolved (a record listing
    ``/home/me/.bashrc`` or ``../x`` made render delete outside --out: issue 34)."""
    if Path(name).is_absolute() or ".." in Path(name).parts:
        return False
    target = (out / name).resolve()
    return target.is_relative_to(out.resolve()) and not (out / name).is_dir()


def prepare(out: Path) -> None:
    """Remove what the last render wrote; refuse a folder holding anything else.

    Files someone added next to a render (a ``kustomization.yaml``) are kept.
    """
    if out.exists() and not out.is_dir():
        raise RenderTargetError(f"--out {out}: is a file, not a folder")
    if not out.is_dir():
        return
    previous = written_before(out)
    if not previous and any(out.iterdir()):
        raise RenderTargetError(
            f"--out {out}: the folder is not empty and was not written by render "
            f"(no {RECORD} in it); give an empty or new folder, so the stack's files "
            "are not mixed with others"
        )
    for path in previous:
        path.unlink(missing_ok=True)
    helm = out / "helm"
    if helm.is_dir() and not any(helm.iterdir()):
        helm.rmdir()


def render(spec: ClusterSpec, out: Path) -> list[Path]:
    """Write the layer of ``spec`` under ``out``; returns the files written."""
    layer = layer_for(spec)
    prepare(out)
    out.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    index: list[dict[str, Any]] = []
    for i, part in enumerate(layer.parts, start=1):
        entry: dict[str, Any] = {"part": part.name, "description": part.description,
                                 "after": list(part.after)}
        if part.installed_by:
            entry["installed_by"] = part.installed_by
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
        "addons": {k: {"enabled": a.enabled, "version": pinned_version(k, a.version)}
                   for k, a in layer.addons.items()},
        "parts": index,
    }]))
    written.append(layer_file)
    (out / RECORD).write_text(
        _RECORD_HEADER + "".join(f"{p.relative_to(out).as_posix()}\n" for p in written)
    )
    return written


def pinned_version(key: str, override: str | None) -> str | None:
    """The version an add-on installs: the spec's override, else the pinned chart/image.

    None only for add-ons whose artefact is the cloud's own (the NCCL installer).
    """
    from gpu_fabric.fabric.addons import ADDONS
    from gpu_fabric.versions import Chart, Image

    if override:
        return override
    artifact = ADDONS[key].artifact
    if isinstance(artifact, Chart):
        return artifact.version
    if isinstance(artifact, Image):
        return artifact.tag or artifact.digest
    return None
