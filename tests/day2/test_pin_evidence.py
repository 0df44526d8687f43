"""Which Terraform commit the pinned bridged SDKs are at or beyond, and what the replacing
inputs gained over the older chain (issue 32, "which changes replace what").

The mirrors hold no pulumi-<provider> release as new as the pins, so
scripts/extract_replacing_inputs.py proves a lower bound per provider from the installed
SDK (``providers.<cloud>.pin_evidence``) and extracts at the newest Terraform commit the
mirror holds. The expectations below were read by hand, at the commits cited:

* hashicorp/terraform-provider-google-beta: 210d575040 ("Add opportunistic_maintenance_
  strategy to GKE node_config host_maintenance_policy (#18492)", 2026-08-18) adds
  ``"opportunistic_maintenance_strategy": {`` at google-beta/services/container/
  node_config.go L1398; c48a71b06b ("Merge feature branch major release 8.0.0 (#18733)",
  2026-08-20) turns google-beta/services/secretmanager/
  resource_secret_manager_secret_version.go ``secret_data_wo_version`` (L176) from
  ``schema.TypeInt`` into ``schema.TypeString`` (L177) and deletes google-beta/services/
  iap/resource_iap_client.go (``func ResourceIapClient`` at L98 of its parent d61f18626a);
  website/docs/guides/version_8_upgrade.html.markdown at c48a71b06b lists both. 93c65b2d60
  (2026-08-21) is main's and release-8.0.0's head; it changes only that guide after
  c48a71b06b (``git diff --stat c48a71b06b 93c65b2d60``). The mirror has no v8 tag.
* digitalocean/terraform-provider-digitalocean: eb2d70f30e ("doks: add support for
  isolated workers (#1585)") adds ``"isolated_workers": {`` at digitalocean/kubernetes/
  resource_kubernetes_cluster.go L448; 67d47d1af6 ("Support subnet_uuid in loadbalancers
  (#1572)") adds ``"subnet_uuid": {`` at digitalocean/loadbalancer/resource_loadbalancer.go
  L389; v2.99.1 = 401992a1e4 = main's head.
* oracle/terraform-provider-oci: fcbcfd3328 ("Bug Fix - TERSI-5298 support Hosted
  Deployment IAM application", in v8.28.0 and not in v8.27.0) creates internal/service/
  generative_ai/generative_ai_hosted_application_iam_resource.go
  (``func GenerativeAiHostedApplicationIamResource`` at L24); v8.28.0 = 8de3c480b4 =
  master's head.
* The pinned SDKs (/work/main/.venv site-packages, the versions pyproject pins):
  pulumi_gcp 10.2.0 container/_inputs.py L26738 ``class NodePoolNodeConfigHostMaintenance
  PolicyOpportunisticMaintenanceStrategyArgs:``, secretmanager/secret_version.py L29
  ``secret_data_wo_version: pulumi.Input[Optional[_builtins.str]]``, no iap/client.py;
  pulumi_digitalocean 4.84.1 kubernetes_cluster.py L305 ``def isolated_workers(self)``,
  load_balancer.py L424 ``def subnet_uuid(self)``; pulumi_oci 5.5.0 generativeai/
  hosted_application_iam.py L22 ``class HostedApplicationIamArgs:``. The chain releases'
  SDKs (pulumi-gcp v9.35.0, pulumi-digitalocean v4.76.0, pulumi-oci dbe80d275b,
  ``sdk/python/...``) have none of these; v9.35.0 has ``_builtins.int`` for
  ``secret_data_wo_version`` (L29) and iap/client.py ``class ClientArgs:`` (L20).
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
import json
import re
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from gpu_fabric.plan.replacing_data import DATA
from tests.support.scripts import load_script

ROOT = Path(__file__).resolve().parents[2]
GB = "hashicorp/terraform-provider-google-beta"
DO = "digitalocean/terraform-provider-digitalocean"
OCI = "oracle/terraform-provider-oci"


def _providers() -> dict[str, Any]:
    return json.loads(DATA.read_text())["providers"]  # type: ignore[no-any-return]


def _script() -> ModuleType:
    return load_script("extract_replacing_inputs")


EXPECTED = {
    "gcp": {
        "terraform_ref": "93c65b2d60fea598528f2769b5b09de856f8cb8c",
        "terraform_commit": "93c65b2d60fea598528f2769b5b09de856f8cb8c",
        "chain": "3dc173a397749158369ea839a2890d89f8c9c370",  # pulumi-gcp v9.35.0 upstream
        "pinned_sdk": "pulumi_gcp 10.2.0",
        "evidence": [
            ("added", True,
             f"{GB}@210d575040:google-beta/services/container/node_config.go#L1398",
             "pulumi_gcp 10.2.0: pulumi_gcp/container/_inputs.py#L26738 "
             "'class NodePoolNodeConfigHostMaintenancePolicyOpportunisticMaintenance"
             "StrategyArgs:'"),
            ("added", False,
             f"{GB}@c48a71b06b:google-beta/services/secretmanager/"
             "resource_secret_manager_secret_version.go#L177",
             "pulumi_gcp 10.2.0: pulumi_gcp/secretmanager/secret_version.py#L29 "
             "'secret_data_wo_version: pulumi.Input[Optional[_builtins.str]]'"),
            ("removed", False,
             f"{GB}@d61f18626a:google-beta/services/iap/resource_iap_client.go#L98 "
             "(gone at c48a71b06b)",
             "pulumi_gcp 10.2.0: pulumi_gcp/iap/client.py has no 'class ClientArgs:'"),
        ],
        "gap": (f"pinned pulumi_gcp 10.2.0 bridges {GB} at or after c48a71b06b "
                "(2026-08-20) per pin_evidence; 93c65b2d60 (2026-08-21) is the newest the "
                "mirror holds and was extracted."),
    },
    "digitalocean": {
        "terraform_ref": "v2.99.1",
        "terraform_commit": "401992a1e493a0e3cfc833197820867991fc011f",
        "chain": "5ef5c0805c6c90c7c3a60303f6c6d6515bd852ed",  # v4.76.0's upstream (v2.96.0)
        "pinned_sdk": "pulumi_digitalocean 4.84.1",
        "evidence": [
            ("added", True,
             f"{DO}@eb2d70f30e:digitalocean/kubernetes/resource_kubernetes_cluster.go#L448",
             "pulumi_digitalocean 4.84.1: pulumi_digitalocean/kubernetes_cluster.py#L305 "
             "'def isolated_workers(self)'"),
            ("added", False,
             f"{DO}@67d47d1af6:digitalocean/loadbalancer/resource_loadbalancer.go#L389",
             "pulumi_digitalocean 4.84.1: pulumi_digitalocean/load_balancer.py#L424 "
             "'def subnet_uuid(self)'"),
        ],
        "gap": (f"pinned pulumi_digitalocean 4.84.1 bridges {DO} at or after 67d47d1af6 "
                "(2026-08-04) per pin_evidence; v2.99.1 (401992a1e4, 2026-08-06) is the "
                "newest the mirror holds and was extracted."),
    },
    "oci": {
        "terraform_ref": "v8.28.0",
        "terraform_commit": "8de3c480b4bf08d8edd40ef0cc4ad0340bd01721",
        "chain": "8016f415a5a602ca002313ad1ab29e5a1406125c",  # dbe80d275b's upstream (v8.23.0)
        "pinned_sdk": "pulumi_oci 5.5.0",
        "evidence": [
            ("added", False,
             f"{OCI}@fcbcfd3328:internal/service/generative_ai/"
             "generative_ai_hosted_application_iam_resource.go#L24",
             "pulumi_oci 5.5.0: pulumi_oci/generativeai/hosted_application_iam.py#L22 "
             "'class HostedApplicationIamArgs:'"),
        ],
        "gap": (f"pinned pulumi_oci 5.5.0 bridges {OCI} at or after fcbcfd3328 "
                "(2026-08-18) per pin_evidence; v8.28.0 (8de3c480b4, 2026-08-19) is the "
                "newest the mirror holds and was extracted."),
    },
}


@pytest.mark.parametrize("cloud", sorted(EXPECTED))
def test_each_pin_is_at_or_beyond_the_extracted_terraform_commit(cloud: str) -> None:
    prov, want = _providers()[cloud], EXPECTED[cloud]
    assert prov["terraform_ref"] == want["terraform_ref"]
    assert prov["terraform_commit"] == want["terraform_commit"]
    assert prov["chain"]["terraform_commit"] == want["chain"]
    assert prov["pinned_sdk"] == want["pinned_sdk"]
    assert [(e["kind"], e["on_a_type_we_create"], e["terraform"], e["pinned_sdk"])
            for e in prov["pin_evidence"]] == want["evidence"]
    # The files read did not change between the newest evidence commit and the extracted
    # one, so the marks read are the pin's unless it is newer than the mirror ...
    assert prov["files_changed_after_evidence"] == []
    assert "the mirror's newest commit (its default branch's head)" in prov["mapping"]
    # ... which is what stays open, said in the data file.
    assert prov["pin_gap"].startswith(want["gap"])
    assert prov["pin_gap"].endswith("Not established: whether the pin bridges a newer "
                                    "commit than the mirror holds, whose ForceNew marks "
                                    "were not read")
    # Every entry cites the extracted commit, not the chain's.
    for res in json.loads(DATA.read_text())["resources"].values():
        if res["cloud"] == cloud:
            for entry in res["inputs"]:
                assert f"@{want['terraform_commit'][:10]}:" in entry["source"]


_SDK_ROW = re.compile(r"^(\w+) ([\d.]+): (\S+?)(?:#L(\d+) | has no )'(.*)'$")


@pytest.mark.parametrize("cloud", sorted(EXPECTED))
def test_the_installed_sdk_carries_the_recorded_evidence(cloud: str) -> None:
    """The SDK side of each evidence, re-read from the installed (pinned) SDK: no mirror
    needed, so it runs in CI and fails when the pin moves without re-extracting."""
    for row in _providers()[cloud]["pin_evidence"]:
        found = _SDK_ROW.match(row["pinned_sdk"])
        assert found, row["pinned_sdk"]
        package, version, path, line, text = found.groups()
        spec = importlib.util.find_spec(package)
        assert spec is not None and spec.origin
        site = Path(spec.origin).parent.parent
        assert importlib.metadata.version(package) == version
        file = site / path
        if row["kind"] == "removed":
            assert line is None
            assert not file.exists() or text not in file.read_text()
        else:
            assert text in file.read_text().splitlines()[int(line) - 1]


# Measured: the extraction at the newest commit against the chain's (each resource's
# vs_chain), from the schema diffs read by hand: google-beta 210d575040 node_config.go
# (+opportunistic_maintenance_strategy under host_maintenance_policy, ForceNew block with
# three ForceNew leaves; the cluster's node_config and node_pools[].node_config share
# schemaNodeConfig); terraform-provider-digitalocean f1e7542b (v2.98.0, "Add DOKS DRA
# plugins and GPU partition mode") kubernetes.go +gpu_partition_mode ForceNew in
# nodePoolSchema (the pool and the cluster's node_pool), eb2d70f30e +isolated_workers;
# terraform-provider-oci: no file read changed from 8016f415a5 to v8.28.0
# (``git diff --stat 8016f415a5 v8.28.0 -- internal/service/containerengine
# internal/service/core/core_{vcn,subnet,compute_cluster}_resource.go`` is empty).
_OMS = "nodeConfig.hostMaintenancePolicy.opportunisticMaintenanceStrategy"
_OMS_ALL = [(_OMS, "exact"), (f"{_OMS}.maintenanceAvailabilityWindow", "prefix"),
            (f"{_OMS}.minNodesPerPool", "prefix"), (f"{_OMS}.nodeIdleTimeWindow", "prefix")]
ADDED_SINCE_CHAIN = {
    "gcp:container/cluster:Cluster": [*_OMS_ALL, *((f"nodePools.{i}", m) for i, m in _OMS_ALL)],
    "gcp:container/nodePool:NodePool": _OMS_ALL,
    "digitalocean:index/kubernetesCluster:KubernetesCluster": [
        ("isolatedWorkers", "prefix"), ("nodePool.gpuPartitionMode", "prefix")],
    "digitalocean:index/kubernetesNodePool:KubernetesNodePool": [
        ("gpuPartitionMode", "prefix")],
}


def test_measured_difference_from_the_chain_commit() -> None:
    resources = json.loads(DATA.read_text())["resources"]
    chained = {t: r for t, r in resources.items() if "vs_chain" in r}
    assert {r["cloud"] for r in chained.values()} == {"gcp", "digitalocean", "oci"}
    for token, res in chained.items():
        vs = res["vs_chain"]
        assert [(e["input"], e["match"]) for e in vs["added"]] == ADDED_SINCE_CHAIN.get(
            token, []), token
        # Nothing stopped replacing, no conditional or unmapped mark came or went.
        assert vs["removed"] == [], token
        for key in ("conditional_added", "conditional_removed",
                    "not_in_pinned_sdk_added", "not_in_pinned_sdk_removed"):
            assert vs[key] == [], (token, key)


def test_find_reads_the_change_near_its_anchor() -> None:
    find = _script()._find
    lines = ['"a": {', "Type: schema.TypeInt,", '"b": {', "Type: schema.TypeString,"]
    assert find(lines, '"b": {', "schema.TypeString") == 4
    assert find(lines, '"a": {', "schema.TypeString", within=2) is None  # b's, not a's
    assert find(lines, '"c": {', '"c": {') is None
    assert find(None, '"a": {', '"a": {') is None  # the file is not there


def test_vs_chain_lists_added_and_removed_pairs() -> None:
    vs_chain = _script()._vs_chain

    def res(*inputs: tuple[str, str]) -> dict[str, Any]:
        return {"inputs": [{"input": i, "match": m} for i, m in inputs],
                "not_in_pinned_sdk": [], "conditional": [{"terraform": "x"}]}

    got = vs_chain(res(("a", "prefix"), ("b", "exact")), res(("a", "prefix"), ("b", "prefix"),
                                                             ("c", "prefix")))
    assert got["added"] == [{"input": "b", "match": "exact"}]
    assert got["removed"] == [{"input": "b", "match": "prefix"},
                              {"input": "c", "match": "prefix"}]
    assert got["conditional_added"] == got["conditional_removed"] == []
