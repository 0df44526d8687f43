"""Literal values several exact-test files compare against, written out once.

Each is the expected value, not computed by the code under test; its source is cited.
"""

from __future__ import annotations

# PROJECT (components/gpu_fabric/fabric/manifests/common.py MANAGED_BY): every object the layer
# creates carries it.
MANAGED = {"app.kubernetes.io/managed-by": "gpu-fabric"}

# PROJECT: what every node agent and chart of the layer tolerates, in order
# (components/gpu_fabric/fabric/taints.py: GPU_TAINT_KEYS of every cloud -- nvidia.com/gpu,
# amd.com/gpu, AKS sku, aws.amazon.com/efa -- and CriticalAddonsOnly with operator
# Exists, then BLANKET_TOLERATIONS; docs/api.md "Node agents ... tolerate every GPU
# taint key by name plus any NoSchedule / NoExecute taint"; docs/policy.md
# fabric-daemonsets-tolerate-gpu-taints). The last two are upstream Multus's own pair
# (multus-cni v4.3.0 deployments/multus-daemonset-thick.yml).
TOLERATIONS = [
    {"key": "nvidia.com/gpu", "operator": "Exists"},
    {"key": "amd.com/gpu", "operator": "Exists"},
    {"key": "sku", "operator": "Exists"},
    {"key": "aws.amazon.com/efa", "operator": "Exists"},
    {"key": "CriticalAddonsOnly", "operator": "Exists"},
    {"operator": "Exists", "effect": "NoSchedule"},
    {"operator": "Exists", "effect": "NoExecute"},
]
