"""``health.enabled`` plans and renders on all five clouds (the ``<cloud>:health``
variants of tests/support/variants.py, which the upstream-truth checks also run:
tests/test_upstream_values.py for every chart value, tests/test_upstream_crds.py for
every custom resource)."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from gpu_fabric.render import render
from tests.specs import CLOUDS
from tests.support.variants import VARIANTS, plan_of, spec_of

# The resources the layer adds for the check (FabricStack names a manifest
# "<part>-<kind>-<namespace>-<name>" or so; the part name is in every one).
PARTS = ("nvsentinel", "cert-manager", "fabric-health")


@pytest.mark.parametrize("cloud", CLOUDS)
def test_health_plans_on_every_cloud(cloud: str) -> None:
    plan = plan_of(f"{cloud}:health")
    releases = {str(r.inputs["chart"]).rsplit("/", 1)[-1]: r.inputs["version"]
                for r in plan.resources if r.type == "kubernetes:helm.sh/v3:Release"}
    assert releases["nvsentinel"] == "v1.19.0"
    assert releases["cert-manager"] == "v1.19.1"
    kinds = {r.inputs.get("kind") for r in plan.resources if "fabric-health" in r.name}
    assert {"CronJob", "ConfigMap", "ClusterRole", "Role", "PriorityClass",
            "PrometheusRule"} <= kinds


@pytest.mark.parametrize("cloud", CLOUDS)
def test_health_renders_on_every_cloud(cloud: str, tmp_path: Path) -> None:
    spec = spec_of(f"{cloud}:health")
    assert spec is not None, VARIANTS[f"{cloud}:health"]
    render(spec, tmp_path)
    (index,) = yaml.safe_load_all((tmp_path / "layer.yaml").read_text())
    parts = [p["part"] for p in index["parts"]]
    assert [p for p in parts if p in PARTS or p.startswith("fabric-health")][:4] == [
        "cert-manager", "nvsentinel", "fabric-health",
        "fabric-health-alerts" if cloud == "gcp" else "fabric-health-mpi-operator"]
    assert index["addons"]["nvsentinel"] == {"enabled": True, "version": "v1.19.0"}
    (cron,) = [d for f in tmp_path.glob("*-fabric-health.yaml")
               for d in yaml.safe_load_all(f.read_text()) if d["kind"] == "CronJob"]
    assert cron["metadata"]["namespace"] == "gpu-fabric-health"
