"""What an AKS InfiniBand cluster is made of, decided before any resource exists (pure).

:func:`plan_layout` turns a validated spec into plain data: resource names,
address ranges, the ``AKSInfinibandSupport`` decision and each GPU agent pool's
settings. Every problem it finds is raised with the spec path, the bad value and
what would be valid (``gpu_fabric.fabric.problems.refuse``), and
:class:`~gpu_fabric.clouds.azure.cluster.AzureGpuCluster` calls it before it
registers anything, so a bad spec creates nothing.
"""

from __future__ import annotations

import ipaddress
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from gpu_fabric.catalog import Cloud, GpuVendor, Machine, machines
from gpu_fabric.fabric.problems import refuse

if TYPE_CHECKING:
    from gpu_fabric.clouds.azure.options import AzureOptions
    from gpu_fabric.fabric.description import FabricDescription
    from gpu_fabric.spec import ClusterSpec, GpuNodePoolSpec

FEATURE_NAMESPACE = "Microsoft.ContainerService"
FEATURE_NAME = "AKSInfinibandSupport"
SYSTEM_POOL = "system"
DEFAULT_SYSTEM_VM = "Standard_D4s_v5"
# Overlay pod and service ranges when the spec leaves them out (outside the VNet).
DEFAULT_POD_CIDR = ipaddress.IPv4Network("10.244.0.0/16")
DEFAULT_SERVICE_CIDR = ipaddress.IPv4Network("10.96.0.0/16")
NODE_SUBNET_EXTRA_BITS = 4  # node subnet = first /(vnet+4) of the VNet
UBUNTU = "Ubuntu"
UBUNTU_2404 = "Ubuntu2404"
AZURE_ZONES = ("1", "2", "3")

FeatureState = Literal["registered", "unregistered", "any"]


def wants_infiniband_feature(machine: Machine) -> bool:
    """ND A100/H100/H200/MI300X pools need AKSInfinibandSupport (one IB fabric per pool);
    ND GB200/GB300 v6 (NVL72 racks) need it NOT registered (Azure AKS reference)."""
    return machine.has_fabric and machine.nvlink_domain is None


def needs_ubuntu_2404(machine: Machine) -> bool:
    """ND v6 (GB200/GB300) has an NVMe-only disk controller: Ubuntu 24.04 node image."""
    return machine.has_fabric and machine.nvlink_domain is not None


@dataclass(frozen=True)
class GpuPoolLayout:
    name: str  # AKS agent pool name == spec pool name
    machine: Machine
    os_sku: str
    aks_driver: bool  # AKS installs the NVIDIA driver (False: the GPU Operator does)
    zones: tuple[str, ...]
    spot: bool


@dataclass(frozen=True)
class NetworkLayout:
    vnet_cidr: str
    node_subnet: str
    pod_subnet: str | None  # flat mode only
    pod_cidr: str | None  # overlay mode only
    service_cidr: str
    dns_service_ip: str
    existing_subnet_id: str | None


@dataclass(frozen=True)
class AzureLayout:
    resource_group: str
    create_resource_group: bool
    cluster: str
    dns_prefix: str
    network: NetworkLayout
    feature_mode: str  # manage | check | ignore
    feature_state: FeatureState  # what the GPU pools need
    system_vm_size: str
    pools: tuple[GpuPoolLayout, ...]

    @property
    def register_feature(self) -> bool:
        return self.feature_mode == "manage" and self.feature_state == "registered"

    @property
    def check_feature(self) -> bool:
        return self.feature_mode == "check" and self.feature_state != "any"


# What Azure/aks-rdma-infiniband (tests/setup-infra/deploy-aks.sh at 700dabb, lines 26-27
# and 215-290) installs for ND MI300X v5 and this library does not: the amdgpu driver
# DaemonSet (configs/amd-driver-installer/), cert-manager v1.15.1 and the ROCm AMD GPU
# Operator v1.4.1 with its DeviceConfig (configs/amd-device-config/deviceconfig.yaml).
AMD_STACK = ("the amdgpu driver DaemonSet, cert-manager v1.15.1 and the AMD GPU Operator "
             "v1.4.1 with a DeviceConfig (Azure/aks-rdma-infiniband "
             "tests/setup-infra/deploy-aks.sh)")


