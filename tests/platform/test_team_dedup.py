"""Team objects are de-duplicated within the team, in time linear in teams (issue 36).

Before issue 36 every team's NetworkAttachmentDefinitions and claim templates were
searched for in the list of every earlier team's (``n not in nads``): 4.9 of the 6.4 s
of ``validate`` at 256 teams on gcp-a4. Objects in a team's namespace can only repeat
within that team (two pools with the same networks), so the search is per team.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest

from bench.teams_bench import with_teams
from gpu_fabric.fabric import parts as generic
from gpu_fabric.plan import load_stack_file
from gpu_fabric.render import layer_for
from gpu_fabric.spec import load_spec


class _Counted(dict):  # type: ignore[type-arg]
    """A manifest that counts how often it is compared."""

    compared = 0

    def __eq__(self, other: object) -> bool:
        _Counted.compared += 1
        return dict.__eq__(self, other)

    __hash__ = None  # type: ignore[assignment]


def _two_pools(teams: int) -> dict[str, Any]:
    """do-h200 with a second, identical GPU pool (same 8 host-device networks)."""
    cluster = with_teams(load_stack_file("do-h200").cluster, teams)
    gpu = [p for p in cluster["node_pools"] if p.get("machine_type")][-1]
    twin = copy.deepcopy(gpu)
    twin["name"] = gpu["name"] + "-b"
    cluster["node_pools"] = [*cluster["node_pools"], twin]
    return cluster


@pytest.fixture
def counted(monkeypatch: pytest.MonkeyPatch) -> type[_Counted]:
    real = generic.fabric_nads
    monkeypatch.setattr(generic, "fabric_nads",
                        lambda fabric, ns: [_Counted(m) for m in real(fabric, ns)])
    _Counted.compared = 0
    return _Counted


def _team_nads(teams: int) -> list[tuple[str, str]]:
    layer = layer_for(load_spec(_two_pools(teams)))
    return [(m["metadata"]["namespace"], m["metadata"]["name"])
            for m in layer.part("team-nads").manifests]


def test_a_team_gets_each_network_once_with_two_pools_on_the_same_networks(
        counted: type[_Counted]) -> None:
    # stacks/Pulumi.do-h200.yaml: 8 RoCE rails, NADs roce-net-fabric0..7 (golden render).
    assert _team_nads(2) == [(f"team-00{t}", f"roce-net-fabric{i}")
                             for t in (0, 1) for i in range(8)]


def test_comparisons_grow_linearly_with_teams(counted: type[_Counted]) -> None:
    # Per team: the second pool's 8 NADs are each found in the team's list at the
    # position of their rail: 1 + 2 + ... + 8 = 36 comparisons; none against other teams.
    # Outside the teams, the workload namespace's NADs (parts._unique): pool a's 8 against
    # the ones before them (0 + 1 + ... + 7 = 28), pool b's found at their rail (36): 64.
    _team_nads(3)
    assert counted.compared == 64 + 3 * 36
    counted.compared = 0
    _team_nads(30)
    assert counted.compared == 64 + 30 * 36
