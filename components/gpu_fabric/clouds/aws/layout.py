"""What an EKS GPU cluster looks like, as plain data (pure; no SDK).

Everything here is derived from the spec and the machine catalog before any
resource exists, so a spec that cannot be built is refused first:

* the address plan: one private subnet per control-plane AZ, one public subnet
  per AZ (NAT, load balancers) and one private GPU subnet in ``location.zone``
  (EFA traffic never crosses an AZ);
* per GPU pool: the EFA interfaces of its launch template (one per network card
  that has EFA, counts from the catalog), placement group or not, capacity
  settings (ODCR, Capacity Block), AMI type.

Interface layouts (``aws.efa_interface_layout``):

* ``ena-primary`` (default, current EC2 guidance): card 0 device 0 is a plain ENA
  (``interface``) that carries the node's IP; every EFA is ``efa-only`` (no IP, so
  a p5 uses 1 address instead of 32 and Linux multi-IP routing stays simple). The
  EFA on card 0 (if card 0 has one) is device 1; on the other cards device 0.
* ``efa-primary`` (older guidance, eksctl/pulumi-eks): card 0 device 0 is a
  combined EFA+ENA (``efa``); the other cards carry ``efa-only`` at device index 1.
  On machines whose card 0 has no EFA (p6-b300) the primary stays ENA.
"""

from __future__ import annotations

import ipaddress
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from gpu_fabric import versions
from gpu_fabric.catalog import FabricKind, Machine
from gpu_fabric.catalog.aws import ONE_INTERFACE_CARDS
from gpu_fabric.clouds.aws.options import AwsOptions
from gpu_fabric.fabric.problems import refuse

if TYPE_CHECKING:
    from gpu_fabric.spec import ClusterSpec, GpuNodePoolSpec

MAX_AZS = 6
# Blocks of network.cidr: 16 equal blocks; private AZ subnets 0..5, GPU 7, public 8..13.
_BLOCK_BITS = 4
_GPU_BLOCK = 7
_PUBLIC_BASE = 8
DEFAULT_SYSTEM_INSTANCE = "m7i.xlarge"
AMI_X86_NVIDIA = "AL2023_x86_64_NVIDIA"
AMI_ARM_NVIDIA = "AL2023_ARM_64_NVIDIA"
AMI_TYPES = (AMI_X86_NVIDIA, AMI_ARM_NVIDIA)
EFA_TYPE = "efa"
# Root EBS volume of a GPU node when the pool sets no disk_size_gb. The AL2023 AMI's own
# root is 20 GiB (amazon-eks-ami 81fec2e templates/al2023/template.json line 86,
# ami_block_device_mappings volume_size 20), and with a launch template EKS takes the size
# from it, not from the node group's disk_size: too small for the OS, logs and a training
# image that is not yet on the instance store. 100 GiB gp3 is this project's default.
DEFAULT_ROOT_GB = 100
# nodeadm user data (MIME multi-part, content type application/node.eks.aws: amazon-eks-ami
# 81fec2e nodeadm/doc/examples.md lines 12-41): RAID0 over the NVMe instance store, onto
# which nodeadm bind-mounts /var/lib/containerd, /var/lib/kubelet and /var/log/pods, as
# awsome-distributed-training 7217859 1.architectures/4.amazon-eks/eks-p5-capacity-block.yaml
# (lines 43-49) and terraform-aws-eks bef29c4 README.md (lines 357-369) do for p5. On a
# machine without instance store it does nothing (templates/al2023/runtime/bin/
# setup-local-disks line 292: "no NVMe instance storage disks found!", exit 0).
NODEADM_USER_DATA = """MIME-Version: 1.0
Content-Type: multipart/mixed; boundary="BOUNDARY"

--BOUNDARY
Content-Type: application/node.eks.aws

---
apiVersion: node.eks.aws/v1alpha1
kind: NodeConfig
spec:
  instance:
    localStorage:
      strategy: RAID0

--BOUNDARY--
"""
# Instance types EC2 sells only through Capacity Blocks for ML: P6e-GB200 UltraServers
# (https://docs.aws.amazon.com/eks/latest/userguide/ml-eks-nvidia-ultraserver.html).
CAPACITY_BLOCK_ONLY = ("p6e-gb200.36xlarge",)
EFA_ONLY_TYPE = "efa-only"
ENA_TYPE = "interface"


def options_of(spec: ClusterSpec) -> AwsOptions:
    return spec.options or AwsOptions()


def partition(region: str) -> str:
    """The ARN partition of a region (managed policy ARNs differ in China / GovCloud)."""
    if region.startswith("cn-"):
        return "aws-cn"
    if region.startswith("us-gov-"):
        return "aws-us-gov"
    return "aws"


