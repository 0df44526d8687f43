"""Spec messages from issue 23: the section of another cloud, AWS zone names, empty pools."""

from __future__ import annotations

import pytest

from gpu_fabric.errors import SpecError
from gpu_fabric.spec import load_spec
from tests.specs import spec_dict


def _problems(data: dict) -> list[tuple[str, str]]:
    with pytest.raises(SpecError) as info:
        load_spec(data)
    return [(p.path, p.message) for p in info.value.problems]


def test_a_gcp_section_on_an_aws_cluster_is_for_another_cloud() -> None:
    data = spec_dict("aws")
    data["gcp"] = {"network_profile": "x"}  # not even a valid gcp: section
    [(path, message)] = _problems(data)
    assert path == "gcp"
    assert "is for another cloud: this cluster's cloud is 'aws'" in message


def test_aws_zone_hint_is_an_aws_zone_name() -> None:
    data = spec_dict("aws")
    data["location"] = {"region": "us-east-1", "zone": "us-west-2a"}
    [(path, message)] = _problems(data)
    assert path == "location.zone"
    # AWS AZ names are <region><letter>: us-east-1a (docs.aws.amazon.com, "Regions and Zones").
    assert "(e.g. us-east-1a)" in message and "us-east-1-a" not in message


def test_gcp_zone_hint_keeps_the_gcp_form() -> None:
    data = spec_dict("gcp")
    data["location"] = {"region": "us-west8", "zone": "us-east1-b"}
    [(path, message)] = _problems(data)
    assert path == "location.zone" and "(e.g. us-west8-a)" in message


def test_node_count_0_without_autoscaling_is_refused_with_what_it_would_mean() -> None:
    data = spec_dict("aws")
    data["node_pools"][0]["node_count"] = 0
    [(path, message)] = _problems(data)
    assert path == "node_pools[0].node_count"
    assert "never has a node" in message and "min_nodes: 0 and max_nodes: N" in message


def test_node_count_0_that_scales_from_zero_is_valid() -> None:
    data = spec_dict("gcp")
    data["node_pools"][0].update(node_count=0, min_nodes=0, max_nodes=4,
                                 capacity={"type": "flex_start"})
    assert load_spec(data).node_pools[0].max_nodes == 4
