"""Mock answers for resources and invokes: echo inputs, add plausible computed outputs.

Each cloud package may provide ``fakes.py`` (SDK-free) with two dicts:
``RESOURCE_OUTPUTS`` (type token -> fn(name, inputs) -> extra state) and
``CALLS`` (invoke token -> fn(args) -> result). In preview mode computed
outputs are left out, so they are unknown, as on a first ``pulumi preview``.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

import pulumi

from components.catalog import Cloud

ResourceFake = Callable[[str, dict[str, Any]], dict[str, Any]]
CallFake = Callable[[dict[str, Any]], dict[str, Any]]


def _load_fakes() -> tuple[dict[str, ResourceFake], dict[str, CallFake]]:
    resources: dict[str, ResourceFake] = {}
    calls: dict[str, CallFake] = {}
    for cloud in Cloud:
        try:
            module = importlib.import_module(f"components.clouds.{cloud.value}.fakes")
        except ModuleNotFoundError:
            continue
        resources.update(getattr(module, "RESOURCE_OUTPUTS", {}))
        calls.update(getattr(module, "CALLS", {}))
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
