"""Teams: a namespace of their own and a quota their pools can hold (issue 34).

kube-* is reserved by Kubernetes ("Avoid creating namespaces with the prefix kube-,
since it is reserved for Kubernetes system namespaces",
https://kubernetes.io/docs/concepts/overview/working-with-objects/namespaces/); the
add-ons' namespaces are their ``namespace`` in gpu_fabric/fabric/addons/<key>.py.
tests/specs.py's GCP spec: one pool of 2 x a4-highgpu-8g (8 GPUs each) = 16 GPUs.
"""

from __future__ import annotations

import pytest

from gpu_fabric.errors import SpecError
from gpu_fabric.spec import load_spec
from tests.specs import spec_dict


def _team(**team: object) -> dict:
    return spec_dict("gcp", tenancy={"teams": [{"name": "ml", "group": "g", "gpus": 8, **team}]})


@pytest.mark.parametrize("name", ["kube-system", "kube-public", "kube-node-lease",
                                  "kueue-system", "gpu-operator", "kyverno", "monitoring",
                                  "nvidia-dra-driver-gpu", "mpi-operator", "jobset-system"])
def test_a_team_may_not_be_a_system_namespace(name: str) -> None:
    with pytest.raises(SpecError) as err:
        load_spec(_team(name=name))
    text = str(err.value)
    assert f"tenancy.teams[0].name: team '{name}' would become the namespace '{name}'" in text


@pytest.mark.parametrize(("gpus", "ok"), [(16, True), (17, False), (1_000_000, False)])
def test_a_team_quota_fits_its_pools(gpus: int, ok: bool) -> None:
    if ok:
        assert load_spec(_team(gpus=gpus)).tenancy.teams[0].gpus == gpus
        return
    with pytest.raises(SpecError) as err:
        load_spec(_team(gpus=gpus))
    assert (f"tenancy.teams[0].gpus: team 'ml' is given {gpus} GPUs, but its pools hold at "
            "most 16 (gpu at their largest size)") in str(err.value)


def test_autoscaling_counts_at_its_largest_size() -> None:
    data = _team(gpus=32)
    data["node_pools"][0].update(node_count=2, min_nodes=0, max_nodes=4)
    assert load_spec(data).tenancy.teams[0].gpus == 32


def test_claims_larger_than_every_machine_are_refused() -> None:
    """a4-highgpu-8g has 8 GPUs (catalog): a 16-GPU claim template would never be made."""
    data = spec_dict("gcp", fabric={"mode": "dra", "claim_gpu_counts": [1, 8, 16]})
    with pytest.raises(SpecError) as err:
        load_spec(data)
    assert ("fabric.claim_gpu_counts: 16 GPUs per claim: the largest machine of this "
            "cluster has 8 GPUs (got [16])") in str(err.value)
    assert load_spec(spec_dict("gcp", fabric={"mode": "dra", "claim_gpu_counts": [2, 8]}))


def test_all_teams_together_fit_the_cluster() -> None:
    """All teams share one Kueue cohort (gpu_fabric/platform/kueue.py), so their nominal
    quotas together are what Kueue admits: at most the 16 GPUs of the two nodes."""
    teams = [{"name": "ml", "group": "g", "gpus": 8}, {"name": "infra", "group": "g", "gpus": 8}]
    assert len(load_spec(spec_dict("gcp", tenancy={"teams": teams})).tenancy.teams) == 2
    teams[1]["gpus"] = 9
    with pytest.raises(SpecError) as err:
        load_spec(spec_dict("gcp", tenancy={"teams": teams}))
    assert [str(p) for p in err.value.problems] == [
        "tenancy.teams: the teams' GPU quotas add up to 17 (ml: 8, infra: 9), but the "
        "cluster's node pools hold at most 16 GPUs at their largest size; lower the quotas "
        "or add nodes (got 17)"]
