"""The platform layer for shared GPU clusters (teams, quotas, gang scheduling, GPU
sharing, monitoring), built on the fabric layer. It contributes to that layer
through :class:`gpu_fabric.platform.plugin.PlatformLayer` (its parts, Kueue's
default, MIG's node labels and GPU Operator values), the same contract clouds use.

Everything here is a pure function of the spec and the fabric descriptions; the
fabric layer's :class:`~gpu_fabric.fabric.stack.FabricStack` turns the parts into
Pulumi resources and ``python -m gpu_fabric render`` into YAML.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from gpu_fabric.fabric.addons import (
    GPU_OPERATOR,
    JOBSET,
    KUEUE,
    KYVERNO,
    MULTUS,
    NETWORK_OPERATOR,
    NVIDIA_DRA_DRIVER,
    PROMETHEUS,
    Addon,
)
from gpu_fabric.fabric.layer import Manifest, Part

if TYPE_CHECKING:
    from gpu_fabric.clouds.contract import ChartValues
    from gpu_fabric.fabric.addons import ResolvedAddons
    from gpu_fabric.fabric.description import FabricDescription
    from gpu_fabric.spec import ClusterSpec

TEAMS = "teams"
KUEUE_QUEUES = "kueue-queues"


def check_mig(
    spec: ClusterSpec, fabrics: Mapping[str, FabricDescription], addons: ResolvedAddons
) -> None:
    """Refuse MIG where nothing would partition the GPUs, or where pods could not use them.

    The node label ``nvidia.com/mig.config`` is read by the GPU Operator's MIG manager
    only: without the operator the label does nothing and pods get whole GPUs. On a
    DRA pool the claim templates ask the GPU DeviceClass for whole GPUs, which a
    partitioned node no longer offers, so no fabric pod would ever schedule.
    """
    from gpu_fabric.fabric.problems import refuse

    for i, pool in enumerate(spec.node_pools):
        if pool.mig is None:
            continue
        where = f"node_pools[{i}].mig"
        if not addons.on(GPU_OPERATOR):
            refuse(where, f"MIG is applied by the NVIDIA GPU Operator's MIG manager, which this "
                   f"{spec.cloud.display} cluster does not run; set addons.gpu_operator.enabled: "
                   "true (its driver install follows the cloud's defaults) or remove mig",
                   pool.mig.profile)
        if fabrics[pool.name].uses_dra:
            refuse(where, "MIG with DRA GPUs: the pool's ResourceClaimTemplates ask for whole "
                   "GPUs, which a MIG-partitioned node no longer offers; use fabric.mode "
                   "device-plugin for MIG pools or remove mig", pool.mig.profile)


def team_compute_domains(
    spec: ClusterSpec, fabrics: list[FabricDescription], ns: str, addons: ResolvedAddons
) -> list[Manifest]:
    """The default ComputeDomain of each GB200/GB300 pool (any fabric mode) in a team
    namespace (pods join it through its channel claim, a namespaced
    ResourceClaimTemplate the driver creates)."""
    from gpu_fabric.fabric.manifests import dra
    from gpu_fabric.fabric.naming import compute_domain_name
    from gpu_fabric.fabric.parts import compute_domain_nodes

    return [dra.compute_domain(compute_domain_name(f), ns, compute_domain_nodes(spec, f, addons))
            for f in fabrics if f.machine.nvlink_domain]


def parts(
    spec: ClusterSpec,
    fabrics: Mapping[str, FabricDescription],
    addons: ResolvedAddons,
    values: ChartValues,
    topology_levels: tuple[str, ...],
) -> list[Part]:
    """The platform's parts; ``values`` are the contributed chart values (cloud's included),
    ``topology_levels`` the cloud's Kueue topology levels."""
    from gpu_fabric.fabric.parts import (
        SYSTEM_NAMESPACES,
        WORKLOAD_NAMESPACES,
        chart_release,
        fabric_claim_templates,
        fabric_nads,
        own_namespace,
    )
    from gpu_fabric.platform import kueue, mig, monitoring, teams
    from gpu_fabric.platform.quotas import team_quotas

    out: list[Part] = []

    def release(addon: Addon, computed: dict[str, object], summary: str) -> None:
        out.append(Part(addon.part, tuple(own_namespace(addon, addons)),
                        (chart_release(addon, addons, computed, values, spec, fabrics),),
                        description=summary))

    if addons.on(PROMETHEUS):
        release(PROMETHEUS, monitoring.chart_values(),
                "kube-prometheus-stack: Prometheus Operator, Prometheus, Grafana, node-exporter")
        out.append(Part("gpu-dashboards",
                        (monitoring.dashboard_config_map(addons[PROMETHEUS.key].namespace),),
                        after=(PROMETHEUS.part,),
                        description="Grafana dashboard: GPU utilisation and RDMA counters"))
    if addons.on(JOBSET):
        release(JOBSET, {}, "JobSet controller")
    if addons.on(KUEUE):
        release(KUEUE, {}, "Kueue: quota, gang admission, topology-aware scheduling")
    check_mig(spec, fabrics, addons)
    mig_objects = mig.manifests(spec.node_pools, addons[GPU_OPERATOR.key].namespace)
    if mig_objects and addons.on(GPU_OPERATOR):
        out.append(Part("mig-config", tuple(mig_objects), after=(GPU_OPERATOR.part,),
                        description="mig-parted configuration for the MIG manager"))

    team_list = spec.tenancy.teams
    if not team_list:
        return out
    workload = {ns for ns in spec.fabric.namespaces if ns not in SYSTEM_NAMESPACES}
    objects: list[Manifest] = list(teams.priority_classes())
    nads: list[Manifest] = []
    claims: list[Manifest] = []
    domains: list[Manifest] = []
    queues: list[Manifest] = []
    for team in team_list:
        quotas = team_quotas(spec, fabrics, team)
        objects += teams.team_manifests(spec, fabrics, team, quotas,
                                        with_namespace=team.name not in workload)
        if team.name not in spec.fabric.namespaces:
            # Objects in the team's namespace: only the team's own can repeat (two pools
            # with the same NAD), so de-duplicate within the team, not against every
            # team's (that search was quadratic in teams, issue 36).
            team_fabrics = [fabrics[quota.pool] for quota in quotas]
            team_nads: list[Manifest] = []
            for fabric in team_fabrics:
                team_nads += [n for n in fabric_nads(fabric, team.name) if n not in team_nads]
            nads += team_nads
            claims += fabric_claim_templates(spec, team_fabrics, team.name)
            domains += team_compute_domains(spec, team_fabrics, team.name, addons)
        queues += [kueue.cluster_queue(team, quotas, fabrics), kueue.local_queue(team)]
    # Pod Security (issue 21): Baseline in every team namespace, through the PSA label,
    # or through Kyverno with exactly the fabric's exceptions (gpu_fabric.pod_security).
    from gpu_fabric.pod_security import team_pod_security

    psa_labels, psa_policy = team_pod_security(
        [t.name for t in team_list], fabrics, addons.on(KYVERNO))
    for obj in objects:
        if obj["kind"] == "Namespace":
            obj["metadata"]["labels"].update(psa_labels)
    after = (WORKLOAD_NAMESPACES,) if workload else ()
    out.append(Part(TEAMS, tuple(objects), after=after,
                    description="Team namespaces, quotas, limits, RBAC and PriorityClasses"))
    if psa_policy:
        out.append(Part("team-pod-security", tuple(psa_policy), after=(KYVERNO.part,),
                        description="Kyverno: Pod Security baseline in team namespaces, minus "
                                    "exactly what the fabric needs"))
    if nads:
        nad_after: tuple[str, ...] = (TEAMS,)
        if addons.on(MULTUS):
            nad_after += (MULTUS.part,)
        elif addons.on(NETWORK_OPERATOR):
            nad_after += (NETWORK_OPERATOR.part,)
        out.append(Part("team-nads", tuple(nads), after=nad_after,
                        description="The fabric's NetworkAttachmentDefinitions in team namespaces"))
    if claims:
        out.append(Part("team-dra-claims", tuple(claims), after=(TEAMS, "dra-claims"),
                        description="The fabric's aligned ResourceClaimTemplates in team "
                                    "namespaces"))
    if domains:
        driver = (NVIDIA_DRA_DRIVER.part,) if addons.on(NVIDIA_DRA_DRIVER) else ()
        out.append(Part("team-compute-domains", tuple(domains), after=(TEAMS, *driver),
                        description="ComputeDomains (IMEX) in team namespaces"))
    if addons.on(KUEUE):
        cluster_objects = kueue.cluster_manifests(spec, fabrics, topology_levels)
        cluster_objects += kueue.workload_priority_classes(teams.PRIORITIES)
        out.append(Part(KUEUE_QUEUES, tuple(cluster_objects + queues), after=(KUEUE.part, TEAMS),
                        description="Kueue Topologies, ResourceFlavors, ClusterQueues, "
                                    "LocalQueues"))
    return out
