"""The cloud-agnostic parts of the fabric layer (clouds add theirs in their own module)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, NoReturn

from gpu_fabric.fabric.addons import (
    DRANET,
    GPU_OPERATOR,
    KYVERNO,
    MULTUS,
    NETWORK_OPERATOR,
    NVIDIA_DEVICE_PLUGIN,
    NVIDIA_DRA_DRIVER,
    PROMETHEUS,
    RDMA_SHARED_DEVICE_PLUGIN,
    SRIOV_DEVICE_PLUGIN,
    Addon,
    ResolvedAddons,
)
from gpu_fabric.fabric.description import (
    Attach,
    DevicePlugin,
    FabricDescription,
    SriovVfNetwork,
)
from gpu_fabric.fabric.manifests import (
    dra,
    dra_driver,
    dranet,
    gpu_operator,
    multus,
    nads,
    rdma_shared,
    sriov,
)
from gpu_fabric.fabric.manifests.common import namespace
from gpu_fabric.fabric.manifests.values import deep_merge
from gpu_fabric.fabric.model import HelmRelease, Manifest, Part
from gpu_fabric.fabric.naming import (
    claim_gpu_counts,
    claim_template_name,
    compute_domain_name,
    rail_claim_template_name,
    rail_sets,
    split_resource,
)
from gpu_fabric.fabric.plugin_guards import check_resource_name
from gpu_fabric.fabric.problems import refuse

if TYPE_CHECKING:
    from gpu_fabric.clouds.contract import ChartValues
    from gpu_fabric.spec import ClusterSpec

WORKLOAD_NAMESPACES = "namespaces"
SYSTEM_NAMESPACES = frozenset({"default", "kube-system", "kube-public"})


def chart_release(
    addon: Addon,
    addons: ResolvedAddons,
    computed: Mapping[str, Any],
    cloud: ChartValues,
    spec: ClusterSpec,
    fabrics: Mapping[str, FabricDescription],
    release: str | None = None,
) -> HelmRelease:
    """A release of ``addon``: computed values <- contributed values <- the spec's values.

    ``cloud`` gives the contributed values (the cloud's, merged over the platform's
    in :meth:`~gpu_fabric.fabric.plugins.LayerPlugins.values`).
    """
    resolved = addons[addon.key]
    chart = resolved.chart()
    values = deep_merge(computed, cloud.chart_values(addon.key, spec, fabrics), resolved.values)
    return HelmRelease(release or chart.name, chart, resolved.namespace, values,
                       user_values=bool(resolved.values))


def own_namespace(addon: Addon, addons: ResolvedAddons) -> list[Manifest]:
    """The add-on's Namespace (Pod Security "privileged" for node agents that need it),
    unless it is one of the cluster's own."""
    ns = addons[addon.key].namespace
    if ns in SYSTEM_NAMESPACES:
        return []
    return [namespace(ns, privileged=addon.privileged)]


def namespaces(
    spec: ClusterSpec, fabrics: Mapping[str, FabricDescription], addons: ResolvedAddons
) -> list[Part]:
    """Workload namespaces that get NADs and claim templates (created once, first)."""
    wanted = [ns for ns in spec.fabric.namespaces if ns not in SYSTEM_NAMESPACES]
    if not wanted:
        return []
    return [Part(WORKLOAD_NAMESPACES, tuple(namespace(ns) for ns in wanted),
                 description="Namespaces for training workloads")]


def _workload_after(spec: ClusterSpec) -> tuple[str, ...]:
    return (WORKLOAD_NAMESPACES,) if any(
        ns not in SYSTEM_NAMESPACES for ns in spec.fabric.namespaces
    ) else ()


