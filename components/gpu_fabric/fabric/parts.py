"""The cloud-agnostic parts of the fabric layer (clouds add theirs in their own module)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, NoReturn

from gpu_fabric.fabric.addons import ResolvedAddons
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
# Namespaces of node agents that need privileged pods (Pod Security "privileged").
PRIVILEGED_ADDONS = frozenset(
    {"network_operator", "gpu_operator", "nvidia_device_plugin", "nvidia_dra_driver"}
)


def chart_release(
    key: str,
    addons: ResolvedAddons,
    computed: Mapping[str, Any],
    cloud: ChartValues,
    spec: ClusterSpec,
    fabrics: Mapping[str, FabricDescription],
    release: str | None = None,
) -> HelmRelease:
    """A release of add-on ``key``: computed values <- contributed values <- the spec's values.

    ``cloud`` gives the contributed values (the cloud's, merged over the platform's
    in :meth:`~gpu_fabric.fabric.plugins.LayerPlugins.values`).
    """
    addon = addons[key]
    chart = addon.chart()
    values = deep_merge(computed, cloud.chart_values(key, spec, fabrics), addon.values)
    return HelmRelease(release or chart.name, chart, addon.namespace, values,
                       user_values=bool(addon.values))


def own_namespace(key: str, addons: ResolvedAddons) -> list[Manifest]:
    ns = addons[key].namespace
    if ns in SYSTEM_NAMESPACES:
        return []
    return [namespace(ns, privileged=key in PRIVILEGED_ADDONS)]


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
) -> list[Part]:
    fabs = list(fabrics.values())
    out: list[Part] = []
    if addons.on("multus"):
        selectors = [f.node_selector for f in fabs if f.machine.has_fabric]
        out.append(Part("multus", tuple(multus.manifests(addons["multus"].image(),
                                                         node_selectors=selectors)),
                        description="Multus CNI (thick) and the NetworkAttachmentDefinition CRD"))
    if addons.on("rdma_shared_device_plugin"):
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
            _refuse_idle_plugin("rdma_shared_device_plugin", DevicePlugin.RDMA_SHARED,
                                "its configList would be empty, and the plugin exits on "
                                "start (\"no resources configuration found\")")
        out.append(Part(
            "rdma-shared-device-plugin",
            tuple(rdma_shared.manifests(addons["rdma_shared_device_plugin"].image(),
                                        _unique(shared))),
            description="RDMA shared device plugin: one resource per rail",
        ))
    if addons.on("sriov_device_plugin"):
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
            _refuse_idle_plugin("sriov_device_plugin", DevicePlugin.SRIOV,
                                "its resourceList would be empty: it would serve no device")
        out.append(Part(
            "sriov-device-plugin",
            tuple(sriov.manifests(addons["sriov_device_plugin"].image(), _unique(vfs))),
            description="SR-IOV network device plugin (VFs)",
        ))
    nad_part = nads_part(spec, fabrics, addons)
    if nad_part:
        out.append(nad_part)
    if addons.on("gpu_operator"):
        rdma = any(f.machine.fabric.is_rdma for f in fabs)
        computed = gpu_operator.values(
            install_driver=True,
            rdma=rdma,
            device_plugin=not any(f.uses_dra for f in fabs),
            service_monitor=addons.on("prometheus"),
        )
        out.append(Part(
            "gpu-operator",
            tuple(own_namespace("gpu_operator", addons)),
            (chart_release("gpu_operator", addons, computed, cloud, spec, fabrics),),
            after=("prometheus",) if addons.on("prometheus") else (),
            description="NVIDIA GPU Operator (GPUDirect RDMA via nvidia-peermem)",
        ))
    if addons.on("nvidia_device_plugin"):
        computed = {"tolerations": _tolerations(), "gfd": {"enabled": False}}
        out.append(Part(
            "nvidia-device-plugin",
            tuple(own_namespace("nvidia_device_plugin", addons)),
            (chart_release("nvidia_device_plugin", addons, computed, cloud, spec, fabrics),),
            description="NVIDIA device plugin (nvidia.com/gpu)",
        ))
    out += dra_parts(spec, fabrics, addons, cloud)
    return out


def _refuse_idle_plugin(key: str, plugin: DevicePlugin, why: str) -> NoReturn:
    """A device plugin turned on where no pool's fabric hands out its resources would
    run on every node for nothing (k8s-rdma-shared-dev-plugin v1.5.3 ValidateConfigs
    even refuses an empty configList, so its pods crash-loop): stop before any resource."""
    refuse(
        f"addons.{key}.enabled",
        f"no node pool's fabric uses the {plugin.value} device plugin "
        f"(fabric.device_plugin: {plugin.value}, with fabric NICs), so {why}; "
        f"leave addons.{key} off on this cluster",
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
    if addons.on("multus"):
        after += ("multus",)
    elif addons.on("network_operator"):
        after += ("network-operator",)
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
) -> list[Part]:
    dra_fabrics = [f for f in fabrics.values() if f.uses_dra and f.dra]
    out: list[Part] = []
    if addons.on("nvidia_dra_driver"):
        gb = any(f.machine.nvlink_domain for f in dra_fabrics)
        computed = dra_driver.values(
            gpus=any(f.gpu_dra for f in dra_fabrics) or not dra_fabrics,
            compute_domains=gb,
        )
        out.append(Part(
            "nvidia-dra-driver",
            tuple(own_namespace("nvidia_dra_driver", addons)),
            (chart_release("nvidia_dra_driver", addons, computed, cloud, spec, fabrics),),
            description="NVIDIA DRA driver for GPUs (gpu.nvidia.com, ComputeDomains)",
        ))
    if addons.on("dranet"):
        out.append(Part(
            "dranet", (),
            (chart_release("dranet", addons, dranet.values(_dranet_hint(fabrics)), cloud, spec,
                           fabrics),),
            description="DraNet: NICs as DRA devices (driver dra.net)",
        ))
    if not dra_fabrics:
        return out
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
    if addons.on("dranet"):
        after += ("dranet",)
    if addons.on("nvidia_dra_driver"):
        after += ("nvidia-dra-driver",)
    out.append(Part("dra-claims", tuple(_unique(objects)), after=after,
                    description=f"DeviceClasses and aligned ResourceClaimTemplates ({api})"))
    domains = [
        dra.compute_domain(compute_domain_name(f), ns, compute_domain_nodes(spec, f, addons))
        for f in dra_fabrics if f.machine.nvlink_domain
        for ns in spec.fabric.namespaces
    ]
    if domains:
        out.append(Part(
            "compute-domains", tuple(domains),
            after=_workload_after(spec) + (
                ("nvidia-dra-driver",) if addons.on("nvidia_dra_driver") else ()
            ),
            description="ComputeDomains (IMEX) for multi-node NVLink",
        ))
    return out


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
    if addons.on("nvidia_dra_driver"):
        return 0
    return pool_nodes(spec, fabric.pool)


def injection_parts(
    spec: ClusterSpec, fabrics: Mapping[str, FabricDescription], addons: ResolvedAddons
) -> list[Part]:
    if not addons.on("kyverno"):
        return []
    from gpu_fabric.fabric.injection import injection_part

    return injection_part(spec, fabrics, addons)
