"""Platform layer: team quotas cover the fabric, Kueue objects agree, MIG, manifests valid."""

from __future__ import annotations

import math
from typing import Any

import pytest

from gpu_fabric.errors import SpecError
from gpu_fabric.fabric.description import describe_cluster
from gpu_fabric.fabric.layer import Layer, build_layer
from gpu_fabric.fabric.workload import pod_fragment
from gpu_fabric.platform import mig
from gpu_fabric.platform.quotas import quantity_bytes
from gpu_fabric.spec import ClusterSpec, load_spec
from tests.specs import CLOUDS, spec_dict, with_pool
from tests.support.manifests import validate_all

TEAMS = [
    {"name": "vision", "group": "vision-eng", "gpus": 8, "priority": "high"},
    {"name": "speech", "group": "speech-eng", "gpus": 8, "priority": "low"},
]


def _spec(cloud: str, **overrides: Any) -> ClusterSpec:
    raw = spec_dict(cloud, tenancy={"teams": TEAMS}, **overrides)
    return load_spec(raw)


def _layer(spec: ClusterSpec) -> Layer:
    return build_layer(spec, describe_cluster(spec))


def _objects(layer: Layer, kind: str, ns: str | None = None) -> list[dict[str, Any]]:
    return [m for m in layer.manifests() if m["kind"] == kind
            and (ns is None or m["metadata"].get("namespace") == ns)]


def _quota(layer: Layer, ns: str) -> dict[str, str]:
    (rq,) = [q for q in _objects(layer, "ResourceQuota", ns) if "scopeSelector" not in q["spec"]]
    return rq["spec"]["hard"]


@pytest.mark.parametrize("cloud", CLOUDS)
def test_quota_covers_every_device_resource_of_a_full_node_job(cloud: str) -> None:
    spec = _spec(cloud)
    fabrics = describe_cluster(spec)
    layer = build_layer(spec, fabrics)
    for team in spec.tenancy.teams:
        hard = _quota(layer, team.name)
        for fabric in fabrics.values():
            gpus = fabric.machine.gpus
            nodes = team.gpus // gpus
            assert nodes >= 1
            fragment = pod_fragment(fabric, gpus)
            wanted = dict(fragment.limits)
            if fabric.uses_dra:
                assert fabric.dra is not None
                key = f"{fabric.dra.gpu_class}.deviceclass.resource.k8s.io/devices"
                assert int(hard[key]) >= nodes * gpus
            assert wanted or fabric.uses_dra
            for resource, value in wanted.items():
                assert f"requests.{resource}" in hard, (cloud, team.name, resource, hard)
                have = quantity_bytes(hard[f"requests.{resource}"])
                assert have >= nodes * quantity_bytes(value), (cloud, resource, have, value)
            # The GPU budget binds: one more full node does not fit.
            if not fabric.uses_dra:
                gpu_quota = int(hard[f"requests.{fabric.gpu_resource}"])
                assert gpu_quota == team.gpus
                assert gpu_quota < (nodes + 1) * gpus


@pytest.mark.parametrize("cloud", CLOUDS)
def test_full_node_pod_fits_the_limit_range(cloud: str) -> None:
    spec = _spec(cloud)
    fabrics = describe_cluster(spec)
    layer = build_layer(spec, fabrics)
    for team in spec.tenancy.teams:
        (lr,) = _objects(layer, "LimitRange", team.name)
        (limit,) = lr["spec"]["limits"]
        maximum = limit.get("max", {})
        for fabric in fabrics.values():
            for resource, value in pod_fragment(fabric, fabric.machine.gpus).limits.items():
                assert resource in maximum, (cloud, resource)
                assert quantity_bytes(value) <= quantity_bytes(maximum[resource])
        # ...and a pod asking for more GPUs than a node has does not.
        for fabric in fabrics.values():
            if not fabric.uses_dra:
                assert int(maximum[fabric.gpu_resource]) == fabric.machine.gpus


