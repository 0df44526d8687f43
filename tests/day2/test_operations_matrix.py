"""The operations matrix (issue 32): eight day-2 changes on every committed stack, each
planned offline and diffed against the committed plan, with the expected verdict.

The base of every diff is the stack's committed plan (tests/data/golden/<stack>/plan.json,
kept equal to a fresh plan by tests/plan/test_golden.py); the head is the plan of the
stack's spec edited by tests/day2/operations.py. ``summarize`` (tests/day2/summary.py)
lists each cloud resource's verdict as (name, kind, nodes at once, spare capacity) and
counts the Kubernetes objects per kind.

Where each expected verdict comes from (the numbers are in clouds/<cloud>/plan_facts.py
with the same sources; the runbook for each is docs/day2.md):

* resize: node counts are updated in place on every cloud (GKE nodeCount, EKS
  scalingConfig with desiredSize ignored, AKS count, DOKS nodeCount, OKE size). On OKE
  the GPU Operator toolkit rollout Job's arguments carry the node count, and a Job's
  ``spec.template`` change replaces it (pulumi-kubernetes forceNew, provider/pkg/
  provider/diff.go L80 at v4.32.0 a03ff6ba58; plan/data/replacing_inputs.json): the
  Job is re-run (same on add_pool).
* k8s_minor: control planes upgrade in place (GKE minMasterVersion, EKS version, AKS
  kubernetesVersion); EKS node groups roll (managed-node-update-behavior: on-demand groups
  launch up to 2 new nodes per AZ first + maxUnavailable 1 = 3, spare needed; the
  reserved aws-p4d group uses MINIMAL: 1, none); the AKS GPU pool rolls with maxSurge 0 /
  maxUnavailable 1 (upgrade-aks-node-pools-rolling); DOKS rolls every node, one at a time
  without surge_upgrade (upgrade-cluster); OKE: the library has no 1.35 in its table and
  refuses it.
* node_image: GKE image type rolls the pool with surge 0 / unavailable 1 (GKE "manual
  changes that recreate the nodes"); GKE DRA pools refuse a non-COS image; AKS osSKU
  Ubuntu -> Ubuntu2404 is updated in place (azure-native marks no replacement:
  managedClusters.json 2025-09-01 gives osSKU no x-ms-mutability and forceNewMap has no
  osSKU) and AKS moves a pool between Linux OS SKUs by reimaging its nodes through the
  node image upgrade process (azure-aks-docs@fb060abe upgrade-os-version.md L65-83;
  azure-docs@12c695d5 tutorial-azure-linux-migration.md "In-place OS SKU migration"):
  rolling with maxSurge 0 / maxUnavailable 1, one node at a time, no spare capacity; OKE's
  image reaches new nodes only without node cycling (in place); EKS and DOKS take no node image
  input (None).
* chart_bump: kyverno 3.6.1 -> 3.6.2 is one Helm release updated in place on every stack.
* dra_toggle: GKE A3 Ultra / A4 pools replace (networkConfig, gpuDriverVersion: ForceNew,
  gcp plan_facts) and the RDMA networks go; GKE A3 Mega (TCPXO) and DOKS refuse DRA; on
  the other clouds only Kubernetes objects change (and AKS/OKE pool labels, in place).
* onto_reservation: GKE reservationAffinity replaces the pool (gcp plan_facts); EKS: a new
  launch template version rolls the group (with MINIMAL now) and the placement group goes;
  OKE placement is updated in place; AKS and DigitalOcean offer no reservation, aws-p4d,
  gcp-a3-ultra and gcp-a4 (a specific reservation since issue 29) are on one already (None).
* add_team / remove_team: Kubernetes objects only (namespace, quota, queues, policy).
* add_pool: the new pool's cloud resources are created, nothing is replaced or
  destroyed. On gcp-a4 (DRA) the existing pool keeps its unprefixed claim template
  names (the first DRA pool's, fabric/description.py describe_cluster) and the new
  pool's 18 are created with its own prefix (tests/day2/test_add_pool.py lists them).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from gpu_fabric.errors import SpecError
from gpu_fabric.plan import load_stack_file
from gpu_fabric.plan.diff import diff_plans
from gpu_fabric.plan.runner import run_spec
from gpu_fabric.plan.stackfile import available_stacks
from tests.day2.operations import OPERATIONS, apply
from tests.day2.summary import summarize

GOLDEN = Path(__file__).resolve().parents[1] / "data" / "golden"
REFUSED = {
    ("do-h200", "dra_toggle"): "fabric.mode is dra (GPUs through the DRA driver), which "
                               "excludes the GPU device plugin",
    ("do-mi300x", "dra_toggle"): "fabric.mode is dra (GPUs through the DRA driver), which "
                                 "excludes the GPU device plugin",
    ("gcp-a3-mega", "dra_toggle"): "use GKE multi-networking, not DRA",
    ("gcp-a4", "node_image"): "DRA pools get the NVIDIA driver from GKE's COS driver "
                              "installer",
    ("oci-a100", "k8s_minor"): "OKE has no such version in this library's table",
    ("oci-h100", "k8s_minor"): "OKE has no such version in this library's table",
}

EXPECTED: dict[str, dict[str, Any]] = \
{'aws-p4d': {'resize': {'cloud': [('eks-p4d-p4d-ng', 'in-place', None, None)],
                            'kubernetes': {}},
                 'k8s_minor': {'cloud': [('eks-p4d-coredns', 'in-place', None, None),
                                         ('eks-p4d-eks', 'in-place', None, None),
                                         ('eks-p4d-kube-proxy', 'in-place', None, None),
                                         ('eks-p4d-p4d-ng', 'rolling', '1', False),
                                         ('eks-p4d-system', 'rolling', '3', True)],
                               'kubernetes': {}},
                 'node_image': None,
                 'chart_bump': {'cloud': [], 'kubernetes': {'in-place': 1}},
                 'dra_toggle': {'cloud': [],
                                'kubernetes': {'create': 8, 'destroy': 3, 'in-place': 2}},
                 'onto_reservation': None,
                 'add_team': {'cloud': [], 'kubernetes': {'create': 19}},
                 'remove_team': {'cloud': [], 'kubernetes': {'destroy': 19}},
                 'add_pool': {'cloud': [('eks-p4d-extra-lt', 'create', None, None),
                                        ('eks-p4d-extra-ng', 'create', None, None)],
                              'kubernetes': {'create': 3, 'in-place': 2}}},
     'aws-p5': {'resize': {'cloud': [('eks-p5-p5-ng', 'in-place', None, None)],
                           'kubernetes': {}},
                'k8s_minor': {'cloud': [('eks-p5-coredns', 'in-place', None, None),
                                         ('eks-p5-eks', 'in-place', None, None),
                                         ('eks-p5-kube-proxy', 'in-place', None, None),
                                        ('eks-p5-p5-ng', 'rolling', '3', True),
                                        ('eks-p5-system', 'rolling', '3', True)],
                              'kubernetes': {}},
                'node_image': None,
                'chart_bump': {'cloud': [], 'kubernetes': {'in-place': 1}},
                'dra_toggle': {'cloud': [],
                               'kubernetes': {'create': 8, 'destroy': 3, 'in-place': 2}},
                'onto_reservation': {'cloud': [('eks-p5-p5-lt', 'rolling', None, None),
                                               ('eks-p5-p5-ng', 'in-place', None, None),
                                               ('eks-p5-p5-pg', 'destroy', None, None)],
                                     'kubernetes': {}},
                'add_team': {'cloud': [], 'kubernetes': {'create': 19}},
                'remove_team': {'cloud': [], 'kubernetes': {'destroy': 19}},
                'add_pool': {'cloud': [('eks-p5-extra-lt', 'create', None, None),
                                       ('eks-p5-extra-ng', 'create', None, None),
                                       ('eks-p5-extra-pg', 'create', None, None)],
                             'kubernetes': {'create': 3, 'in-place': 2}}},
     'azure-ndv4': {'resize': {'cloud': [('azure-ndv4-pool-a100', 'in-place', None, None)],
                               'kubernetes': {}},
                    'k8s_minor': {'cloud': [('azure-ndv4-aks', 'in-place', None, None),
                                            ('azure-ndv4-pool-a100', 'rolling', '1', False)],
                                  'kubernetes': {}},
                    'node_image': {'cloud': [('azure-ndv4-pool-a100', 'rolling', '1', False)],
                                   'kubernetes': {}},
                    'chart_bump': {'cloud': [], 'kubernetes': {'in-place': 1}},
                    'dra_toggle': {'cloud': [('azure-ndv4-pool-a100', 'in-place', None, None)],
                                   'kubernetes': {'create': 6, 'in-place': 3}},
                    'onto_reservation': None,
                    'add_team': {'cloud': [], 'kubernetes': {'create': 20, 'in-place': 2}},
                    'remove_team': {'cloud': [], 'kubernetes': {'destroy': 20, 'in-place': 2}},
                    'add_pool': {'cloud': [('azure-ndv4-pool-extra', 'create', None, None)],
                                 'kubernetes': {'create': 3, 'in-place': 3}}},
     'azure-ndv5': {'resize': {'cloud': [('azure-ndv5-pool-h100', 'in-place', None, None)],
                               'kubernetes': {}},
                    'k8s_minor': {'cloud': [('azure-ndv5-aks', 'in-place', None, None),
                                            ('azure-ndv5-pool-h100', 'rolling', '1', False)],
                                  'kubernetes': {}},
                    'node_image': {'cloud': [('azure-ndv5-pool-h100', 'rolling', '1', False)],
                                   'kubernetes': {}},
                    'chart_bump': {'cloud': [], 'kubernetes': {'in-place': 1}},
                    'dra_toggle': {'cloud': [('azure-ndv5-pool-h100', 'in-place', None, None)],
                                   'kubernetes': {'create': 10, 'in-place': 3}},
                    'onto_reservation': None,
                    'add_team': {'cloud': [], 'kubernetes': {'create': 20, 'in-place': 2}},
                    'remove_team': {'cloud': [], 'kubernetes': {'destroy': 20, 'in-place': 2}},
                    'add_pool': {'cloud': [('azure-ndv5-pool-extra', 'create', None, None)],
                                 'kubernetes': {'create': 3, 'in-place': 3}}},
     'do-h200': {'resize': {'cloud': [('do-h200-h200', 'in-place', None, None)],
                            'kubernetes': {}},
                 'k8s_minor': {'cloud': [('do-h200-doks', 'rolling', '1', False)],
                               'kubernetes': {}},
                 'node_image': None,
                 'chart_bump': {'cloud': [], 'kubernetes': {'in-place': 1}},
                 'dra_toggle': 'refused',
                 'onto_reservation': None,
                 'add_team': {'cloud': [], 'kubernetes': {'create': 27, 'in-place': 2}},
                 'remove_team': {'cloud': [], 'kubernetes': {'destroy': 27, 'in-place': 2}},
                 'add_pool': {'cloud': [('do-h200-extra', 'create', None, None)],
                              'kubernetes': {'create': 3, 'in-place': 3}}},
     'do-mi300x': {'resize': {'cloud': [('do-mi300x-mi300x', 'in-place', None, None)],
                              'kubernetes': {}},
                   'k8s_minor': {'cloud': [('do-mi300x-doks', 'rolling', '1', False)],
                                 'kubernetes': {}},
                   'node_image': None,
                   'chart_bump': {'cloud': [], 'kubernetes': {'in-place': 1}},
                   'dra_toggle': 'refused',
                   'onto_reservation': None,
                   'add_team': {'cloud': [], 'kubernetes': {'create': 27, 'in-place': 2}},
                   'remove_team': {'cloud': [], 'kubernetes': {'destroy': 27, 'in-place': 2}},
                   'add_pool': {'cloud': [('do-mi300x-extra', 'create', None, None)],
                                'kubernetes': {'create': 3, 'in-place': 3}}},
     'existing': {'resize': {'cloud': [], 'kubernetes': {}},
                  'k8s_minor': {'cloud': [], 'kubernetes': {}},
                  'node_image': None,
                  'chart_bump': {'cloud': [], 'kubernetes': {'in-place': 1}},
                  'dra_toggle': {'cloud': [], 'kubernetes': {'create': 4, 'in-place': 2}},
                  'onto_reservation': None,
                  'add_team': {'cloud': [], 'kubernetes': {'create': 26, 'in-place': 2}},
                  'remove_team': {'cloud': [], 'kubernetes': {'destroy': 26, 'in-place': 2}},
                  'add_pool': {'cloud': [], 'kubernetes': {'create': 2}}},
     'gcp-a3-mega': {'resize': {'cloud': [('a3mega-a3mega', 'in-place', None, None)],
                                'kubernetes': {}},
                     'k8s_minor': {'cloud': [('a3mega-gke', 'in-place', None, None)],
                                   'kubernetes': {}},
                     'node_image': {'cloud': [('a3mega-a3mega', 'rolling', '1', False)],
                                    'kubernetes': {}},
                     'chart_bump': {'cloud': [], 'kubernetes': {'in-place': 1}},
                     'dra_toggle': 'refused',
                     'onto_reservation': {'cloud': [('a3mega-a3mega', 'replace', None, None)],
                                          'kubernetes': {}},
                     'add_team': {'cloud': [], 'kubernetes': {'create': 19}},
                     'remove_team': {'cloud': [], 'kubernetes': {'destroy': 19}},
                     'add_pool': {'cloud': [('a3mega-extra', 'create', None, None)],
                                  'kubernetes': {'create': 3, 'in-place': 2}}},
     'gcp-a3-ultra': {'resize': {'cloud': [('a3ultra-a3ultra', 'in-place', None, None)],
                                 'kubernetes': {}},
                      'k8s_minor': {'cloud': [('a3ultra-gke', 'in-place', None, None)],
                                    'kubernetes': {}},
                      'node_image': {'cloud': [('a3ultra-a3ultra', 'rolling', '1', False)],
                                     'kubernetes': {}},
                      'chart_bump': {'cloud': [], 'kubernetes': {'in-place': 1}},
                      'dra_toggle': {'cloud': [('a3ultra-a3ultra', 'replace', None, None),
                                               ('a3ultra-gvnic-internal',
                                                'destroy',
                                                None,
                                                None),
                                               ('a3ultra-gvnic-net', 'destroy', None, None),
                                               ('a3ultra-gvnic-sub', 'destroy', None, None),
                                               ('a3ultra-rdma-net', 'destroy', None, None),
                                               ('a3ultra-rdma-sub-0', 'destroy', None, None),
                                               ('a3ultra-rdma-sub-1', 'destroy', None, None),
                                               ('a3ultra-rdma-sub-2', 'destroy', None, None),
                                               ('a3ultra-rdma-sub-3', 'destroy', None, None),
                                               ('a3ultra-rdma-sub-4', 'destroy', None, None),
                                               ('a3ultra-rdma-sub-5', 'destroy', None, None),
                                               ('a3ultra-rdma-sub-6', 'destroy', None, None),
                                               ('a3ultra-rdma-sub-7', 'destroy', None, None)],
                                     'kubernetes': {'create': 9, 'destroy': 18, 'in-place': 2}},
                      'onto_reservation': None,
                      'add_team': {'cloud': [], 'kubernetes': {'create': 19}},
                      'remove_team': {'cloud': [], 'kubernetes': {'destroy': 19}},
                      'add_pool': {'cloud': [('a3ultra-extra', 'create', None, None)],
                                   'kubernetes': {'create': 3, 'in-place': 2}}},
     'gcp-a4': {'resize': {'cloud': [('dranet-dranet-a4', 'in-place', None, None)],
                           'kubernetes': {}},
                'k8s_minor': {'cloud': [('dranet-gke', 'in-place', None, None)],
                              'kubernetes': {}},
                'node_image': 'refused',
                'chart_bump': {'cloud': [], 'kubernetes': {'in-place': 1}},
                'dra_toggle': {'cloud': [('dranet-dranet-a4', 'replace', None, None)],
                               'kubernetes': {'create': 18, 'destroy': 25, 'in-place': 2}},
                'onto_reservation': None,
                'add_team': {'cloud': [], 'kubernetes': {'create': 37, 'in-place': 2}},
                'remove_team': {'cloud': [], 'kubernetes': {'destroy': 37, 'in-place': 2}},
                'add_pool': {'cloud': [('dranet-extra', 'create', None, None)],
                             'kubernetes': {'create': 21, 'in-place': 2}}},
     'oci-a100': {'resize': {'cloud': [('oci-a100-a100', 'in-place', None, None)],
                             'kubernetes': {'replace': 1}},
                  'k8s_minor': 'refused',
                  'node_image': {'cloud': [('oci-a100-a100', 'in-place', None, None)],
                                 'kubernetes': {}},
                  'chart_bump': {'cloud': [], 'kubernetes': {'in-place': 1}},
                  'dra_toggle': {'cloud': [('oci-a100-a100', 'in-place', None, None)],
                                 'kubernetes': {'create': 8, 'destroy': 16, 'in-place': 3}},
                  'onto_reservation': {'cloud': [('oci-a100-a100', 'in-place', None, None)],
                                       'kubernetes': {}},
                  'add_team': {'cloud': [], 'kubernetes': {'create': 20, 'in-place': 2}},
                  'remove_team': {'cloud': [], 'kubernetes': {'destroy': 20, 'in-place': 2}},
                  'add_pool': {'cloud': [('oci-a100-extra', 'create', None, None),
                                         ('oci-a100-extra-rdma', 'create', None, None)],
                               'kubernetes': {'create': 4, 'in-place': 3, 'replace': 1}}},
     'oci-h100': {'resize': {'cloud': [('oci-h100-h100', 'in-place', None, None)],
                             'kubernetes': {'replace': 1}},
                  'k8s_minor': 'refused',
                  'node_image': {'cloud': [('oci-h100-h100', 'in-place', None, None)],
                                 'kubernetes': {}},
                  'chart_bump': {'cloud': [], 'kubernetes': {'in-place': 1}},
                  'dra_toggle': {'cloud': [('oci-h100-h100', 'in-place', None, None)],
                                 'kubernetes': {'create': 8, 'destroy': 16, 'in-place': 3}},
                  'onto_reservation': {'cloud': [('oci-h100-h100', 'in-place', None, None)],
                                       'kubernetes': {}},
                  'add_team': {'cloud': [], 'kubernetes': {'create': 20, 'in-place': 2}},
                  'remove_team': {'cloud': [], 'kubernetes': {'destroy': 20, 'in-place': 2}},
                  'add_pool': {'cloud': [('oci-h100-extra', 'create', None, None),
                                         ('oci-h100-extra-rdma', 'create', None, None)],
                               'kubernetes': {'create': 4, 'in-place': 3, 'replace': 1}}}}

def test_every_committed_stack_is_in_the_matrix() -> None:
    assert sorted(EXPECTED) == available_stacks()
    for stack, row in EXPECTED.items():
        assert set(row) == {*OPERATIONS, "remove_team"}, stack


@pytest.mark.parametrize("stack", sorted(EXPECTED))
def test_operations_matrix(stack: str) -> None:
    spec = load_stack_file(stack).cluster
    base = json.loads((GOLDEN / stack / "plan.json").read_text())
    got: dict[str, Any] = {}
    for op in OPERATIONS:
        head_spec = apply(op, spec)
        if head_spec is None:
            got[op] = None
            continue
        try:
            head = run_spec(head_spec, stack=stack).to_json()
        except SpecError as err:
            assert REFUSED[(stack, op)] in str(err), str(err)
            got[op] = "refused"
            continue
        got[op] = summarize(diff_plans(base, head))
        if op == "add_team":
            got["remove_team"] = summarize(diff_plans(head, base))
    assert got == EXPECTED[stack]
