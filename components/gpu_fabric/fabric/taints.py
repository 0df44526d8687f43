"""The tolerations every fabric DaemonSet carries, for the GPU taints of every cloud.

Each cloud's provider says the taint its GPU pools carry (``gpu_taint``), and
every DaemonSet of the Kubernetes layer tolerates :data:`GPU_TAINT_KEYS` with
``operator: Exists`` (any value: NVIDIA's plugin deadlocked on nodes tainted
``nvidia.com/gpu=true`` when it tolerated only ``=present``) and, for pools with
their own taints, any NoSchedule/NoExecute taint.
"""

from __future__ import annotations

from gpu_fabric.fabric.description import Toleration

# Every key any supported cloud puts on GPU or fabric nodes.
GPU_TAINT_KEYS: tuple[str, ...] = ("nvidia.com/gpu", "amd.com/gpu", "sku", "aws.amazon.com/efa")


# Node agents must also run on nodes a spec taints its own way (``node_pools[].taints``,
# e.g. ``dedicated=training:NoSchedule``): without a blanket toleration a pool with a
# custom taint gets no device plugin, DRA driver or NCCL installer, and no fabric.
# Upstream Multus and the DraNet / node-exporter charts default to the same pair.
BLANKET_TOLERATIONS: tuple[dict[str, str], ...] = (
    {"operator": "Exists", "effect": "NoSchedule"},
    {"operator": "Exists", "effect": "NoExecute"},
)


def daemonset_tolerations(extra: tuple[Toleration, ...] = ()) -> list[dict[str, str]]:
    """Tolerations for node agents: every GPU taint key of every cloud by name (what
    the policy pack and readers look for), ``extra``, then any NoSchedule/NoExecute taint."""
    found = [Toleration(key) for key in GPU_TAINT_KEYS]
    found.append(Toleration("CriticalAddonsOnly"))
    for tol in extra:
        if tol not in found:
            found.append(tol)
    return [t.to_dict() for t in found] + [dict(t) for t in BLANKET_TOLERATIONS]
