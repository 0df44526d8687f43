"""AWS's GPU instances and their EFA NCCL profile."""

from __future__ import annotations

from gpu_fabric.catalog.gpus import (
    A10,
    A100_40,
    A100_80,
    B200,
    B300,
    GB200,
    H100_80,
    H200_141,
    L40S,
    NVL72_GB200,
)
from gpu_fabric.catalog.model import (
    DERIVED_RDMA,
    NO_FABRIC,
    Cloud,
    FabricKind,
    Machine,
    NcclProfile,
    _derived,
    _env,
)
from gpu_fabric.catalog.pairing import GpuNicPairing

# AWS EFA through aws-ofi-nccl. Current guidance (aws-ofi-nccl efa-env-var.md):
# do not set FI_EFA_USE_DEVICE_RDMA (libfabric >= 1.18), FI_EFA_FORK_SAFE or
# RDMAV_FORK_SAFE; leave NCCL_BUFFSIZE / NCCL_MIN_CHANNELS at defaults.
# FI_PROVIDER=efa is kept: it makes libfabric refuse to start without EFA.
AWS_EFA = NcclProfile(
    transport="NET/OFI",
    net="AWS Libfabric",
    plugin="aws-ofi-nccl",
    env=_env(FI_PROVIDER="efa", NCCL_SOCKET_IFNAME="^lo,docker,veth"),
)
# Where the rows' facts come from: AWS's pages, and upstream files at the commit read.
_KARPENTER = (
    "https://github.com/aws/karpenter-provider-aws/blob/1d927085dd81a9df9301e613f371dac5b4d16bfe/"
)
# GPUs, vpc.amazonaws.com/efa, network bandwidth, instance-cpu and instance-memory per type.
_INSTANCE_TYPES = _KARPENTER + "website/content/en/docs/reference/instance-types.md"
_BANDWIDTH = _KARPENTER + "pkg/providers/instancetype/zz_generated.bandwidth.go"
_NETWORK_CARDS = "https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/using-eni.html#network-cards"
_JUMBO_MTU = "https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/network_mtu.html"  # 9001
_AWSOME = (
    "https://github.com/aws-samples/awsome-distributed-training/blob/"
    "7217859f67bc693c52ff175ccc6082c41dbd7a1b/micro-benchmarks/nccl-tests/"
)
_AWSOME_NCCL = _AWSOME + "README.md"  # 2x p4de 78.33, 2x p5 443.72 GB/s all_reduce at 2 GiB
_AWSOME_GB200 = _AWSOME + "kubernetes/nccl-tests-gb200.yaml"  # "p6e has 4 NICs"
# p6e-gb200's network cards as EC2 DescribeInstanceTypes reports them (MaximumNetworkCards
# 17; MaximumNetworkInterfaces 2 on even cards, 1 on odd ones; EFA on every card), in the
# review of aws-parallelcluster PR #6930 (hgreebe, 2025-08-07); the PR's first commit sets
# even cards `efa` and odd cards `efa-only`, device index 0 where a card takes one interface.
_PCLUSTER_GB200 = (
    "https://github.com/aws/aws-parallelcluster/blob/a59f9c94c775a7a2ee68e6eb0ed3ae82ca22ca3b/"
    "cli/src/pcluster/templates/queues_stack.py"
)
# Network cards that take a single interface (DescribeInstanceTypes NetworkCards[].
# MaximumNetworkInterfaces == 1): an EFA there must be device index 0.
ONE_INTERFACE_CARDS: dict[str, frozenset[int]] = {
    "p6e-gb200.36xlarge": frozenset(range(1, 17, 2)),  # _PCLUSTER_GB200: odd cards 1..15
}
# aws-ofi-nccl's static NCCL topologies (p5's was removed after d6546c3, once generated).
_OFI = "https://github.com/aws/aws-ofi-nccl/blob/"
_P4D_TOPO = _OFI + "2daf7d303aa139a03140aa530957d10521e4478d/topology/p4d-24xl-topo.xml"
_P4DE_TOPO = _OFI + "2daf7d303aa139a03140aa530957d10521e4478d/topology/p4de-24xl-topo.xml"
_P5_TOPO = _OFI + "d6546c3aa559c90d422af77c406e08d7151a41d3/topology/p5.48xl-topo.xml"
_AWS = (_INSTANCE_TYPES, _NETWORK_CARDS, _JUMBO_MTU)


