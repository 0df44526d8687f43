"""Vendor the Helm chart archive of every chart the layer installs, at its pin.

Why: a chart bump or a values change shows in a plan only as a changed
``version``/``values`` input of a ``helm.sh/v3:Release``; nobody sees which
Kubernetes objects change. With the archives in the repository, the suite and
``gpu-fabric diff`` render every release with the real ``helm`` (offline: chart
repositories and registries are unreachable from CI) and validate and compare
the objects.

Where an archive comes from, best first:

- ``published``: the archive the chart's own Helm repository serves, read from
  the repository's ``gh-pages`` branch, whose ``index.yaml`` digest must equal
  the file's sha256 (the same check ``helm`` does on download);
- ``source``: the chart directory at the release tag's commit, packaged with
  ``helm package`` at the pinned version (for charts published only to NGC or
  an OCI registry), with the subcharts its ``Chart.yaml`` lists packaged the
  same way from their own sources.

Run after a pin bump in ``gpu_fabric.versions`` (needs ``fetch`` mirrors of the
repositories under ``/work/.mirror`` or ``--mirrors DIR``, and ``helm``)::

    python scripts/vendor_charts.py            # writes charts/*.tgz + charts/sources.json
"""

from __future__ import annotations

import argparse
import hashlib
import io
import json
import subprocess
import sys
import tarfile
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "components"))

from gpu_fabric import versions  # noqa: E402

CHARTS_DIR = ROOT / "charts"
SOURCES = CHARTS_DIR / "sources.json"


@dataclass(frozen=True)
class Source:
    """A chart directory at a commit of a GitHub repository."""

    repo: str
    commit: str
    path: str
    version: str  # the version the archive gets (the release's, not the tree's)


@dataclass(frozen=True)
class Vendored:
    chart: versions.Chart
    repo: str
    published: str = ""  # path of the archive on the repo's gh-pages branch
    source: Source | None = None
    subcharts: tuple[Source, ...] = field(default_factory=tuple)
    # The project's own release step before ``helm package`` (template files filled
    # in, image tags set), as a name in ``PREPARE``, and where that step is written.
    prepare: str = ""
    prepared_as: str = ""
    # What the provenance cannot show (a commit chosen without a release tag).
    note: str = ""


def _cert_manager(chart_dir: Path, version: str) -> None:
    """cert-manager's make/manifests.mk ``$(bin_dir)/helm/cert-manager`` targets: Chart.yaml
    from Chart.template.yaml (version, appVersion, prerelease, signKey annotation set with
    yq), README.md from README.template.md ({{RELEASE_VERSION}}), and only the chart's
    files copied (the templates, values.yaml, values.schema.json)."""
    chart = yaml.safe_load((chart_dir / "Chart.template.yaml").read_text())
    chart["annotations"]["artifacthub.io/signKey"] = (
        chart_dir / "signkey_annotation.txt").read_text()
    chart["annotations"]["artifacthub.io/prerelease"] = "false"
    chart["version"] = version
    chart["appVersion"] = version
    (chart_dir / "Chart.yaml").write_text(yaml.safe_dump(chart, sort_keys=False))
    readme = (chart_dir / "README.template.md").read_text()
    (chart_dir / "README.md").write_text(readme.replace("{{RELEASE_VERSION}}", version))
    for extra in ("Chart.template.yaml", "README.template.md", "signkey_annotation.txt",
                  "values.linter.exceptions", ".gitignore"):
        (chart_dir / extra).unlink(missing_ok=True)


def _nvsentinel(chart_dir: Path, version: str) -> None:
    """NVSentinel's distros/kubernetes/Makefile ``helm-publish``: the image tag ``main`` and
    appVersion ``1.0.0`` replaced by the release tag (the two sed lines), then
    ``helm package nvsentinel --version <tag>``."""
    values = chart_dir / "values.yaml"
    text = values.read_text()
    assert 'tag: "main"' in text, "values.yaml no longer holds tag: \"main\""
    values.write_text(text.replace('tag: "main"', f'tag: "{version}"'))
    meta = chart_dir / "Chart.yaml"
    text = meta.read_text()
    assert 'appVersion: "1.0.0"' in text, "Chart.yaml no longer holds appVersion \"1.0.0\""
    meta.write_text(text.replace('appVersion: "1.0.0"', f'appVersion: "{version}"'))


PREPARE = {"cert-manager": _cert_manager, "nvsentinel": _nvsentinel}


