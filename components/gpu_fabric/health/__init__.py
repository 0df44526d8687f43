"""Day-2 GPU and fabric health (``health.enabled``; ``docs/health.md``).

Two layers of checking, both switched on by the one spec field:

* **passive**: NVIDIA NVSentinel (add-on ``nvsentinel``) watches DCGM, kernel XIDs and
  NIC link state on every GPU node, sets node conditions and, by default, cordons a
  node with a fatal fault (:mod:`gpu_fabric.health.nvsentinel`);
* **active**: a CronJob picks idle GPU nodes not checked for ``interval_hours``, runs
  the NCCL acceptance test on pairs of them with the pool's own fragment, judges the
  log with the project's verdict and floors, and labels (and on failure taints) the
  nodes (:mod:`~gpu_fabric.health.config`, :mod:`~gpu_fabric.health.logic`,
  :mod:`~gpu_fabric.health.controller`, :mod:`~gpu_fabric.health.manifests`).

It sits beside :mod:`gpu_fabric.platform` and :mod:`gpu_fabric.nccl` (it builds on
both the fabric layer and the NCCL test) and reaches the layer through
:class:`gpu_fabric.health.plugin.HealthLayer`, the contributor shape clouds use. This
package's ``__init__`` stays light: the pod imports :mod:`~gpu_fabric.health.logic`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from gpu_fabric.clouds.contract import ChartValues
    from gpu_fabric.fabric.addons import ResolvedAddons
    from gpu_fabric.fabric.description import FabricDescription
    from gpu_fabric.fabric.layer import Part
    from gpu_fabric.spec import ClusterSpec

CHECK_PART = "fabric-health"
MPI_OPERATOR_PART = "fabric-health-mpi-operator"
ALERTS_PART = "fabric-health-alerts"


def parts(
    spec: ClusterSpec,
    fabrics: Mapping[str, FabricDescription],
    addons: ResolvedAddons,
    values: ChartValues,
) -> list[Part]:
    """cert-manager and NVSentinel (when on), the active check, its alerts."""
    from gpu_fabric.fabric.addons import (
        CERT_MANAGER,
        GPU_OPERATOR,
        MPI_OPERATOR,
        NVSENTINEL,
        PROMETHEUS,
        Addon,
    )
    from gpu_fabric.fabric.layer import Part
    from gpu_fabric.fabric.parts import (
        SYSTEM_NAMESPACES,
        WORKLOAD_NAMESPACES,
        chart_release,
        own_namespace,
    )
    from gpu_fabric.health import config, manifests, nvsentinel
    from gpu_fabric.nccl.manifests import Runner, mpi_operator_manifests, plan_acceptance

    out: list[Part] = []

    def release(addon: Addon, computed: dict[str, object], after: tuple[str, ...],
                summary: str) -> None:
        out.append(Part(addon.part, tuple(own_namespace(addon, addons)),
                        (chart_release(addon, addons, computed, values, spec, fabrics),),
                        after=after, description=summary))

    if addons.on(CERT_MANAGER):
        release(CERT_MANAGER, nvsentinel.cert_manager_values(), (),
                "cert-manager: TLS for NVSentinel's datastore")
    if addons.on(NVSENTINEL):
        after = tuple(a.part for a in (CERT_MANAGER, GPU_OPERATOR, PROMETHEUS) if addons.on(a))
        release(NVSENTINEL, nvsentinel.values(spec, fabrics, addons, values), after,
                "NVSentinel: GPU/NIC fault detection, node conditions, quarantine")
    if not spec.health.enabled:
        return out
    checks, skipped = config.pool_checks(spec, fabrics)
    if not checks:
        return out
    check_config = config.check_config(spec, checks, skipped)
    namespaces = {c.plan.namespace for c in checks}
    after = (WORKLOAD_NAMESPACES,) if namespaces - SYSTEM_NAMESPACES else ()
    out.append(Part(CHECK_PART, tuple(manifests.check_manifests(
        checks, check_config, spec.health.schedule)), after=after,
        description="Active fabric check: CronJob, RBAC, scripts (nccl-tests on idle nodes)"))
    # The MPI Operator runs the MPIJobs; NcclAcceptance installs the same one, watching the
    # same namespace, when the acceptance test is on (one copy, never two).
    acceptance_installs = (spec.acceptance.enabled and plan_acceptance(
        spec, fabrics, "acceptance").install_mpi_operator)
    if (Runner.MPIJOB in config.runners(checks) and not acceptance_installs
            and spec.addons.choice(MPI_OPERATOR).enabled is not False):
        version = spec.addons.choice(MPI_OPERATOR).version
        from gpu_fabric import versions

        image = versions.MPI_OPERATOR.with_tag(version) if version else versions.MPI_OPERATOR
        (ns,) = namespaces
        out.append(Part(MPI_OPERATOR_PART, tuple(mpi_operator_manifests(ns, image)),
                        after=after, description="Kubeflow MPI Operator for the check's "
                                                 "MPIJobs"))
    if addons.on(PROMETHEUS):
        rule = manifests.prometheus_rule(addons[PROMETHEUS.key].namespace,
                                         spec.health.interval_hours)
        out.append(Part(ALERTS_PART, (rule,), after=(PROMETHEUS.part,),
                        description="PrometheusRule: failed checks, cordoned GPU nodes"))
    return out
