"""``health.enabled`` plans and renders on all five clouds (with monitoring on, so the
PrometheusRule is planned too). Its charts' values are checked against the charts at
their pins in tests/health/test_nvsentinel.py, its objects against the Kubernetes and CRD
schemas in tests/health/test_manifests.py.

Not here: ``helm template`` of the NVSentinel and cert-manager charts
(tests/helm/test_helm_releases.py): their archives are not vendored under charts/ (see
docs/health.md, "Not verified offline"), so the health specs are not among the shared
variants (tests/support/variants.py) that test renders.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any

import pytest
import yaml

from gpu_fabric.plan import PlanResult, run_spec
from gpu_fabric.render import render
from gpu_fabric.spec import load_spec
from tests.specs import CLOUDS, spec_dict

PARTS = ("nvsentinel", "cert-manager", "fabric-health")


def health_spec(cloud: str) -> dict[str, Any]:
    return spec_dict(cloud, health={"enabled": True}, addons={"prometheus": {"enabled": True}})


@cache
def plan(cloud: str) -> PlanResult:
    return run_spec(health_spec(cloud))


@pytest.mark.parametrize("cloud", CLOUDS)
def test_health_plans_on_every_cloud(cloud: str) -> None:
    planned = plan(cloud)
    releases = {str(r.inputs["chart"]).rsplit("/", 1)[-1]: r.inputs["version"]
                for r in planned.resources if r.type == "kubernetes:helm.sh/v3:Release"}
    assert releases["nvsentinel"] == "v1.19.0"
    assert releases["cert-manager"] == "v1.19.1"
    kinds = {r.inputs.get("kind") for r in planned.resources if "fabric-health" in r.name}
    assert {"CronJob", "ConfigMap", "ClusterRole", "Role", "PriorityClass",
            "PrometheusRule"} <= kinds


@pytest.mark.parametrize("cloud", CLOUDS)
def test_health_renders_on_every_cloud(cloud: str, tmp_path: Path) -> None:
    render(load_spec(health_spec(cloud)), tmp_path)
    (index,) = yaml.safe_load_all((tmp_path / "layer.yaml").read_text())
    parts = [p["part"] for p in index["parts"]]
    assert [p for p in parts if p in PARTS or p.startswith("fabric-health")][:4] == [
        "cert-manager", "nvsentinel", "fabric-health",
        "fabric-health-alerts" if cloud == "gcp" else "fabric-health-mpi-operator"]
    assert index["addons"]["nvsentinel"] == {"enabled": True, "version": "v1.19.0"}
    (cron,) = [d for f in tmp_path.glob("*-fabric-health.yaml")
               for d in yaml.safe_load_all(f.read_text()) if d["kind"] == "CronJob"]
    assert cron["metadata"]["namespace"] == "gpu-fabric-health"
