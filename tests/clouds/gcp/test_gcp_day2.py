"""Day 2 on reserved GKE GPU pools: upgrades, maintenance, resizing, local SSD, placement.

Sources (GoogleCloudPlatform/cluster-toolkit, commit 1047080375afbb44da4b596be314634e7486af4a):
* modules/compute/gke-node-pool/main.tf lines 23-26: upgrade_settings max_surge
  coalesce(var, 0), max_unavailable coalesce(var, 1); lines 309-316: lifecycle
  ignore_changes initial_node_count and node_config[0].ephemeral_storage_local_ssd_config.
* modules/compute/gke-node-pool/disk_definitions.tf: local_ssd_count_ephemeral_storage
  a3-highgpu-8g 16, a3-megagpu-8g 16, a3-ultragpu-8g 32, a4-highgpu-8g 32.
* examples/gke-a4/gke-a4.yaml lines 212-216: maintenance exclusion
  NO_MINOR_OR_NODE_UPGRADES, UNTIL_END_OF_SUPPORT; modules/scheduler/gke-cluster
  maintenance_start_time default "09:00".
* examples/gke-a4x/gke-a4x.yaml lines 223-235: workload policy HIGH_THROUGHPUT,
  accelerator_topology "1x72", used by the A4X pool's placement.
"""

from __future__ import annotations

import copy

import pytest

from gpu_fabric.errors import SpecError
from gpu_fabric.plan.diff import diff_plans
from tests.conftest import all_stacks
from tests.specs import GCP_RESERVED, spec_dict

POOL = "gcp:container/nodePool:NodePool"
CLUSTER = "gcp:container/cluster:Cluster"
POLICY = "gcp:compute/resourcePolicy:ResourcePolicy"


def _pool(plan, name: str = "gpu"):
    return next(r for r in plan.by_type(POOL) if r.inputs.get("name") == name)


@pytest.mark.parametrize(("stack", "pool"), [("gcp-a4", "dranet-a4"),
                                             ("gcp-a3-ultra", "a3ultra"),
                                             ("gcp-a3-mega", "a3mega")])
def test_gpu_pools_upgrade_without_a_surge_node(stack, pool, stack_plan) -> None:
    settings = _pool(stack_plan(stack), pool).inputs["upgradeSettings"]
    assert settings == {"strategy": "SURGE", "maxSurge": 0, "maxUnavailable": 1}


@pytest.mark.parametrize(("stack", "pool", "ssds"), [("gcp-a4", "dranet-a4", 32),
                                                     ("gcp-a3-ultra", "a3ultra", 32),
                                                     ("gcp-a3-mega", "a3mega", 16)])
def test_ephemeral_storage_on_the_machines_local_ssds(stack, pool, ssds, stack_plan) -> None:
    config = _pool(stack_plan(stack), pool).inputs["nodeConfig"]
    assert config["ephemeralStorageLocalSsdConfig"] == {"localSsdCount": ssds}


def test_machines_without_local_ssd_get_none(spec_plan) -> None:
    plan = spec_plan(spec_dict("gcp", node_pools=[
        {"name": "gpu", "machine_type": "g2-standard-48", "node_count": 1}]))
    assert "ephemeralStorageLocalSsdConfig" not in _pool(plan).inputs["nodeConfig"]


def test_resizing_an_autoscaled_pool_changes_nothing_pulumi_would_replace(spec_plan) -> None:
    def plan(count: int):
        return spec_plan(spec_dict("gcp", fabric={"mode": "dra", "dranet": "self"}, node_pools=[
            {"name": "gpu", "machine_type": "a4-highgpu-8g", "node_count": count,
             "min_nodes": 1, "max_nodes": 4, "capacity": GCP_RESERVED}]))

    base, head = plan(2), plan(3)
    pool = _pool(head)
    assert pool.inputs["initialNodeCount"] == 3
    assert "initialNodeCount" in pool.ignore_changes
    diff = diff_plans(base.to_json(), head.to_json())
    assert [c for c in diff.changes if c.type == POOL] == []
    assert diff.replacements == []


@pytest.mark.parametrize("stack", all_stacks())
def test_the_offline_diff_ignores_what_pulumi_ignores(stack, stack_plan) -> None:
    """Each resource's registered ignore_changes path, changed alone, is no change in the
    offline diff; changed on a copy registered without the option, it is one."""
    doc = stack_plan(stack).to_json()
    pinned = [r for r in doc["resources"] if r.get("options", {}).get("ignore_changes")]
    for resource in pinned:
        for path in resource["options"]["ignore_changes"]:
            head = copy.deepcopy(resource)
            target = head.setdefault("inputs", {})
            *parents, leaf = path.split(".")
            for key in parents:
                target = target.setdefault(key, {})
            target[leaf] = "changed-by-the-test"
            assert diff_plans({"resources": [resource]}, {"resources": [head]}).changes == [], (
                resource["name"], path)
            head["options"] = {**head["options"], "ignore_changes": []}
            changed = diff_plans({"resources": [resource]}, {"resources": [head]}).changes
            assert [c.action for c in changed] != [], (resource["name"], path)


def _regular(**gcp):
    return spec_dict("gcp", gcp={"project": "test-project", "release_channel": "REGULAR", **gcp},
                     node_pools=[{"name": "gpu", "machine_type": "a4-highgpu-8g",
                                  "node_count": 2, "auto_upgrade": True,
                                  "capacity": GCP_RESERVED}])


