"""A mock resource monitor that records the whole graph the program registers."""

from __future__ import annotations

from pulumi.runtime.mocks import MockMonitor, Mocks

from gpu_fabric.plan.model import PlannedResource
from gpu_fabric.plan.values import plain

STACK_TYPE = "pulumi:pulumi:Stack"


class RecordingMonitor(MockMonitor):
    """Pulumi's MockMonitor, plus a record of parent, dependencies and inputs per resource.

    The stock monitor passes inputs to the mocks but drops ``parent`` and
    ``dependencies``; those are what a review of the graph needs.
    """

    def __init__(self, mocks: Mocks) -> None:
        super().__init__(mocks)
        self.recorded: list[PlannedResource] = []

    def make_urn(self, parent: str, type_: str, name: str) -> str:
        """The URN the Pulumi engine gives: the parent's whole type chain, then the type.

        The stock mock keeps only the parent's last type; URN-stability checks need
        the real ``Cluster$FabricStack$Namespace`` chain.
        """
        if parent:
            qualified = parent.split("::")[2]
            if qualified != STACK_TYPE:
                type_ = f"{qualified}${type_}"
        return super().make_urn("", type_, name)

    def _alias_urns(self, request) -> tuple[str, ...]:
        """Every alias of a registration as a URN (alias specs resolved like the engine does)."""
        urns: list[str] = list(request.aliasURNs)
        for alias in request.aliases:
            if alias.urn:
                urns.append(alias.urn)
                continue
            spec = alias.spec
            parent = "" if spec.noParent else (spec.parentUrn or request.parent)
            urn = self.make_urn(parent, spec.type or request.type, spec.name or request.name)
            parts = urn.split("::", 3)  # urn:pulumi:STACK, PROJECT, TYPE, NAME
            if spec.stack:
                parts[0] = f"urn:pulumi:{spec.stack}"
            if spec.project:
                parts[1] = spec.project
            urns.append("::".join(parts))
        return tuple(dict.fromkeys(urns))

    def RegisterResource(self, request):
        response = super().RegisterResource(request)
        if request.type == STACK_TYPE:
            return response
        self.recorded.append(
            PlannedResource(
                urn=response.urn,
                type=request.type,
                name=request.name,
                parent=request.parent or None,
                dependencies=tuple(sorted(set(request.dependencies))),
                inputs=plain(request.object),
                custom=bool(request.custom),
                provider=request.provider or None,
                remote=bool(request.remote),
                aliases=self._alias_urns(request),
                ignore_changes=tuple(request.ignoreChanges),
                delete_before_replace=bool(request.deleteBeforeReplace),
                replace_on_changes=tuple(request.replaceOnChanges),
                protect=bool(request.protect),
                property_dependencies={
                    key: tuple(sorted(set(deps.urns)))
                    for key, deps in sorted(request.propertyDependencies.items())
                },
            )
        )
        return response
