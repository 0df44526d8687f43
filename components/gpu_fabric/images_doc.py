"""``docs/images.md``: every container image and Helm chart this project deploys.

Generated from :mod:`gpu_fabric.versions` (the one place they are pinned), so the
list cannot drift: ``python -m gpu_fabric.images_doc > docs/images.md``; a test
checks the committed file is current.
"""

from __future__ import annotations

from gpu_fabric import versions
from gpu_fabric.versions import Chart, Image

HEADER = """# Images and charts

Generated from `gpu_fabric/versions.py` by `python -m gpu_fabric.images_doc > docs/images.md`
(a test fails when this file is stale). Every image is pinned by tag; where upstream
publishes a digest (GKE's digest-only images, Docker Official Images' `repo-info`), the
digest is pinned too and is what the node pulls. The others are published by their
upstream by tag only (their release manifests reference the tag; e.g. GKE's
container-engine-accelerators installers): if your policy demands digests everywhere,
resolve them with `crane digest <image>` into a registry mirror. Images that charts
deploy (GPU Operator, Network Operator, Kyverno, ...) are pinned by the chart version
listed below. A spec may override an add-on's version.
"""


def _images() -> list[tuple[str, Image]]:
    return sorted((name, value) for name, value in vars(versions).items()
                  if isinstance(value, Image))


def _charts() -> list[tuple[str, Chart]]:
    return sorted((name, value) for name, value in vars(versions).items()
                  if isinstance(value, Chart))


def render() -> str:
    lines = [HEADER, "## Container images", "",
             "| constant | repository | tag | digest |", "|---|---|---|---|"]
    for name, image in _images():
        lines.append(f"| `{name}` | `{image.repository}` | {f'`{image.tag}`' if image.tag else '—'}"
                     f" | {f'`{image.digest}`' if image.digest else 'tag only'} |")
    lines += ["", "## Helm charts", "", "| constant | repository | chart | version |",
              "|---|---|---|---|"]
    for name, chart in _charts():
        lines.append(f"| `{name}` | `{chart.repo}` | `{chart.name}` | `{chart.version}` |")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    print(render(), end="")
