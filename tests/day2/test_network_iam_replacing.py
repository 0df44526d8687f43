"""The GKE and OKE network, NAT, IAM and policy resources follow their providers' ForceNew
marks (issue 32): they had no table, so every change to them was planned in place.

Read by hand at the commits the extraction uses (``providers.<cloud>.terraform_commit``):

* hashicorp/terraform-provider-google-beta @ 93c65b2d60 (main = release-8.0.0),
  google-beta/services/compute/resource_compute_firewall.go: ForceNew on ``name`` (L249),
  ``direction`` (L306), the ``params`` block (L341), ``project`` (L476); ``network``
  (L259-264) has none, and the update sends it (``d.Get("network")`` L899, ``PATCH``
  L957): a firewall moved to another network is updated in place, not replaced.
  resource_compute_router.go: ``name`` L166, ``encrypted_interconnect_router`` L259,
  ``ncc_gateway`` L287, ``network`` L295, the ``params`` block L303, ``region`` L323,
  ``project`` L336. resource_compute_router_nat.go: ``name`` L307, ``router`` L315,
  ``endpoint_types`` L378, ``initial_nat_ips`` L397, ``region`` L475, ``type`` L528,
  ``project`` L546 (``subnetwork``, ``log_config``, ``nat_ip_allocate_option``: none).
  services/resourcemanager/resource_google_service_account.go: ``account_id`` L93,
  ``project`` L118 (``display_name`` L97-101: none).
* google_project_iam_member is ``ProjectIamMemberResource`` (services/resourcemanager/
  iam_project.go L77-85): ``tpgiamresource.ResourceIamMember(IamProjectSchema, ...)``,
  whose schema merges tpgiamresource/resource_iam_member.go's ``IamMemberBaseSchema``
  with that argument (L285): ``role`` L67, ``member`` L72, the ``condition`` block L80
  with ``expression`` L86, ``title`` L91, ``description`` L96; iam_project.go
  ``project`` L38.
* oracle/terraform-provider-oci @ 8de3c480b4 (v8.28.0), internal/service/:
  core/core_nat_gateway_resource.go ``vcn_id`` L36, ``public_ip_id`` L67;
  core/core_route_table_resource.go ``vcn_id`` L39 (``route_rules`` L61-: none);
  core/core_security_list_resource.go ``vcn_id`` L39 (the egress/ingress rules L55,
  L225: none); core/core_service_gateway_resource.go ``vcn_id`` L61;
  identity/identity_policy_resource.go ``compartment_id`` L39, ``name`` L48
  (``statements`` L50-57: none).
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from gpu_fabric.plan.diff import diff_plans
from gpu_fabric.plan.replacing_data import DATA

ROOT = Path(__file__).resolve().parents[2]
GB = "hashicorp/terraform-provider-google-beta@93c65b2d60:google-beta/"
OCI = "oracle/terraform-provider-oci@8de3c480b4:internal/service/"
_FW = GB + "services/compute/resource_compute_firewall.go#L"
_RT = GB + "services/compute/resource_compute_router.go#L"
_NAT = GB + "services/compute/resource_compute_router_nat.go#L"
_SA = GB + "services/resourcemanager/resource_google_service_account.go#L"
_IAM = GB + "tpgiamresource/resource_iam_member.go#L"

FIREWALL = "gcp:compute/firewall:Firewall"
IAM_MEMBER = "gcp:projects/iAMMember:IAMMember"

EXPECTED = {
    FIREWALL: [
        ("direction", "prefix", _FW + "306"), ("name", "prefix", _FW + "249"),
        ("params", "exact", _FW + "341"), ("project", "prefix", _FW + "476")],
    "gcp:compute/router:Router": [
        ("encryptedInterconnectRouter", "prefix", _RT + "259"),
        ("name", "prefix", _RT + "166"), ("nccGateway", "prefix", _RT + "287"),
        ("network", "prefix", _RT + "295"), ("params", "exact", _RT + "303"),
        ("project", "prefix", _RT + "336"), ("region", "prefix", _RT + "323")],
    "gcp:compute/routerNat:RouterNat": [
        ("endpointTypes", "prefix", _NAT + "378"), ("initialNatIps", "prefix", _NAT + "397"),
        ("name", "prefix", _NAT + "307"), ("project", "prefix", _NAT + "546"),
        ("region", "prefix", _NAT + "475"), ("router", "prefix", _NAT + "315"),
        ("type", "prefix", _NAT + "528")],
    IAM_MEMBER: [
        ("condition", "exact", _IAM + "80"),
        ("condition.description", "prefix", _IAM + "96"),
        ("condition.expression", "prefix", _IAM + "86"),
        ("condition.title", "prefix", _IAM + "91"),
        ("member", "prefix", _IAM + "72"),
        ("project", "prefix", GB + "services/resourcemanager/iam_project.go#L38"),
        ("role", "prefix", _IAM + "67")],
    "gcp:serviceaccount/account:Account": [
        ("accountId", "prefix", _SA + "93"), ("project", "prefix", _SA + "118")],
    "oci:Core/natGateway:NatGateway": [
        ("publicIpId", "prefix", OCI + "core/core_nat_gateway_resource.go#L67"),
        ("vcnId", "prefix", OCI + "core/core_nat_gateway_resource.go#L36")],
    "oci:Core/routeTable:RouteTable": [
        ("vcnId", "prefix", OCI + "core/core_route_table_resource.go#L39")],
    "oci:Core/securityList:SecurityList": [
        ("vcnId", "prefix", OCI + "core/core_security_list_resource.go#L39")],
    "oci:Core/serviceGateway:ServiceGateway": [
        ("vcnId", "prefix", OCI + "core/core_service_gateway_resource.go#L61")],
    "oci:Identity/policy:Policy": [
        ("compartmentId", "prefix", OCI + "identity/identity_policy_resource.go#L39"),
        ("name", "prefix", OCI + "identity/identity_policy_resource.go#L48")],
}


@pytest.mark.parametrize("token", sorted(EXPECTED))
def test_marks_read_from_the_provider(token: str) -> None:
    res = json.loads(DATA.read_text())["resources"][token]
    assert [(e["input"], e["match"], e["source"]) for e in res["inputs"]] == EXPECTED[token]
    assert res["not_in_pinned_sdk"] == [] and res["conditional"] == []


def _golden(stack: str) -> dict[str, Any]:
    return json.loads((ROOT / "tests" / "data" / "golden" / stack / "plan.json").read_text())


def _changed(stack: str, type_: str, name: str, path: str, value: Any):  # type: ignore[no-untyped-def]
    """The diff of a committed stack's plan against itself with one input changed."""
    base = _golden(stack)
    head = copy.deepcopy(base)
    res = next(r for r in head["resources"] if r["type"] == type_ and r["name"] == name)
    assert path in res["inputs"], (name, path)  # an input the stack sets
    res["inputs"][path] = value
    diff = diff_plans(base, head)
    (change,) = diff.changes
    return diff, change


