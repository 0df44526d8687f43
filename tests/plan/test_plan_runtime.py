"""The recording mock runtime, written out: URNs, aliases, inputs, ids, outputs, config.

Small programs (a few resources, well under a second each) so that mutation
testing can run them for every mutant of gpu_fabric/plan/{runner,monitor,mocks,values}.py.

Sources of the literal values:
* URNs: ``urn:pulumi:<stack>::<project>::<parent type chain>$<type>::<name>``, the
  engine's format (https://www.pulumi.com/docs/iac/concepts/resources/names/#urns);
  the stock mock (pulumi/runtime/mocks.py ``MockMonitor.make_urn``, pulumi==3.272.0)
  keeps only the parent's last type, RecordingMonitor the whole chain.
* wire signatures: pulumi/runtime/rpc.py at pulumi==3.272.0 (``_special_sig_key``
  4dabf181..., secret 1b470612..., resource 5cf8f730..., output value d0e6a833...,
  asset c44067f5..., archive 0def7320..., ``UNKNOWN`` 04da6b54-...).
* ids: ``PlanMocks.new_resource`` gives ``<name>-id`` unless a fake sets ``__id``;
  the GCP network fake's id is ``projects/<project>/global/networks/<name>``
  (components/gpu_fabric/clouds/gcp/fakes.py ``_network``).
"""

from __future__ import annotations

import asyncio
import os
from pathlib import Path
from typing import Any

import pulumi
import pytest
from google.protobuf import struct_pb2

from gpu_fabric.catalog import Cloud
from gpu_fabric.errors import SpecError
from gpu_fabric.existing import OFFLINE_ENV
from gpu_fabric.plan.fakes import fakes_for
from gpu_fabric.plan.mocks import PlanMocks, _load_fakes
from gpu_fabric.plan.runner import (
    _caller_loop,
    _close_loop,
    _ignore_orphaned_failures,
    _jsonable,
    run_plan,
    run_program,
    run_spec,
)
from gpu_fabric.plan.stackfile import StackFile
from gpu_fabric.plan.values import plain, unwrap
from tests.specs import spec_dict

SIG = "4dabf18193072939515e22adb298388d"
SECRET_SIG = "1b47061264138c4ac30d75fd1eb44270"
RESOURCE_SIG = "5cf8f73096256a8f31e491e813e4eb8e"
OUTPUT_SIG = "d0e6a833031e9bbcd3f4e8bde6ca49a4"
ASSET_SIG = "c44067f5952c0a294b673a41bacd8c17"
ARCHIVE_SIG = "0def7320c3a5731c473e5ecbe6d01bc7"
WIRE_UNKNOWN = "04da6b54-80e4-46f7-96ec-b56ff0331ba9"

P = "urn:pulumi:st::gpu-fabric::"
OUTER = f"{P}test:index:Outer::o"
INNER = f"{P}test:index:Outer$test:index:Inner::i"
CHAIN = "test:index:Outer$test:index:Inner$test:index:Leaf"


# -- values: the wire format -> plain JSON ------------------------------------------------


def test_unwrap_every_special_value() -> None:
    assert unwrap({SIG: SECRET_SIG, "value": "hunter2"}) == "[secret]"
    assert unwrap({SIG: RESOURCE_SIG, "urn": "urn:x", "id": "i"}) == "urn:x"
    assert unwrap({SIG: OUTPUT_SIG, "value": "v", "secret": True}) == "[secret]"
    assert unwrap({SIG: OUTPUT_SIG, "value": {"b": 2.0, "a": WIRE_UNKNOWN}}) == {
        "a": "[unknown]", "b": 2,
    }
    assert unwrap({SIG: OUTPUT_SIG, "secret": False}) == "[unknown]"  # no value: unknown
    assert unwrap({SIG: ASSET_SIG, "path": "f.txt"}) == {"path": "f.txt"}
    assert unwrap({SIG: ARCHIVE_SIG, "assets": {}}) == {"assets": {}}
    assert unwrap({SIG: "another-sig", "k": 1.0}) == {SIG: "another-sig", "k": 1}


def test_unwrap_plain_values() -> None:
    value = {"z": [1.0, 2.5, WIRE_UNKNOWN, {"y": True}], "a": None, "m": "text"}
    out = unwrap(value)
    assert out == {"a": None, "m": "text", "z": [1, 2.5, "[unknown]", {"y": True}]}
    assert list(out) == ["a", "m", "z"]  # sorted: committed plans are byte-stable
    assert type(out["z"][0]) is int and type(out["z"][1]) is float
    assert unwrap(True) is True  # a bool is no float to shorten


