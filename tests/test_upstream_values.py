"""Every Helm value key any plan sets is read by the chart at the pinned version
(tests/data/upstream/values/, see sources.json), and the check bites."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from gpu_fabric import versions
from tests.support.helm_values import FREE_FORM, chart_defaults, check_values, has_upstream
from tests.support.variants import plan_of, usable

RELEASE = "kubernetes:helm.sh/v3:Release"


def releases(variant: str) -> list[tuple[str, str, dict[str, Any]]]:
    """(chart name, version, values) of every Helm release in a plan."""
    out = []
    for res in plan_of(variant).resources:
        if res.type == RELEASE:
            chart = str(res.inputs["chart"]).rsplit("/", 1)[-1]
            out.append((chart, str(res.inputs["version"]), dict(res.inputs.get("values", {}))))
    return out


@pytest.mark.parametrize("variant", usable())
def test_every_value_we_set_is_read_by_the_pinned_chart(variant: str) -> None:
    problems = [p for chart, version, values in releases(variant)
                for p in check_values(chart, version, values)]
    assert problems == []


def test_every_pinned_chart_has_its_upstream_values() -> None:
    charts = {(c.name, c.version) for c in vars(versions).values()
              if isinstance(c, versions.Chart)}
    assert sorted(c for c in charts if not has_upstream(*c)) == []
    used = {(c, v) for variant in usable() for c, v, _ in releases(variant)}
    assert used <= charts  # no chart at an unpinned version


def test_every_free_form_place_is_used_and_has_a_reason() -> None:
    set_paths = set()
    for variant in usable():
        for chart, _, values in releases(variant):
            set_paths |= {(chart, p) for p in _paths(values)}
    for key, reason in FREE_FORM.items():
        assert key in set_paths, f"stale allow-list entry {key}"
        assert len(reason) > 20


def _paths(values: dict[str, Any], prefix: str = "") -> set[str]:
    out = set()
    for key, value in values.items():
        out.add(prefix + key)
        if isinstance(value, dict):
            out |= _paths(value, f"{prefix}{key}.")
    return out


# -- the check bites ---------------------------------------------------------------------


def _release(chart: str) -> tuple[str, str, dict[str, Any]]:
    for variant in usable():
        for name, version, values in releases(variant):
            if name == chart and values:
                assert check_values(name, version, values) == []
                return name, version, copy.deepcopy(values)
    raise AssertionError(f"no {chart} release with values in any plan")


def test_an_unknown_key_fails() -> None:
    chart, version, values = _release("gpu-operator")
    values["driver"]["rdma"]["useHostMofedd"] = True  # typo of useHostMofed
    assert check_values(chart, version, values) == [
        "gpu-operator: driver.rdma.useHostMofedd: not a value of the chart (no such key in "
        "its values.yaml or values.schema.json at the pinned version)"
    ]


def test_a_pin_without_its_upstream_copy_names_the_refresh_command() -> None:
    # A bumped pin fails every test that reads the chart's defaults; each says why.
    with pytest.raises(FileNotFoundError, match=r"^no upstream copy of gpu-operator v0\.0\.0 "
                       r"values\.yaml .*python scripts/refresh_upstream\.py --write fetches it$"):
        chart_defaults("gpu-operator", "v0.0.0")


def test_a_key_of_another_place_or_type_fails() -> None:
    chart, version, values = _release("network-operator")
    values["operator"]["tolerations"][0]["effectt"] = "NoSchedule"
    values["nfd"]["enabled"] = "false"  # a string where the chart has a bool
    problems = check_values(chart, version, values)
    assert any("effectt" in p for p in problems)
    assert any("nfd.enabled: str" in p for p in problems)


def test_a_subchart_key_is_checked_against_the_subchart() -> None:
    chart, version, values = _release("kube-prometheus-stack")
    values["grafana"]["sidecar"]["dashboards"]["labelValu"] = "1"
    assert any("grafana.sidecar.dashboards.labelValu" in p
               for p in check_values(chart, version, values))


def test_a_values_schema_refuses_a_bad_value() -> None:
    chart, version, values = _release("dranet")
    values["args"]["cloudProviderHint"] = "GCP"  # dranet v1.4.0 schema: GCE, AZURE, ...
    assert any("values.schema.json" in p for p in check_values(chart, version, values))


def test_a_free_form_map_needs_an_allow_list_entry() -> None:
    chart, version, values = _release("kube-prometheus-stack")
    values["prometheus"]["prometheusSpec"]["externalLabels"] = {"cluster": "x"}
    assert any("allow-list it in FREE_FORM" in p for p in check_values(chart, version, values))