@pytest.mark.parametrize("cloud", CLOUDS)
def test_platform_manifests_validate(cloud: str) -> None:
    spec = _spec(cloud, addons={"prometheus": {"enabled": True}, "jobset": {"enabled": True}})
    layer = _layer(spec)
    assert _objects(layer, "ClusterQueue")
    assert validate_all(layer.manifests(), str(spec.kubernetes.version)) == []


@pytest.mark.parametrize("cloud", CLOUDS)
def test_kueue_objects_reference_each_other(cloud: str) -> None:
    spec = _spec(cloud)
    layer = _layer(spec)
    assert "kueue" in layer.names
    assert "kueue" in layer.part("kueue-queues").after
    topologies = {t["metadata"]["name"] for t in _objects(layer, "Topology")}
    flavors = {f["metadata"]["name"]: f for f in _objects(layer, "ResourceFlavor")}
    assert len(flavors) == len(spec.node_pools)
    for flavor in flavors.values():
        if "topologyName" in flavor["spec"]:
            assert flavor["spec"]["topologyName"] in topologies
            assert flavor["spec"]["nodeLabels"]
    queues = {q["metadata"]["name"]: q for q in _objects(layer, "ClusterQueue")}
    assert set(queues) == {t.name for t in spec.tenancy.teams}
    for cq in queues.values():
        (group,) = cq["spec"]["resourceGroups"]
        covered = group["coveredResources"]
        assert {"cpu", "memory"} <= set(covered)
        for fl in group["flavors"]:
            assert fl["name"] in flavors
            assert [r["name"] for r in fl["resources"]] == covered
    for lq in _objects(layer, "LocalQueue"):
        assert lq["spec"]["clusterQueue"] in queues
        assert lq["metadata"]["namespace"] == lq["spec"]["clusterQueue"]


def test_topology_levels_follow_the_cloud() -> None:
    levels = {}
    for cloud in ("gcp", "aws", "oci"):
        (topo,) = _objects(_layer(_spec(cloud)), "Topology")
        levels[cloud] = [lv["nodeLabel"] for lv in topo["spec"]["levels"]]
    assert levels["gcp"][0] == "cloud.google.com/gce-topology-block"
    assert levels["aws"][0] == "topology.k8s.aws/network-node-layer-1"
    assert levels["oci"] == ["kubernetes.io/hostname"]
    assert all(v[-1] == "kubernetes.io/hostname" for v in levels.values())


def test_flavor_tolerates_the_gpu_taint_and_selects_the_pool() -> None:
    spec = _spec("aws")
    fabric = describe_cluster(spec)["gpu"]
    (flavor,) = _objects(_layer(spec), "ResourceFlavor")
    assert flavor["spec"]["nodeLabels"] == dict(fabric.node_selector)
    keys = {t["key"] for t in flavor["spec"]["tolerations"]}
    assert {t.key for t in fabric.taints} <= keys and keys


def test_priority_ceiling_blocks_classes_above_the_team() -> None:
    layer = _layer(_spec("digitalocean"))
    ceilings = {q["metadata"]["namespace"]: q for q in _objects(layer, "ResourceQuota")
                if "scopeSelector" in q["spec"]}
    assert "vision" not in ceilings  # high: may use every class
    (expr,) = ceilings["speech"]["spec"]["scopeSelector"]["matchExpressions"]
    assert set(expr["values"]) == {"gpu-fabric-normal", "gpu-fabric-high"}
    assert ceilings["speech"]["spec"]["hard"] == {"pods": "0"}


def test_team_role_is_least_privilege() -> None:
    layer = _layer(_spec("digitalocean"))
    (role,) = _objects(layer, "Role", "vision")
    resources = {r for rule in role["rules"] for r in rule["resources"]}
    assert "secrets" not in resources and "roles" not in resources and "pods/exec" not in resources
    assert {"jobs", "jobsets", "pods/log", "workloads"} <= resources
    (binding,) = _objects(layer, "RoleBinding", "vision")
    assert binding["subjects"] == [
        {"apiGroup": "rbac.authorization.k8s.io", "kind": "Group", "name": "vision-eng"}
    ]