def test_plain_reads_a_struct() -> None:
    struct = struct_pb2.Struct()
    struct.update({"n": 3, "s": {SIG: SECRET_SIG, "value": "x"}})
    assert plain(struct) == {"n": 3, "s": "[secret]"}
    assert plain(struct_pb2.Struct()) == {}


# -- monitor: URNs, aliases, what is recorded ---------------------------------------------


def _graph() -> None:
    provider = pulumi.ProviderResource("test", "prov")
    outer = pulumi.ComponentResource("test:index:Outer", "o")
    inner = pulumi.ComponentResource("test:index:Inner", "i", None,
                                     pulumi.ResourceOptions(parent=outer))
    first = pulumi.CustomResource("test:index:Leaf", "first", {"v": 1},
                                  pulumi.ResourceOptions(parent=inner))
    pulumi.CustomResource(
        "test:index:Leaf", "l",
        {"dep": first, "n": 2.0, "f": 0.5, "s": pulumi.Output.secret("hunter2"),
         "fid": first.id},
        pulumi.ResourceOptions(
            parent=inner, depends_on=[first, first], provider=provider,
            ignore_changes=["n", "f"], delete_before_replace=True,
            replace_on_changes=["s"], protect=True,
            aliases=[
                "urn:pulumi:x::y::t:m:T::explicit",
                pulumi.Alias(name="old-l"),
                pulumi.Alias(type_="test:index:OldLeaf", parent=None),
                pulumi.Alias(parent=outer),
                pulumi.Alias(stack="prod", project="other"),
                pulumi.Alias(name="old-l"),
            ],
        ),
    )
    pulumi.ComponentResource("test:index:Remote", "r", None, None, remote=True)
    pulumi.export("first", first.id)


def test_urns_carry_the_whole_parent_type_chain() -> None:
    plan = run_program(_graph, stack="st")
    assert [r.urn for r in plan.resources] == [
        f"{P}pulumi:providers:test::prov",
        f"{P}{CHAIN}::first",  # sorted by URN: "$" sorts before ":"
        f"{P}{CHAIN}::l",
        INNER,
        OUTER,
        f"{P}test:index:Remote::r",
    ]
    assert plan.stack == "st" and plan.preview is False
    assert plan.outputs == {"first": "first-id"}


def test_a_registration_is_recorded_whole() -> None:
    plan = run_program(_graph, stack="st")
    leaf = plan.one("test:index:Leaf", "l")
    first = plan.one("test:index:Leaf", "first")
    stack_urn = f"{P}pulumi:pulumi:Stack::gpu-fabric-st"
    assert plan.one("test:index:Outer").parent == stack_urn
    assert plan.one("test:index:Inner").parent == OUTER
    assert leaf.parent == INNER and leaf.type == "test:index:Leaf" and leaf.name == "l"
    assert leaf.dependencies == (f"{P}{CHAIN}::first",)  # once, though listed twice
    assert leaf.property_dependencies == {
        "dep": (f"{P}{CHAIN}::first",), "f": (), "fid": (f"{P}{CHAIN}::first",), "n": (),
        "s": (),
    }
    assert leaf.inputs == {
        "dep": f"{P}{CHAIN}::first", "f": 0.5, "fid": "first-id", "n": 2, "s": "[secret]",
    }
    assert leaf.custom is True and plan.one("test:index:Outer").custom is False
    assert leaf.provider == f"{P}pulumi:providers:test::prov::prov-id"
    assert first.provider is None
    assert leaf.remote is False and plan.one("test:index:Remote").remote is True
    assert leaf.ignore_changes == ("n", "f")
    assert first.aliases == () and first.ignore_changes == ()
    # The options the engine acts on, as registered (issue 32: plan --json "options").
    assert (leaf.delete_before_replace, leaf.replace_on_changes, leaf.protect) == (
        True, ("s",), True)
    assert (first.delete_before_replace, first.replace_on_changes, first.protect) == (
        False, (), False)
    assert leaf.aliases == (
        "urn:pulumi:x::y::t:m:T::explicit",  # a URN as given
        f"{P}{CHAIN}::old-l",  # the same parent, another name
        f"{P}test:index:OldLeaf::l",  # no parent, another type
        f"{P}test:index:Outer$test:index:Leaf::l",  # another parent
        f"urn:pulumi:prod::other::{CHAIN}::l",  # another stack and project; the repeat dropped
    )