PROM = "prometheus-community/helm-charts"
VENDORED = (
    Vendored(versions.KYVERNO, "kyverno/kyverno", published="kyverno-3.6.1.tgz"),
    Vendored(
        versions.EFA_DEVICE_PLUGIN,
        "aws/eks-charts",
        published="aws-efa-k8s-device-plugin-v0.5.30.tgz",
    ),
    Vendored(
        versions.NVIDIA_DEVICE_PLUGIN,
        "NVIDIA/k8s-device-plugin",
        published="stable/nvidia-device-plugin-0.18.2.tgz",
    ),
    Vendored(
        versions.GPU_OPERATOR, "NVIDIA/gpu-operator", published="stable/gpu-operator-v26.7.0.tgz"
    ),
    Vendored(
        versions.NETWORK_OPERATOR,
        "Mellanox/network-operator",
        source=Source(
            "Mellanox/network-operator",
            "85afd6d9c6978eb871a3292b9897f49746cc43cd",
            "deployment/network-operator",
            "26.4.1",
        ),
    ),
    Vendored(
        versions.NVIDIA_DRA_DRIVER,
        "NVIDIA/k8s-dra-driver-gpu",
        source=Source(
            "NVIDIA/k8s-dra-driver-gpu",
            "0882da8720c28763137e0987778ec476ec4cf8df",
            "deployments/helm/nvidia-dra-driver-gpu",
            "25.12.0",
        ),
    ),
    Vendored(
        versions.DRANET,
        "kubernetes-sigs/dranet",
        source=Source(
            "kubernetes-sigs/dranet",
            "ca195e297179deff1f58e3fc468babd5394e4174",
            "deployments/helm/dranet",
            "v1.4.0",
        ),
    ),
    Vendored(
        versions.KUEUE,
        "kubernetes-sigs/kueue",
        source=Source(
            "kubernetes-sigs/kueue",
            "28700e89ee89a0e33eb4c6a0ca8859fbe8b9b8b1",
            "charts/kueue",
            "0.14.4",
        ),
    ),
    Vendored(
        versions.JOBSET,
        "kubernetes-sigs/jobset",
        source=Source(
            "kubernetes-sigs/jobset",
            "da72d32bb0060354aa04b1a5868f3b363b088446",
            "charts/jobset",
            "0.10.1",
        ),
    ),
    Vendored(
        versions.KUBE_PROMETHEUS_STACK,
        PROM,
        source=Source(
            PROM,
            "7dcdc8b386a7b49f5b2d82d4d9c581cc43d97c5e",
            "charts/kube-prometheus-stack",
            "79.7.1",
        ),
        subcharts=(
            Source(
                PROM,
                "505440cc6c6981164c7b334de8dfb60a74fa69b7",
                "charts/kube-state-metrics",
                "6.4.1",
            ),
            Source(
                PROM,
                "e632856c8b8ee7862f90ec72edf6fc39896e9101",
                "charts/prometheus-node-exporter",
                "4.49.1",
            ),
            Source(
                "grafana/helm-charts",
                "e5ee6963cce3ab19519dc6dbd5f250aa14dc6f12",
                "charts/grafana",
                "10.2.0",
            ),
            # Chart.yaml asks for 0.12.*; 0.12.2 is the newest at the chart's commit.
            Source(
                PROM,
                "7dcdc8b386a7b49f5b2d82d4d9c581cc43d97c5e",
                "charts/prometheus-windows-exporter",
                "0.12.2",
            ),
        ),
    ),
    Vendored(
        versions.CERT_MANAGER,
        "cert-manager/cert-manager",
        source=Source(
            "cert-manager/cert-manager",
            "3b43a94ce6db81711ccff6a9789dd312b2e9502e",  # tag v1.19.1
            "deploy/charts/cert-manager",
            "v1.19.1",
        ),
        prepare="cert-manager",
        prepared_as="make/manifests.mk (Helm Targets) at the tag",
    ),
    Vendored(
        versions.NVSENTINEL,
        "NVIDIA/NVSentinel",
        # The NVIDIA/NVSentinel snapshot cannot be fetched here; its fork
        # lalitadithya/NVSentinel holds the same commits (upstream PR numbers) but no
        # tags. The release workflow registered v1.19.0 in e002c5dc ("chore(fern):
        # register v1.19.0 (#1617)", 2026-08-17, README NVSENTINEL_VERSION=v1.19.0);
        # the chart is taken at its parent def3b2d2 (main when the release was
        # registered; the registration changes no chart file).
        source=Source(
            "lalitadithya/NVSentinel",
            "def3b2d29a9220373f042cd5f6acf0ed8a172065",
            "distros/kubernetes/nvsentinel",
            "v1.19.0",
        ),
        prepare="nvsentinel",
        prepared_as="distros/kubernetes/Makefile helm-publish at the commit",
        note=("the v1.19.0 tag's commit is not in the mirror (no tags): the chart is at "
              "def3b2d2, the parent of the release's registration commit e002c5dc; the tag "
              "is at or before it (def3b2d2 itself changed the chart: platform-connectors)"),
    ),
)


