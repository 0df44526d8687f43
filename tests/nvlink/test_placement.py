"""Placement in one NVLink domain: Kueue's topology on a GB200 pool has the clique level
below the cloud's block levels, and the NCCL acceptance test puts its ranks in one clique,
with its own ComputeDomain.

Upstream: awsome-distributed-training 7217859
micro-benchmarks/nccl-tests/kubernetes/nccl-tests-gb200.yaml lines 1-10 (the test's own
ComputeDomain) and 95-104 (podAffinity, topologyKey nvidia.com/gpu.clique).
"""

from __future__ import annotations

from typing import Any

import pytest

from gpu_fabric.errors import SpecError
from gpu_fabric.fabric.description import describe_cluster
from gpu_fabric.fabric.layer import build_layer
from gpu_fabric.nccl.manifests import acceptance_manifests, plan_acceptance
from gpu_fabric.spec import load_spec
from tests.support.variants import gb200_spec

TEAM = {"name": "vision", "group": "vision-eng", "gpus": 8}


def _topologies(raw: dict[str, Any]) -> dict[str, list[str]]:
    spec = load_spec(raw)
    layer = build_layer(spec, describe_cluster(spec))
    return {m["metadata"]["name"]: [lvl["nodeLabel"] for lvl in m["spec"]["levels"]]
            for m in layer.manifests() if m["kind"] == "Topology"}


@pytest.mark.parametrize(("cloud", "expected"), [
    # The block levels are each provider's topology_levels (gcp/provider.py,
    # aws/provider.py); AKS and OKE nodes carry none, so the clique is the widest level.
    # GKE: an A4X pool is one NVLink domain (workload policy 1x72); the level is the node
    # pool, above the host, as cluster-toolkit 1047080375af
    # examples/gke-a4x/kueue-configuration.yaml.tftpl lines 20-25.
    ("gcp", {"gpu-fabric-gcp-nvlink": [
        "cloud.google.com/gce-topology-block", "cloud.google.com/gce-topology-subblock",
        "cloud.google.com/gke-nodepool", "cloud.google.com/gce-topology-host",
        "kubernetes.io/hostname"]}),
    ("aws", {"gpu-fabric-aws-nvlink": [
        "topology.k8s.aws/network-node-layer-1", "topology.k8s.aws/network-node-layer-2",
        "topology.k8s.aws/network-node-layer-3", "nvidia.com/gpu.clique",
        "kubernetes.io/hostname"]}),
    ("azure", {"gpu-fabric-nvlink": ["nvidia.com/gpu.clique", "kubernetes.io/hostname"]}),
    ("oci", {"gpu-fabric-nvlink": ["nvidia.com/gpu.clique", "kubernetes.io/hostname"]}),
])
def test_a_teams_topology_on_a_gb200_pool_has_the_clique_level(
    cloud: str, expected: dict[str, list[str]]
) -> None:
    raw = gb200_spec(cloud)
    raw["tenancy"] = {"teams": [TEAM]}
    assert _topologies(raw) == expected


def test_other_pools_keep_the_clouds_levels() -> None:
    from tests.specs import spec_dict

    raw = spec_dict("aws", tenancy={"teams": [TEAM]})
    assert _topologies(raw) == {"gpu-fabric-aws": [
        "topology.k8s.aws/network-node-layer-1", "topology.k8s.aws/network-node-layer-2",
        "topology.k8s.aws/network-node-layer-3", "kubernetes.io/hostname"]}


@pytest.mark.parametrize(("cloud", "domain_label"), [
    ("gcp", "cloud.google.com/gke-nodepool"),
    ("azure", "nvidia.com/gpu.clique"), ("oci", "nvidia.com/gpu.clique"),
])
def test_the_acceptance_test_runs_in_one_nvlink_domain_with_its_own_compute_domain(
    cloud: str, domain_label: str,
) -> None:
    raw = gb200_spec(cloud)
    raw["acceptance"] = {"enabled": True}
    spec = load_spec(raw)
    plan = plan_acceptance(spec, describe_cluster(spec), "nccl-acceptance")
    objects = acceptance_manifests(plan)
    assert objects[0] == {
        "apiVersion": "resource.nvidia.com/v1beta1", "kind": "ComputeDomain",
        "metadata": {"name": "nccl-acceptance-cd", "namespace": "default",
                     "labels": {"app.kubernetes.io/managed-by": "gpu-fabric"}},
        "spec": {"numNodes": 0,
                 "channel": {"resourceClaimTemplate": {"name": "nccl-acceptance-cd-channel"}}},
    }
    test = objects[-1]
    template = (test["spec"]["template"] if test["kind"] == "StatefulSet"
                else test["spec"]["mpiReplicaSpecs"]["Worker"]["template"])
    assert template["spec"]["affinity"]["podAffinity"] == {
        "requiredDuringSchedulingIgnoredDuringExecution": [{
            "labelSelector": {"matchLabels": {
                "gpufabric.dev/nccl-acceptance": "nccl-acceptance"}},
            "topologyKey": domain_label}]}
    channel = {"name": "compute-domain-channel",
               "resourceClaimTemplateName": "nccl-acceptance-cd-channel"}
    assert channel in template["spec"]["resourceClaims"]


def test_more_nodes_than_one_domain_are_refused_for_the_acceptance_test() -> None:
    raw = gb200_spec("oci")
    raw["node_pools"][0]["node_count"] = 20
    raw["acceptance"] = {"enabled": True, "nodes": 19}
    spec = load_spec(raw)
    with pytest.raises(SpecError) as err:
        plan_acceptance(spec, describe_cluster(spec), "nccl-acceptance")
    assert ("acceptance.nodes: the test runs inside one NVLink domain of BM.GPU.GB200-v3.4 "
            "(72 GPUs, 18 nodes), where nccl-report judges it against the NVLink floor; use "
            "2..18 nodes (got 19)") in str(err.value)