def test_a_firewall_moved_to_another_network_is_updated_in_place() -> None:
    diff, change = _changed("gcp-a4", FIREWALL, "dranet-webhooks", "network",
                            "projects/gke-dranet/global/networks/other")
    assert (change.action, change.replacing_paths) == ("update", ())
    assert change.verdict is not None and change.verdict.kind == "in-place"
    assert diff.replacements == []


def test_a_firewall_direction_replaces_it() -> None:
    diff, change = _changed("gcp-a4", FIREWALL, "dranet-webhooks", "direction", "EGRESS")
    assert (change.action, change.replacing_paths) == ("replace", ("direction",))
    assert change.verdict is not None and change.verdict.kind == "replace"
    assert diff.replacements == [change]  # --fail-on-replace now sees it


def test_an_iam_member_role_replaces_the_binding() -> None:
    diff, change = _changed("gcp-a4", IAM_MEMBER, "dranet-nodes-role", "role",
                            "roles/container.nodeServiceAccount")
    assert (change.action, change.replacing_paths) == ("replace", ("role",))
    assert change.verdict is not None and change.verdict.kind == "replace"
    assert diff.replacements == [change]


@pytest.mark.parametrize(("stack", "type_", "name", "path", "value", "action"), [
    # display_name: no ForceNew (L97-101); account_id: L93.
    ("gcp-a4", "gcp:serviceaccount/account:Account", "dranet-nodes", "displayName", "x",
     "update"),
    ("gcp-a4", "gcp:serviceaccount/account:Account", "dranet-nodes", "accountId", "x-nodes",
     "replace"),
    # log_config: none; router: L315.
    ("gcp-a4", "gcp:compute/routerNat:RouterNat", "dranet-nat", "logConfig",
     {"enable": False, "filter": "ERRORS_ONLY"}, "update"),
    ("gcp-a4", "gcp:compute/routerNat:RouterNat", "dranet-nat", "router", "other-router",
     "replace"),
    # statements: none (L50-57); name: L48.
    ("oci-h100", "oci:Identity/policy:Policy", "oci-h100-compute-cluster-launch",
     "statements", ["Allow group a to read all-resources in tenancy"], "update"),
    ("oci-h100", "oci:Identity/policy:Policy", "oci-h100-compute-cluster-launch", "name",
     "other", "replace"),
    # route_rules: none (L61-); vcn_id: L39.
    ("oci-h100", "oci:Core/routeTable:RouteTable", "oci-h100-private-rt", "routeRules", [],
     "update"),
    ("oci-h100", "oci:Core/routeTable:RouteTable", "oci-h100-private-rt", "vcnId",
     "ocid1.vcn.oc1.iad.other", "replace"),
])
def test_verdicts_follow_the_marks(stack: str, type_: str, name: str, path: str, value: Any,
                                   action: str) -> None:
    _diff, change = _changed(stack, type_, name, path, value)
    assert change.action == action