def test_maintenance_exclusion_until_end_of_support(spec_plan) -> None:
    plan = spec_plan(_regular(maintenance_exclusions=[
        {"name": "no-minor-or-node-upgrades-indefinite", "start_time": "2025-12-01T00:00:00Z"}]))
    policy = plan.one(CLUSTER).inputs["maintenancePolicy"]
    assert policy == {
        "dailyMaintenanceWindow": {"startTime": "09:00"},
        "maintenanceExclusions": [{
            "exclusionName": "no-minor-or-node-upgrades-indefinite",
            "startTime": "2025-12-01T00:00:00Z",
            "exclusionOptions": {"scope": "NO_MINOR_OR_NODE_UPGRADES",
                                 "endTimeBehavior": "UNTIL_END_OF_SUPPORT"},
        }],
    }


@pytest.mark.parametrize(
    ("gcp", "path"),
    [
        ({"release_channel": "UNSPECIFIED", "maintenance_exclusions": [
            {"name": "x", "start_time": "2025-12-01T00:00:00Z"}]},
         "gcp.maintenance_exclusions[0].scope"),
        ({"maintenance_exclusions": [
            {"name": "x", "start_time": "2025-12-01T00:00:00Z", "scope": "NO_UPGRADES"}]},
         "gcp.maintenance_exclusions[0].end_time"),
        ({"maintenance_exclusions": [{"name": "x", "start_time": "1 December"}]},
         "gcp.maintenance_exclusions[0].start_time"),
    ],
)
def test_bad_maintenance_exclusions_are_refused(gcp, path) -> None:
    from gpu_fabric.plan import run_spec

    data = _regular(**gcp)
    if gcp.get("release_channel") == "UNSPECIFIED":
        data["node_pools"][0]["auto_upgrade"] = False
    with pytest.raises(SpecError) as info:
        run_spec(data)
    assert path in str(info.value)


def test_a4x_pools_use_a_workload_policy(spec_plan) -> None:
    plan = spec_plan(spec_dict("gcp", fabric={"mode": "dra", "dranet": "self"}, node_pools=[
        {"name": "gpu", "machine_type": "a4x-highgpu-4g", "node_count": 2,
         "capacity": GCP_RESERVED}]))
    policy = plan.one(POLICY)
    assert policy.inputs["name"] == "test-gcp-gpu-workload"
    assert policy.inputs["workloadPolicy"] == {"type": "HIGH_THROUGHPUT",
                                               "acceleratorTopology": "1x72"}
    assert _pool(plan).inputs["placementPolicy"] == {"type": "COMPACT",
                                                     "policyName": "test-gcp-gpu-workload"}


# -- cluster-toolkit's day-2 defaults (1047080375af) --------------------------------------
def test_defaults_follow_cluster_toolkit_day2_settings(spec_plan) -> None:
    """A spec that names none of them gets: release channel REGULAR with node auto-upgrade
    and the NO_MINOR_OR_NODE_UPGRADES exclusion until end of support (examples/gke-a4/
    gke-a4.yaml lines 209-215, ``auto_upgrade: true`` line 257); pool auto-repair
    (modules/compute/gke-node-pool/variables.tf line 185 default true); shielded nodes
    with secure boot and integrity monitoring (gke-node-pool main.tf lines 220-223,
    variables.tf line 83; gke-cluster main.tf line 167 and 354-358)."""
    plan = spec_plan(spec_dict("gcp"))
    cluster = plan.one(CLUSTER).inputs
    assert cluster["releaseChannel"] == {"channel": "REGULAR"}
    assert cluster["enableShieldedNodes"] is True
    assert cluster["maintenancePolicy"] == {
        "dailyMaintenanceWindow": {"startTime": "09:00"},
        "maintenanceExclusions": [{
            "exclusionName": "no-minor-or-node-upgrades-indefinite",
            "startTime": "2025-12-01T00:00:00Z",
            "exclusionOptions": {"scope": "NO_MINOR_OR_NODE_UPGRADES",
                                 "endTimeBehavior": "UNTIL_END_OF_SUPPORT"},
        }],
    }
    shielded = {"enableSecureBoot": True, "enableIntegrityMonitoring": True}
    for pool in plan.by_type(POOL):
        assert pool.inputs["nodeConfig"]["shieldedInstanceConfig"] == shielded, pool.name
        assert pool.inputs["management"] == {"autoRepair": True, "autoUpgrade": True}, pool.name


def test_flex_start_pools_default_to_no_auto_repair(spec_plan) -> None:
    """gke-node-pool main.tf line 416: flex-start needs auto_repair false."""
    plan = spec_plan(spec_dict("gcp", node_pools=[
        {"name": "gpu", "machine_type": "a4-highgpu-8g", "node_count": 0, "min_nodes": 0,
         "max_nodes": 2,
         "capacity": {"type": "flex_start"}}]))
    assert _pool(plan).inputs["management"] == {"autoRepair": False, "autoUpgrade": True}


def test_gib_installer_runs_upstreams_script_without_ldconfig(stack_plan) -> None:
    """container-engine-accelerators gpudirect-rdma/nccl-rdma-installer.yaml (992db812)
    lines 74-77: install, copy the libraries and the gIB tree, done."""
    ds = next(d for d in stack_plan("gcp-a4").by_type("kubernetes:apps/v1:DaemonSet")
              if d.inputs["metadata"]["name"] == "nccl-rdma-installer")
    install = next(c for c in ds.inputs["spec"]["template"]["spec"]["initContainers"]
                   if c["name"] == "install")
    assert install["args"][0].splitlines() == [
        "set -ex",
        "/scripts/container_entry.sh install",
        "cp -R /var/lib/gib/lib64/. /usr/local/home/kubernetes/bin/nvidia/lib64",
        "cp -R /var/lib/gib/. /usr/local/home/kubernetes/bin/gib",
        "echo installation finished",
    ]
