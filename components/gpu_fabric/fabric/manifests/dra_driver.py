"""NVIDIA DRA driver for GPUs (chart nvidia-dra-driver-gpu) values.

The kubelet plugin must tolerate the GPU taints and runs where
``nvidia.com/gpu.present=true`` (set declaratively on the pool, not by hand).
``gpuResourcesEnabledOverride`` acknowledges GPU allocation through DRA; the
classic device plugin must not run on the same nodes.
"""

from __future__ import annotations

from typing import Any

from gpu_fabric.fabric.description import GPU_PRESENT_LABEL
from gpu_fabric.fabric.manifests.common import node_affinity_in
from gpu_fabric.fabric.taints import daemonset_tolerations


def values(
    *,
    gpus: bool = True,
    compute_domains: bool = False,
    driver_root: str = "/",
) -> dict[str, Any]:
    tolerations = daemonset_tolerations()
    return {
        "nvidiaDriverRoot": driver_root,
        "gpuResourcesEnabledOverride": gpus,
        "resources": {
            "gpus": {"enabled": gpus},
            "computeDomains": {"enabled": compute_domains},
        },
        # The chart's controller (ComputeDomains) requires a node labelled
        # node-role.kubernetes.io/control-plane by default (nvidia-dra-driver-gpu
        # 25.12.0 values.yaml controller.affinity); managed control planes (GKE, EKS,
        # AKS, DOKS, OKE) have none, so the default would leave it Pending forever.
        # null deletes the chart's default (Helm: a null value removes the key).
        "controller": {"tolerations": tolerations, "affinity": None},
        "kubeletPlugin": {
            "tolerations": tolerations,
            "affinity": node_affinity_in(GPU_PRESENT_LABEL, ["true"]),
        },
    }
