"""What a GPU node offers pods in cpu and memory: the catalog's host figures minus what
the managed service keeps for the kubelet, the OS and the eviction threshold.

Allocatable = capacity - kube-reserved - system-reserved - eviction-hard (Kubernetes
"Reserve Compute Resources for System Daemons"). Each managed service documents its own
kube-reserved; the formulas below cite theirs:

* GKE: "About GKE node sizing" (docs.cloud.google.com/kubernetes-engine/docs/concepts/
  plan-node-sizes; its wording is quoted verbatim by third parties, the page itself was
  not readable here): cpu 6 % of the first core, 1 % of the next, 0.5 % of the next 2,
  0.25 % above 4; memory 255 MiB below 1 GiB, else 25 % of the first 4 GiB, 20 % of the
  next 4, 10 % of the next 8, 6 % of the next 112, 2 % above 128 GiB; eviction 100 MiB.
  Google's own code agrees: GoogleCloudPlatform/cluster-autoscaler pkg/cloudprovider/gke/
  reserved.go (commit 7d25050), cpuReservedMillicores (same tiers; +400m only above 110 max
  pods, and the project sets none, so GKE's default 110 holds) and memoryReservedMiB (same
  rates, brackets at 1000 MiB per "GB", so the 1024-based tiers here keep ~160 MiB more).
  From GKE 1.37 (memoryReservedMiBV2, cpuReservedMillicoresV2) memory is the lesser of this
  and 15 MiB x max pods + 500 MiB (+200 on Ubuntu), cpu at most 1000m: the tiered formula
  is the conservative one.
* EKS (AL2023 nodeadm, awslabs/amazon-eks-ami nodeadm/internal/kubelet/config.go):
  cpu the same tiers as GKE (getCPUMillicoresToReserve: 600/100/50/25 per 10000),
  memory ``11 MiB x maxPods + 255 MiB`` (getMemoryMebibytesToReserve), eviction 100 MiB;
  maxPods per instance type from karpenter-provider-aws instance-types.md ("pods").
* AKS (learn.microsoft.com/azure/aks/node-resource-reservations, AKS 1.29+): cpu from the
  table 1/2/4/8/16/32/64 cores -> 60/100/140/180/260/420/740 m; above 64 cores the table
  stops and its last slope (10 m per core) is extended (not documented: an extrapolation);
  memory the lesser of 20 MB x maxPods + 50 MB and 25 % of memory (maxPods 250, the
  largest AKS default, since the project sets none); eviction 100 MiB.
* OKE and DOKS: no reservation formula could be verified from their documentation, so the
  GKE formula stands in; on these hosts (> 128 GiB) it reserves the most memory of the
  three verified formulas, i.e. it is the conservative choice.

On every cloud the kernel, firmware and hypervisor hold back part of the nominal memory
before the kubelet sees it; 7.5 % is Karpenter's documented default estimate
(vmMemoryOverheadPercent, karpenter-provider-aws settings), and it also covers reading a
provider's "GB" as GiB (6.9 % apart). Pre-allocated hugepages (EKS EFA nodes) leave
memory capacity too.
"""

from __future__ import annotations

import math

from gpu_fabric.catalog import Cloud, Machine

EVICTION_HARD_MIB = 100
VM_MEMORY_OVERHEAD = 0.075
# maxPods nodeadm configures per instance type: the "pods" row of karpenter-provider-aws
# website/content/en/docs/reference/instance-types.md (commit 1d92708, the ENI-based
# value). A machine missing here gets the largest value listed (conservative).
EKS_MAX_PODS = {
    "p4d.24xlarge": 737, "p4de.24xlarge": 737, "p5.48xlarge": 100, "p5e.48xlarge": 100,
    "p5en.48xlarge": 198, "p6-b200.48xlarge": 198, "p6-b300.48xlarge": 198,
    "g6e.48xlarge": 492, "g5.48xlarge": 345,
}
AKS_MAX_PODS = 250
# AKS kube-reserved cpu table (cores -> millicores).
AKS_CPU_TABLE = ((1, 60), (2, 100), (4, 140), (8, 180), (16, 260), (32, 420), (64, 740))


def _tiers(total: float, tiers: tuple[tuple[float, float], ...], rest: float) -> float:
    """Sum of ``share x amount`` over consecutive tiers of (size, share), then ``rest``."""
    reserved, left = 0.0, total
    for size, share in tiers:
        step = min(left, size)
        reserved += step * share
        left -= step
    return reserved + left * rest


def tiered_cpu_millicores(cpus: int) -> int:
    """GKE's and EKS's kube-reserved cpu: 6 %, 1 %, 0.5 % x 2, then 0.25 % a core."""
    return math.ceil(_tiers(cpus * 1000, ((1000, 0.06), (1000, 0.01), (2000, 0.005)), 0.0025))


def gke_memory_mib(memory_mib: int) -> int:
    """GKE's kube-reserved memory (255 MiB below 1 GiB)."""
    if memory_mib < 1024:
        return 255
    gib = 1024
    return math.ceil(_tiers(memory_mib, ((4 * gib, 0.25), (4 * gib, 0.20), (8 * gib, 0.10),
                                         (112 * gib, 0.06)), 0.02))


def aks_cpu_millicores(cpus: int) -> int:
    for cores, millis in AKS_CPU_TABLE:
        if cpus <= cores:
            return millis
    last_cores, last_millis = AKS_CPU_TABLE[-1]
    return last_millis + 10 * (cpus - last_cores)


def reserved(cloud: Cloud, machine: Machine, memory_mib: int) -> tuple[int, int]:
    """(cpu millicores, memory MiB) the node keeps from pods, eviction threshold included."""
    cpus = machine.host_vcpus or 0
    if cloud is Cloud.AWS:
        max_pods = EKS_MAX_PODS.get(machine.name, max(EKS_MAX_PODS.values()))
        return tiered_cpu_millicores(cpus), 11 * max_pods + 255 + EVICTION_HARD_MIB
    if cloud is Cloud.AZURE:
        memory = min(20 * AKS_MAX_PODS + 50, memory_mib // 4)
        return aks_cpu_millicores(cpus), memory + EVICTION_HARD_MIB
    # GCP, and the stand-in for OCI and DigitalOcean (see the module docstring).
    return tiered_cpu_millicores(cpus), gke_memory_mib(memory_mib) + EVICTION_HARD_MIB


def host_allocatable(cloud: Cloud, machine: Machine, hugepages_mib: int = 0
                     ) -> dict[str, int] | None:
    """{"cpu": millicores, "memory": MiB} pods may request on one node; None when the
    catalog has no verified host figures for the machine."""
    if machine.host_vcpus is None or machine.host_memory_gib is None:
        return None
    capacity = math.floor(machine.host_memory_gib * 1024 * (1 - VM_MEMORY_OVERHEAD))
    capacity -= hugepages_mib
    cpu_reserved, memory_reserved = reserved(cloud, machine, capacity)
    return {"cpu": machine.host_vcpus * 1000 - cpu_reserved,
            "memory": capacity - memory_reserved}