# Host vCPUs and memory (GiB): karpenter-provider-aws website/content/en/docs/reference/
# instance-types.md (commit 1d92708), generated from EC2 DescribeInstanceTypes: the
# karpenter.k8s.aws/instance-cpu and instance-memory (MiB) labels beside each machine.
# p6e-gb200.36xlarge is not in that list and no AWS page was readable here: None.

MACHINES: tuple[Machine, ...] = (
    # ----------------------------------------------------------------- AWS --
    Machine(
        cloud=Cloud.AWS, name="p4d.24xlarge", family="P4d", gpu=A100_40, gpus=8,
        fabric=FabricKind.EFA, fabric_nics=4, gbps_per_nic=100, total_fabric_gbps=400,
        mtu=9001, nccl=AWS_EFA,
        busbw_floor=round(78.33 * 0.85, 1),
        floor_basis="measured: 85% of 78.33 GB/s (2x p4de, same 4x100G EFA)",
        sources=(*_AWS, _AWSOME_NCCL), network_cards=4,
        host_vcpus=96, host_memory_gib=1152,  # instance-memory 1179648 MiB
        pairing=GpuNicPairing(
            gpus_per_group=2, nics_per_group=1,
            evidence="2 GPUs + 1 NIC per PCIe switch",
            source=_P4D_TOPO,
        ),
    ),
    Machine(
        cloud=Cloud.AWS, name="p4de.24xlarge", family="P4de", gpu=A100_80, gpus=8,
        fabric=FabricKind.EFA, fabric_nics=4, gbps_per_nic=100, total_fabric_gbps=400,
        mtu=9001, nccl=AWS_EFA,
        busbw_floor=round(78.33 * 0.85, 1),
        floor_basis="measured: 85% of 78.33 GB/s all_reduce at 2 GiB (awsome)",
        sources=(*_AWS, _AWSOME_NCCL), network_cards=4,
        host_vcpus=96, host_memory_gib=1152,  # instance-memory 1179648 MiB
        pairing=GpuNicPairing(
            gpus_per_group=2, nics_per_group=1,
            evidence="2 GPUs + 1 NIC per PCIe switch",
            source=_P4DE_TOPO,
        ),
    ),
    Machine(
        cloud=Cloud.AWS, name="p5.48xlarge", family="P5", gpu=H100_80, gpus=8,
        fabric=FabricKind.EFA, fabric_nics=32, gbps_per_nic=100, total_fabric_gbps=3200,
        mtu=9001, nccl=AWS_EFA,
        busbw_floor=round(443.72 * 0.85, 1),
        floor_basis="measured: 85% of 443.72 GB/s all_reduce at 2 GiB (awsome)",
        sources=(*_AWS, _AWSOME_NCCL), network_cards=32,
        notes="all_reduce busbw exceeds the 400 GB/s line rate (NVLink reduces in-node).",
        host_vcpus=192, host_memory_gib=2048,  # instance-memory 2097152 MiB
        pairing=GpuNicPairing(
            gpus_per_group=1, nics_per_group=4,
            evidence="1 GPU + 4 EFA per PCIe switch",
            source=_P5_TOPO,
        ),
    ),
    Machine(
        cloud=Cloud.AWS, name="p5e.48xlarge", family="P5e", gpu=H200_141, gpus=8,
        fabric=FabricKind.EFA, fabric_nics=32, gbps_per_nic=100, total_fabric_gbps=3200,
        mtu=9001, nccl=AWS_EFA,
        busbw_floor=round(443.72 * 0.85, 1),
        floor_basis="measured on p5 (same 32x100G EFA fabric): 85% of 443.72",
        sources=(*_AWS, _AWSOME_NCCL), network_cards=32,
        host_vcpus=192, host_memory_gib=2048,  # instance-memory 2097152 MiB
        pairing=GpuNicPairing(
            gpus_per_group=1, nics_per_group=4, confirmed=False,
            evidence="as p5.48xlarge (same 32 x 100G EFA); inferred from GPU and NIC counts "
                     "(per-GPU share)",
            source=_INSTANCE_TYPES,
        ),
    ),
    Machine(
        cloud=Cloud.AWS, name="p5en.48xlarge", family="P5en", gpu=H200_141, gpus=8,
        fabric=FabricKind.EFA, fabric_nics=16, gbps_per_nic=200, total_fabric_gbps=3200,
        mtu=9001, nccl=AWS_EFA,
        busbw_floor=_derived(16, 200, 0.7), floor_basis=DERIVED_RDMA,
        sources=_AWS, network_cards=16,
        host_vcpus=192, host_memory_gib=2048,  # instance-memory 2097152 MiB
        pairing=GpuNicPairing(
            gpus_per_group=1, nics_per_group=2, confirmed=False,
            evidence="16 EFA for 8 GPUs; inferred from GPU and NIC counts (per-GPU share)",
            source=_INSTANCE_TYPES,
        ),
    ),
    Machine(
        cloud=Cloud.AWS, name="p6-b200.48xlarge", family="P6-B200", gpu=B200, gpus=8,
        fabric=FabricKind.EFA, fabric_nics=8, gbps_per_nic=400, total_fabric_gbps=3200,
        mtu=9001, nccl=AWS_EFA,
        busbw_floor=_derived(8, 400, 0.7), floor_basis=DERIVED_RDMA,
        sources=_AWS, network_cards=8,
        host_vcpus=192, host_memory_gib=2048,  # instance-memory 2097152 MiB
        pairing=GpuNicPairing(
            gpus_per_group=1, nics_per_group=1, confirmed=False,
            evidence="8 EFA for 8 GPUs; inferred from GPU and NIC counts (per-GPU share)",
            source=_INSTANCE_TYPES,
        ),
    ),
    Machine(
        cloud=Cloud.AWS, name="p6-b300.48xlarge", family="P6-B300", gpu=B300, gpus=8,
        fabric=FabricKind.EFA, fabric_nics=16, gbps_per_nic=400, total_fabric_gbps=6400,
        mtu=9001, nccl=AWS_EFA,
        busbw_floor=_derived(16, 400, 0.7), floor_basis=DERIVED_RDMA,
        sources=_AWS, network_cards=17,
        notes="17 network cards, 16 with EFA: card 0 carries only the primary ENA.",
        host_vcpus=192, host_memory_gib=4096,  # instance-memory 4194304 MiB
        pairing=GpuNicPairing(
            gpus_per_group=1, nics_per_group=2, confirmed=False,
            evidence="16 EFA for 8 GPUs; inferred from GPU and NIC counts (per-GPU share)",
            source=_INSTANCE_TYPES,
        ),
    ),
    Machine(
        cloud=Cloud.AWS, name="p6e-gb200.36xlarge", family="P6e-GB200", gpu=GB200, gpus=4,
        fabric=FabricKind.EFA, fabric_nics=16, gbps_per_nic=200, total_fabric_gbps=3200,
        mtu=9001, nccl=AWS_EFA,
        busbw_floor=_derived(16, 200, 0.7), floor_basis=DERIVED_RDMA,
        sources=(_PCLUSTER_GB200, _BANDWIDTH, _NETWORK_CARDS, _JUMBO_MTU, _AWSOME_GB200),
        cpu_arch="arm64", nvlink=NVL72_GB200, network_cards=17,
        notes="17 network cards (DescribeInstanceTypes, aws-parallelcluster PR #6930): even "
        "cards take 2 interfaces (efa), odd cards 1 (efa-only). The 16 EFA on cards 1-16 are "
        "the fabric; card 0 carries the primary ENA. 200 Gb/s per card is the 3.2 Tb/s "
        "instance bandwidth (karpenter zz_generated.bandwidth.go) over 16 cards; AWS "
        "publishes no per-card figure. awsome's GB200 MPIJob asks only 4 EFA per pod.",
        pairing=GpuNicPairing(
            gpus_per_group=1, nics_per_group=4, confirmed=False,
            evidence="16 EFA for 4 GPUs; inferred from GPU and NIC counts (per-GPU share)",
            source=_PCLUSTER_GB200,
        ),
    ),
    Machine(
        cloud=Cloud.AWS, name="g6e.48xlarge", family="G6e", gpu=L40S, gpus=8,
        fabric=FabricKind.NONE, fabric_nics=0, gbps_per_nic=0, total_fabric_gbps=0,
        mtu=None, nccl=None,
        busbw_floor=None, floor_basis=NO_FABRIC,
        sources=_AWS,
        notes="Has 4 EFA at 100 Gb/s but no GPUDirect RDMA; not a training fabric here.",
        host_vcpus=192, host_memory_gib=1536,  # instance-memory 1572864 MiB
    ),
    Machine(
        cloud=Cloud.AWS, name="g5.48xlarge", family="G5", gpu=A10, gpus=8,
        fabric=FabricKind.NONE, fabric_nics=0, gbps_per_nic=0, total_fabric_gbps=0,
        mtu=None, nccl=None,
        busbw_floor=None, floor_basis=NO_FABRIC,
        sources=_AWS,
        host_vcpus=192, host_memory_gib=768,  # instance-memory 786432 MiB
    ),
)
