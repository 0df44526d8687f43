"""Host vCPUs/memory in the catalog, the managed services' node reservations, and the
scheduling simulation's cpu/memory fit (tests/support/node_reservation.py, scheduling.py).

Every expected figure is written literally and cites its source; none is recomputed
with the code under test.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from gpu_fabric import catalog
from gpu_fabric.catalog import Cloud, get_machine
from tests.fabric.test_scheduling_simulation import _simulate, _with_chart_values
from tests.support.node_reservation import (
    aks_cpu_millicores,
    gke_memory_mib,
    host_allocatable,
    tiered_cpu_millicores,
)
from tests.support.scheduling import (
    planned_node_groups,
    pod_requests,
    training_pod_problems,
    workload_namespaces,
)
from tests.support.variants import layer_of, plan_of, spec_of

# (vCPUs, GiB) per machine, None where no provider page could be read (the catalog
# leaves them None too). Sources:
# - Azure: learn.microsoft.com size-series pages, "Host specifications" (MicrosoftDocs/
#   azure-compute-docs articles/virtual-machines/sizes/gpu-accelerated/includes/
#   ndasra100v4 / ndma100v4 / ndh100v5 / nd-h200-v5 / ndmi300xv5 / nd-gb200-v6 /
#   nd-gb300-v6 -series-specs.md; nca100v4-series.md sizes table; ncadsh100v5 specs).
# - AWS: karpenter-provider-aws website/content/en/docs/reference/instance-types.md
#   (commit 1d92708, from EC2 DescribeInstanceTypes): instance-cpu, instance-memory/1024.
# - GCP: cloud.google.com/compute/docs/accelerator-optimized-machines, A3 section
#   ("208 vCPUs, and 1,872 GB of memory"); the others from GoogleCloudPlatform/
#   cluster-autoscaler pkg/cloudprovider/gke/machinetypes/deprecated_machine_types_config.go
#   (commit 7d25050): NewMachineTypeInfo("a3-megagpu-8g", 208, 1872), ("a3-ultragpu-8g", 224,
#   2952), ("a4-highgpu-8g", 224, 3968), ("a4x-highgpu-4g", 140, 884), ("a2-highgpu-8g", 96,
#   680), ("g2-standard-48", 48, 192); memoryGb is GiB (machine_type.go: memoryGb x units.GiB).
# - None: p6e-gb200.36xlarge (not in karpenter's list, no AWS page readable), every OCI shape
#   (the GPU rows of docs.oracle.com computeshapes.htm were not readable) and every
#   DigitalOcean plan (the GPU Droplet plan tables on docs.digitalocean.com were not readable).
HOST = {
    "a3-highgpu-8g": (208, 1872), "a3-megagpu-8g": (208, 1872),
    "a3-ultragpu-8g": (224, 2952), "a4-highgpu-8g": (224, 3968),
    "a4x-highgpu-4g": (140, 884), "a2-highgpu-8g": (96, 680),
    "g2-standard-48": (48, 192),
    "p4d.24xlarge": (96, 1152), "p4de.24xlarge": (96, 1152), "p5.48xlarge": (192, 2048),
    "p5e.48xlarge": (192, 2048), "p5en.48xlarge": (192, 2048),
    "p6-b200.48xlarge": (192, 2048), "p6-b300.48xlarge": (192, 4096),
    "p6e-gb200.36xlarge": (None, None), "g6e.48xlarge": (192, 1536),
    "g5.48xlarge": (192, 768),
    "Standard_ND96asr_v4": (96, 900), "Standard_ND96amsr_A100_v4": (96, 1900),
    "Standard_ND96isr_H100_v5": (96, 1900), "Standard_ND96isr_H200_v5": (96, 1850),
    "Standard_ND96isr_MI300X_v5": (96, 1850), "Standard_ND128isr_NDR_GB200_v6": (128, 900),
    "Standard_ND128isr_GB300_v6": (128, 864), "Standard_NC24ads_A100_v4": (24, 220),
    "Standard_NC40ads_H100_v5": (40, 320),
    "gpu-h200x8-1128gb-fabric-contracted": (None, None),
    "gpu-mi300x8-1536gb-fabric-contracted": (None, None),
    "gpu-mi325x8-2048gb-fabric-contracted": (None, None),
    "gpu-b300x8-2304gb-fabric-contracted": (None, None),
    "gpu-h100x8-640gb": (None, None), "gpu-h200x8-1128gb": (None, None),
    "gpu-h100x1-80gb": (None, None),
    "BM.GPU4.8": (None, None), "BM.GPU.B4.8": (None, None), "BM.GPU.A100-v2.8": (None, None),
    "BM.GPU.H100.8": (None, None), "BM.GPU.H200.8": (None, None),
    "BM.GPU.B200.8": (None, None), "BM.GPU.MI300X.8": (None, None),
    "BM.GPU.GB200-v3.4": (None, None), "VM.GPU.A10.2": (None, None),
    "BM.GPU.A10.4": (None, None),
}


def test_every_machine_has_its_documented_host_figures() -> None:
    assert {m.name: (m.host_vcpus, m.host_memory_gib) for m in catalog.MACHINES} == HOST


# -- reservations ------------------------------------------------------------------------


def test_eks_allocatable_is_karpenters_documented_allocatable() -> None:
    """karpenter-provider-aws instance-types.md (commit 1d92708), "Resources" rows: p5.48xlarge
    cpu 191450m memory 1938410Mi; p4d.24xlarge 95690m / 1082712Mi; g5.48xlarge 191450m /
    723299Mi (nodeadm kube-reserved + 100Mi eviction + 7.5 % VM overhead)."""
    aws = {n: get_machine(n, Cloud.AWS) for n in ("p5.48xlarge", "p4d.24xlarge", "g5.48xlarge")}
    assert host_allocatable(Cloud.AWS, aws["p5.48xlarge"]) == {"cpu": 191450, "memory": 1938410}
    assert host_allocatable(Cloud.AWS, aws["p4d.24xlarge"]) == {"cpu": 95690, "memory": 1082712}
    assert host_allocatable(Cloud.AWS, aws["g5.48xlarge"]) == {"cpu": 191450, "memory": 723299}
    # EFA nodes pre-allocate 5128 x 2 MiB hugepages (amazon-eks-ami install-efa.sh), which
    # leave memory capacity: 1938410 - 10256.
    assert host_allocatable(Cloud.AWS, aws["p5.48xlarge"], 10256)["memory"] == 1928154  # type: ignore[index]


@pytest.mark.parametrize(("cpus", "millicores"), [
    (1, 60), (2, 70), (4, 80), (96, 310), (192, 550),  # 60 + 10 + 10 + 2.5/core above 4
])
def test_gke_and_eks_cpu_tiers(cpus: int, millicores: int) -> None:
    assert tiered_cpu_millicores(cpus) == millicores


@pytest.mark.parametrize(("memory_mib", "reserved"), [
    (512, 255),  # below 1 GiB
    (4096, 1024),  # 25 % of the first 4 GiB
    (65536, 5612),  # 1024 + 819.2 + 819.2 + 2949.12 (64 GiB)
    (131072, 9544),  # 1024 + 819.2 + 819.2 + 6 % of 112 GiB (6881.28) = 9543.68
    (1048576, 27894),  # 9543.68 + 2 % of 896 GiB (18350.08) = 27893.76
])
def test_gke_memory_tiers(memory_mib: int, reserved: int) -> None:
    assert gke_memory_mib(memory_mib) == reserved


@pytest.mark.parametrize(("cpus", "millicores"), [
    (1, 60), (2, 100), (4, 140), (8, 180), (16, 260), (32, 420), (64, 740),  # AKS table
    (96, 1060), (128, 1380),  # the table's last slope, 10 m/core, extended (extrapolated)
])
def test_aks_cpu_table(cpus: int, millicores: int) -> None:
    assert aks_cpu_millicores(cpus) == millicores


def test_aks_allocatable_on_nd_h100_v5() -> None:
    """96 vCPUs - 1060m; 1900 GiB x 0.925 = 1799680 MiB - (20 x 250 + 50) - 100."""
    machine = get_machine("Standard_ND96isr_H100_v5", Cloud.AZURE)
    assert host_allocatable(Cloud.AZURE, machine) == {"cpu": 94940, "memory": 1794530}


def test_gke_allocatable_on_a4() -> None:
    """a4-highgpu-8g: 224 vCPUs, 3968 GiB (GKE cluster-autoscaler machine table).
    cpu: 60 + 10 + 10 + 2.5 x 220 = 630m kept, 224000 - 630 = 223370m.
    memory: floor(3968 x 1024 x 0.925) = 3758489 MiB; kept 9543.68 + 2 % of
    (3758489 - 131072) = 82092.02 -> 82093, + 100 eviction = 82193; 3758489 - 82193."""
    machine = get_machine("a4-highgpu-8g", Cloud.GCP)
    assert host_allocatable(Cloud.GCP, machine) == {"cpu": 223370, "memory": 3676296}


def test_no_host_figures_no_cpu_memory_check() -> None:
    assert host_allocatable(Cloud.OCI, get_machine("BM.GPU.H100.8", Cloud.OCI)) is None


# -- pod requests --------------------------------------------------------------------------


def test_pod_requests_add_containers_and_sidecars_and_take_the_larger_init() -> None:
    pod: dict[str, Any] = {
        "containers": [{"resources": {"requests": {"cpu": "100m", "memory": "64Mi"}}},
                       {"resources": {"limits": {"cpu": "1", "memory": "1Gi"}}}],
        "initContainers": [
            {"restartPolicy": "Always", "resources": {"requests": {"cpu": "150m",
                                                                   "memory": "1G"}}},
            {"resources": {"requests": {"cpu": "4", "memory": "16Mi"}}},
        ],
    }
    # cpu: max(100 + 1000 + 150, 4000); memory: 64 + 1024 + ceil(10^9 / 2^20 = 953.67).
    assert pod_requests(pod) == {"cpu": 4000, "memory": 2042}


# -- the simulation bites -------------------------------------------------------------------


def test_a_daemonset_asking_more_cpu_than_the_node_has_fails() -> None:
    def greedy(values: dict[str, Any]) -> None:
        values["resources"] = {"requests": {"cpu": "200", "memory": "20Mi"}}

    layer = _with_chart_values(layer_of("stack:aws-p5"), "aws-efa-k8s-device-plugin", greedy)
    problems = [p for p in _simulate("stack:aws-p5", layer) if "DaemonSets" in p]
    # p5.48xlarge: 192 vCPUs - 550m kube-reserved = 191450m (karpenter instance-types.md).
    assert problems and all("the node offers 191450m" in p for p in problems), problems
    assert problems[0].startswith("8-GPU pod of pool p5 asks cpu=0m beside 200000m of 2 ")


def test_a_training_pod_asking_more_memory_than_the_node_has_fails() -> None:
    spec = spec_of("stack:aws-p5")
    assert spec is not None
    groups = planned_node_groups(spec, plan_of("stack:aws-p5"))
    for group in groups:
        if group.fabric is not None:
            group.fabric = dataclasses.replace(group.fabric, memory_request="3072000Mi")
    problems = training_pod_problems(spec, layer_of("stack:aws-p5"), groups,
                                     workload_namespaces(spec))
    # 3072000 Mi (3000 GiB) for the 8-GPU pod; p5 offers 1938410 Mi (karpenter) less the
    # 10256 Mi of EFA hugepages = 1928154 Mi.
    full = [p for p in problems if p.startswith("8-GPU pod of pool p5 asks memory=3072000Mi")]
    assert full and full[0].endswith("the node offers 1928154Mi"), problems
