"""Every parity table agrees with the committed plans; the checker catches what it must.

The tables (tests/data/parity/<cloud>/<reference>.yaml) record each vendor
reference's settings beside ours (tests/support/parity.py says why). The second
half feeds the checker small literal plans, so a checker that accepted
everything would fail here rather than let every table pass.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.support import parity

TABLES = parity.table_files()


@pytest.mark.parametrize("path", TABLES, ids=[f"{p.parent.name}/{p.stem}" for p in TABLES])
def test_the_table_agrees_with_the_plan(path: Path) -> None:
    errors = parity.check_table(parity.load_table(path), f"{path.parent.name}/{path.name}")
    assert not errors, "\n".join(errors)


# --- the checker itself, on literal plans -----------------------------------

PLAN = [
    {"type": "gcp:compute/network:Network", "name": "c-net", "inputs": {"mtu": 8896}},
    {
        "type": "gcp:container/nodePool:NodePool",
        "name": "c-gpu",
        "inputs": {
            "management": {"autoRepair": False},
            "nodeConfig": {
                "guestAccelerators": [{"count": 8, "type": "nvidia-b200"}],
                "labels": {"a": "1"},
            },
            "tags": ["x", "y"],
        },
    },
    {
        "type": "kubernetes:apps/v1:DaemonSet",
        "name": "c-ds",
        "inputs": {
            "spec": {
                "template": {
                    "spec": {
                        "containers": [
                            {"name": "installer", "image": "gke-installer:1"},
                            {"name": "pause", "image": "pause:3.9"},
                        ]
                    }
                }
            }
        },
    },
]


def _row(**overrides: Any) -> parity.Row:
    data: dict[str, Any] = {
        "setting": "MTU of net-0",
        "source": {"path": "modules/network/vpc/variables.tf", "line": 1},
        "reference": 8896,
        "ours": {"type": "gcp:compute/network:Network", "name": "c-net", "input": "mtu"},
    }
    data.update(overrides)
    return parity.Row("t.yaml", 0, data)


def test_an_equal_value_passes_and_a_different_one_fails() -> None:
    assert parity.row_errors(_row(), PLAN) == []
    errors = parity.row_errors(_row(reference=1460), PLAN)
    assert len(errors) == 1 and "the reference sets 1460, our plan has 8896" in errors[0]


def test_a_declared_deviation_must_state_our_value() -> None:
    ours = {
        "type": "gcp:container/nodePool:NodePool",
        "name": "c-gpu",
        "input": "management.autoRepair",
    }
    good = {"value": False, "reason": "repairs would recreate a reserved node mid-run"}
    assert parity.row_errors(_row(reference=True, ours=ours, deviation=good), PLAN) == []
    stale = {"value": "absent", "reason": "repairs would recreate a reserved node mid-run"}
    assert (
        "the table is stale"
        in parity.row_errors(_row(reference=True, ours=ours, deviation=stale), PLAN)[0]
    )
    same = {"value": True, "reason": "repairs would recreate a reserved node mid-run"}
    assert "is the reference's value" in " ".join(
        parity.row_errors(_row(reference=True, ours=ours, deviation=same), PLAN)
    )


def test_a_deviation_that_no_longer_deviates_is_reported() -> None:
    # Reference and deviation differ, but `contains` finds both in our list.
    ours = {"type": "gcp:container/nodePool:NodePool", "name": "c-gpu", "input": "tags"}
    row = _row(
        reference="x",
        compare="contains",
        ours=ours,
        deviation={"value": "y", "reason": "we add our own network tag to the pool"},
    )
    assert "drop the deviation" in parity.row_errors(row, PLAN)[0]


def test_paths_index_lists_and_pick_items_by_field() -> None:
    assert parity.lookup(PLAN[1]["inputs"], "nodeConfig.guestAccelerators.0.count") == 8
    assert (
        parity.lookup(PLAN[2]["inputs"], "spec.template.spec.containers[name=pause].image")
        == "pause:3.9"
    )
    assert (
        parity.lookup(PLAN[2]["inputs"], "spec.template.spec.containers[name=nccl].image")
        is parity.MISSING
    )
    assert (
        parity.lookup(PLAN[1]["inputs"], "nodeConfig.guestAccelerators.3.count") is parity.MISSING
    )
    assert parity.lookup(PLAN[1]["inputs"], "nodeConfig.labels.b") is parity.MISSING


def test_absent_settings_and_missing_resources() -> None:
    ours = {"type": "gcp:compute/network:Network", "name": "c-net", "input": "routingMode"}
    absent = {
        "value": "absent",
        "reason": "the provider default (REGIONAL) is what the reference sets",
    }
    assert parity.row_errors(_row(reference="REGIONAL", ours=ours, deviation=absent), PLAN) == []
    assert (
        "our plan has absent" in parity.row_errors(_row(reference="REGIONAL", ours=ours), PLAN)[0]
    )
    gone = {"type": "gcp:compute/network:Network", "name": "c-other", "input": "mtu"}
    assert "our plan has absent" in parity.row_errors(_row(ours=gone), PLAN)[0]


def test_shape_errors_name_what_is_missing() -> None:
    table = {
        "reference": {"repo": "GoogleCloudPlatform/cluster-toolkit", "commit": "XYZ", "title": "t"},
        "stack": "no-such-stack",
        "settings": [
            {
                "setting": "s",
                "source": {"path": "a.tf"},
                "reference": 1,
                "ours": {"type": "t", "name": "n", "input": "i"},
                "deviation": {"value": 2, "reason": "short"},
            }
        ],
    }
    errors = "\n".join(parity.table_errors(table, "t.yaml"))
    assert "reference.commit 'XYZ' is not 7-40 lowercase hex" in errors
    assert "stack 'no-such-stack' has no golden plan" in errors
    assert "`source` needs a path (or a seed) and a positive line" in errors
    assert "a deviation's reason must say why" in errors


def test_every_reference_the_parity_issues_name_has_its_table() -> None:
    # Issues 29 (cluster-toolkit gke-a4, gke-a3-ultragpu, gke-a3-megagpu; the DOKS seed),
    # 30 (terraform-aws-eks, awsome-distributed-training) and 31 (aks-rdma-infiniband,
    # oci-hpc-oke). cluster-toolkit's gke-a4x has no committed A4X stack: its table
    # compares the GB200 GKE variant (tests/support/variants.py `gcp:gb200`).
    assert {f"{p.parent.name}/{p.stem}" for p in TABLES} >= {
        "gcp/gke-a4", "gcp/gke-a3-ultragpu", "gcp/gke-a3-megagpu", "gcp/gke-a4x",
        "digitalocean/doks-seed", "digitalocean/doks-seed-amd",
        "aws/terraform-aws-eks", "aws/awsome-distributed-training",
        "azure/aks-rdma-infiniband", "oci/oci-hpc-oke",
        # The seeds (/work/shared/seeds/): gke-nvidia-dra-dranet (gcp-a4, and its test
        # workload against the acceptance run) and nemo-platform-multinode-networking, one
        # table per cloud section of it; distributed-gpu-cluster-guide (oci:platform).
        "gcp/gke-seed", "gcp/gke-seed-nccl-test",
        "aws/nemo-seed", "azure/nemo-seed", "gcp/nemo-seed", "oci/nemo-seed",
        "oci/distributed-gpu-cluster-guide",
    }


def test_every_table_names_a_reference_and_enough_settings() -> None:
    # A table of one row is a start, not a reading of the reference top to bottom.
    for path in TABLES:
        table = parity.load_table(path)
        assert len(table["settings"]) >= 10, f"{path.name}: {len(table['settings'])} rows"


def test_a_table_names_one_committed_stack_or_one_known_variant() -> None:
    row = {
        "setting": "s",
        "source": {"path": "a.tf", "line": 1},
        "reference": 1,
        "ours": {"type": "t", "name": "n", "input": "i"},
    }
    ref = {"repo": "GoogleCloudPlatform/cluster-toolkit", "commit": "1047080375af", "title": "t"}
    both = {"reference": ref, "stack": "gcp-a4", "variant": "gcp:gb200", "settings": [row]}
    neither = {"reference": ref, "settings": [row]}
    unknown = {"reference": ref, "variant": "gcp:no-such", "settings": [row]}
    known = {"reference": ref, "variant": "gcp:gb200", "settings": [row]}
    for table in (both, neither):
        assert "name exactly one of `stack`" in "\n".join(parity.table_errors(table, "t.yaml"))
    assert "variant 'gcp:no-such' is not in tests/support/variants.py" in "\n".join(
        parity.table_errors(unknown, "t.yaml"))
    assert parity.table_errors(known, "t.yaml") == []


def test_escaped_dots_name_a_key_with_dots() -> None:
    inputs = {"metadata": {"annotations": {"k8s.v1.cni.cncf.io/networks": "a@b"}}}
    assert parity.lookup(inputs, r"metadata.annotations.k8s\.v1\.cni\.cncf\.io/networks") == "a@b"
    assert parity.lookup(inputs, "metadata.annotations.k8s.v1.cni.cncf.io/networks") \
        is parity.MISSING


def test_json_compare_parses_our_string() -> None:
    plan = [{"type": "nad", "name": "n", "inputs": {"spec": {"config":
             '{"cniVersion": "0.3.1", "type": "host-device", "device": "fabric0"}'}}}]
    ours = {"type": "nad", "name": "n", "input": "spec.config"}
    same = {"cniVersion": "0.3.1", "type": "host-device", "device": "fabric0"}
    other = {"cniVersion": "0.3.1", "type": "host-device", "device": "fabric1"}
    assert parity.row_errors(_row(reference=same, ours=ours, compare="json"), plan) == []
    assert "our plan has" in parity.row_errors(
        _row(reference=other, ours=ours, compare="json"), plan)[0]


def test_a_row_may_cite_one_of_the_projects_seeds() -> None:
    seed = parity.Row("t.yaml", 0, {
        "setting": "s", "reference": 1, "ours": {"type": "t", "name": "n", "input": "i"},
        "source": {"seed": "digitalocean-doks-multinode-gpu.md", "line": 75}})
    assert parity._row_shape_errors(seed) == []
    unknown = parity.Row("t.yaml", 0, {**seed.data, "source": {"seed": "blog.md", "line": 1}})
    assert "seed 'blog.md' is not one of the project's seeds" in parity._row_shape_errors(
        unknown)[0]
    both = parity.Row("t.yaml", 0, {**seed.data, "source": {
        "seed": "digitalocean-doks-multinode-gpu.md", "path": "a.tf", "line": 1}})
    assert "needs a path (or a seed)" in parity._row_shape_errors(both)[0]


def test_a_seed_without_a_repository_may_be_the_reference() -> None:
    # distributed-gpu-cluster-guide.md is an article: no repo, no commit; its rows cite it.
    row = {"setting": "s", "reference": "20Gi", "ours": {"type": "t", "name": "n", "input": "i"},
           "source": {"seed": "distributed-gpu-cluster-guide.md", "line": 38}}
    ref = {"seed": "distributed-gpu-cluster-guide.md", "title": "t"}
    assert parity.table_errors({"reference": ref, "stack": "gcp-a4", "settings": [row]},
                               "t.yaml") == []
    path_row = {**row, "source": {"path": "a.tf", "line": 1}}
    other_seed = {**row, "source": {"seed": "gke-nvidia-dra-dranet.md", "line": 1}}
    for bad in (path_row, other_seed):
        assert "cite it as source: {seed: distributed-gpu-cluster-guide.md" in "\n".join(
            parity.table_errors({"reference": ref, "stack": "gcp-a4", "settings": [bad]},
                                "t.yaml"))
    with_repo = {**ref, "repo": "a/b", "commit": "1234567"}
    assert "a seed reference names no repo or commit" in "\n".join(parity.table_errors(
        {"reference": with_repo, "stack": "gcp-a4", "settings": [row]}, "t.yaml"))
    unknown = {"seed": "blog.md", "title": "t"}
    assert "reference.seed 'blog.md' is not one of the project's seeds" in "\n".join(
        parity.table_errors({"reference": unknown, "stack": "gcp-a4", "settings": [row]},
                            "t.yaml"))
    assert "reference.repo" in "\n".join(parity.table_errors(
        {"reference": {"title": "t"}, "stack": "gcp-a4", "settings": [row]}, "t.yaml"))