def refuse_amd_on_aks(spec: ClusterSpec, pool: GpuNodePoolSpec) -> None:
    """Refuse AMD GPU pools (ND MI300X v5) on a cluster this library creates: AKS ships no
    amdgpu driver and this library does not install the AMD stack, so ``amd.com/gpu``
    would never appear on the nodes and every GPU pod would stay Pending while ``pulumi
    up`` reports success. (On your own cluster, with the pool block, the AMD stack is
    yours to install.)"""
    if pool.machine.gpu.vendor is GpuVendor.NVIDIA:
        return
    index = spec.node_pools.index(pool)
    nvidia = ", ".join(m.name for m in machines(Cloud.AZURE, fabric_only=True)
                       if m.gpu.vendor is GpuVendor.NVIDIA)
    refuse(
        f"node_pools[{index}].machine_type",
        f"pool '{pool.name}' has {pool.machine.gpu.vendor.name} {pool.machine.gpu.model} GPUs; "
        f"AKS installs no driver for them and this library does not install {AMD_STACK}, "
        "so amd.com/gpu would never appear and GPU pods would stay Pending; valid on AKS: "
        f"an NVIDIA ND size ({nvidia})",
        pool.machine_type,
    )


def plan_layout(
    spec: ClusterSpec, fabrics: dict[str, FabricDescription], operator_driver: bool
) -> AzureLayout:
    """The layout of ``spec`` (``operator_driver``: the GPU Operator installs the driver)."""
    options: AzureOptions | None = spec.options
    if options is None:
        refuse("azure", "section 'azure:' is required to create an AKS cluster", None)
    for i, pool in enumerate(spec.node_pools):
        if pool.name == SYSTEM_POOL:
            refuse(f"node_pools[{i}].name",
                   f"'{SYSTEM_POOL}' is the AKS system pool's name; choose another", pool.name)
        refuse_amd_on_aks(spec, pool)
    return AzureLayout(
        resource_group=options.resource_group or f"{spec.name}-rg",
        create_resource_group=options.resource_group is None,
        cluster=spec.name,
        dns_prefix=spec.name,
        network=_network(spec, options),
        feature_mode=options.infiniband_feature,
        feature_state=_feature_state(spec, options),
        system_vm_size=spec.system_pool.machine_type or DEFAULT_SYSTEM_VM,
        pools=tuple(
            _pool(spec, i, pool, operator_driver) for i, pool in enumerate(spec.node_pools)
        ),
    )


def _feature_state(spec: ClusterSpec, options: AzureOptions) -> FeatureState:
    want = [p.name for p in spec.fabric_pools if wants_infiniband_feature(p.machine)]
    avoid = [p.name for p in spec.fabric_pools if not wants_infiniband_feature(p.machine)]
    if want and avoid and options.infiniband_feature != "ignore":
        refuse(
            "node_pools",
            f"pools {', '.join(want)} need the subscription feature {FEATURE_NAMESPACE}/"
            f"{FEATURE_NAME} registered but GB200/GB300 pools {', '.join(avoid)} need it "
            "unregistered, and it is one setting per subscription; put them in clusters of "
            "different subscriptions, or set azure.infiniband_feature: ignore",
            [p.machine_type for p in spec.fabric_pools],
        )
    if want:
        return "registered"
    if avoid:
        return "unregistered"
    return "any"


