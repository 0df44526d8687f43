"""Every admission webhook the layer installs answers the API server, on every cloud.

For each committed stack and each cloud's platform variant (Kueue + JobSet +
Prometheus on), every Helm release that serves an admission webhook is found in the
plan, its webhook port is read from the pinned chart's own files (below), and the
cloud's model of what its control plane reaches on nodes
(``gpu_fabric.clouds.<cloud>.control_plane``) must allow it, or the plan must hold a
firewall rule from the control-plane range that does.

Webhook ports, in the charts at the versions ``versions.py`` pins:
* Kyverno 3.6.1: kyverno/kyverno charts/kyverno/values.yaml (kyverno-chart-3.6.1,
  67f7f8c3) ``admissionController.webhookServer.port: 9443`` (line 903) and
  ``cleanupController.server.port: 9443`` (line 1663), ``hostNetwork: false``.
* Kueue 0.14.4: kubernetes-sigs/kueue charts/kueue/values.yaml (v0.14.4, 28700e89)
  ``webhookService.ports: [{port: 443, targetPort: 9443}]``.
* JobSet 0.10.1: kubernetes-sigs/jobset charts/jobset/templates/controller/deployment.yaml
  (v0.10.1, da72d32b) line 75 ``containerPort: 9443`` named ``webhook``.
* kube-prometheus-stack 79.7.1: charts/kube-prometheus-stack/values.yaml (7dcdc8b3)
  line 2620 ``prometheusOperator.tls.internalPort: 10250``.
GKE private clusters: the control plane reaches nodes on tcp 443 and 10250 only
(https://cloud.google.com/kubernetes-engine/docs/how-to/latest/network-isolation#add_firewall_rules).
"""

from __future__ import annotations

import importlib
from pathlib import Path
from typing import Any

import pytest
import yaml

from gpu_fabric.plan import PlanResult
from tests.specs import CLOUDS
from tests.support.variants import VARIANTS, plan_of, spec_of

UPSTREAM = Path(__file__).parents[1] / "data" / "upstream" / "values"
RELEASE = "kubernetes:helm.sh/v3:Release"
FIREWALL = "gcp:compute/firewall:Firewall"
GKE = "gcp:container/cluster:Cluster"


def _get(values: dict[str, Any], path: str) -> Any:
    node: Any = values
    for key in path.split("."):
        node = node[int(key)] if isinstance(node, list) else node[key]
    return node


def _values_file(chart: str, version: str) -> dict[str, Any]:
    return yaml.safe_load((UPSTREAM / chart / version / "values.yaml").read_text())


# chart -> the values paths of its webhook server ports (None: a port the chart's
# template fixes, written literally with its source in the module docstring).
WEBHOOK_VALUES = {
    "kyverno": ("admissionController.webhookServer.port", "cleanupController.server.port"),
    "kueue": ("webhookService.ports.0.targetPort",),
    "kube-prometheus-stack": ("prometheusOperator.tls.internalPort",),
}
TEMPLATE_PORTS = {"jobset": (9443,)}  # jobset templates/controller/deployment.yaml line 75


def served_ports(release: Any) -> set[int]:
    """The webhook ports a planned Helm release serves: our values, else the chart's."""
    chart = str(release.inputs["chart"]).rsplit("/", 1)[-1]
    version = str(release.inputs["version"])
    if chart in TEMPLATE_PORTS:
        return set(TEMPLATE_PORTS[chart])
    ports: set[int] = set()
    for path in WEBHOOK_VALUES.get(chart, ()):
        try:
            ports.add(int(_get(release.inputs.get("values") or {}, path)))
        except (KeyError, IndexError, TypeError):
            ports.add(int(_get(_values_file(chart, version), path)))
    return ports


def opened_by_firewall(plan: PlanResult) -> set[int]:
    """TCP ports a GCP firewall in the plan opens from the GKE control-plane range."""
    clusters = plan.by_type(GKE)
    if not clusters:
        return set()
    private = clusters[0].inputs.get("privateClusterConfig") or {}
    master = private.get("masterIpv4CidrBlock")
    out: set[int] = set()
    for rule in plan.by_type(FIREWALL):
        if rule.inputs.get("direction") != "INGRESS" or master not in rule.inputs.get(
                "sourceRanges", []):
            continue
        for allow in rule.inputs.get("allows", []):
            if allow.get("protocol") == "tcp":
                out |= {int(p) for p in allow.get("ports", [])}
    return out


def _variants() -> list[str]:
    wanted = [v for v in VARIANTS if v.startswith("stack:")]
    wanted += [f"{c}:platform" for c in CLOUDS]
    return wanted


@pytest.mark.parametrize("variant", _variants())
def test_every_webhook_port_is_reachable_from_the_control_plane(variant: str) -> None:
    spec = spec_of(variant)
    assert spec is not None, f"{variant} no longer plans"
    model = importlib.import_module(f"gpu_fabric.clouds.{spec.cloud.value}.control_plane")
    plan = plan_of(variant)
    served = set().union(*(served_ports(r) for r in plan.by_type(RELEASE)))
    assert served, f"{variant}: no webhook found (Kyverno serves one on every fabric stack)"
    if model.REACHABLE_PORTS is None:  # every TCP port (the model's source says why)
        assert model.SOURCE.startswith("https://")
        return
    reachable = set(model.REACHABLE_PORTS) | opened_by_firewall(plan)
    assert served <= reachable, (
        f"{variant}: webhook ports {sorted(served - reachable)} are not reachable from the "
        f"{spec.cloud.value} control plane ({model.SOURCE})")


def test_platform_variants_serve_kueue_jobset_and_prometheus_webhooks() -> None:
    """The platform variants do install the webhooks the parametrised test checks."""
    plan = plan_of("gcp:platform")
    by_chart = {str(r.inputs["chart"]).rsplit("/", 1)[-1]: served_ports(r)
                for r in plan.by_type(RELEASE)}
    assert by_chart["kyverno"] == {9443}
    assert by_chart["kueue"] == {9443}
    assert by_chart["jobset"] == {9443}
    assert by_chart["kube-prometheus-stack"] == {10250}


def test_gke_private_nodes_get_a_rule_for_exactly_the_webhook_ports(stack_plan) -> None:
    """gcp-a4 (Kyverno only): 9443 from the control-plane /28, nothing else."""
    rule = stack_plan("gcp-a4").one(FIREWALL, "dranet-webhooks")
    assert rule.inputs["name"] == "dranet-master-webhooks"
    assert rule.inputs["direction"] == "INGRESS"
    assert rule.inputs["sourceRanges"] == ["172.16.0.32/28"]
    assert rule.inputs["allows"] == [{"protocol": "tcp", "ports": ["9443"]}]
    assert rule.inputs["network"] == "projects/gke-dranet/global/networks/dranet-net"


def test_gke_platform_rule_opens_9443_but_not_10250() -> None:
    """Prometheus Operator's 10250 is already in GKE's master rule; Kueue/JobSet share 9443."""
    rules = [r for r in plan_of("gcp:platform").by_type(FIREWALL)
             if r.name.endswith("-webhooks")]
    assert [r.inputs["allows"] for r in rules] == [[{"protocol": "tcp", "ports": ["9443"]}]]


def test_public_gke_nodes_get_no_webhook_rule(spec_plan) -> None:
    from tests.specs import spec_dict

    plan = spec_plan(spec_dict("gcp", gcp={"project": "test-project", "private_nodes": False}))
    assert [r.name for r in plan.by_type(FIREWALL) if r.name.endswith("-webhooks")] == []
