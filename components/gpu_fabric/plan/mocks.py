"""Mock answers for resources and invokes: echo inputs, add plausible computed outputs.

Every cloud's fakes are registered in :data:`gpu_fabric.plan.fakes.FAKES`
(one :class:`~gpu_fabric.clouds.contract.CloudFakes` per cloud). In preview
mode computed outputs are left out, so they are unknown, as on a first
``pulumi preview``.
"""

from __future__ import annotations

from collections.abc import Mapping

import pulumi

from gpu_fabric.catalog import Cloud
from gpu_fabric.clouds.contract import CallFake, CloudFakes, ResourceFake
from gpu_fabric.plan.fakes import FAKES


def _load_fakes(
    fakes: Mapping[Cloud, CloudFakes] = FAKES,
) -> tuple[dict[str, ResourceFake], dict[str, CallFake]]:
    """Every cloud's fakes in one table per kind (type tokens never collide across clouds)."""
    missing = [c.value for c in Cloud if c not in fakes]
    if missing:
        raise LookupError(f"no offline fakes registered for {missing} (gpu_fabric.plan.fakes)")
    resources: dict[str, ResourceFake] = {}
    calls: dict[str, CallFake] = {}
    for cloud_fakes in fakes.values():
        resources.update(cloud_fakes.resource_outputs)
        calls.update(cloud_fakes.calls)
    return resources, calls


class PlanMocks(pulumi.runtime.Mocks):
    def __init__(self, preview: bool = False) -> None:
        self.preview = preview
        self.resource_fakes, self.call_fakes = _load_fakes()

    def new_resource(self, args: pulumi.runtime.MockResourceArgs) -> tuple[str | None, dict]:
        state = dict(args.inputs)
        if self.preview:
            return "", state
        fake = self.resource_fakes.get(args.typ)
        if fake is not None:
            state.update(fake(args.name, dict(args.inputs)))
        resource_id = state.pop("__id", None) or f"{args.name}-id"
        return resource_id, state

    def call(self, args: pulumi.runtime.MockCallArgs) -> tuple[dict, list[tuple[str, str]]]:
        # The second element is the invoke's failures; the mock monitor iterates it.
        fake = self.call_fakes.get(args.token)
        if fake is None:
            return {}, []
        return fake(dict(args.args)), []
