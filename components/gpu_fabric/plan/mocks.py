"""Mock answers for resources and invokes: echo inputs, add plausible computed outputs.

The answers are the clouds' fakes (``clouds/<cloud>/fakes.py``, one
:class:`~gpu_fabric.clouds.contract.CloudFakes` per cloud), loaded by
:func:`gpu_fabric.plan.fakes.fakes_for` for the clouds a plan uses. In preview
mode computed outputs are left out, so they are unknown, as on a first
``pulumi preview``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

import pulumi

from gpu_fabric.catalog import Cloud
from gpu_fabric.clouds.contract import CallFake, CloudFakes, ResourceFake
from gpu_fabric.plan.fakes import fakes_for


def _load_fakes(
    clouds: Iterable[Cloud] | None = None,
    load: Callable[[Cloud], CloudFakes] = fakes_for,
) -> tuple[dict[str, ResourceFake], dict[str, CallFake]]:
    """The fakes of ``clouds`` (None: every cloud, for programs that may use any SDK) in
    one table per kind (type tokens never collide across clouds). A cloud without fakes
    raises ``LookupError``: a plan never runs with a cloud's answers silently missing."""
    resources: dict[str, ResourceFake] = {}
    calls: dict[str, CallFake] = {}
    for cloud in Cloud if clouds is None else clouds:
        cloud_fakes = load(cloud)
        resources.update(cloud_fakes.resource_outputs)
        calls.update(cloud_fakes.calls)
    return resources, calls


class PlanMocks(pulumi.runtime.Mocks):
    def __init__(self, preview: bool = False, clouds: Iterable[Cloud] | None = None) -> None:
        self.preview = preview
        self.resource_fakes, self.call_fakes = _load_fakes(clouds)

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