def test_team_namespaces_get_the_fabric_nads() -> None:
    layer = _layer(_spec("digitalocean"))
    fabric = describe_cluster(_spec("digitalocean"))["gpu"]
    nads = {n["metadata"]["name"] for n in _objects(layer, "NetworkAttachmentDefinition", "vision")}
    assert nads == set(fabric.networks) and len(nads) == fabric.machine.fabric_nics


def test_no_teams_no_team_parts() -> None:
    layer = _layer(load_spec(spec_dict("aws")))
    assert "teams" not in layer.names and "kueue-queues" not in layer.names


# -- MIG ------------------------------------------------------------------------
def test_mig_profile_not_in_catalog_is_refused() -> None:
    with pytest.raises(SpecError) as err:
        load_spec(with_pool("aws", mig={"profile": "1g.11gb"}))
    text = str(err.value)
    assert "node_pools[0].mig.profile" in text and "1g.11gb" in text and "1g.10gb" in text


@pytest.mark.parametrize(("profile", "expected"), [
    ("1g.10gb", 7), ("1g.20gb", 4), ("2g.20gb", 3), ("3g.40gb", 2), ("4g.40gb", 1),
    ("7g.80gb", 1), ("1g.10gb+me", 1),
])
def test_mig_instances_per_h100(profile: str, expected: int) -> None:
    spec = load_spec(with_pool("aws", mig={"profile": profile}))
    assert mig.instances_per_gpu(spec.node_pools[0].machine.gpu, profile) == expected


def test_mig_pool_gets_label_config_and_scaled_quota() -> None:
    raw = with_pool("oci", mig={"profile": "1g.10gb", "strategy": "mixed"})
    raw["tenancy"] = {"teams": [{"name": "dev", "group": "dev", "gpus": 2}]}
    spec = load_spec(raw)
    layer = _layer(spec)
    pool = spec.node_pools[0]
    assert mig.node_labels(pool) == {"nvidia.com/mig.config": "all-1g.10gb"}
    (cm,) = layer.part("mig-config").manifests
    assert "all-1g.10gb" in cm["data"]["config.yaml"]
    hard = _quota(layer, "dev")
    assert hard["requests.nvidia.com/mig-1g.10gb"] == str(2 * 7)
    assert math.isclose(int(hard["requests.nvidia.com/mig-1g.10gb"]) / 2, 7)


def test_mig_nodes_are_labelled_and_the_operator_reads_our_config() -> None:
    spec = load_spec(with_pool("oci", mig={"profile": "3g.40gb", "strategy": "single"}))
    fabric = describe_cluster(spec)["gpu"]
    # Every cloud sets its pools' node labels from the fabric description.
    assert fabric.node_labels["nvidia.com/mig.config"] == "all-3g.40gb"
    layer = _layer(spec)
    (release,) = layer.part("gpu-operator").charts
    manager = release.values["migManager"]
    (cm,) = layer.part("mig-config").manifests
    assert manager["config"]["name"] == cm["metadata"]["name"]
    assert manager["config"]["default"] in cm["data"]["config.yaml"]
    assert release.values["mig"] == {"strategy": "single"}


def test_pools_without_mig_carry_no_mig_label() -> None:
    fabric = describe_cluster(load_spec(spec_dict("oci")))["gpu"]
    assert "nvidia.com/mig.config" not in fabric.node_labels


def test_team_namespaces_get_the_dra_claim_templates() -> None:
    spec = _spec("gcp")
    layer = _layer(spec)
    wanted = {t["metadata"]["name"]
              for t in _objects(layer, "ResourceClaimTemplate", spec.fabric.namespaces[0])}
    assert wanted, "the DRA fabric has claim templates in its workload namespace"
    for team in spec.tenancy.teams:
        names = {t["metadata"]["name"] for t in _objects(layer, "ResourceClaimTemplate", team.name)}
        assert names == wanted, team.name
    assert "team-dra-claims" in layer.names