def test_an_alias_to_another_stack_keeps_a_name_holding_colons() -> None:
    """A URN is ``urn:pulumi:STACK::PROJECT::TYPE::NAME``; the name is everything after
    the third "::" (pulumi's resource.URN), so only the first two parts are replaced."""
    def program() -> None:
        pulumi.CustomResource("test:index:Leaf", "a::b", {},
                              pulumi.ResourceOptions(aliases=[pulumi.Alias(stack="prod")]))

    plan = run_program(program, stack="st")
    assert plan.resources[0].aliases == (
        "urn:pulumi:prod::gpu-fabric::test:index:Leaf::a::b",
    )


def test_preview_leaves_ids_and_computed_outputs_unknown() -> None:
    plan = run_program(_graph, stack="st", preview=True)
    assert plan.preview is True
    dry: list[bool] = []
    run_program(lambda: dry.append(pulumi.runtime.is_dry_run()), preview=True)
    run_program(lambda: dry.append(pulumi.runtime.is_dry_run()))
    assert dry == [True, False]  # the program sees a preview as `pulumi preview` shows it
    assert plan.one("test:index:Leaf", "l").inputs["fid"] == "[unknown]"
    assert plan.outputs == {"first": "[unknown]"}


def test_project_name_and_stack_go_into_the_urns() -> None:
    def program() -> None:
        pulumi.CustomResource("test:index:Leaf", "x", {})

    plan = run_program(program, stack="dev", project="team")
    assert [r.urn for r in plan.resources] == ["urn:pulumi:dev::team::test:index:Leaf::x"]
    default = run_program(program)
    assert [r.urn for r in default.resources] == [
        "urn:pulumi:test::gpu-fabric::test:index:Leaf::x"
    ]


# -- mocks: ids and computed outputs ------------------------------------------------------


def _args(typ: str, name: str, inputs: dict[str, Any]) -> pulumi.runtime.MockResourceArgs:
    return pulumi.runtime.MockResourceArgs(typ=typ, name=name, inputs=inputs)


def test_new_resource_adds_the_fakes_outputs() -> None:
    mocks = PlanMocks()
    net = mocks.new_resource(_args("gcp:compute/network:Network", "vpc", {"project": "p"}))
    assert net[0] == "projects/p/global/networks/vpc"
    assert net[1]["project"] == "p" and net[1]["name"] == "vpc" and "__id" not in net[1]
    assert mocks.new_resource(_args("test:index:Thing", "t", {"a": 1})) == ("t-id", {"a": 1})
    mocks.resource_fakes = {"test:index:Thing": lambda name, inputs: {"out": f"{name}!"}}
    assert mocks.new_resource(_args("test:index:Thing", "t", {"a": 1})) == (
        "t-id", {"a": 1, "out": "t!"},
    )
    mocks.resource_fakes = {"test:index:Thing": lambda name, inputs: {"__id": ""}}
    assert mocks.new_resource(_args("test:index:Thing", "t", {})) == ("t-id", {})  # empty id


def test_preview_mocks_echo_inputs_without_an_id() -> None:
    mocks = PlanMocks(preview=True)
    assert mocks.preview is True and PlanMocks().preview is False
    assert mocks.new_resource(_args("gcp:compute/network:Network", "vpc", {"project": "p"})) == (
        "", {"project": "p"},
    )


def test_calls_answer_from_the_fakes() -> None:
    mocks = PlanMocks()
    call = pulumi.runtime.MockCallArgs
    assert mocks.call(call("test:index:nothing", {"a": 1}, "")) == ({}, [])
    mocks.call_fakes = {"test:index:f": lambda args: {"got": dict(args)}}
    assert mocks.call(call("test:index:f", {"a": 1}, "")) == ({"got": {"a": 1}}, [])


def test_fakes_of_every_cloud_in_one_table() -> None:
    resources, calls = _load_fakes()
    assert "gcp:compute/network:Network" in resources
    assert "oci:Core/getServices:getServices" in calls
    assert "digitalocean:index/getKubernetesVersions:getKubernetesVersions" in calls
    assert len(resources) == sum(len(fakes_for(c).resource_outputs) for c in Cloud)


def test_a_plan_of_one_cloud_loads_that_clouds_fakes_only() -> None:
    resources, calls = _load_fakes([Cloud.OCI])
    assert "oci:Core/vcn:Vcn" in resources and "oci:Core/getServices:getServices" in calls
    assert {t.split(":")[0] for t in (*resources, *calls)} == {"oci"}


def test_a_cloud_whose_fakes_are_missing_fails_the_load() -> None:
    def load(cloud: Cloud) -> Any:
        if cloud is Cloud.AWS:
            raise LookupError("no offline fakes for 'aws'")
        return fakes_for(cloud)

    with pytest.raises(LookupError, match=r"^no offline fakes for 'aws'$"):
        _load_fakes([Cloud.GCP, Cloud.AWS], load)