def generic_parts(
    spec: ClusterSpec,
    fabrics: Mapping[str, FabricDescription],
    addons: ResolvedAddons,
    cloud: ChartValues,
    *,
    critical_pods_need_quota: bool = False,
) -> list[Part]:
    """``critical_pods_need_quota``: the cloud's rule
    (:attr:`gpu_fabric.clouds.contract.CloudLayer.critical_pods_need_quota`)."""
    fabs = list(fabrics.values())
    out: list[Part] = []
    if addons.on(MULTUS):
        selectors = [f.node_selector for f in fabs if f.machine.has_fabric]
        out.append(Part(MULTUS.part, tuple(multus.manifests(addons[MULTUS.key].image(),
                                                            node_selectors=selectors)),
                        description="Multus CNI (thick) and the NetworkAttachmentDefinition CRD"))
    if addons.on(RDMA_SHARED_DEVICE_PLUGIN):
        shared: list[rdma_shared.SharedResource] = []
        for f in fabs:
            if f.device_plugin is not DevicePlugin.RDMA_SHARED:
                continue
            netdevs = [x.netdev for x in f.rails if x.netdev]
            for netdev in netdevs:
                check_resource_name(spec, f, netdev, DevicePlugin.RDMA_SHARED,
                                    f"the rail interface {netdev} of {f.machine.name}")
            shared += rdma_shared.per_interface(netdevs)
        if not shared:
            _refuse_idle_plugin(RDMA_SHARED_DEVICE_PLUGIN, DevicePlugin.RDMA_SHARED,
                                "its configList would be empty, and the plugin exits on "
                                "start (\"no resources configuration found\")")
        out.append(Part(
            RDMA_SHARED_DEVICE_PLUGIN.part,
            tuple(rdma_shared.manifests(addons[RDMA_SHARED_DEVICE_PLUGIN.key].image(),
                                        _unique(shared))),
            description="RDMA shared device plugin: one resource per rail",
        ))
    if addons.on(SRIOV_DEVICE_PLUGIN):
        vfs: list[sriov.VfResource] = []
        for f in fabs:
            if f.device_plugin is not DevicePlugin.SRIOV:
                continue
            for res in f.pooled_resources:
                prefix, name = split_resource(res)
                check_resource_name(spec, f, name, DevicePlugin.SRIOV,
                                    f"the pool's VF resource {res}")
                vfs.append(sriov.rdma_vfs(name, prefix))
        if not vfs:
            _refuse_idle_plugin(SRIOV_DEVICE_PLUGIN, DevicePlugin.SRIOV,
                                "its resourceList would be empty: it would serve no device")
        out.append(Part(
            SRIOV_DEVICE_PLUGIN.part,
            tuple(sriov.manifests(addons[SRIOV_DEVICE_PLUGIN.key].image(), _unique(vfs))),
            description="SR-IOV network device plugin (VFs)",
        ))
    nad_part = nads_part(spec, fabrics, addons)
    if nad_part:
        out.append(nad_part)
    if addons.on(GPU_OPERATOR):
        rdma = any(f.machine.fabric.is_rdma for f in fabs)
        computed = gpu_operator.values(
            install_driver=True,
            rdma=rdma,
            device_plugin=not any(f.uses_dra for f in fabs),
            service_monitor=addons.on(PROMETHEUS),
        )
        out.append(Part(
            GPU_OPERATOR.part,
            tuple(own_namespace(GPU_OPERATOR, addons)),
            (chart_release(GPU_OPERATOR, addons, computed, cloud, spec, fabrics),),
            after=(PROMETHEUS.part,) if addons.on(PROMETHEUS) else (),
            description="NVIDIA GPU Operator (GPUDirect RDMA via nvidia-peermem)",
        ))
    if addons.on(NVIDIA_DEVICE_PLUGIN):
        computed = {"tolerations": _tolerations(), "gfd": {"enabled": False}}
        out.append(Part(
            NVIDIA_DEVICE_PLUGIN.part,
            tuple(own_namespace(NVIDIA_DEVICE_PLUGIN, addons)),
            (chart_release(NVIDIA_DEVICE_PLUGIN, addons, computed, cloud, spec, fabrics),),
            description="NVIDIA device plugin (nvidia.com/gpu)",
        ))
    out += dra_parts(spec, fabrics, addons, cloud, critical_pods_need_quota)
    return out


