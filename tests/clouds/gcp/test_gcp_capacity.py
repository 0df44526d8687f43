"""GKE: machines are refused in capacity Google does not sell them in.

Source: Google "Consumption options" (AI Hypercomputer),
https://cloud.google.com/ai-hypercomputer/docs/consumption-models: future reservations
for "A4X, A4, or A3 Ultra"; flex-start and Spot for "Any GPU machine except A4X"; no
on-demand (standard) provisioning for those three. cluster-toolkit (1047080375af)
examples/gke-a4/gke-a4.yaml and examples/gke-a4x/gke-a4x.yaml consume a specific
reservation.
"""

from __future__ import annotations

import pytest

from gpu_fabric.catalog import get_machine
from gpu_fabric.errors import SpecError
from gpu_fabric.preflight import check_spec
from gpu_fabric.spec import load_spec
from tests.specs import with_pool

POOL = "gcp:container/nodePool:NodePool"


def _refusal(**pool: object) -> str:
    with pytest.raises(SpecError) as info:
        check_spec(load_spec(with_pool("gcp", **pool)))
    return str(info.value)


def test_catalog_rows_carry_the_consumption_options() -> None:
    assert get_machine("a4-highgpu-8g", "gcp").capacity_types == (
        "reservation", "flex_start", "queued", "spot")
    assert get_machine("a3-ultragpu-8g", "gcp").capacity_types == (
        "reservation", "flex_start", "queued", "spot")
    assert get_machine("a4x-highgpu-4g", "gcp").capacity_types == ("reservation",)
    assert get_machine("a4x-highgpu-4g", "gcp").capacity_source == (
        "https://cloud.google.com/ai-hypercomputer/docs/consumption-models")
    # A3 Mega / A3 High are sold on demand: no restriction.
    assert get_machine("a3-megagpu-8g", "gcp").capacity_types == ()


@pytest.mark.parametrize("machine", ["a4-highgpu-8g", "a3-ultragpu-8g"])
def test_on_demand_a4_and_a3_ultra_are_refused(machine: str) -> None:
    text = _refusal(machine_type=machine, capacity={"type": "on_demand"})
    assert "node_pools[0].capacity.type" in text
    assert f"{machine} is not sold as 'on_demand' capacity" in text
    assert "valid: reservation, flex_start, queued, spot" in text
    assert "(got 'on_demand')" in text or "(got on_demand)" in text


@pytest.mark.parametrize("capacity", [{"type": "on_demand"}, {"type": "spot"},
                                      {"type": "flex_start"}])
def test_a4x_is_reservation_only(capacity: dict[str, str]) -> None:
    pool = {"machine_type": "a4x-highgpu-4g", "capacity": capacity}
    if capacity["type"] == "flex_start":
        pool["auto_repair"] = False  # type: ignore[assignment]
    text = _refusal(**pool)
    assert "node_pools[0].capacity.type" in text
    assert "valid: reservation (" in text


def test_a4_spot_and_a3_mega_on_demand_pass() -> None:
    # Sold that way (consumption-models page); the contrast, A4 on demand, is refused.
    spot = load_spec(with_pool("gcp", capacity={"type": "spot"}))
    check_spec(spot)
    assert spot.node_pools[0].capacity.type == "spot"
    mega = load_spec(with_pool("gcp", machine_type="a3-megagpu-8g",
                               capacity={"type": "on_demand"}))
    check_spec(mega)
    assert mega.node_pools[0].capacity.type == "on_demand"
    assert "node_pools[0].capacity.type" in _refusal(capacity={"type": "on_demand"})


def test_seed_stack_consumes_a_specific_reservation(stack_plan) -> None:
    pool = stack_plan("gcp-a4").one(POOL, "dranet-dranet-a4")
    assert pool.inputs["nodeConfig"]["reservationAffinity"] == {
        "consumeReservationType": "SPECIFIC_RESERVATION",
        "key": "compute.googleapis.com/reservation-name",
        "values": ["dranet-a4-reservation"],
    }
    # Reserved capacity comes densely placed: no COMPACT policy of our own.
    assert "placementPolicy" not in pool.inputs
