"""Shared fixtures: plan any stack or spec under the recording mock runtime."""

from __future__ import annotations

import gc
import uuid
from collections.abc import Callable
from functools import cache
from typing import Any

import pytest

from gpu_fabric.plan import PlanResult, load_stack_file, run_plan, run_spec
from gpu_fabric.plan.collector import PLAN_FULL_COLLECTION_THRESHOLD
from gpu_fabric.plan.stackfile import available_stacks
from tests.support import shared_cache

# A test process imports every cloud's SDK: ~2M long-lived objects that each full
# (generation 2) garbage collection walks, ~0.7 s each and a third of the suite's CPU
# (measured on tests/test_feature_matrix.py + tests/clouds/azure + the day-2 matrix:
# 96 s CPU, 30 s of it in 44 full collections). Young collections still free the tests'
# garbage; the process ends after the session, so full ones only cost time (issue 36).
gc.set_threshold(*gc.get_threshold()[:2], PLAN_FULL_COLLECTION_THRESHOLD)

# Started first so that they end before the rest: with `make test`'s workers
# (pytest-xdist, one test at a time to each), a long test started last is the tail
# of the run. The test files whose single tests take the most CPU (`--durations`).
RUN_FIRST = (
    "tests/test_add_stack.py",
    "tests/helm/test_chart_diff.py",
    "tests/day2/test_operations_matrix.py",
    "tests/test_import_name.py",
    "tests/test_lazy_imports.py",
)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The tests of RUN_FIRST first, in their order; the rest as collected."""

    def rank(item: pytest.Item) -> int:
        path = item.nodeid.split("::", 1)[0]
        return RUN_FIRST.index(path) if path in RUN_FIRST else len(RUN_FIRST)

    items.sort(key=rank)  # stable: the order within a rank is the collected one


def pytest_configure(config: pytest.Config) -> None:
    """The xdist controller names the run, so that it can remove the run's shared
    values (tests/support/shared_cache.py) at the end."""
    if (not hasattr(config, "workerinput") and config.pluginmanager.hasplugin("xdist")
            and config.getoption("testrunuid", None) is None):
        config.option.testrunuid = uuid.uuid4().hex


def pytest_unconfigure(config: pytest.Config) -> None:
    if not hasattr(config, "workerinput") and config.pluginmanager.hasplugin("xdist"):
        shared_cache.remove(config.getoption("testrunuid", None))


@cache
def _stack_plan(name: str, preview: bool) -> PlanResult:
    # Once per run for all xdist workers (each committed stack is planned by many files).
    return shared_cache.shared(
        f"stack-plan:{name}:{preview}",
        lambda: run_plan(load_stack_file(name), preview=preview),
    )


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