def _refuse_idle_plugin(addon: Addon, plugin: DevicePlugin, why: str) -> NoReturn:
    """A device plugin turned on where no pool's fabric hands out its resources would
    run on every node for nothing (k8s-rdma-shared-dev-plugin v1.5.3 ValidateConfigs
    even refuses an empty configList, so its pods crash-loop): stop before any resource."""
    refuse(
        f"addons.{addon.key}.enabled",
        f"no node pool's fabric uses the {plugin.value} device plugin "
        f"(fabric.device_plugin: {plugin.value}, with fabric NICs), so {why}; "
        f"leave addons.{addon.key} off on this cluster",
        True,
    )


def _unique(items: list[Any]) -> list[Any]:
    seen: list[Any] = []
    for item in items:
        if item not in seen:
            seen.append(item)
    return seen


def _tolerations() -> list[dict[str, str]]:
    from gpu_fabric.fabric.taints import daemonset_tolerations

    return daemonset_tolerations()


def nads_part(
    spec: ClusterSpec, fabrics: Mapping[str, FabricDescription], addons: ResolvedAddons
) -> Part | None:
    """NetworkAttachmentDefinitions for device-plugin fabrics, in every workload namespace."""
    objects: list[Manifest] = []
    for fabric in fabrics.values():
        if fabric.attach is not Attach.DEVICE_PLUGIN or fabric.nad_type is None:
            continue
        for ns in spec.fabric.namespaces:
            objects += fabric_nads(fabric, ns)
    if not objects:
        return None
    after = _workload_after(spec)
    if addons.on(MULTUS):
        after += (MULTUS.part,)
    elif addons.on(NETWORK_OPERATOR):
        after += (NETWORK_OPERATOR.part,)
    return Part("nads", tuple(_unique(objects)), after=after,
                description="NetworkAttachmentDefinitions, one per rail / SR-IOV network")


def fabric_nads(fabric: FabricDescription, ns: str) -> list[Manifest]:
    kind = fabric.nad_type
    if kind == "host-device":
        return [nads.host_device(r.network, ns, r.netdev) for r in fabric.rails
                if r.network and r.netdev]
    if kind == "sriov":
        network = next(r.network for r in fabric.rails if r.network)
        resource = next(iter(fabric.pooled_resources))
        vf = fabric.sriov_network or SriovVfNetwork(ipam_pool=network)
        return [nads.sriov(network, ns, resource, nads.nv_ipam(vf.ipam_pool), mtu=fabric.mtu,
                           spoofchk=vf.spoofchk, sysctl=dict(vf.sysctl) or None)]
    return []


def fabric_claim_templates(
    spec: ClusterSpec, fabrics: Sequence[FabricDescription], ns: str
) -> list[Manifest]:
    """Aligned ResourceClaimTemplates (GPUs + their NICs) of DRA fabrics in namespace ``ns``.

    Claim templates are namespaced: every namespace that runs fabric jobs (the
    fabric's workload namespaces, each team's namespace) needs its own copy.
    """
    objects: list[Manifest] = []
    for fabric in fabrics:
        classes = fabric.dra
        if not fabric.uses_dra or classes is None:
            continue
        nic_class = classes.nic_class if fabric.attach is Attach.DRA else None
        nic_selectors = (
            [f'device.attributes["{classes.nic_driver}"].rdma == true']
            if nic_class and not classes.managed_nics else []
        )
        gpus_per_root, nics_per_root = _alignment_group(fabric)
        for n in claim_gpu_counts(fabric, spec.fabric.claim_gpu_counts):
            claim = dra.aligned_claim_spec(
                classes.api_version,
                gpus=n,
                gpu_class=classes.gpu_class,
                nic_class=nic_class,
                nic_selectors=nic_selectors,
                gpus_per_root=gpus_per_root,
                nics_per_root=nics_per_root,
            )
            objects.append(dra.claim_template(
                claim_template_name(fabric, n), ns, classes.api_version, claim,
            ))
        if nic_class and classes.rails_by_ifname:
            objects += _rail_claim_templates(spec, fabric, ns, nic_selectors)
    return objects


