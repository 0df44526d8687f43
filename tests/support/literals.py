"""Literal values several exact-test files compare against, written out once.

Each is the expected value, not computed by the code under test; its source is cited.
"""

from __future__ import annotations

import json
from typing import Any


class AnyOrder(list):
    """A list equal to any list holding the same items (with the same counts) in any order.

    For lists whose order is not behaviour: Kubernetes matches a taint against a
    pod's tolerations as a set (any toleration that matches lets the pod on), so
    a test that compared tolerations in order broke when the GPU taint keys were
    reordered (34 tests for one tuple) without anything a cluster would notice.
    The golden files (tests/data/golden/) still show such a reorder in review.

    Works nested in a whole-object comparison: ``{"tolerations": [...]} ==
    {"tolerations": AnyOrder([...])}`` calls this ``__eq__`` first, because Python
    tries a right operand's reflected ``__eq__`` first when its type subclasses the
    left operand's. Duplicates still count (a toleration listed twice fails).
    """

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, list):
            return NotImplemented
        return sorted(map(_canonical, self)) == sorted(map(_canonical, other))

    def __ne__(self, other: object) -> bool:
        equal = self.__eq__(other)
        return equal if equal is NotImplemented else not equal

    __hash__ = None  # a list: mutable, unhashable

    def __repr__(self) -> str:
        return f"AnyOrder({list.__repr__(self)})"


def _canonical(item: Any) -> str:
    return json.dumps(item, sort_keys=True, default=repr)

# PROJECT (components/gpu_fabric/fabric/manifests/common.py MANAGED_BY): every object the layer
# creates carries it.
MANAGED = {"app.kubernetes.io/managed-by": "gpu-fabric"}

# PROJECT: what every node agent and chart of the layer tolerates, in any order
# (components/gpu_fabric/fabric/taints.py: GPU_TAINT_KEYS of every cloud -- nvidia.com/gpu,
# amd.com/gpu, AKS sku, aws.amazon.com/efa -- and CriticalAddonsOnly with operator
# Exists, then BLANKET_TOLERATIONS; docs/api.md "Node agents ... tolerate every GPU
# taint key by name plus any NoSchedule / NoExecute taint"; docs/policy.md
# fabric-daemonsets-tolerate-gpu-taints). The last two are upstream Multus's own pair
# (multus-cni v4.3.0 deployments/multus-daemonset-thick.yml). The keys themselves, with
# their sources: tests/fabric/test_fabric_logic_exact.py
# test_gpu_taint_keys_are_every_clouds_gpu_taint.
TOLERATIONS = AnyOrder([
    {"key": "nvidia.com/gpu", "operator": "Exists"},
    {"key": "amd.com/gpu", "operator": "Exists"},
    {"key": "sku", "operator": "Exists"},
    {"key": "aws.amazon.com/efa", "operator": "Exists"},
    {"key": "CriticalAddonsOnly", "operator": "Exists"},
    {"operator": "Exists", "effect": "NoSchedule"},
    {"operator": "Exists", "effect": "NoExecute"},
])
