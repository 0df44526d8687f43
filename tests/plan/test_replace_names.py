"""No replacement collides on a name (issue 32), read from ``plan --json``'s ``options``.

Pulumi replaces create-before-delete unless ``deleteBeforeReplace`` is set
(https://www.pulumi.com/docs/iac/concepts/resources/options/deletebeforereplace/:
"Pulumi will create the replacement first ... resources with unique names
may fail"), so a replaceable resource with a fixed, cloud-unique name must
delete first. The committed golden plans (tests/data/golden/<stack>/plan.json,
kept equal to a fresh plan by tests/plan/test_golden.py) are read here.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gpu_fabric.plan.cloud_facts import every_cloud
from gpu_fabric.plan.names import name_collisions
from gpu_fabric.plan.stackfile import available_stacks

GOLDEN = Path(__file__).resolve().parents[1] / "data" / "golden"


def _plan(stack: str) -> dict:
    return json.loads((GOLDEN / stack / "plan.json").read_text())


def _options(stack: str, type_: str, name: str) -> dict:
    found = [r for r in _plan(stack)["resources"] if r["type"] == type_ and r["name"] == name]
    assert len(found) == 1, (stack, type_, name)
    return found[0]["options"]


@pytest.mark.parametrize("stack", available_stacks())
def test_no_committed_stack_keeps_a_fixed_name_without_delete_before_replace(stack: str) -> None:
    assert name_collisions(_plan(stack)) == []


@pytest.mark.parametrize(("stack", "type_", "name", "expected"), [
    # GKE node pool names are unique in their cluster; GKE answers 409 ALREADY_EXISTS
    # (https://cloud.google.com/kubernetes-engine/docs/reference/rest/v1/projects.locations.clusters.nodePools/create).
    ("gcp-a4", "gcp:container/nodePool:NodePool", "dranet-dranet-a4", True),
    ("gcp-a4", "gcp:container/nodePool:NodePool", "dranet-system", True),
    ("gcp-a4", "gcp:compute/network:Network", "dranet-rdma-net", True),
    ("gcp-a4", "gcp:compute/subnetwork:Subnetwork", "dranet-rdma-sub-3", True),
    ("gcp-a4", "gcp:serviceaccount/account:Account", "dranet-nodes", True),
    # IAM member bindings have no name: not forced.
    ("gcp-a4", "gcp:projects/iAMMember:IAMMember", "dranet-nodes-role", False),
    # EKS node group names are unique in a cluster (CreateNodegroup: ResourceInUseException,
    # https://docs.aws.amazon.com/eks/latest/APIReference/API_CreateNodegroup.html).
    ("aws-p5", "aws:eks/nodeGroup:NodeGroup", "eks-p5-p5-ng", True),
    ("aws-p5", "aws:eks/cluster:Cluster", "eks-p5-eks", True),
    # Autonamed (no name input): create-before-delete is safe and kept.
    ("aws-p5", "aws:ec2/launchTemplate:LaunchTemplate", "eks-p5-p5-lt", False),
    ("aws-p5", "aws:ec2/vpc:Vpc", "eks-p5-vpc", False),
    # ARM names are part of the resource id.
    ("azure-ndv5", "azure-native:containerservice:AgentPool", "azure-ndv5-pool-h100", True),
    ("azure-ndv5", "azure-native:network:Subnet", "azure-ndv5-nodes", True),
    ("do-h200", "digitalocean:index/kubernetesNodePool:KubernetesNodePool", "do-h200-h200", True),
    ("do-h200", "digitalocean:index/vpc:Vpc", "do-h200-vpc", True),
    # OCI display names need not be unique
    # (https://docs.oracle.com/en-us/iaas/Content/General/Concepts/identifiers.htm);
    # IAM policy names are unique in the tenancy
    # (https://docs.oracle.com/en-us/iaas/Content/Identity/policymgmt/managingpolicies.htm).
    ("oci-h100", "oci:ContainerEngine/nodePool:NodePool", "oci-h100-h100", False),
    ("oci-h100", "oci:Core/vcn:Vcn", "oci-h100-vcn", False),
    ("oci-h100", "oci:Identity/policy:Policy", "oci-h100-compute-cluster-launch", True),
])
def test_delete_before_replace_per_resource(stack: str, type_: str, name: str,
                                            expected: bool) -> None:
    assert _options(stack, type_, name)["delete_before_replace"] is expected


def _doc(*resources: dict) -> dict:
    return {"stack": "s", "resources": list(resources), "outputs": {}}


def _res(type_: str, inputs: dict, dbr: bool) -> dict:
    return {"urn": f"u::{type_}", "type": type_, "name": "r", "parent": None,
            "dependencies": [], "inputs": inputs,
            "options": {"delete_before_replace": dbr, "replace_on_changes": [],
                        "ignore_changes": [], "protect": False, "provider": None,
                        "aliases": []}}


def test_a_fixed_name_without_delete_before_replace_is_found() -> None:
    pool = "gcp:container/nodePool:NodePool"
    assert name_collisions(_doc(_res(pool, {"name": "gpu"}, False))) == [
        "r (gcp:container/nodePool:NodePool): fixed name without delete_before_replace: "
        "a replacement would fail with 'already exists'"]
    assert name_collisions(_doc(_res(pool, {"name": "gpu"}, True))) == []
    # No name given: the provider/Pulumi names it, nothing to collide.
    assert name_collisions(_doc(_res(pool, {}, False))) == []


def test_an_unclassified_type_and_a_named_autonamed_type_are_found() -> None:
    assert name_collisions(_doc(_res("gcp:compute/disk:Disk", {"name": "d"}, False))) == [
        "r (gcp:compute/disk:Disk): not classified; add it to the cloud's plan_facts "
        "unique_names (with delete_before_replace) or free_names (with the reason)"]
    assert name_collisions(_doc(_res("aws:iam/role:Role", {"name": "fixed"}, False))) == [
        "r (aws:iam/role:Role): listed as autonamed but sets 'name'; list it in "
        "unique_names with delete_before_replace, or drop the name"]
    # Components, providers and Kubernetes objects (their provider deletes first).
    assert name_collisions(_doc(
        _res("gpufabric:gcp:GpuCluster", {}, False),
        _res("pulumi:providers:kubernetes", {}, False),
        _res("kubernetes:core/v1:Namespace", {"metadata": {"name": "n"}}, False),
    )) == []


def test_the_two_maps_do_not_overlap() -> None:
    facts = every_cloud()
    assert set(facts.unique_names) & set(facts.free_names) == set()
    assert "gcp:container/nodePool:NodePool" in facts.unique_names
    assert "oci:ContainerEngine/nodePool:NodePool" in facts.free_names
