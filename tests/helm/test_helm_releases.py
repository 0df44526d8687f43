"""Each committed stack's Helm releases render with the real chart and validate.

Before, a release was checked only as values against the chart's values.yaml
(tests/test_upstream_values.py): a key that exists but takes another shape, a
template that fails on our values, or an object the API server refuses showed
first at ``pulumi up``. Now every release of every committed stack goes through
``helm template`` with the archive vendored at its pin (charts/, provenance in
charts/sources.json), and every object it renders is validated: built-in kinds
strictly (unknown fields fail), custom resources against their CRDs.
"""

from __future__ import annotations

import hashlib
import io
import json
import tarfile
from typing import Any

import pytest
import yaml

from gpu_fabric import versions
from gpu_fabric.plan import helm_render
from tests.support import helm, variants

RELEASES = helm.committed_releases()
SOURCES = json.loads((helm.CHARTS / "sources.json").read_text())

# The features no committed stack turns on (teams + Kueue, JobSet, monitoring, DRA,
# GB200), per cloud: tests/support/variants.py. Their releases come from the layer
# (pure data), the same values the plan's Release inputs carry.
FEATURE_RELEASES = [
    (variant, chart)
    for variant in variants.usable()
    if not variant.startswith("stack:")
    for chart in variants.layer_of(variant).charts()
]


def _distinct_renders() -> dict[str, tuple[dict[str, Any], str, list[str]]]:
    """One render per distinct (chart, values, release, namespace, Kubernetes version).

    Most stacks install Kyverno with the same values; rendering and validating it
    once per distinct input keeps the whole check at a few seconds a chart.
    """
    found: dict[str, tuple[dict[str, Any], str, list[str]]] = {}

    def add(label: str, inputs: dict[str, Any], kube: str) -> None:
        key = json.dumps([inputs, kube], sort_keys=True)
        found.setdefault(key, (inputs, kube, []))[2].append(label)

    for stack, release in RELEASES:
        add(
            f"{stack}:{release['inputs']['name']}",
            release["inputs"],
            helm.kubernetes_version(stack),
        )
    for variant, chart in FEATURE_RELEASES:
        spec = variants.spec_of(variant)
        assert spec is not None
        add(
            f"{variant}:{chart.release}",
            {
                "name": chart.release,
                "namespace": chart.namespace,
                "chart": chart.chart.name,
                "version": chart.chart.version,
                "values": json.loads(json.dumps(dict(chart.values))),
            },
            str(spec.kubernetes.version),
        )
    return {labels[0]: (inputs, kube, labels) for inputs, kube, labels in found.values()}


RENDERS = _distinct_renders()


@pytest.mark.parametrize("label", sorted(RENDERS))
def test_the_release_renders_and_every_object_validates(label: str) -> None:
    inputs, kube, users = RENDERS[label]
    archive = helm.CHARTS / helm_render.chart_ref(inputs).archive
    assert archive.is_file(), f"{archive.name} is not vendored: python scripts/vendor_charts.py"
    objects = helm_render.template(helm.helm(), archive, inputs, kube)
    assert objects, f"{label}: helm rendered nothing"
    problems = helm.validate_rendered(objects, kube)
    assert not problems, f"used by {users}:\n" + "\n".join(problems[:40])


def test_the_renders_cover_every_chart_the_project_installs() -> None:
    used = {helm_render.chart_ref(inputs).archive for inputs, _, _ in RENDERS.values()}
    assert used == {
        "kyverno-3.6.1.tgz",
        "dranet-v1.4.0.tgz",
        "gpu-operator-v26.7.0.tgz",
        "network-operator-26.4.1.tgz",
        "nvidia-dra-driver-gpu-25.12.0.tgz",
        "aws-efa-k8s-device-plugin-v0.5.30.tgz",
        "nvidia-device-plugin-0.18.2.tgz",
        "kueue-0.14.4.tgz",
        "jobset-0.10.1.tgz",
        "kube-prometheus-stack-79.7.1.tgz",
    }


PINS = [
    versions.KYVERNO,
    versions.EFA_DEVICE_PLUGIN,
    versions.NVIDIA_DEVICE_PLUGIN,
    versions.GPU_OPERATOR,
    versions.NETWORK_OPERATOR,
    versions.NVIDIA_DRA_DRIVER,
    versions.DRANET,
    versions.KUEUE,
    versions.JOBSET,
    versions.KUBE_PROMETHEUS_STACK,
    # The health add-ons (issue 35), rendered by tests/helm/test_health_charts.py.
    versions.NVSENTINEL,
    versions.CERT_MANAGER,
]


@pytest.mark.parametrize("chart", PINS, ids=[c.name for c in PINS])
def test_every_pinned_chart_is_vendored_with_its_provenance(chart: versions.Chart) -> None:
    name = f"{chart.name}-{chart.version}.tgz"
    data = (helm.CHARTS / name).read_bytes()
    record = SOURCES[name]
    assert hashlib.sha256(data).hexdigest() == record["sha256"]
    assert record["kind"] in ("published", "source")
    assert len(record["commit"]) == 40
    if record["kind"] == "published":  # the Helm repository index's digest, as helm checks it
        assert record["index_digest"] == record["sha256"]
    with tarfile.open(fileobj=io.BytesIO(data)) as archive:
        meta = yaml.safe_load(archive.extractfile(f"{chart.name}/Chart.yaml").read())  # type: ignore[union-attr]
    assert (meta["name"], str(meta["version"])) == (chart.name, chart.version)


def test_published_archives_are_the_ones_the_index_lists() -> None:
    # sha256 digests from the charts' own index.yaml on their gh-pages branches
    # (kyverno/kyverno, aws/eks-charts, NVIDIA/k8s-device-plugin stable/,
    # NVIDIA/gpu-operator stable/), read when the archives were vendored.
    assert {n: r["sha256"] for n, r in SOURCES.items() if r["kind"] == "published"} == {
        "kyverno-3.6.1.tgz": "69c113ba43b53d447e6c08d747e8c1523ca605a078b923f30c0d6ebcfa9d6375",
        "aws-efa-k8s-device-plugin-v0.5.30.tgz": (
            "43b3d666f81a40b7f7ac88ee04a64954abaaa061b1e5f54dc7ce4beb3374e32a"
        ),
        "nvidia-device-plugin-0.18.2.tgz": (
            "b9ad1bcae78149a93c4be1e02c53245133c17a13bd6ecd3c9b355c6edb304bdb"
        ),
        "gpu-operator-v26.7.0.tgz": (
            "bf6b04c16ff7cbc05720ea4b94187217316f9d869d445cfbde4fe0dffabe2557"
        ),
    }