@dataclass(frozen=True)
class SubnetPlan:
    key: str  # stable name part: private-0, public-0, gpu
    zone: str
    cidr: str
    public: bool


@dataclass(frozen=True)
class NetworkPlan:
    zones: tuple[str, ...]
    gpu_zone: str
    private: tuple[SubnetPlan, ...]
    public: tuple[SubnetPlan, ...]
    gpu: SubnetPlan
    nat_zones: tuple[str, ...]  # AZs with a NAT gateway (one, or one per AZ)


def _next_zone(zone: str) -> str:
    """The next zone letter of the region, a after f (AWS_ZONE_LETTERS)."""
    from gpu_fabric.clouds.aws.regions import AWS_ZONE_LETTERS

    at = AWS_ZONE_LETTERS.find(zone[-1])
    return zone[:-1] + AWS_ZONE_LETTERS[(at + 1) % len(AWS_ZONE_LETTERS)]


def control_plane_zones(spec: ClusterSpec) -> tuple[str, ...]:
    from gpu_fabric.clouds.aws.regions import AWS_ZONE_LETTERS

    opts = options_of(spec)
    region = spec.location.region
    gpu_zone = str(spec.location.zone)
    zones = tuple(opts.availability_zones) or (gpu_zone, _next_zone(gpu_zone))
    for i, zone in enumerate(zones):
        if not re.match(rf"^{re.escape(region)}[{AWS_ZONE_LETTERS}]$", zone):
            refuse(
                f"aws.availability_zones[{i}]",
                f"'{zone}' is not an availability zone of region {region} "
                f"(valid: {', '.join(region + c for c in AWS_ZONE_LETTERS)})",
                zone,
            )
    if gpu_zone not in zones:
        refuse(
            "aws.availability_zones",
            f"must include the GPU zone location.zone ({gpu_zone}) so the GPU subnet has a "
            f"NAT route in its own AZ; e.g. [{gpu_zone}, {_next_zone(gpu_zone)}]",
            list(zones),
        )
    if len(zones) > MAX_AZS:
        refuse("aws.availability_zones", f"at most {MAX_AZS} AZs are supported", list(zones))
    return zones


def network_plan(spec: ClusterSpec) -> NetworkPlan:
    """Subnets carved from ``network.cidr``: 16 equal blocks, positions fixed by role."""
    opts = options_of(spec)
    zones = control_plane_zones(spec)
    cidr = spec.network.cidr
    if cidr.prefixlen > 20:
        refuse(
            "network.cidr",
            "an EKS VPC needs at least a /20 (it is split into 16 subnets of which the GPU "
            "subnet holds every GPU node and pod address); e.g. 10.0.0.0/16",
            str(cidr),
        )
    if spec.network.pod_cidr is not None:
        refuse(
            "network.pod_cidr",
            "EKS pods get VPC addresses from the VPC CNI; remove network.pod_cidr",
            str(spec.network.pod_cidr),
        )
    blocks = list(cidr.subnets(prefixlen_diff=_BLOCK_BITS))
    private = tuple(
        SubnetPlan(f"private-{i}", z, str(blocks[i]), False) for i, z in enumerate(zones)
    )
    public = tuple(
        SubnetPlan(f"public-{i}", z, str(blocks[_PUBLIC_BASE + i]), True)
        for i, z in enumerate(zones)
    )
    gpu_zone = str(spec.location.zone)
    gpu = SubnetPlan("gpu", gpu_zone, str(blocks[_GPU_BLOCK]), False)
    nat_zones = (gpu_zone,) if opts.single_nat_gateway else zones
    return NetworkPlan(zones, gpu_zone, private, public, gpu, nat_zones)


def service_cidr(spec: ClusterSpec) -> str | None:
    svc = spec.network.service_cidr
    if svc is None:
        return None
    if not (svc.subnet_of(ipaddress.IPv4Network("10.0.0.0/8"))
            or svc.subnet_of(ipaddress.IPv4Network("172.16.0.0/12"))
            or svc.subnet_of(ipaddress.IPv4Network("192.168.0.0/16"))):
        refuse("network.service_cidr", "EKS needs a private (RFC 1918) service range",
               str(svc))
    if not 12 <= svc.prefixlen <= 24:
        refuse("network.service_cidr", "EKS service ranges are /12 to /24", str(svc))
    return str(svc)


# -- GPU pools -------------------------------------------------------------------
@dataclass(frozen=True)
class Interface:
    """One network interface of the GPU launch template."""

    network_card_index: int
    device_index: int
    interface_type: str  # interface | efa | efa-only

    @property
    def is_efa(self) -> bool:
        return self.interface_type in (EFA_TYPE, EFA_ONLY_TYPE)

    @property
    def is_primary(self) -> bool:
        return self.network_card_index == 0 and self.device_index == 0