def _rail_claim_templates(spec: ClusterSpec, fabric: FabricDescription, ns: str,
                          nic_selectors: Sequence[str]) -> list[Manifest]:
    """Per-rail templates of partial claims: ``2-gpu-nic-rails-2-3`` on every node.

    ``N-gpu-nic-aligned`` lets each pod take any free PCIe root, so two pods of one
    job can sit on different rails on their nodes. A job whose pods all use the same
    rail template gets the same NICs (by name) on every node, and the GPUs of their
    root. Full-node claims already hold every rail.
    """
    classes = fabric.dra
    assert classes is not None
    gpus_per_root, nics_per_root = _alignment_group(fabric)
    names = [r.netdev for r in fabric.rails]
    if len(names) != fabric.machine.fabric_nics or not all(names):
        return []
    objects: list[Manifest] = []
    for n in claim_gpu_counts(fabric, spec.fabric.claim_gpu_counts):
        if n == fabric.machine.gpus:
            continue
        for rails in rail_sets(fabric, n):
            claim = dra.aligned_claim_spec(
                classes.api_version,
                gpus=n,
                gpu_class=classes.gpu_class,
                nic_class=classes.nic_class,
                nic_selectors=nic_selectors,
                gpus_per_root=gpus_per_root,
                nics_per_root=nics_per_root,
                nic_names=[str(names[r]) for r in rails],
                nic_domain=classes.nic_driver,
            )
            objects.append(dra.claim_template(
                rail_claim_template_name(fabric, n, rails), ns, classes.api_version, claim,
            ))
    return objects


