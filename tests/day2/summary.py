"""A diff's day-2 verdicts in a form the matrix test writes out literally.

Cloud resources (what holds nodes and networks) are listed one by one as
``(name, kind, nodes_at_once, spare_capacity)``; Kubernetes objects (and the
library's components), numerous and applied by their provider, are counted per
kind.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from gpu_fabric.plan.diff import PlanDiff

Summary = dict[str, Any]


def summarize(diff: PlanDiff) -> Summary:
    cloud: list[tuple[str, str, str | None, bool | None]] = []
    kube: Counter[str] = Counter()
    for change in diff.changes:
        verdict = change.verdict
        assert verdict is not None
        if change.type.startswith(("kubernetes:", "gpufabric:", "pulumi:")):
            kube[verdict.kind] += 1
            continue
        cloud.append((change.name, verdict.kind, verdict.nodes_at_once,
                      verdict.spare_capacity))
    return {"cloud": sorted(cloud), "kubernetes": dict(sorted(kube.items()))}