def _network(spec: ClusterSpec, options: AzureOptions) -> NetworkLayout:
    net = spec.network
    vnet = net.cidr
    if vnet.prefixlen > 32 - 8 - NODE_SUBNET_EXTRA_BITS:
        refuse("network.cidr", f"the VNet range needs at least /{32 - 8 - NODE_SUBNET_EXTRA_BITS} "
               "on AKS (a node subnet plus room for pods)", str(vnet))
    node_subnet = next(vnet.subnets(prefixlen_diff=NODE_SUBNET_EXTRA_BITS))
    service = net.service_cidr or DEFAULT_SERVICE_CIDR
    if service.overlaps(vnet):
        refuse("network.service_cidr", f"the service range must not overlap the VNet "
               f"{vnet}; set network.service_cidr to a free range", str(service))
    flat = options.network_plugin_mode == "flat"
    pod_subnet: str | None = None
    pod_cidr: str | None = None
    if flat:
        if options.existing_subnet_id:
            refuse("azure.existing_subnet_id", "an existing node subnet works with "
                   "network_plugin_mode overlay only (flat needs a pod subnet we create)",
                   options.existing_subnet_id)
        pods = net.pod_cidr or list(vnet.subnets(prefixlen_diff=1))[1]
        if not pods.subnet_of(vnet) or pods.overlaps(node_subnet):
            refuse("network.pod_cidr", f"with network_plugin_mode flat the pod subnet must lie "
                   f"inside the VNet {vnet} and outside the node subnet {node_subnet}", str(pods))
        pod_subnet = str(pods)
    else:
        pods = net.pod_cidr or DEFAULT_POD_CIDR
        if pods.overlaps(vnet):
            refuse("network.pod_cidr", f"overlay pod range must not overlap the VNet {vnet}; "
                   "set network.pod_cidr to a free range (e.g. 10.244.0.0/16)", str(pods))
        if pods.overlaps(service):
            refuse("network.pod_cidr", f"overlay pod range overlaps the service range {service}",
                   str(pods))
        pod_cidr = str(pods)
    return NetworkLayout(
        vnet_cidr=str(vnet),
        node_subnet=str(node_subnet),
        pod_subnet=pod_subnet,
        pod_cidr=pod_cidr,
        service_cidr=str(service),
        dns_service_ip=str(service.network_address + 10),
        existing_subnet_id=options.existing_subnet_id,
    )


def _pool(spec: ClusterSpec, i: int, pool: GpuNodePoolSpec, operator_driver: bool) -> GpuPoolLayout:
    return pool_layout(pool, spec.location.zone, operator_driver, f"node_pools[{i}]",
                       "location.zone")


def pool_layout(
    pool: GpuNodePoolSpec, zone: str | None, operator_driver: bool, path: str, zone_path: str
) -> GpuPoolLayout:
    """The agent pool of ``pool`` (``path``/``zone_path`` name the inputs in refusals)."""
    machine = pool.machine
    if not re.match(r"^[a-z][a-z0-9]{0,11}$", pool.name):  # also checked by the spec
        refuse(f"{path}.name", "Azure agent pool names are 1-12 lowercase letters and digits, "
               "starting with a letter", pool.name)
    os_sku = pool.os_image or (UBUNTU_2404 if needs_ubuntu_2404(machine) else UBUNTU)
    if needs_ubuntu_2404(machine) and os_sku != UBUNTU_2404:
        refuse(f"{path}.os_image", f"{machine.name} needs the {UBUNTU_2404} node image "
               "(NVMe-only disk controller)", os_sku)
    if not os_sku.startswith(UBUNTU) and machine.has_fabric:
        refuse(f"{path}.os_image", "InfiniBand pools need an Ubuntu node image (the DOCA "
               f"driver container targets Ubuntu): use {UBUNTU} or {UBUNTU_2404}", os_sku)
    if zone is not None and zone not in AZURE_ZONES:
        refuse(zone_path, f"Azure availability zones are {', '.join(AZURE_ZONES)}", zone)
    return GpuPoolLayout(
        name=pool.name,
        machine=machine,
        os_sku=os_sku,
        aks_driver=machine.gpu.vendor is GpuVendor.NVIDIA and not operator_driver,
        zones=(zone,) if zone else (),
        spot=pool.capacity.type == "spot",
    )
