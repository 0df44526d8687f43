"""The recording mock harness sees type, name, parent, dependencies and inputs of everything."""

from __future__ import annotations

import pulumi
import pulumi_kubernetes as k8s
import pytest

from gpu_fabric.plan.runner import run_program
from gpu_fabric.plan.values import SECRET


def _program() -> None:
    class Box(pulumi.ComponentResource):
        def __init__(self, name: str) -> None:
            super().__init__("test:index:Box", name, None, None)
            self.ns = k8s.core.v1.Namespace(
                f"{name}-ns", metadata={"name": "team"}, opts=pulumi.ResourceOptions(parent=self)
            )
            self.cm = k8s.core.v1.ConfigMap(
                f"{name}-cm",
                metadata={"name": "cfg", "namespace": self.ns.metadata["name"]},
                data={"token": pulumi.Output.secret("hunter2"), "plain": "ok"},
                opts=pulumi.ResourceOptions(parent=self),
            )
            self.register_outputs({})

    box = Box("box")
    pulumi.export("namespace", box.ns.metadata["name"])
    pulumi.export("token", pulumi.Output.secret("hunter2"))


def test_records_parent_dependencies_inputs_and_masks_secrets() -> None:
    plan = run_program(_program, stack="harness")
    box = plan.one("test:index:Box", "box")
    ns = plan.one("kubernetes:core/v1:Namespace", "box-ns")
    cm = plan.one("kubernetes:core/v1:ConfigMap", "box-cm")
    assert box.parent is not None and box.parent.endswith("::gpu-fabric-harness")
    assert ns.parent == box.urn and cm.parent == box.urn
    assert ns.urn in cm.dependencies  # the namespace name flows into the ConfigMap
    assert plan.depends_on(cm, ns)
    assert not plan.depends_on(ns, cm)
    assert cm.inputs["data"]["plain"] == "ok"
    assert "hunter2" not in str(cm.inputs)
    assert plan.outputs["token"] == SECRET
    assert plan.outputs["namespace"] == "team"


def test_each_run_is_independent() -> None:
    first = run_program(_program, stack="one")
    second = run_program(_program, stack="two")
    assert len(first.resources) == len(second.resources) == 3
    assert all("::two::" not in r.urn for r in first.resources)


def test_preview_mode_leaves_computed_outputs_unknown() -> None:
    def program() -> None:
        ns = k8s.core.v1.Namespace("ns", metadata={"name": "x"})
        pulumi.export("id", ns.id)

    assert run_program(program, preview=True).outputs["id"] == "[unknown]"
    assert run_program(program, preview=False).outputs["id"] == "ns-id"


def test_program_errors_propagate() -> None:
    def program() -> None:
        raise RuntimeError("boom")

    with pytest.raises(RuntimeError, match="boom"):
        run_program(program)


def test_a_failed_plan_does_not_leak_into_the_next() -> None:
    """A program that fails inside an apply leaves Pulumi tasks pending; the next plan in
    the same process must neither see them nor re-raise their error."""
    import pulumi

    from gpu_fabric.plan.runner import run_program

    class Boom(Exception):
        pass

    def failing() -> None:
        def explode(_: object) -> str:
            raise Boom("from the first plan")

        value = pulumi.Output.from_input("x").apply(explode)
        for i in range(20):  # outputs and registrations left pending behind the failure
            pulumi.CustomResource("test:index:Thing", f"t{i}", {"v": value})

    def fine() -> None:
        pulumi.CustomResource("test:index:Thing", "ok", {"v": "y"})
        pulumi.export("v", pulumi.Output.from_input("y"))

    with pytest.raises(Boom):
        run_program(failing)
    plan = run_program(fine)
    assert [r.name for r in plan.resources if r.type == "test:index:Thing"] == ["ok"]
    assert plan.outputs == {"v": "y"}


def test_a_plan_gives_the_caller_its_event_loop_back() -> None:
    """Code that runs after a plan in the same thread may still build Outputs (CI once
    failed because a plan left the thread without a current loop)."""
    import asyncio

    import pulumi

    from gpu_fabric.plan.runner import run_program

    original = asyncio.get_event_loop_policy().get_event_loop()
    before = asyncio.new_event_loop()
    asyncio.set_event_loop(before)
    try:
        run_program(lambda: pulumi.export("v", "y"))
        assert asyncio.get_event_loop_policy().get_event_loop() is before
        assert isinstance(pulumi.Output.secret("after"), pulumi.Output)
    finally:
        asyncio.set_event_loop(original)
        before.close()