def network_cards(machine: Machine) -> int:
    """Network cards of a machine (the catalog's count; EFA count when it lists none)."""
    return machine.network_cards or machine.fabric_nics


def interfaces(machine: Machine, layout: str) -> tuple[Interface, ...]:
    """The launch template's interfaces: one EFA per EFA-capable card, plus the primary.

    Cards with EFA are the last ``fabric_nics`` cards: when a machine has more cards
    than EFA devices (p6-b300: 17 cards, 16 EFA), card 0 carries only the primary ENA.
    """
    if not machine.has_fabric or machine.fabric is not FabricKind.EFA:
        return ()
    cards = network_cards(machine)
    efa_cards = range(cards - machine.fabric_nics, cards)
    card0_efa = 0 in efa_cards
    out: list[Interface] = []
    if layout == "efa-primary" and card0_efa:
        out.append(Interface(0, 0, EFA_TYPE))
    else:
        out.append(Interface(0, 0, ENA_TYPE))
        if card0_efa:
            out.append(Interface(0, 1, EFA_ONLY_TYPE))
    single = ONE_INTERFACE_CARDS.get(machine.name, frozenset())
    for card in efa_cards:
        if card == 0:
            continue
        # A card that takes one interface has only device index 0 (p6e-gb200's odd cards).
        device = 0 if layout == "ena-primary" or card in single else 1
        out.append(Interface(card, device, EFA_ONLY_TYPE))
    return tuple(out)


@dataclass(frozen=True)
class PoolPlan:
    pool: str
    instance_type: str
    ami_type: str
    interfaces: tuple[Interface, ...]
    placement_group: bool  # create a new cluster placement group
    capacity_type: str  # ON_DEMAND | SPOT | CAPACITY_BLOCK
    reservation_id: str | None
    market_type: str | None  # capacity-block
    min_size: int
    desired_size: int
    max_size: int
    placement_group_name: str | None = None  # an existing group to launch into

    @property
    def efa_interfaces(self) -> tuple[Interface, ...]:
        return tuple(i for i in self.interfaces if i.is_efa)


def pool_plan(spec: ClusterSpec, index: int, pool: GpuNodePoolSpec) -> PoolPlan:
    opts = options_of(spec)
    return plan_pool(pool, opts.efa_interface_layout, f"node_pools[{index}]",
                     opts.placement_groups.get(pool.name),
                     f"aws.placement_groups.{pool.name}")


def plan_pool(pool: GpuNodePoolSpec, efa_interface_layout: str, path: str,
              placement_group_name: str | None = None,
              group_path: str = "placement_group_name") -> PoolPlan:
    """The node group plan of ``pool`` (``path`` names the pool in refusals).

    ``placement_group_name`` names an existing cluster placement group: a Capacity
    Reservation created in a cluster placement group is used by launching into that
    group (https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/cr-cpg.html), so a
    reserved pool may be ``compact`` when it names the group.
    """
    machine = pool.machine
    if pool.os_image is not None and pool.os_image not in AMI_TYPES:
        refuse(f"{path}.os_image",
               f"on EKS os_image is the node group ami_type; valid: {', '.join(AMI_TYPES)}",
               pool.os_image)
    arm = machine.cpu_arch == "arm64"
    ami = pool.os_image or (AMI_ARM_NVIDIA if arm else AMI_X86_NVIDIA)
    if (ami == AMI_ARM_NVIDIA) != arm:
        refuse(f"{path}.os_image",
               f"{machine.name} is {machine.cpu_arch}; use "
               f"{AMI_ARM_NVIDIA if arm else AMI_X86_NVIDIA}", ami)
    capacity = pool.capacity
    if machine.name in CAPACITY_BLOCK_ONLY and capacity.type != "capacity_block":
        refuse(
            f"{path}.capacity.type",
            f"{machine.name} is sold only as UltraServer capacity through EC2 Capacity Blocks "
            "for ML (EKS user guide ml-eks-nvidia-ultraserver): on demand, Spot and On-Demand "
            "Capacity Reservations cannot launch it. Use capacity: {type: capacity_block, "
            "reservation: cr-...} with the Capacity Block's reservation id",
            capacity.type,
        )
    reserved = capacity.type in ("reservation", "capacity_block")
    if placement_group_name is not None and pool.placement == "none":
        refuse(group_path, f"pool {pool.name} has placement none; remove its placement group "
               "or set placement auto/compact", placement_group_name)
    if pool.placement == "compact" and reserved and placement_group_name is None:
        refuse(
            f"{path}.placement",
            "a capacity reservation / Capacity Block already fixes where the instances are; "
            "a new cluster placement group on top of it fails with InsufficientInstanceCapacity. "
            "Use placement auto or none, or name the cluster placement group the reservation "
            f"was created in ({group_path}; EC2 cr-cpg)",
            pool.placement,
        )
    efa = machine.has_fabric and machine.fabric is FabricKind.EFA
    placement = (efa and pool.placement != "none" and not reserved
                 and placement_group_name is None)
    min_size = pool.min_nodes if pool.min_nodes is not None else pool.node_count
    max_size = pool.max_nodes if pool.max_nodes is not None else max(pool.node_count, 1)
    return PoolPlan(
        pool=pool.name,
        instance_type=machine.name,
        ami_type=ami,
        interfaces=interfaces(machine, efa_interface_layout),
        placement_group=placement,
        capacity_type={"spot": "SPOT", "capacity_block": "CAPACITY_BLOCK"}.get(
            capacity.type, "ON_DEMAND"
        ),
        reservation_id=capacity.reservation if reserved else None,
        market_type="capacity-block" if capacity.type == "capacity_block" else None,
        min_size=min_size,
        desired_size=pool.node_count,
        max_size=max_size,
        placement_group_name=placement_group_name,
    )


