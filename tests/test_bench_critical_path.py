"""The benchmark's critical-path function on small hand-built graphs."""

from __future__ import annotations

from typing import Any

import pytest

from bench.plan_bench import critical_path, short_type
from gpu_fabric.plan.model import PlannedResource

STACK = "urn:pulumi:s::p::"


def res(
    name: str,
    *deps: str,
    type_: str = "test:index:Thing",
    custom: bool = True,
    parent: str | None = None,
    provider: str | None = None,
) -> PlannedResource:
    return PlannedResource(
        urn=STACK + f"{type_}::{name}",
        type=type_,
        name=name,
        parent=STACK + f"test:index:Component::{parent}" if parent else None,
        dependencies=tuple(STACK + f"test:index:Thing::{d}" for d in deps),
        inputs={},
        custom=custom,
        provider=provider,
    )


PROVIDER_URN = STACK + "pulumi:providers:kubernetes::k8s"


def cluster_graph() -> list[PlannedResource]:
    """network -> subnet -> cluster -> {node pool, provider -> ns -> {operator -> CR, addon}}."""
    provider_ref = PROVIDER_URN + "::04da6b54-id"
    k8s: dict[str, Any] = {"provider": provider_ref, "parent": "fabric"}
    return [
        res("vpc"),
        res("subnet", "vpc"),
        res("cluster", "subnet"),
        res("pool", "cluster"),
        PlannedResource(PROVIDER_URN, "pulumi:providers:kubernetes", "k8s", None,
                        (STACK + "test:index:Thing::cluster",), {}),
        res("fabric", type_="test:index:Component", custom=False),
        res("ns", **k8s),  # waits for the cluster only through its provider
        res("operator", "ns", **k8s),
        res("cr", "operator", **k8s),
        res("addon", "ns", **k8s),  # in parallel with the operator: not on the path
    ]


def names(chain: list[PlannedResource]) -> list[str]:
    return [r.name for r in chain]


def test_longest_chain_follows_dependencies_and_providers() -> None:
    chain = critical_path(cluster_graph())
    assert names(chain) == ["vpc", "subnet", "cluster", "k8s", "ns", "operator", "cr"]


def test_parallel_branches_do_not_lengthen_the_path() -> None:
    graph = cluster_graph()
    more = [res(f"addon{i}", "ns", provider=PROVIDER_URN + "::id") for i in range(5)]
    assert len(critical_path(graph + more)) == 7


def test_a_chained_addon_lengthens_the_path() -> None:
    graph = [*cluster_graph(), res("after-cr", "cr")]
    assert names(critical_path(graph))[-2:] == ["cr", "after-cr"]


def test_components_are_not_steps_but_wait_for_their_children() -> None:
    # A remote component (custom=False) is done when its children are; "user" depends on it.
    graph = [
        res("a"),
        res("b", "a"),
        res("chart", type_="test:index:Component", custom=False),
        res("child", "b", parent="chart"),
        res("user", "chart"),
    ]
    graph[4] = PlannedResource(graph[4].urn, graph[4].type, "user", None,
                               (graph[2].urn,), {})
    assert names(critical_path(graph)) == ["a", "b", "child", "user"]


def test_diamond_counts_each_resource_once() -> None:
    graph = [res("a"), res("b", "a"), res("c", "a"), res("d", "b", "c")]
    assert len(critical_path(graph)) == 3


def test_unknown_dependencies_are_ignored_and_empty_graph_is_empty() -> None:
    assert names(critical_path([res("x", "not-registered")])) == ["x"]
    assert critical_path([]) == []


def test_cycle_is_reported() -> None:
    with pytest.raises(ValueError, match="cycle"):
        critical_path([res("a", "b"), res("b", "a")])


def test_short_type() -> None:
    assert short_type("gcp:container/nodePool:NodePool") == "NodePool"
    assert short_type("pulumi:providers:kubernetes") == "provider:kubernetes"
