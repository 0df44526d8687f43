"""``NcclAcceptance`` under the mock runtime: children, their options, outputs.

The resource options the component sets (``depends_on``, ``replace_on_changes``,
``delete_before_replace``) are not part of the recorded plan, so each child's
options are captured where the component creates it. Expected values are literal:
the kinds and order of the MPI Operator objects (components/gpu_fabric/nccl/manifests.py
``mpi_operator_manifests``), the images and floors of tests/nccl/test_nccl_manifests_exact.py.
"""

from __future__ import annotations

from typing import Any

import pulumi
import pytest

import gpu_fabric.nccl.component as component_module
from gpu_fabric.errors import SpecError
from gpu_fabric.fabric.description import describe_cluster
from gpu_fabric.nccl.component import NcclAcceptance, NcclAcceptanceArgs
from gpu_fabric.plan.runner import run_program
from gpu_fabric.spec import ClusterSpec
from tests.fabric_helpers import existing

ON = {"enabled": True}
OPERATOR_KINDS = [
    "Namespace", "CustomResourceDefinition", "ServiceAccount", "ClusterRole",
    "ClusterRoleBinding", "Role", "RoleBinding", "Role", "RoleBinding", "Deployment",
]


class Recorder:
    """Wraps ``manifest_resource`` and ``register_outputs`` of the component module."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.children: list[dict[str, Any]] = []
        self.manifests: list[dict[str, Any]] = []
        self.outputs: list[Any] = []
        self.components: list[NcclAcceptance] = []
        original = component_module.manifest_resource
        by_id: dict[int, str] = {}

        def manifest_resource(prefix: str, manifest: dict[str, Any],
                              opts: pulumi.ResourceOptions) -> Any:
            resource = original(prefix, manifest, opts)
            by_id[id(resource)] = manifest["kind"]
            self.manifests.append(manifest)
            self.children.append({
                "prefix": prefix,
                "kind": manifest["kind"],
                "parent": opts.parent,
                "waits": [by_id.get(id(r), "?") for r in opts.depends_on or []],  # type: ignore[union-attr]
                "replace_on_changes": opts.replace_on_changes,
                "delete_before_replace": opts.delete_before_replace,
            })
            return resource

        def register_outputs(component: NcclAcceptance, outputs: Any) -> None:
            self.components.append(component)
            self.outputs.append(outputs)

        monkeypatch.setattr(component_module, "manifest_resource", manifest_resource)
        monkeypatch.setattr(NcclAcceptance, "register_outputs", register_outputs)


def _run(spec: ClusterSpec, recorder: Recorder) -> Any:
    def program() -> None:
        import pulumi_kubernetes as k8s

        provider = k8s.Provider("k8s", kubeconfig="{}")
        NcclAcceptance(
            "team-acc", NcclAcceptanceArgs(spec=spec, fabrics=describe_cluster(spec)),
            opts=pulumi.ResourceOptions(providers={"kubernetes": provider}),
        )

    return run_program(program)


def test_mpijob_waits_for_the_operator_and_is_replaced_whole(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    recorder = Recorder(monkeypatch)
    plan = _run(existing("azure", None, acceptance=ON), recorder)
    (component,) = plan.by_type("gpufabric:nccl:NcclAcceptance")
    assert component.name == "team-acc"
    (acc,) = recorder.components
    assert all(c["parent"] is acc for c in recorder.children)
    operator, test = recorder.children[:-1], recorder.children[-1]
    assert [c["kind"] for c in operator] == OPERATOR_KINDS
    assert {c["prefix"] for c in operator} == {"team-acc-mpi-operator"}
    # Namespace and CRD first, everything else after both of them.
    assert [c["waits"] for c in operator] == [[], []] + [
        ["Namespace", "CustomResourceDefinition"]] * 8
    assert all(c["replace_on_changes"] is None and c["delete_before_replace"] is None
               for c in operator)
    assert test == {
        "prefix": "team-acc", "kind": "MPIJob", "parent": acc, "waits": OPERATOR_KINDS,
        # MPIJob specs are immutable once running (kubeflow/mpi-operator v2beta1).
        "replace_on_changes": ["spec"], "delete_before_replace": True,
    }
    assert [len(acc.operator), len(acc.test)] == [10, 1]
    assert recorder.outputs == [{
        "runner": "mpijob",
        "namespace": "default",
        "object": "team-acc",
        "logs": "kubectl logs -n default job/team-acc-launcher",
        "report": "kubectl logs -n default job/team-acc-launcher | python -m gpu_fabric "
                  "nccl-report - --machine Standard_ND96isr_H100_v5 --nodes 2 "
                  "--gpus-per-node 8",
        "line_rate": 400.0,
        "floor": 280.0,
    }]
    assert acc.plan.name == "team-acc"
    # The operator watches the test's namespace only.
    roles = [m for m in recorder.manifests if m["kind"] == "Role"]
    assert [r["metadata"]["namespace"] for r in roles] == ["default", "mpi-operator"]
    # Every child goes through the explicit provider given in opts.providers.
    (provider,) = plan.by_type("pulumi:providers:kubernetes")
    children = [r for r in plan.resources if r.parent == component.urn]
    assert len(children) == 11
    assert all(r.provider and r.provider.startswith(provider.urn) for r in children)


def test_gke_statefulset_has_no_operator(monkeypatch: pytest.MonkeyPatch) -> None:
    recorder = Recorder(monkeypatch)
    _run(existing("gcp", "a4-highgpu-8g", acceptance=ON), recorder)
    (acc,) = recorder.components
    assert acc.operator == []
    assert [(c["prefix"], c["kind"], c["waits"], c["replace_on_changes"],
             c["delete_before_replace"]) for c in recorder.children] == [
        ("team-acc", "Service", [], None, False),
        ("team-acc", "StatefulSet", [], None, False),
    ]
    assert recorder.outputs == [{
        "runner": "statefulset",
        "namespace": "default",
        "object": "team-acc",
        "logs": "kubectl logs -n default team-acc-0 -c nccl-test",
        "report": "kubectl logs -n default team-acc-0 -c nccl-test | python -m gpu_fabric "
                  "nccl-report - --machine a4-highgpu-8g --nodes 2 --gpus-per-node 8",
        "line_rate": 400.0,
        "floor": 280.0,
    }]


def test_operator_version_override_reaches_its_deployment(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    recorder = Recorder(monkeypatch)
    spec = existing("azure", None, acceptance=ON,
                    addons={"mpi_operator": {"enabled": True, "version": "0.6.1"}})
    _run(spec, recorder)
    deployment = next(m for m in recorder.manifests if m["kind"] == "Deployment")
    assert deployment["spec"]["template"]["spec"]["containers"][0]["image"] == (
        "mpioperator/mpi-operator:0.6.1"
    )


def test_without_the_operator_the_mpijob_waits_for_nothing(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    recorder = Recorder(monkeypatch)
    spec = existing("azure", None, acceptance=ON, addons={"mpi_operator": {"enabled": False}})
    _run(spec, recorder)
    assert [(c["kind"], c["waits"]) for c in recorder.children] == [("MPIJob", [])]


def test_an_impossible_test_is_refused_before_registering(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    recorder = Recorder(monkeypatch)
    spec = existing("gcp", "a4-highgpu-8g", acceptance={**ON, "gpus_per_node": 3})
    with pytest.raises(SpecError, match=r"acceptance\.gpus_per_node"):
        NcclAcceptance("team-acc", NcclAcceptanceArgs(spec=spec, fabrics=describe_cluster(spec)))
    assert recorder.children == [] and recorder.components == []