def pool_plans(spec: ClusterSpec) -> list[PoolPlan]:
    service_cidr(spec)
    names = {p.name for p in spec.node_pools}
    for pool, group in options_of(spec).placement_groups.items():
        if pool not in names:
            refuse(f"aws.placement_groups.{pool}",
                   f"no GPU pool is named {pool}; pools: {', '.join(sorted(names))}", group)
    plans = [pool_plan(spec, i, p) for i, p in enumerate(spec.node_pools)]
    vpc_cni_version(spec, plans)
    return plans


def vpc_cni_version(spec: ClusterSpec, plans: list[PoolPlan]) -> str:
    """The managed vpc-cni add-on version; refused when too old for efa-only interfaces."""
    version = options_of(spec).vpc_cni_version or versions.EKS_VPC_CNI_ADDON
    check_vpc_cni(version, plans, "aws.vpc_cni_version",
                  "(or remove aws.vpc_cni_version for the pinned default)")
    return version


_CNI_VERSION = re.compile(r"^v?(\d+)\.(\d+)\.(\d+)(-eksbuild\.\d+)?$")


def check_vpc_cni(version: str | None, plans: list[PoolPlan], field: str, hint: str) -> None:
    """Refuse efa-only interfaces on a VPC CNI older than 1.18.5 (or of unknown version).

    EKS user guide (https://docs.aws.amazon.com/eks/latest/userguide/node-efa.html):
    EFA-only interfaces need VPC CNI 1.18.5 or later; older ones do not skip them and
    the node's pod networking breaks.
    """
    if not any(i.interface_type == EFA_ONLY_TYPE for p in plans for i in p.interfaces):
        return
    minimum = ".".join(map(str, versions.EKS_VPC_CNI_EFA_ONLY_MIN))
    if version is None:
        refuse(field,
               f"the launch template has efa-only interfaces, which need VPC CNI {minimum} "
               "or later: give the cluster's VPC CNI version (aws eks describe-addon "
               "--addon-name vpc-cni, or the aws-node image tag), e.g. "
               f"{versions.EKS_VPC_CNI_ADDON}", version)
    found = _CNI_VERSION.match(str(version))
    if found is None:
        refuse(field, "not a VPC CNI version; expected e.g. v1.20.1-eksbuild.3 or 1.20.1",
               version)
    if tuple(int(x) for x in found.groups()[:3]) < versions.EKS_VPC_CNI_EFA_ONLY_MIN:
        refuse(field,
               "the GPU launch templates have efa-only interfaces, which need VPC CNI "
               f"{minimum} or later; use e.g. {versions.EKS_VPC_CNI_ADDON} {hint}", version)


@dataclass(frozen=True)
class AddonVersions:
    """Managed EKS add-on versions for the cluster's Kubernetes minor (None: EKS's default)."""

    kube_proxy: str | None
    coredns: str | None


def addon_versions(spec: ClusterSpec) -> AddonVersions:
    """kube-proxy and CoreDNS pinned for ``kubernetes.version``'s minor.

    A minor without a pin (a newer one a day-2 upgrade plans) gets EKS's default add-on
    version for that Kubernetes version (no addon_version), as terraform-aws-eks does
    without ``addon_version``; pin it in versions.py once the EKS table lists it.
    """
    version = spec.kubernetes.parsed
    minor = f"{version.major}.{version.minor}"
    return AddonVersions(versions.EKS_KUBE_PROXY_ADDON.get(minor),
                         versions.EKS_COREDNS_ADDON.get(minor))