def archive_name(chart: versions.Chart) -> str:
    return f"{chart.name}-{chart.version}.tgz"


def _git(mirror: Path, *args: str) -> bytes:
    return subprocess.run(["git", "-C", str(mirror), *args], check=True, capture_output=True).stdout


def _mirror(mirrors: Path, repo: str) -> Path:
    return mirrors / repo.replace("/", "+") / "repo"


def _published(entry: Vendored, mirrors: Path) -> tuple[bytes, dict[str, str]]:
    mirror = _mirror(mirrors, entry.repo)
    data = _git(mirror, "show", f"gh-pages:{entry.published}")
    folder = str(Path(entry.published).parent)
    index_path = "index.yaml" if folder == "." else f"{folder}/index.yaml"
    index = yaml.safe_load(_git(mirror, "show", f"gh-pages:{index_path}"))
    digest = hashlib.sha256(data).hexdigest()
    listed = [
        e["digest"]
        for e in index["entries"][entry.chart.name]
        if str(e["version"]) == entry.chart.version
    ]
    if listed != [digest]:
        raise SystemExit(f"{entry.published}: sha256 {digest} is not the index's {listed}")
    commit = _git(mirror, "rev-parse", "gh-pages").decode().strip()
    return data, {
        "kind": "published",
        "repo": entry.repo,
        "branch": "gh-pages",
        "commit": commit,
        "path": entry.published,
        "index_digest": digest,
    }


def _extract(mirror: Path, source: Source, into: Path) -> Path:
    tar = _git(mirror, "archive", "--format=tar", source.commit, source.path)
    with tarfile.open(fileobj=io.BytesIO(tar)) as archive:
        archive.extractall(into, filter="data")
    return into / source.path


def _package(helm: str, chart_dir: Path, version: str, out: Path) -> Path:
    out.mkdir(parents=True, exist_ok=True)
    subprocess.run(
        [helm, "package", str(chart_dir), "--version", version, "--destination", str(out)],
        check=True,
        capture_output=True,
    )
    name = yaml.safe_load((chart_dir / "Chart.yaml").read_text())["name"]
    return out / f"{name}-{version}.tgz"


def _from_source(entry: Vendored, mirrors: Path, helm: str) -> tuple[bytes, dict[str, object]]:
    assert entry.source is not None
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        chart_dir = _extract(_mirror(mirrors, entry.source.repo), entry.source, work / "main")
        if entry.prepare:
            PREPARE[entry.prepare](chart_dir, entry.source.version)
        subcharts = []
        for sub in entry.subcharts:
            sub_dir = _extract(_mirror(mirrors, sub.repo), sub, work / f"sub-{len(subcharts)}")
            _package(helm, sub_dir, sub.version, chart_dir / "charts")
            subcharts.append(
                {"repo": sub.repo, "commit": sub.commit, "path": sub.path, "version": sub.version}
            )
        packaged = _package(helm, chart_dir, entry.source.version, work / "out")
        data = packaged.read_bytes()
    return data, {
        "kind": "source",
        "repo": entry.source.repo,
        "commit": entry.source.commit,
        "path": entry.source.path,
        "subcharts": subcharts,
        "packaged_with": "helm package --version " + entry.source.version,
        **({"prepared_as": entry.prepared_as} if entry.prepare else {}),
        **({"note": entry.note} if entry.note else {}),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mirrors", type=Path, default=Path("/work/.mirror"))
    parser.add_argument("--helm", default=str(ROOT / ".venv" / "bin" / "helm"))
    parser.add_argument("--only", action="append", default=[], metavar="CHART",
                        help="vendor only these charts (by name), keep the other archives")
    args = parser.parse_args(argv)
    CHARTS_DIR.mkdir(exist_ok=True)
    records = json.loads(SOURCES.read_text()) if args.only and SOURCES.exists() else {}
    for entry in VENDORED:
        if args.only and entry.chart.name not in args.only:
            continue
        if entry.published:
            data, record = _published(entry, args.mirrors)
        else:
            data, record = _from_source(entry, args.mirrors, args.helm)
        name = archive_name(entry.chart)
        (CHARTS_DIR / name).write_bytes(data)
        records[name] = {
            "chart": entry.chart.name,
            "version": entry.chart.version,
            "helm_repo": entry.chart.repo,
            "sha256": hashlib.sha256(data).hexdigest(),
            **record,
        }
        print(f"{name}: {record['kind']} ({len(data)} bytes)")
    SOURCES.write_text(json.dumps(records, indent=2, sort_keys=True) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
