"""The health add-ons (issue 35: NVSentinel v1.19.0 and cert-manager v1.19.1) render with
the real ``helm`` from their vendored archives (charts/, provenance in
charts/sources.json) and every object validates: built-in kinds strictly, custom
resources against the CRDs of the charts at the pins.

No committed stack turns health on, so the releases come from the layer of a
health-enabled spec per cloud (``health.remediation: drain`` turns on the most:
fault quarantine, the node drainer, the MongoDB datastore and its cert-manager
Certificates; monitoring on adds NVSentinel's PodMonitor). NVSentinel's Certificates
and Issuers are checked against the CRDs cert-manager's own release renders
(``crds.enabled``), its PodMonitor against kube-prometheus-stack's, as on a cluster.
"""

from __future__ import annotations

import json
from functools import cache
from typing import Any

import pytest

from gpu_fabric.fabric.description import describe_cluster
from gpu_fabric.fabric.layer import build_layer
from gpu_fabric.plan import helm_render
from gpu_fabric.spec import load_spec
from tests.specs import CLOUDS, spec_dict
from tests.support import helm

HEALTH = ("nvsentinel", "cert-manager")


@cache
def _releases(cloud: str) -> tuple[str, dict[str, dict[str, Any]]]:
    spec = load_spec(spec_dict(cloud, health={"enabled": True, "remediation": "drain"},
                               addons={"prometheus": {"enabled": True}}))
    layer = build_layer(spec, describe_cluster(spec))
    out = {
        c.chart.name: {"name": c.release, "namespace": c.namespace, "chart": c.chart.name,
                       "version": c.chart.version,
                       "values": json.loads(json.dumps(dict(c.values)))}
        for c in layer.charts()
    }
    return str(spec.kubernetes.version), out


@cache
def _render(key: str) -> list[dict[str, Any]]:
    inputs, kube = json.loads(key)
    archive = helm.CHARTS / helm_render.chart_ref(inputs).archive
    assert archive.is_file(), f"{archive.name} is not vendored: python scripts/vendor_charts.py"
    return helm_render.template(helm.helm(), archive, inputs, kube)


def render(inputs: dict[str, Any], kube: str) -> list[dict[str, Any]]:
    return _render(json.dumps([inputs, kube], sort_keys=True))


def _crds(objects: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [o for o in objects if o.get("kind") == "CustomResourceDefinition"]


@cache
def _prometheus_crds() -> list[dict[str, Any]]:
    """kube-prometheus-stack's CRDs (PodMonitor...), rendered once: they do not depend on
    the release's values, and the chart is the slowest to render."""
    kube, releases = _releases("gcp")
    return _crds(render(releases["kube-prometheus-stack"], kube))


@pytest.mark.parametrize("cloud", CLOUDS)
def test_health_releases_render_and_validate(cloud: str) -> None:
    kube, releases = _releases(cloud)
    assert set(HEALTH) <= set(releases), sorted(releases)
    assert "kube-prometheus-stack" in releases
    manager = render(releases["cert-manager"], kube)
    sentinel = render(releases["nvsentinel"], kube)
    assert not helm.validate_rendered(manager, kube)
    problems = helm.validate_rendered(sentinel, kube, crds=_crds(manager) + _prometheus_crds())
    assert not problems, "\n".join(problems[:40])
    kinds = {o["kind"] for o in sentinel}
    # What drain turns on (gpu_fabric/health/nvsentinel.py values): the datastore's
    # Certificates and Issuers (cert-manager.io/v1), monitored by a PodMonitor.
    assert {"Certificate", "Issuer", "PodMonitor"} <= kinds, sorted(kinds)


def test_cert_manager_renders_its_crds() -> None:
    kube, releases = _releases("gcp")
    crds = {o["metadata"]["name"] for o in _crds(render(releases["cert-manager"], kube))}
    # The six CRDs of cert-manager v1.19.1 (deploy/charts/cert-manager/templates/crd-*.yaml
    # at tag v1.19.1, commit 3b43a94c).
    assert crds == {
        "challenges.acme.cert-manager.io", "orders.acme.cert-manager.io",
        "certificaterequests.cert-manager.io", "certificates.cert-manager.io",
        "clusterissuers.cert-manager.io", "issuers.cert-manager.io",
    }


def test_a_bad_certificate_is_caught() -> None:
    """The validation bites: a Certificate with an unknown field fails against the CRD."""
    kube, releases = _releases("gcp")
    manager = render(releases["cert-manager"], kube)
    bad = {"apiVersion": "cert-manager.io/v1", "kind": "Certificate",
           "metadata": {"name": "x", "namespace": "nvsentinel"},
           "spec": {"secretName": "x", "issuerRef": {"name": "ca"}, "notAField": 1}}
    problems = helm.validate_rendered([bad], kube, crds=_crds(manager))
    assert any("notAField" in p for p in problems), problems
