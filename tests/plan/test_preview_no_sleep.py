"""The offline preview plan never sleeps (issue 36).

The Azure InfiniBand feature gate polls the subscription every FEATURE_POLL_SECONDS (30 s)
until the feature is Registered. A preview registers nothing; the offline preview leaves
the registration's computed state out, so the gate slept once per preview plan of
azure-ndv4/ndv5 (32 s of a 2.6 s CPU plan).
"""

from __future__ import annotations

import asyncio
import time

import pytest

from gpu_fabric.clouds.azure import feature
from gpu_fabric.plan import load_stack_file, run_plan


@pytest.fixture
def sleeps(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    slept: list[float] = []

    async def no_sleep(seconds: float) -> None:
        slept.append(seconds)

    monkeypatch.setitem(feature.wait_for_registered.__kwdefaults__, "sleep", no_sleep)
    real_sleep = time.sleep

    def counted(seconds: float) -> None:
        slept.append(seconds)
        real_sleep(0)

    monkeypatch.setattr(time, "sleep", counted)
    return slept


def test_the_preview_plan_of_azure_ndv5_never_sleeps(sleeps: list[float]) -> None:
    plan = run_plan(load_stack_file("azure-ndv5"), preview=True)
    # stacks/Pulumi.azure-ndv5.yaml: infiniband_feature manage (the registration resource)
    assert [r.name for r in plan.resources
            if r.type == "azure-native:features:SubscriptionFeatureRegistration"] == [
        "azure-ndv5-ib-feature"]
    assert sleeps == []


def test_up_still_waits_until_registered(sleeps: list[float]) -> None:
    """Outside a preview the gate still polls: Registering, then Registered after 1 poll."""
    states = iter(["Registered"])

    async def read() -> str | None:
        return next(states)

    result = asyncio.run(feature.wait_for_registered("Registering", read))
    assert (result, sleeps) == ("Registered", [30])  # FEATURE_POLL_SECONDS
