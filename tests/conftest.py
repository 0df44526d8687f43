"""Shared fixtures: plan any stack or spec under the recording mock runtime."""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from typing import Any

import pytest

from gpu_fabric.plan import PlanResult, load_stack_file, run_plan, run_spec
from gpu_fabric.plan.stackfile import available_stacks


@cache
def _stack_plan(name: str, preview: bool) -> PlanResult:
    return run_plan(load_stack_file(name), preview=preview)


@pytest.fixture
def stack_plan() -> Callable[..., PlanResult]:
    """``stack_plan("gcp-a4")``: the (cached) offline plan of a committed stack."""

    def plan(name: str, preview: bool = False) -> PlanResult:
        return _stack_plan(name, preview)

    return plan


@pytest.fixture
def spec_plan() -> Callable[..., PlanResult]:
    """``spec_plan(raw_spec)``: plan a raw spec mapping (not cached)."""

    def plan(spec: dict[str, Any], **kwargs: Any) -> PlanResult:
        return run_spec(spec, **kwargs)

    return plan


def all_stacks() -> list[str]:
    return available_stacks()