# -- runner: config, environment, outputs, event loops -------------------------------------


def test_config_and_secret_keys_reach_the_program() -> None:
    seen: dict[str, Any] = {}

    def program() -> None:
        seen["k"] = pulumi.Config("gpu-fabric").get("k")
        seen["secret"] = pulumi.runtime.is_config_secret("gpu-fabric:k")
        seen["offline"] = os.environ.get(OFFLINE_ENV)

    run_program(program, config={"gpu-fabric:k": "v"}, secret_keys=["gpu-fabric:k"])
    assert seen == {"k": "v", "secret": True, "offline": "1"}
    run_program(program)
    assert seen == {"k": None, "secret": False, "offline": "1"}


def test_the_offline_flag_is_put_back(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(OFFLINE_ENV, raising=False)
    run_program(lambda: None)
    assert OFFLINE_ENV not in os.environ
    monkeypatch.setenv(OFFLINE_ENV, "0")
    run_program(lambda: None)
    assert os.environ[OFFLINE_ENV] == "0"


def test_outputs_become_plain_json() -> None:
    def program() -> None:
        pulumi.export("tuple", (1, "a"))
        pulumi.export("map", {"b": 1, "a": 2})
        pulumi.export("path", Path("/x/y"))
        pulumi.export("secret", pulumi.Output.secret({"k": "v"}))
        pulumi.export("none", None)

    outputs = run_program(program).outputs
    assert outputs == {"tuple": [1, "a"], "map": {"a": 2, "b": 1}, "path": "/x/y",
                       "secret": "[secret]", "none": None}
    assert list(outputs["map"]) == ["a", "b"]
    assert _jsonable({"z": (1,), "a": Path("p")}) == {"a": "p", "z": [1]}


def test_run_plan_hands_the_stack_config_to_the_program() -> None:
    seen: dict[str, Any] = {}

    def program() -> None:
        seen["cluster"] = pulumi.Config("gpu-fabric").get("cluster")
        seen["secret"] = pulumi.runtime.is_config_secret("gpu-fabric:cluster")
        seen["other"] = pulumi.Config("gpu-fabric").get("other")

    spec = spec_dict("gcp")
    stack = StackFile("st", None, {"gpu-fabric:cluster": spec, "other": 7},
                      ["gpu-fabric:cluster"])
    plan = run_plan(stack, program=program)
    assert plan.stack == "st" and plan.resources == [] and plan.preview is False
    assert seen["secret"] is True and seen["other"] == "7"
    assert pulumi.runtime.is_config_secret("gpu-fabric:cluster") is False  # context left
    import json

    assert json.loads(seen["cluster"]) == spec


def test_run_plan_loads_the_fakes_of_the_specs_cloud_only(monkeypatch: pytest.MonkeyPatch) -> None:
    """A stack's plan answers for its own cloud's SDK only (issue 28: only the cloud in
    use); any other program may use any cloud's SDK, so it gets every cloud's fakes."""
    import gpu_fabric.plan.mocks as mocks

    loaded: list[tuple[Cloud, ...] | None] = []
    real = mocks._load_fakes

    def recording(clouds: Any = None) -> Any:
        loaded.append(None if clouds is None else tuple(clouds))
        return real(clouds)

    monkeypatch.setattr(mocks, "_load_fakes", recording)
    run_plan(StackFile("st", None, {"gpu-fabric:cluster": spec_dict("oci")}),
             program=lambda: None)
    run_program(lambda: None)
    assert loaded == [(Cloud.OCI,), None]
    mocks_of_azure = PlanMocks(clouds=[Cloud.AZURE])
    assert {t.split(":")[0] for t in mocks_of_azure.resource_fakes} == {"azure-native"}


def test_run_plan_refuses_a_bad_spec_naming_its_source(tmp_path: Path) -> None:
    ran: list[bool] = []
    bad = {"gpu-fabric:cluster": spec_dict("gcp", name="Bad_Name")}
    with pytest.raises(SpecError) as info:
        run_plan(StackFile("st", None, bad), program=lambda: ran.append(True))
    assert info.value.source == "st"
    with pytest.raises(SpecError) as info:
        run_plan(StackFile("st", tmp_path / "Pulumi.st.yaml", bad),
                 program=lambda: ran.append(True))
    assert info.value.source == str(tmp_path / "Pulumi.st.yaml")
    assert ran == []


def test_run_plan_refuses_what_preflight_refuses_naming_the_source() -> None:
    """A /28 holds 12 GKE nodes after 4 reserved addresses: 11 GPU + 2 system do not fit
    (components/gpu_fabric/clouds/<cloud>/checks.py; tests/cli/test_input_limits.py)."""
    data = spec_dict("gcp", network={"cidr": "10.0.0.0/28"})
    data["node_pools"][0]["node_count"] = 11
    with pytest.raises(SpecError) as info:
        run_plan(StackFile("st", None, {"gpu-fabric:cluster": data}), program=lambda: None)
    assert [p.path for p in info.value.problems] == ["network.cidr"]
    assert info.value.source == "st"


def test_the_cloud_sdk_is_required_unless_the_cluster_exists(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import gpu_fabric.plan.runner as runner

    asked: list[Cloud] = []
    monkeypatch.setattr(runner, "require_sdk", asked.append)
    run_plan(StackFile("st", None, {"gpu-fabric:cluster": spec_dict("gcp")}),
             program=lambda: None)
    assert asked == [Cloud.GCP]
    existing = {  # stacks/Pulumi.existing.yaml: only the fabric layer, no cloud SDK call
        "name": "existing", "cloud": "digitalocean", "location": {"region": "nyc2"},
        "existing": {"kubeconfig": {"config_key": "gpu-fabric:kubeconfig"}},
        "node_pools": [{"name": "gpu", "machine_type": "gpu-h200x8-1128gb-fabric-contracted",
                        "node_count": 2}],
    }
    run_plan(StackFile("st", None, {"gpu-fabric:cluster": existing}), program=lambda: None)
    assert asked == [Cloud.GCP]


def test_run_spec_plans_the_spec_under_the_cluster_key(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: dict[str, Any] = {}

    def program() -> None:
        config = pulumi.Config("gpu-fabric")
        seen["cluster"] = config.get("cluster")
        seen["extra"] = config.get("extra")
        seen["secret"] = pulumi.runtime.is_config_secret("gpu-fabric:cluster")
        pulumi.CustomResource("test:index:Leaf", "x", {})

    import gpu_fabric.program

    monkeypatch.setattr(gpu_fabric.program, "main", program)
    spec = spec_dict("aws")
    plan = run_spec(spec, extra_config={"gpu-fabric:extra": "e"}, preview=True)
    assert plan.stack == "test" and plan.preview is True
    assert [r.urn for r in plan.resources] == [
        "urn:pulumi:test::gpu-fabric::test:index:Leaf::x"
    ]
    import json

    assert json.loads(seen["cluster"]) == spec and seen["extra"] == "e"
    assert seen["secret"] is False
    plan = run_spec(spec, stack="other", secret_keys=["gpu-fabric:cluster"])
    assert plan.stack == "other" and plan.preview is False and seen["secret"] is True
    assert seen["extra"] is None


def test_orphaned_failures_are_dropped_and_others_reported() -> None:
    class Loop:
        def __init__(self) -> None:
            self.reported: list[dict[str, Any]] = []

        def default_exception_handler(self, context: dict[str, Any]) -> None:
            self.reported.append(context)

    loop = Loop()
    _ignore_orphaned_failures(loop, {"message": "Future exception was never retrieved"})
    _ignore_orphaned_failures(loop, {"message": "Task was destroyed but it is pending!"})
    _ignore_orphaned_failures(loop, {})
    assert loop.reported == [{"message": "Task was destroyed but it is pending!"}, {}]


def test_close_loop_cancels_what_is_pending() -> None:
    loop = asyncio.new_event_loop()
    cleaned: list[str] = []

    async def forever() -> None:
        try:
            await asyncio.sleep(3600)
        finally:
            cleaned.append("cancelled")

    task = loop.create_task(forever())
    loop.run_until_complete(asyncio.sleep(0))
    _close_loop(loop)
    assert task.cancelled() and cleaned == ["cancelled"] and loop.is_closed()
    empty = asyncio.new_event_loop()
    _close_loop(empty)
    assert empty.is_closed()


def test_caller_loop_is_the_threads_loop_or_none() -> None:
    policy = asyncio.get_event_loop_policy()
    original = policy.get_event_loop()
    mine = asyncio.new_event_loop()
    try:
        asyncio.set_event_loop(mine)
        assert _caller_loop() is mine
        asyncio.set_event_loop(None)
        import threading

        found: list[object] = ["unset"]
        thread = threading.Thread(target=lambda: found.__setitem__(0, _caller_loop()))
        thread.start()
        thread.join()
        assert found == [None]  # a thread without a loop
    finally:
        asyncio.set_event_loop(original)
        mine.close()
