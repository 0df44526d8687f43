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
_AWS = ("shared/reference/aws.md", "karpenter-provider-aws instance-types.md",
        "docs.aws.amazon.com/AWSEC2/latest/UserGuide/using-eni.html#network-cards")


# Host vCPUs and memory (GiB): karpenter-provider-aws website/content/en/docs/reference/
# instance-types.md (commit 1d92708), generated from EC2 DescribeInstanceTypes: the
# karpenter.k8s.aws/instance-cpu and instance-memory (MiB) labels beside each machine.
# p6e-gb200.36xlarge is not in that list and no AWS page was readable here: None.

MACHINES: tuple[Machine, ...] = (
    # ----------------------------------------------------------------- AWS --
    Machine(
        Cloud.AWS, "p4d.24xlarge", "P4d", A100_40, 8,
        FabricKind.EFA, 4, 100, 400, 9001, AWS_EFA,
        round(78.33 * 0.85, 1), "measured: 85% of 78.33 GB/s (2x p4de, same 4x100G EFA)",
        _AWS, network_cards=4,
        host_vcpus=96, host_memory_gib=1152,  # instance-memory 1179648 MiB
    ),
    Machine(
        Cloud.AWS, "p4de.24xlarge", "P4de", A100_80, 8,
        FabricKind.EFA, 4, 100, 400, 9001, AWS_EFA,
        round(78.33 * 0.85, 1), "measured: 85% of 78.33 GB/s all_reduce at 2 GiB (awsome)",
        _AWS, network_cards=4,
        host_vcpus=96, host_memory_gib=1152,  # instance-memory 1179648 MiB
    ),
    Machine(
        Cloud.AWS, "p5.48xlarge", "P5", H100_80, 8,
        FabricKind.EFA, 32, 100, 3200, 9001, AWS_EFA,
        round(443.72 * 0.85, 1), "measured: 85% of 443.72 GB/s all_reduce at 2 GiB (awsome)",
        _AWS, network_cards=32,
        notes="all_reduce busbw exceeds the 400 GB/s line rate (NVLink reduces in-node).",
        host_vcpus=192, host_memory_gib=2048,  # instance-memory 2097152 MiB
    ),
    Machine(
        Cloud.AWS, "p5e.48xlarge", "P5e", H200_141, 8,
        FabricKind.EFA, 32, 100, 3200, 9001, AWS_EFA,
        round(443.72 * 0.85, 1), "measured on p5 (same 32x100G EFA fabric): 85% of 443.72",
        _AWS, network_cards=32,
        host_vcpus=192, host_memory_gib=2048,  # instance-memory 2097152 MiB
    ),
    Machine(
        Cloud.AWS, "p5en.48xlarge", "P5en", H200_141, 8,
        FabricKind.EFA, 16, 200, 3200, 9001, AWS_EFA,
        _derived(16, 200, 0.7), DERIVED_RDMA, _AWS, network_cards=16,
        host_vcpus=192, host_memory_gib=2048,  # instance-memory 2097152 MiB
    ),
    Machine(
        Cloud.AWS, "p6-b200.48xlarge", "P6-B200", B200, 8,
        FabricKind.EFA, 8, 400, 3200, 9001, AWS_EFA,
        _derived(8, 400, 0.7), DERIVED_RDMA, _AWS, network_cards=8,
        host_vcpus=192, host_memory_gib=2048,  # instance-memory 2097152 MiB
    ),
    Machine(
        Cloud.AWS, "p6-b300.48xlarge", "P6-B300", B300, 8,
        FabricKind.EFA, 16, 400, 6400, 9001, AWS_EFA,
        _derived(16, 400, 0.7), DERIVED_RDMA, _AWS, network_cards=17,
        notes="17 network cards, 16 with EFA: card 0 carries only the primary ENA.",
        host_vcpus=192, host_memory_gib=4096,  # instance-memory 4194304 MiB
    ),
    Machine(
        Cloud.AWS, "p6e-gb200.36xlarge", "P6e-GB200", GB200, 4,
        FabricKind.EFA, 4, 400, 1600, 9001, AWS_EFA,
        _derived(4, 400, 0.7), DERIVED_RDMA, _AWS,
        cpu_arch="arm64", nvlink_domain=72,
        notes="Sources disagree (ENI: 17 cards; awsome: 4 EFA). 4 EFA x 400 Gb/s used; "
        "network-card layout unconfirmed.",
    ),
    Machine(
        Cloud.AWS, "g6e.48xlarge", "G6e", L40S, 8,
        FabricKind.NONE, 0, 0, 0, None, None, None, NO_FABRIC, _AWS,
        notes="Has 4 EFA at 100 Gb/s but no GPUDirect RDMA; not a training fabric here.",
        host_vcpus=192, host_memory_gib=1536,  # instance-memory 1572864 MiB
    ),
    Machine(
        Cloud.AWS, "g5.48xlarge", "G5", A10, 8,
        FabricKind.NONE, 0, 0, 0, None, None, None, NO_FABRIC, _AWS,
        host_vcpus=192, host_memory_gib=768,  # instance-memory 786432 MiB
    ),
)
