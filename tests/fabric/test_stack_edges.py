"""Dependency edges grow linearly with teams (issue 36).

Pulumi checks every dependency edge a resource declares. Before issue 36 each team
object waited for every resource of the parts before it, so gcp-a4 had 11,638 edges at
8 teams and 540,222 at 64 (bench/teams_bench.py at 05215b8). Now an object waits for
what it needs (``gpu_fabric.fabric.stack._MadeBy``): its own namespace's objects and the
cluster-wide ones (releases, CRDs, DeviceClasses, PriorityClasses).
"""

from __future__ import annotations

from functools import cache

from bench.teams_bench import edge_count, with_teams
from gpu_fabric.plan import PlanResult, load_stack_file, run_spec

# Edges one more team adds on gcp-a4 (one DRA pool, Kueue), counted by hand from the
# parts (python -m gpu_fabric render --stack gcp-a4 with teams):
#   teams: ResourceQuota x2, LimitRange, Role, RoleBinding wait for the team Namespace   5
#   team-dra-claims: 18 ResourceClaimTemplates, each waits for the 3 PriorityClasses,
#     the team's Namespace + its 5 objects, and the DeviceClass: 18 x 10                  180
#   kueue-queues: the ClusterQueue waits for the Kueue release + 3 PriorityClasses (4);
#     the LocalQueue for the release, 3 PriorityClasses, the team's 6 objects (10)        14
EDGES_PER_TEAM = 5 + 180 + 14


@cache
def _plan(teams: int) -> PlanResult:
    return run_spec(with_teams(load_stack_file("gcp-a4").cluster, teams), stack="gcp-a4")


def test_each_team_adds_the_same_edges() -> None:
    one, three = edge_count(_plan(1).resources), edge_count(_plan(3).resources)
    assert three - one == 2 * EDGES_PER_TEAM == 398
    # Edges outside the teams' own (the 80 of gcp-a4 without teams, plus the
    # PriorityClasses, Kueue's Topology/flavors and priority classes that teams bring).
    # gcp-a4 had 78 before issue 29's webhook firewall: `dranet-webhooks` waits for the
    # cluster and the component for it (golden plan.json at 4d76573 vs 1bc4ccf).
    # 106 since each chart release waits for its part's Namespace (kyverno, kueue,
    # nvidia-dra-driver: 3) and, on GKE, the DRA driver's ResourceQuota, which itself
    # waits for that Namespace (2) (issue 29).
    assert one == 106 + EDGES_PER_TEAM


def test_a_team_object_never_waits_for_another_teams_objects() -> None:
    plan = _plan(3)
    for resource in plan.resources:
        mine = [t for t in ("team-000", "team-001", "team-002") if f"-{t}-" in resource.name
                or resource.name.endswith(f"-{t}")]
        for dep in resource.dependencies:
            others = [t for t in ("team-000", "team-001", "team-002")
                      if t not in mine and (f"-{t}-" in dep or dep.endswith(f"-{t}"))]
            assert not others, (resource.name, dep)
