"""``NcclAcceptance``: deploy the nccl-tests acceptance run on a cluster's fabric.

Type ``gpufabric:nccl:NcclAcceptance``. Takes the validated spec and the fabric
descriptions (like ``FabricStack``) and an explicit Kubernetes provider through
``opts.providers``; created after the fabric stack when ``spec.acceptance.enabled``.
Children are named ``<name>-<kind>-[<namespace>-]<object>`` from the pure
manifests of :mod:`gpu_fabric.nccl.manifests`; Kubernetes objects are named
after the component (``k8s_name(name)``).

Outputs: ``runner``, ``namespace``, ``object`` (the StatefulSet/MPIJob name),
``logs`` (the kubectl command that prints the results), ``report`` (the
``nccl-report`` command that judges them), ``line_rate`` and ``floor`` (GB/s).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import pulumi

from gpu_fabric.fabric.description import FabricDescription
from gpu_fabric.fabric.resources import manifest_resource
from gpu_fabric.nccl.manifests import (
    AcceptancePlan,
    Runner,
    acceptance_manifests,
    mpi_operator_manifests,
    plan_acceptance,
    report_hint,
)
from gpu_fabric.spec import ClusterSpec


@dataclass(frozen=True)
class NcclAcceptanceArgs:
    """Inputs: the validated spec (its ``acceptance`` section) and the pools' fabrics."""

    spec: ClusterSpec
    fabrics: Mapping[str, FabricDescription]


class NcclAcceptance(pulumi.ComponentResource):
    """nccl-tests on a cluster's fabric, judged later by ``nccl-report`` (type
    ``gpufabric:nccl:NcclAcceptance``); refuses an impossible test before registering."""

    plan: AcceptancePlan
    operator: list[pulumi.Resource]
    test: list[pulumi.Resource]

    def __init__(
        self, name: str, args: NcclAcceptanceArgs, opts: pulumi.ResourceOptions | None = None
    ) -> None:
        plan = plan_acceptance(args.spec, args.fabrics, name)  # pure: fails before registering
        super().__init__("gpufabric:nccl:NcclAcceptance", name, None, opts)
        self.plan = plan
        self.operator = []
        if plan.install_mpi_operator:
            made: list[pulumi.Resource] = []
            for manifest in mpi_operator_manifests(plan.namespace, plan.mpi_operator_image):
                # Namespace and CRD first; the rest waits for them.
                first = manifest["kind"] in ("Namespace", "CustomResourceDefinition")
                waits = [] if first else made[:2]
                made.append(manifest_resource(
                    f"{name}-mpi-operator", manifest,
                    pulumi.ResourceOptions(parent=self, depends_on=waits),
                ))
            self.operator = made
        self.test = []
        for manifest in acceptance_manifests(plan):
            custom = manifest["kind"] == "MPIJob"
            self.test.append(manifest_resource(name, manifest, pulumi.ResourceOptions(
                parent=self,
                depends_on=list(self.operator),
                # MPIJob specs are immutable once running: replace, never patch.
                replace_on_changes=["spec"] if custom else None,
                delete_before_replace=custom,
            )))
        self.register_outputs(self.outputs())

    def outputs(self) -> dict[str, object]:
        plan = self.plan
        if plan.runner is Runner.STATEFULSET:
            logs = f"kubectl logs -n {plan.namespace} {plan.name}-0 -c nccl-test"
        else:
            logs = f"kubectl logs -n {plan.namespace} job/{plan.name}-launcher"
        return {
            "runner": plan.runner.value,
            "namespace": plan.namespace,
            "object": plan.name,
            "logs": logs,
            "report": f"{logs} | {report_hint(plan).replace(' LOG ', ' - ')}",
            "line_rate": plan.line_rate,
            "floor": plan.floor,
        }
