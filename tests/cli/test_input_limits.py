"""Unit tests of what the bad-input corpus (tests/cli/test_bad_inputs.py) exercises end to end.

Expected values are literal: the region/zone facts cite the sources in
components/gpu_fabric/clouds/<cloud>/regions.py, the reserved-address counts those in
components/gpu_fabric/clouds/<cloud>/checks.py.
"""

from __future__ import annotations

import json
import math
import time
from pathlib import Path

import pytest

from gpu_fabric.catalog import Cloud
from gpu_fabric.clouds.oci.regions import oci_ad_names
from gpu_fabric.clouds.registry import provider_for
from gpu_fabric.errors import Problem, SpecError
from gpu_fabric.nccl.parser import parse
from gpu_fabric.plan.plaintext_secrets import plaintext_problems
from gpu_fabric.plan.safe_yaml import load_bounded
from gpu_fabric.spec import load_spec
from tests.specs import spec_dict, with_pool

# -- YAML loading ----------------------------------------------------------------


def test_alias_bomb_is_refused_fast() -> None:
    """9 levels of 9 aliases (387 M values expanded) took minutes; now well under a second."""
    text = "a0: &a0 [x, x, x, x, x, x, x, x, x]\n" + "".join(
        f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 9)}]\n" for i in range(1, 9)
    )
    start = time.perf_counter()
    with pytest.raises(SpecError, match="alias bomb"):
        load_bounded(text, "bomb.yaml")
    assert time.perf_counter() - start < 5


def test_a_few_aliases_still_load() -> None:
    doc = load_bounded("a: &x {k: 1}\nb: *x\nc: *x\n", "ok.yaml")
    assert doc == {"a": {"k": 1}, "b": {"k": 1}, "c": {"k": 1}}


@pytest.mark.parametrize("depth", [65, 100_000])
def test_deep_nesting_is_refused_before_the_composer(depth: int) -> None:
    """100 000 nested lists crashed the C composer (SIGSEGV); 65 is one over the limit."""
    with pytest.raises(SpecError, match="nested more than 64 levels"):
        load_bounded("[" * depth + "]" * depth, "deep.yaml")


def test_64_levels_load() -> None:
    assert load_bounded("[" * 64 + "]" * 64, "ok.yaml") is not None


# -- messages --------------------------------------------------------------------


def test_a_megabyte_value_is_cut_in_the_message() -> None:
    value = "v" * 1_000_000
    text = str(Problem("name", f"'{value}' is not a DNS label", value, True))
    assert len(text) < 300
    assert "(1000002 characters)" in text  # the quoted run: 1 000 000 + 2 quotes


# -- strict integers -----------------------------------------------------------------


@pytest.mark.parametrize("value", [True, False, "2", 2.0])
def test_node_count_takes_only_integers(value: object) -> None:
    with pytest.raises(SpecError) as info:
        load_spec(with_pool("gcp", node_count=value))
    assert [p.path for p in info.value.problems] == ["node_pools[0].node_count"]


def test_integer_node_count_still_loads() -> None:
    assert load_spec(with_pool("gcp", node_count=3)).node_pools[0].node_count == 3


# -- regions and zones (components/gpu_fabric/clouds/<cloud>/regions.py sources) ---------------


@pytest.mark.parametrize(("cloud", "region", "zone"), [
    (Cloud.GCP, "us-west8", "us-west8-c"),          # the seed's zone
    (Cloud.GCP, "us-central1", "us-central1-f"),    # us-central1 is a, b, c, f
    (Cloud.GCP, "europe-west1", "europe-west1-b"),  # europe-west1 is b, c, d
    (Cloud.GCP, "us-west4", "us-west4-ai2b"),       # an AI zone (regions-zones page)
    (Cloud.AWS, "us-east-1", "us-east-1f"),
    (Cloud.OCI, "us-ashburn-1", "Uocm:US-ASHBURN-AD-3"),
    (Cloud.OCI, "us-phoenix-1", "abcd:PHX-AD-2"),
    (Cloud.OCI, "ap-tokyo-1", "abcd:AP-TOKYO-1-AD-1"),
    (Cloud.AZURE, "eastus", None),
    (Cloud.DIGITALOCEAN, "atl1", None),
])
def test_real_locations_pass(cloud: Cloud, region: str, zone: str | None) -> None:
    assert provider_for(cloud).location_problems(region, zone) == []


