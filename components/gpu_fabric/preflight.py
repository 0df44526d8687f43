"""Every check ``plan`` runs before it registers a resource, runnable without Pulumi.

Some rules need a derivation to be checked: a GKE address layout, an EKS
subnet plan, the AKS VNet split, OKE's addressing, the DOKS managed
components, each pool's fabric description, the Kubernetes layer and the
NCCL acceptance job. Those derivations are pure and refuse a bad spec with a
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

from gpu_fabric import addressing
from gpu_fabric.catalog import Cloud
from gpu_fabric.errors import Problem, SpecError
from gpu_fabric.kubeconfig_file import read_kubeconfig_file, resolve

if TYPE_CHECKING:
    from gpu_fabric.fabric.description import FabricDescription
    from gpu_fabric.spec import ClusterSpec

Fabrics = dict[str, "FabricDescription"]


def _raise(problems: list[Problem]) -> None:
    if problems:
        raise SpecError(problems)


def _gcp(spec: ClusterSpec, fabrics: Fabrics) -> None:
    from gpu_fabric.clouds.gcp.layout import build_layout

    layout = build_layout(spec)
    fabric_subnets = [s.cidr for v in layout.fabric_vpcs for s in v.subnets if s.cidr]
    _raise(addressing.gcp_problems(spec, fabric_subnets))


def _aws(spec: ClusterSpec, fabrics: Fabrics) -> None:
    from gpu_fabric.clouds.aws.layout import (
        EFA_TYPE,
        ENA_TYPE,
        network_plan,
        options_of,
        pool_plans,
        service_cidr,
    )

    plan = network_plan(spec) if options_of(spec).existing_vpc is None else None
    pools = pool_plans(spec)
    service_cidr(spec)
    if plan is not None:
        with_ip = (ENA_TYPE, EFA_TYPE)  # efa-only interfaces take no IP address
        addressed = {p.pool: sum(1 for i in p.interfaces if i.interface_type in with_ip) or 1
                     for p in pools}
        _raise(addressing.aws_problems(spec, plan.gpu.cidr, [s.cidr for s in plan.private],
                                       addressed))


def _azure(spec: ClusterSpec, fabrics: Fabrics) -> None:
    from gpu_fabric.clouds.azure.kubernetes import operator_installs_driver
    from gpu_fabric.clouds.azure.layout import plan_layout

    layout = plan_layout(spec, fabrics, operator_installs_driver(spec, fabrics))
    if layout.network.existing_subnet_id is None:
        _raise(addressing.azure_problems(spec, layout.network.node_subnet))


def _digitalocean(spec: ClusterSpec, fabrics: Fabrics) -> None:
    from gpu_fabric.clouds.digitalocean.doks_version import doks_version
    from gpu_fabric.clouds.digitalocean.managed import managed_components

    doks_version(spec)
    managed_components(spec)


def _oci(spec: ClusterSpec, fabrics: Fabrics) -> None:
    from gpu_fabric.clouds.oci.addressing import plan

    addresses = plan(spec)
    if spec.oci is None or spec.oci.existing_network is None:
        _raise(addressing.oci_problems(spec, addresses.workers))


# What each cloud component derives in ``_create_infrastructure`` before its
# first resource (components/gpu_fabric/clouds/<cloud>/cluster.py).
_INFRASTRUCTURE: dict[Cloud, Callable[[ClusterSpec, Fabrics], None]] = {
    Cloud.GCP: _gcp,
    Cloud.AWS: _aws,
    Cloud.AZURE: _azure,
    Cloud.DIGITALOCEAN: _digitalocean,
    Cloud.OCI: _oci,
}


def check_spec(spec: ClusterSpec, name: str | None = None, source: str | None = None) -> None:
    """Raise :class:`SpecError` with every problem ``plan`` would refuse ``spec`` for.

    ``name`` is the component name the program gives the cluster (the spec's
    name in ``gpu_fabric.program``); it only shapes child names.
    """
    from gpu_fabric.clouds.registry import PLUGINS
    from gpu_fabric.fabric.description import describe_cluster

    problems: list[Problem] = []

    def attempt(step: Callable[..., Any], *args: Any) -> Any:
        try:
            return step(*args)
        except SpecError as exc:
            problems.extend(p for p in exc.problems if p not in problems)
            return None

    fabrics: Fabrics | None = attempt(describe_cluster, spec, PLUGINS)
    if fabrics is not None:
        attempt(_layer, spec, fabrics)
        if spec.acceptance.enabled:
            attempt(_acceptance, spec, fabrics, f"{name or spec.name}-nccl")
    # AKS sizes its pools from the fabric descriptions; the other clouds' plans do not
    # need them, so their address checks still run when a pool could not be described.
    kubeconfig = spec.existing.kubeconfig.path if spec.existing is not None else None
    if kubeconfig is not None and resolve(kubeconfig).exists():
        # A missing file is planned offline with a placeholder (gpu_fabric.existing);
        # one that exists must be a kubeconfig.
        attempt(read_kubeconfig_file, kubeconfig)
    if spec.existing is None and (fabrics is not None or spec.cloud is not Cloud.AZURE):
        attempt(_INFRASTRUCTURE[spec.cloud], spec, fabrics or {})
    if problems:
        raise SpecError(problems, source)


def _layer(spec: ClusterSpec, fabrics: Fabrics) -> None:
    from gpu_fabric.clouds.registry import PLUGINS
    from gpu_fabric.fabric.layer import build_layer

    build_layer(spec, fabrics, PLUGINS)


def _acceptance(spec: ClusterSpec, fabrics: Fabrics, name: str) -> None:
    from gpu_fabric.nccl.manifests import plan_acceptance

    plan_acceptance(spec, fabrics, name)