def _alignment_group(fabric: FabricDescription) -> tuple[int, int]:
    """GPUs and NICs of one alignment group, from the catalog's GPU <-> NIC pairing.

    Never more NICs than the node has: a p4d group is 2 GPUs + 1 EFA (4 EFA for 8
    GPUs), where one NIC per GPU would ask for 8. A group (PCIe switch) sits under one
    PCIe root, so its devices share ``resource.kubernetes.io/pcieRoot``.
    """
    from gpu_fabric.catalog import gpu_nic_pairing

    machine = fabric.machine
    pairing = gpu_nic_pairing(machine)
    if pairing is not None:
        return pairing.gpus_per_group, pairing.nics_per_group
    per_root = machine.gpus_per_pcie_root
    return per_root, max(1, machine.fabric_nics * per_root // machine.gpus)


def _dranet_hint(fabrics: Mapping[str, FabricDescription]) -> str:
    """The cloud's DraNet provider hint (every pool of a cluster is on one cloud)."""
    return next(iter(fabrics.values())).dranet_provider_hint if fabrics else "NONE"


def dra_parts(
    spec: ClusterSpec,
    fabrics: Mapping[str, FabricDescription],
    addons: ResolvedAddons,
    cloud: ChartValues,
    critical_pods_need_quota: bool = False,
) -> list[Part]:
    dra_fabrics = [f for f in fabrics.values() if f.uses_dra and f.dra]
    nvlink = [f for f in fabrics.values() if f.machine.nvlink_domain]
    out: list[Part] = []
    if addons.on(NVIDIA_DRA_DRIVER):
        # GPUs through the driver only for DRA GPU pools; an NVLink pool in another mode
        # gets compute domains alone beside its device plugin (k8s-dra-driver-gpu
        # v25.12.0 demo/specs/imex/README.sh installs it with resources.gpus.enabled=false).
        computed = dra_driver.values(
            gpus=any(f.gpu_dra for f in dra_fabrics) or not (dra_fabrics or nvlink),
            compute_domains=bool(nvlink),
        )
        driver_ns = addons[NVIDIA_DRA_DRIVER.key].namespace
        quota = ([dra_driver.critical_pods_quota(driver_ns, _gpu_nodes(spec, fabrics))]
                 if critical_pods_need_quota and driver_ns not in SYSTEM_NAMESPACES else [])
        out.append(Part(
            NVIDIA_DRA_DRIVER.part,
            tuple(own_namespace(NVIDIA_DRA_DRIVER, addons) + quota),
            (chart_release(NVIDIA_DRA_DRIVER, addons, computed, cloud, spec, fabrics),),
            description="NVIDIA DRA driver for GPUs (gpu.nvidia.com, ComputeDomains)",
        ))
    if addons.on(DRANET):
        out.append(Part(
            DRANET.part, (),
            (chart_release(DRANET, addons, dranet.values(_dranet_hint(fabrics)), cloud, spec,
                           fabrics),),
            description="DraNet: NICs as DRA devices (driver dra.net)",
        ))
    if not dra_fabrics:
        return out + compute_domain_parts(spec, nvlink, addons)
    objects: list[Manifest] = []
    api = dra_fabrics[0].dra.api_version if dra_fabrics[0].dra else dra.V1
    for fabric in dra_fabrics:
        classes = fabric.dra
        assert classes is not None
        if fabric.attach is Attach.DRA and not classes.managed_nics:
            objects.append(dra.device_class(
                classes.nic_class, classes.api_version, [dra.driver_selector(classes.nic_driver)]
            ))
    for ns in spec.fabric.namespaces:
        objects += fabric_claim_templates(spec, dra_fabrics, ns)
    after = _workload_after(spec)
    if addons.on(DRANET):
        after += (DRANET.part,)
    if addons.on(NVIDIA_DRA_DRIVER):
        after += (NVIDIA_DRA_DRIVER.part,)
    out.append(Part("dra-claims", tuple(_unique(objects)), after=after,
                    description=f"DeviceClasses and aligned ResourceClaimTemplates ({api})"))
    return out + compute_domain_parts(spec, nvlink, addons)


def compute_domain_parts(
    spec: ClusterSpec, nvlink: Sequence[FabricDescription], addons: ResolvedAddons
) -> list[Part]:
    """The per-namespace default ComputeDomain of every multi-node NVLink pool, in every
    fabric mode: the channel claim the admission policies inject names it. Jobs that
    want their own domain (one per job, as upstream does) build it with
    :func:`gpu_fabric.fabric.workload.job_compute_domain` (docs/platform.md)."""
    domains = [
        dra.compute_domain(compute_domain_name(f), ns, compute_domain_nodes(spec, f, addons))
        for f in nvlink for ns in spec.fabric.namespaces
    ]
    if not domains:
        return []
    return [Part(
        "compute-domains", tuple(domains),
        after=_workload_after(spec) + (
            (NVIDIA_DRA_DRIVER.part,) if addons.on(NVIDIA_DRA_DRIVER) else ()
        ),
        description="ComputeDomains (IMEX) for multi-node NVLink",
    )]


def _gpu_nodes(spec: ClusterSpec, fabrics: Mapping[str, FabricDescription]) -> int:
    """The most GPU nodes the cluster may have (each runs a DRA kubelet-plugin pod)."""
    return sum(pool_nodes(spec, f.pool) for f in fabrics.values() if f.machine.gpus)


def pool_nodes(spec: ClusterSpec, pool: str) -> int:
    p = spec.pool(pool)
    return max(p.node_count, p.max_nodes or 0, 1)


def compute_domain_nodes(
    spec: ClusterSpec, fabric: FabricDescription, addons: ResolvedAddons
) -> int:
    """``spec.numNodes`` of a GB200 pool's ComputeDomain.

    A ComputeDomain's spec is immutable (k8s-dra-driver-gpu 25.12.0 CRD:
    ``x-kubernetes-validations: self == oldSelf``, "A computeDomain.spec is
    immutable"): a ``numNodes`` that follows the pool's size turns every resize into an
    update the API server refuses. With the driver this layer installs (the pinned
    chart leaves ``featureGates`` empty, so ``IMEXDaemonsWithDNSNames`` is on, its
    default), the same CRD recommends ``numNodes: 0``: IMEX daemons start without
    waiting for their peers and the field only feeds the ``Ready`` status. With a
    driver installed by someone else (version and feature gates unknown) the older
    mode may hold pods until ``numNodes`` daemons joined, so the pool's size stays;
    resizing such a pool needs its ComputeDomain replaced (docs/platform.md, "ComputeDomain
    size").
    """
    if addons.on(NVIDIA_DRA_DRIVER):
        return 0
    return pool_nodes(spec, fabric.pool)


def injection_parts(
    spec: ClusterSpec, fabrics: Mapping[str, FabricDescription], addons: ResolvedAddons
) -> list[Part]:
    if not addons.on(KYVERNO):
        return []
    from gpu_fabric.fabric.injection import injection_part

    return injection_part(spec, fabrics, addons)