@pytest.mark.parametrize(("cloud", "region", "zone", "path"), [
    (Cloud.GCP, "us-west8", "us-west8X-c", "location.zone"),
    (Cloud.GCP, "us-east1", "us-east1-a", "location.zone"),  # retired; b, c, d remain
    (Cloud.GCP, "us-nowhere1", None, "location.region"),
    (Cloud.AWS, "us-east-1", "us-east-1ab", "location.zone"),
    (Cloud.AWS, "us-east-9", None, "location.region"),
    (Cloud.OCI, "us-ashburn-1", "Uocm:PHX-AD-1", "location.zone"),
    (Cloud.OCI, "ap-tokyo-1", "Uocm:AP-TOKYO-1-AD-2", "location.zone"),
    (Cloud.AZURE, "east-us", None, "location.region"),
    (Cloud.DIGITALOCEAN, "nyc9", None, "location.region"),
])
def test_wrong_locations_are_refused(cloud: Cloud, region: str, zone: str | None,
                                     path: str) -> None:
    problems = provider_for(cloud).location_problems(region, zone)
    assert [p.path for p in problems] == [path]


def test_oci_ad_names() -> None:
    assert oci_ad_names("us-ashburn-1") == ["US-ASHBURN-AD-1", "US-ASHBURN-AD-2",
                                            "US-ASHBURN-AD-3"]
    assert oci_ad_names("eu-frankfurt-1")[0] == "EU-FRANKFURT-1-AD-1"
    assert oci_ad_names("ap-osaka-1") == ["AP-OSAKA-1-AD-1"]


# -- address plans (components/gpu_fabric/clouds/<cloud>/checks.py) ---------------------------


def _problems(data: dict) -> list[str]:
    from gpu_fabric.preflight import check_spec

    with pytest.raises(SpecError) as info:
        check_spec(load_spec(data))
    return [p.path for p in info.value.problems]


def test_gke_node_range_holds_nodes_after_four_reserved() -> None:
    """A /28 has 16 - 4 = 12 usable addresses: 10 GPU + 2 system nodes fit, 11 + 2 do not."""
    from gpu_fabric.preflight import check_spec

    ok = spec_dict("gcp", network={"cidr": "10.0.0.0/28"})
    ok["node_pools"][0]["node_count"] = 10
    check_spec(load_spec(ok))
    ok["node_pools"][0]["node_count"] = 11
    assert _problems(ok) == ["network.cidr"]


def test_gke_rdma_subnets_hold_the_fabric_nodes() -> None:
    data = spec_dict("gcp", network={"fabric_subnet_prefix": 29},
                     fabric={"mode": "dra", "dranet": "self"})
    data["gcp"]["release_channel"] = "UNSPECIFIED"
    data["node_pools"][0].update(node_count=500, auto_repair=False)
    assert "network.fabric_subnet_prefix" in _problems(data)


def test_gke_master_range_outside_node_range() -> None:
    data = spec_dict("gcp")
    data["gcp"]["master_ipv4_cidr"] = "10.0.0.16/28"
    assert "gcp.master_ipv4_cidr" in _problems(data)


# -- nccl-report --------------------------------------------------------------------------


NCCL_LOG = Path(__file__).parents[1] / "data" / "nccl" / "synth-p5-2node-allreduce-efa.log"


def _log(busbw: str) -> str:
    text = NCCL_LOG.read_text()
    return text.replace("468.36", busbw)  # the 4 GiB out-of-place row (file line 50)


@pytest.mark.parametrize("figure", ["nan", "inf", "-468.36", "46836.00"])
def test_impossible_busbw_fails_the_run(figure: str) -> None:
    from gpu_fabric.catalog import get_machine
    from gpu_fabric.nccl.verdict import judge

    verdict = judge(parse(_log(figure)), get_machine("p5.48xlarge"), nodes=2)
    assert not verdict.passed
    assert any(r.startswith("impossible figure: line 50") for r in verdict.reasons)
    doc = json.dumps(verdict.to_json(), allow_nan=False)  # raises on NaN/inf
    assert all(math.isfinite(v) for v in verdict.to_json()["peak_busbw"].values())
    assert "NaN" not in doc


def test_real_figures_still_pass() -> None:
    from gpu_fabric.catalog import get_machine
    from gpu_fabric.nccl.verdict import judge

    assert judge(parse(_log("468.36")), get_machine("p5.48xlarge"), nodes=2).passed


# -- plaintext credentials ------------------------------------------------------------------


def test_plaintext_kubeconfig_named_by_config_key_is_refused() -> None:
    config = {
        "gpu-fabric:cluster": {"existing": {"kubeconfig": {"config_key": "kubeconfig"}}},
        "gpu-fabric:kubeconfig": "apiVersion: v1\nkind: Config\n",
    }
    problems = plaintext_problems(config)
    assert [p.path for p in problems] == ["gpu-fabric:kubeconfig"]
    assert "pulumi config set --secret gpu-fabric:kubeconfig" in problems[0].message


def test_encrypted_values_pass() -> None:
    config = {
        "gpu-fabric:cluster": {"existing": {"kubeconfig": {"config_key": "kubeconfig"}}},
        "gpu-fabric:kubeconfig": {"secure": "v1:abc"},
        "digitalocean:token": {"secure": "v1:def"},
    }
    assert plaintext_problems(config) == []
