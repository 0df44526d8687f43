"""Every check ``plan`` runs before it registers a resource, runnable without Pulumi.

Some rules need a derivation to be checked: each pool's fabric description,
the Kubernetes layer, the NCCL acceptance job, and what the cloud's component
derives before its first resource (its network layout and address plan: the
provider's ``check_infrastructure``, ``clouds/<cloud>/checks.py``). Those
derivations are pure and refuse a bad spec with a
:class:`~gpu_fabric.errors.SpecError` (``gpu_fabric.fabric.problems.refuse``)
before the first resource exists. ``validate`` and ``render`` call
:func:`check_spec` so they refuse exactly what ``plan`` and ``pulumi up``
refuse (issue 20, "one validation path"); the cloud components call the same
derivations again when they build.

Each step runs even when an earlier one failed, so independent problems are
reported together, as :func:`gpu_fabric.spec.load_spec` does for the
structural ones.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from gpu_fabric.clouds.registry import provider_for
from gpu_fabric.errors import Problem, SpecError
from gpu_fabric.kubeconfig_file import read_kubeconfig_file, resolve
from gpu_fabric.layers import plugins

if TYPE_CHECKING:
    from gpu_fabric.fabric.description import FabricDescription
    from gpu_fabric.spec import ClusterSpec

Fabrics = dict[str, "FabricDescription"]


def check_spec(spec: ClusterSpec, name: str | None = None, source: str | None = None) -> None:
    """Raise :class:`SpecError` with every problem ``plan`` would refuse ``spec`` for.

    ``name`` is the component name the program gives the cluster (the spec's
    name in ``gpu_fabric.program``); it only shapes child names.
    """
    from gpu_fabric.fabric.description import describe_cluster
    from gpu_fabric.security import missing_api_access

    problems: list[Problem] = missing_api_access(spec)

    def attempt(step: Callable[..., Any], *args: Any) -> Any:
        try:
            return step(*args)
        except SpecError as exc:
            problems.extend(p for p in exc.problems if p not in problems)
            return None

    fabrics: Fabrics | None = attempt(describe_cluster, spec, plugins())
    if fabrics is not None:
        attempt(_layer, spec, fabrics)
        if spec.acceptance.enabled:
            attempt(_acceptance, spec, fabrics, f"{name or spec.name}-nccl")
    kubeconfig = spec.existing.kubeconfig.path if spec.existing is not None else None
    if kubeconfig is not None and resolve(kubeconfig).exists():
        # A missing file is planned offline with a placeholder (gpu_fabric.existing);
        # one that exists must be a kubeconfig.
        attempt(read_kubeconfig_file, kubeconfig)
    provider = provider_for(spec.cloud)
    # A cloud whose plan does not need the descriptions still checks its addresses when
    # a pool could not be described.
    if spec.existing is None and (fabrics is not None or not provider.infrastructure_needs_fabrics):
        attempt(provider.check_infrastructure, spec, fabrics or {})
    if problems:
        raise SpecError(problems, source)


def _layer(spec: ClusterSpec, fabrics: Fabrics) -> None:
    from gpu_fabric.fabric.layer import build_layer

    build_layer(spec, fabrics, plugins())


def _acceptance(spec: ClusterSpec, fabrics: Fabrics, name: str) -> None:
    from gpu_fabric.nccl.manifests import plan_acceptance

    plan_acceptance(spec, fabrics, name)
