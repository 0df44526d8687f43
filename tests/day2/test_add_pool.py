"""Adding a pool on gcp-a4 (one DRA pool, 18 claim templates) creates the new pool's
objects only: the existing pool's ResourceClaimTemplates keep their names, so none is
deleted and re-created (issue 32; before, every name took a pool prefix once a second
DRA pool existed).

Expected names: the first DRA pool keeps ``N-gpu-nic-aligned`` / ``N-gpu-nic-rail(s)-..``
and a later one gets ``<pool>-`` in front (fabric/description.py describe_cluster); the
18 templates per pool are the gcp-a4 golden plan's (tests/data/golden/gcp-a4/plan.json:
4 aligned sizes + 8 + 4 + 2 rail templates).
"""

from __future__ import annotations

import json
from pathlib import Path

from gpu_fabric.plan import load_stack_file
from gpu_fabric.plan.diff import diff_plans
from gpu_fabric.plan.runner import run_spec
from tests.day2.operations import apply

GOLDEN = Path(__file__).resolve().parents[1] / "data" / "golden" / "gcp-a4" / "plan.json"
_RCT = "kubernetes:resource.k8s.io/v1:ResourceClaimTemplate"
_PREFIX = "dranet-fabric-dra-claims-resourceclaimtemplate-default-"
_TEMPLATES = [
    "1-gpu-nic-aligned", *(f"1-gpu-nic-rail-{r}" for r in range(8)),
    "2-gpu-nic-aligned", "2-gpu-nic-rails-0-1", "2-gpu-nic-rails-2-3",
    "2-gpu-nic-rails-4-5", "2-gpu-nic-rails-6-7",
    "4-gpu-nic-aligned", "4-gpu-nic-rails-0-3", "4-gpu-nic-rails-4-7",
    "8-gpu-nic-aligned",
]


def test_add_pool_on_gcp_a4_creates_only_the_new_pools_objects() -> None:
    base = json.loads(GOLDEN.read_text())
    head_spec = apply("add_pool", load_stack_file("gcp-a4").cluster)
    assert head_spec is not None
    diff = diff_plans(base, run_spec(head_spec, stack="gcp-a4").to_json())

    assert diff.of("remove") == [] and diff.of("replace") == []
    added = sorted((c.type, c.name) for c in diff.of("add"))
    assert added == sorted([
        ("gcp:container/nodePool:NodePool", "dranet-extra"),
        ("gpufabric:gcp:GpuNodePool", "dranet-extra-pool"),
        ("kubernetes:kyverno.io/v1:ClusterPolicy",
         "dranet-fabric-injection-clusterpolicy-gpufabric-guard-extra"),
        ("kubernetes:kyverno.io/v1:ClusterPolicy",
         "dranet-fabric-injection-clusterpolicy-gpufabric-inject-extra"),
        *((_RCT, f"{_PREFIX}extra-{t}") for t in _TEMPLATES),
    ])
    # The existing pool's policies learn of the second pool (in place).
    assert sorted(c.name for c in diff.of("update")) == [
        "dranet-fabric-injection-clusterpolicy-gpufabric-guard-dranet-a4",
        "dranet-fabric-injection-clusterpolicy-gpufabric-inject-dranet-a4",
    ]
    # The existing pool's 18 templates are in the base plan, unprefixed, and untouched.
    base_rcts = sorted(r["name"] for r in base["resources"] if r["type"] == _RCT)
    assert base_rcts == sorted(f"{_PREFIX}{t}" for t in _TEMPLATES)
