"""Offline answers of a cloud's SDK, for the planner (:mod:`gpu_fabric.plan.mocks`).

Each cloud folder holds its fakes, ``components/gpu_fabric/clouds/<cloud>/fakes.py``,
with two tables: ``RESOURCE_OUTPUTS`` (type token -> fn(name, inputs) -> computed
outputs) and ``CALLS`` (invoke token -> fn(args) -> result). This loader imports
them by the cloud's name when a plan needs them (only the cloud in use), and only
the planner calls it: production code never imports a fakes module
(``tests/test_architecture.py``). A cloud without fakes, or fakes that fail to
import, fail the plan loudly instead of being skipped.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from gpu_fabric.catalog import Cloud
from gpu_fabric.clouds.contract import CallFake, CloudFakes, ResourceFake
from gpu_fabric.clouds.registry import cloud_module, cloud_module_name

LEAF = "fakes"  # clouds/<cloud>/fakes.py


@dataclass(frozen=True)
class TableFakes:
    """A :class:`~gpu_fabric.clouds.contract.CloudFakes` from a fakes module's two tables."""

    resource_outputs: Mapping[str, ResourceFake]
    calls: Mapping[str, CallFake]


def fakes_module(cloud: Cloud) -> str:
    """The module that holds ``cloud``'s fakes."""
    return cloud_module_name(cloud, LEAF)


def fakes_for(cloud: Cloud) -> CloudFakes:
    """``cloud``'s fakes, imported now; ``LookupError`` when the cloud has none."""
    name = fakes_module(cloud)
    module = cloud_module(cloud, LEAF, missing=(
        f"no offline fakes for '{cloud.value}': {{name}} is missing (a cloud folder holds "
        "fakes.py with RESOURCE_OUTPUTS and CALLS)"))
    resources, calls = (getattr(module, t, None) for t in ("RESOURCE_OUTPUTS", "CALLS"))
    if not isinstance(resources, Mapping) or not isinstance(calls, Mapping):
        raise LookupError(f"{name} must define RESOURCE_OUTPUTS and CALLS (mappings)")
    return TableFakes(resources, calls)
