"""Rail claims: partial-node DRA claims that keep every pod of a job on the same rails.

Sources of the expected values (written literally below):

* shared/seeds/gke-nvidia-dra-dranet.md lines 119-135 and 294-314: the seed pinned
  GPU0/GPU1 with ``device.attributes["gpu.nvidia.com"].index`` (lines 135, 306) and
  aligned 2 GPUs + 2 NICs with ``matchAttribute: resource.kubernetes.io/pcieRoot``
  (line 314); lines 404-409: the pod of that claim got ``gpu0rdma0`` and ``gpu1rdma0``.
* NVIDIA/k8s-dra-driver-gpu v25.12.0 (components/gpu_fabric/versions.py NVIDIA_DRA_DRIVER):
  cmd/gpu-kubelet-plugin/partitions.go PartDevAttributes publishes type, uuid,
  productName, brand, architecture, cudaComputeCapability, driverVersion,
  cudaDriverVersion and resource.kubernetes.io/pciBusID; deviceinfo.go GetDevice
  adds resource.kubernetes.io/pcieRoot and addressingMode. No ``index``, no ``minor``
  (v25.3.0 deviceinfo.go still had both).
* kubernetes-sigs/dranet v1.4.0 (components/gpu_fabric/versions.py DRANET): pkg/apis/attributes.go
  ``AttrInterfaceName = "dra.net/ifName"``, ``AttrRDMA = "dra.net/rdma"``;
  pkg/inventory/db.go sets resource.kubernetes.io/pcieRoot on each NIC;
  examples/demo_gke_rdma/nccl-gib-test.yaml selects a GKE NIC with
  ``device.attributes["dra.net"].ifName == "gpu1rdma0"``.
* resource.k8s.io/v1 CELDeviceSelector: reading an attribute a device lacks is an
  evaluation error that aborts the allocation (hence the ``"ifName" in`` guard).
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from typing import Any

import celpy
import pytest

from gpu_fabric.fabric.manifests import dra
from gpu_fabric.fabric.naming import rail_sets
from gpu_fabric.fabric.workload import FragmentError, pod_fragment
from tests.fabric_helpers import existing, fabric_of, layer_of
from tests.support.manifests import validate

A4 = "a4-highgpu-8g"
SELF_DRANET = {"mode": "dra", "dranet": "self"}
RDMA = 'device.attributes["dra.net"].rdma == true'  # seed line 312
RAIL_TEMPLATES = [
    "1-gpu-nic-rail-0", "1-gpu-nic-rail-1", "1-gpu-nic-rail-2", "1-gpu-nic-rail-3",
    "1-gpu-nic-rail-4", "1-gpu-nic-rail-5", "1-gpu-nic-rail-6", "1-gpu-nic-rail-7",
    "2-gpu-nic-rails-0-1", "2-gpu-nic-rails-2-3", "2-gpu-nic-rails-4-5",
    "2-gpu-nic-rails-6-7", "4-gpu-nic-rails-0-3", "4-gpu-nic-rails-4-7",
]


def _templates(spec: Any) -> dict[str, dict[str, Any]]:
    return {m["metadata"]["name"]: m for m in layer_of(spec).manifests()
            if m["kind"] == "ResourceClaimTemplate"}


def _a4(**overrides: Any) -> dict[str, dict[str, Any]]:
    overrides.setdefault("fabric", SELF_DRANET)
    return _templates(existing("gcp", A4, **overrides))


# -- what is rendered -----------------------------------------------------------------
def test_a4_gets_one_template_per_rail_set_and_keeps_the_aligned_ones() -> None:
    names = list(_a4())
    assert [n for n in names if n.endswith("-aligned")] == [
        "1-gpu-nic-aligned", "2-gpu-nic-aligned", "4-gpu-nic-aligned", "8-gpu-nic-aligned"]
    assert [n for n in names if "-rail" in n] == RAIL_TEMPLATES


def test_two_gpu_rail_template_pins_the_seed_pairs_nics_by_name() -> None:
    # Seed lines 294-314 with the index selector replaced by the NICs' names: rails
    # 2-3 are gpu2rdma0/gpu3rdma0 (catalog a4-highgpu-8g nic_names; seed lines
    # 404-409 name the first pair gpu0rdma0, gpu1rdma0).
    devices = _a4()["2-gpu-nic-rails-2-3"]["spec"]["spec"]["devices"]
    assert devices == {
        "requests": [
            {"name": "gpu", "exactly": {"deviceClassName": "gpu.nvidia.com",
                                        "allocationMode": "ExactCount", "count": 2}},
            {"name": "nic", "exactly": {
                "deviceClassName": "dranet", "allocationMode": "ExactCount", "count": 2,
                "selectors": [
                    {"cel": {"expression": RDMA}},
                    {"cel": {"expression":
                             '"ifName" in device.attributes["dra.net"] && '
                             'device.attributes["dra.net"].ifName in '
                             '["gpu2rdma0", "gpu3rdma0"]'}},
                ],
            }},
        ],
        "constraints": [
            {"requests": ["gpu", "nic"], "matchAttribute": "resource.kubernetes.io/pcieRoot"},
        ],
    }


def test_one_gpu_and_four_gpu_rail_templates() -> None:
    templates = _a4()
    one = templates["1-gpu-nic-rail-5"]["spec"]["spec"]["devices"]
    assert one["requests"][1]["exactly"]["count"] == 1
    assert one["requests"][1]["exactly"]["selectors"][1] == {"cel": {"expression":
        '"ifName" in device.attributes["dra.net"] && '
        'device.attributes["dra.net"].ifName == "gpu5rdma0"'}}
    four = templates["4-gpu-nic-rails-4-7"]["spec"]["spec"]["devices"]
    # Two PCIe roots (2 GPUs + 2 NICs each, seed line 289), each pinned to its pair.
    assert [r["name"] for r in four["requests"]] == ["gpu-0", "nic-0", "gpu-1", "nic-1"]
    assert [r["exactly"]["selectors"][1]["cel"]["expression"]
            for r in four["requests"] if r["name"].startswith("nic")] == [
        '"ifName" in device.attributes["dra.net"] && '
        'device.attributes["dra.net"].ifName in ["gpu4rdma0", "gpu5rdma0"]',
        '"ifName" in device.attributes["dra.net"] && '
        'device.attributes["dra.net"].ifName in ["gpu6rdma0", "gpu7rdma0"]',
    ]
    assert four["constraints"] == [
        {"requests": ["gpu-0", "nic-0"], "matchAttribute": "resource.kubernetes.io/pcieRoot"},
        {"requests": ["gpu-1", "nic-1"], "matchAttribute": "resource.kubernetes.io/pcieRoot"},
    ]


def test_no_gpu_selector_names_an_attribute_the_pinned_driver_lacks() -> None:
    # v25.12.0 publishes no index/minor: a GPU selector on them would abort allocation.
    for template in _a4().values():
        for request in template["spec"]["spec"]["devices"]["requests"]:
            if request["name"].startswith("gpu"):
                assert "selectors" not in request["exactly"]


def test_v1beta1_rail_templates_are_flat() -> None:
    templates = _a4(kubernetes={"version": "1.33"},
                    fabric={**SELF_DRANET, "dra_api": "v1beta1"})
    nic = templates["1-gpu-nic-rail-0"]["spec"]["spec"]["devices"]["requests"][1]
    assert templates["1-gpu-nic-rail-0"]["apiVersion"] == "resource.k8s.io/v1beta1"
    assert nic["selectors"][1] == {"cel": {"expression":
        '"ifName" in device.attributes["dra.net"] && '
        'device.attributes["dra.net"].ifName == "gpu0rdma0"'}}


def test_pool_prefix_applies_to_rail_templates() -> None:
    spec = existing("gcp", A4, fabric=SELF_DRANET)
    fabric = fabric_of(spec)
    assert fabric.claim_prefix == ""  # one DRA pool: the seed's unprefixed names
    assert rail_sets(fabric, 2) == [(0, 1), (2, 3), (4, 5), (6, 7)]
    assert rail_sets(fabric, 8) == [(0, 1, 2, 3, 4, 5, 6, 7)]
    assert rail_sets(fabric, 3) == []  # 3 does not split 8 GPUs


def test_rail_sets_of_a_machine_whose_gpus_share_a_nic() -> None:
    # p4d.24xlarge: 2 GPUs share 1 EFA (aws/aws-ofi-nccl topology/p4d-24xl-topo.xml):
    # GPU0 and GPU1 are both on rail 0, so 1-GPU slices give 4 rail sets, not 8.
    fabric = fabric_of(existing("aws", "p4d.24xlarge", fabric={"mode": "dra"}))
    assert rail_sets(fabric, 1) == [(0,), (1,), (2,), (3,)]
    assert rail_sets(fabric, 4) == [(0, 1), (2, 3)]


# -- where it is not done -----------------------------------------------------------
def test_managed_dranet_keeps_todays_templates_only() -> None:
    # GKE-managed DRANet (driver mrdma.google.com): its published attributes are not
    # the self-installed DraNet's, so no rail templates are rendered.
    names = _templates(existing("gcp", A4, kubernetes={"version": "1.34.1-gke.1829001"},
                                fabric={"mode": "dra"}))
    assert list(names) == ["1-gpu-nic-aligned", "2-gpu-nic-aligned", "4-gpu-nic-aligned",
                           "8-gpu-nic-aligned"]


@pytest.mark.parametrize(("cloud", "machine"), [
    ("aws", "p5.48xlarge"),  # catalog has no EFA interface names
    ("oci", "BM.GPU.H100.8"),  # rdma0..15 not confirmed as DraNet ifNames in rail order
])
def test_other_clouds_keep_todays_templates(cloud: str, machine: str) -> None:
    names = _templates(existing(cloud, machine, fabric={"mode": "dra"}))
    assert names and not [n for n in names if "-rail" in n]


def test_nic_names_must_fit_the_groups() -> None:
    with pytest.raises(ValueError) as info:
        dra.aligned_claim_spec(dra.V1, gpus=2, gpu_class="g", nic_class="n",
                               gpus_per_root=2, nics_per_root=2, nic_names=["gpu0rdma0"])
    assert str(info.value) == (
        "nic_names: a 2-GPU claim has 1 group(s) of 2 NIC(s), got ['gpu0rdma0']")
    with pytest.raises(ValueError, match="at least one interface name"):
        dra.ifname_selector("dra.net", [])


# -- valid against resource.k8s.io and CEL that compiles --------------------------------
def test_rail_templates_are_valid_resource_k8s_io_v1() -> None:
    for name in RAIL_TEMPLATES:
        assert validate(_a4()[name], "1.34") == []


# A simulated A4 node, with the attribute names the pinned drivers publish (module
# docstring). The pcieRoot values are made up; the layout is the seed's: GPU 2k, 2k+1
# and NICs gpu{2k}rdma0, gpu{2k+1}rdma0 share a root (seed lines 289-291, 404-409).
def _a4_node() -> list[dict[str, Any]]:
    devices: list[dict[str, Any]] = []
    for i in range(8):
        root = {"pcieRoot": f"pci0000:{0x10 * (i // 2 + 1):02x}",
                "pciBusID": f"0000:{0x8f + i:02x}:00.0"}
        devices.append({"name": f"gpu-{i}", "driver": "gpu.nvidia.com", "attributes": {
            "gpu.nvidia.com": {"type": "gpu", "uuid": f"GPU-{i}", "productName": "B200"},
            "resource.kubernetes.io": root}})
        devices.append({"name": f"gpu{i}rdma0", "driver": "dra.net", "attributes": {
            "dra.net": {"ifName": f"gpu{i}rdma0", "rdma": True},
            "resource.kubernetes.io": {"pcieRoot": root["pcieRoot"]}}})
    # gVNICs (no RDMA) and an RDMA device without a netdev (no ifName, DraNet IB-only).
    devices.append({"name": "eth0", "driver": "dra.net",
                    "attributes": {"dra.net": {"ifName": "eth0", "rdma": False}}})
    devices.append({"name": "mlx5_9", "driver": "dra.net",
                    "attributes": {"dra.net": {"rdma": True}}})
    return devices


CLASS_DRIVER = {"gpu.nvidia.com": "gpu.nvidia.com", "dranet": "dra.net"}


# Domains the selectors read: an unknown prefix is an empty map (CELDeviceSelector).
DOMAINS = ("gpu.nvidia.com", "dra.net", "resource.kubernetes.io")


def _matches(expressions: Sequence[str], device: Mapping[str, Any]) -> bool:
    env = celpy.Environment()
    attributes = {d: device["attributes"].get(d, {}) for d in DOMAINS}
    activation = {"device": celpy.json_to_cel(
        {"driver": device["driver"], "attributes": attributes})}
    for expression in expressions:  # in order; the first false stops (as the allocator)
        result = env.program(env.compile(expression)).evaluate(activation)
        if not isinstance(result, celpy.celtypes.BoolType):
            raise AssertionError(f"{expression!r} gave {result!r}, not a bool")
        if not result:
            return False
    return True


def _allocate(template: Mapping[str, Any], node: list[dict[str, Any]],
              taken: set[str]) -> dict[str, list[str]]:
    """First fit of a claim on a node, as the scheduler's allocator: selectors, counts,
    matchAttribute constraints, devices not taken by earlier claims."""
    devices = template["spec"]["spec"]["devices"]
    requests = [(r["name"], r["exactly"]) for r in devices["requests"]]
    candidates = []
    for _, req in requests:
        exprs = [s["cel"]["expression"] for s in req.get("selectors", [])]
        pool = [d for d in node if d["name"] not in taken
                and d["driver"] == CLASS_DRIVER[req["deviceClassName"]]
                and _matches(exprs, d)]
        candidates.append(list(itertools.combinations(pool, req["count"])))
    for choice in itertools.product(*candidates):
        names = [d["name"] for picked in choice for d in picked]
        if len(set(names)) != len(names):
            continue
        by_request = dict(zip([n for n, _ in requests], choice, strict=True))
        ok = True
        for constraint in devices.get("constraints", []):
            domain, _, attr = constraint["matchAttribute"].partition("/")
            values = {d["attributes"].get(domain, {}).get(attr)
                      for r in constraint["requests"] for d in by_request[r]}
            ok = ok and len(values) == 1 and None not in values
        if ok:
            return {r: [d["name"] for d in picked] for r, picked in by_request.items()}
    raise AssertionError("the claim does not fit the node")


def test_every_selector_compiles_and_evaluates_to_a_bool_on_every_device() -> None:
    # Includes eth0 (rdma false) and an RDMA device without ifName: the guard keeps the
    # ifName selector a bool there instead of an error that would abort allocation.
    node = _a4_node()
    for template in _a4().values():
        for request in template["spec"]["spec"]["devices"]["requests"]:
            exprs = [s["cel"]["expression"] for s in request["exactly"].get("selectors", [])]
            driver = CLASS_DRIVER[request["exactly"]["deviceClassName"]]
            for expression in exprs:
                # _matches raises on a CEL error or a non-bool result; every selector
                # must also pick at least one device of the A4 node (an always-false
                # selector would leave the claim unallocatable).
                picked = [d["name"] for d in node
                          if d["driver"] == driver and _matches([expression], d)]
                assert picked, f"{expression!r} matches no device of the A4 node"


def test_unguarded_ifname_read_errors_on_a_device_without_it() -> None:
    # Why the guard: the upstream example's plain read fails on mlx5_9 (no ifName).
    with pytest.raises(celpy.CELEvalError):
        _matches(['device.attributes["dra.net"].ifName == "gpu1rdma0"'],
                 {"driver": "dra.net", "attributes": {"dra.net": {"rdma": True}}})


def test_pods_of_one_job_land_on_the_same_rails_on_every_node() -> None:
    templates = _a4()
    node_a, node_b = _a4_node(), _a4_node()
    # Node A already runs a pod on root 0 (GPUs 0-1, NICs gpu0rdma0, gpu1rdma0).
    busy = {"gpu-0", "gpu-1", "gpu0rdma0", "gpu1rdma0"}
    # Today's template: each pod takes the first free root, so the job's two pods
    # sit on rails 2-3 on node A and rails 0-1 on node B.
    aligned = templates["2-gpu-nic-aligned"]
    assert _allocate(aligned, node_a, busy)["nic"] == ["gpu2rdma0", "gpu3rdma0"]
    assert _allocate(aligned, node_b, set())["nic"] == ["gpu0rdma0", "gpu1rdma0"]
    # A rail template: the same NICs and their root's GPUs on both nodes.
    rails = templates["2-gpu-nic-rails-2-3"]
    assert _allocate(rails, node_a, busy) == {"gpu": ["gpu-2", "gpu-3"],
                                              "nic": ["gpu2rdma0", "gpu3rdma0"]}
    assert _allocate(rails, node_b, set()) == {"gpu": ["gpu-2", "gpu-3"],
                                               "nic": ["gpu2rdma0", "gpu3rdma0"]}
    # 4 GPUs on rails 4-7: each root's GPUs with that root's NICs.
    assert _allocate(templates["4-gpu-nic-rails-4-7"], node_b, set()) == {
        "gpu-0": ["gpu-4", "gpu-5"], "nic-0": ["gpu4rdma0", "gpu5rdma0"],
        "gpu-1": ["gpu-6", "gpu-7"], "nic-1": ["gpu6rdma0", "gpu7rdma0"]}
    # A 1-GPU rail claim: its NIC by name, a GPU of that NIC's root.
    one = _allocate(templates["1-gpu-nic-rail-3"], node_b, set())
    assert one["nic"] == ["gpu3rdma0"] and one["gpu"][0] in ("gpu-2", "gpu-3")


# -- how a job picks its rails ------------------------------------------------------------
def test_pod_fragment_claims_through_the_rail_template() -> None:
    fabric = fabric_of(existing("gcp", A4, fabric=SELF_DRANET))
    assert pod_fragment(fabric, 2, rails=(2, 3)).resource_claims == [
        {"name": "gpu", "resourceClaimTemplateName": "2-gpu-nic-rails-2-3"}]
    assert pod_fragment(fabric, 1, rails=(5,)).resource_claims == [
        {"name": "gpu", "resourceClaimTemplateName": "1-gpu-nic-rail-5"}]
    # Without rails: today's template (any free root).
    assert pod_fragment(fabric, 2).resource_claims == [
        {"name": "gpu", "resourceClaimTemplateName": "2-gpu-nic-aligned"}]


def test_pod_fragment_refuses_rails_that_are_not_a_rail_set() -> None:
    fabric = fabric_of(existing("gcp", A4, fabric=SELF_DRANET))
    with pytest.raises(FragmentError) as info:
        pod_fragment(fabric, 2, rails=(1, 2))
    assert str(info.value) == (
        "rails: a 2-GPU pod of pool gpu takes one of the rail sets [0, 1], [2, 3], [4, 5], "
        "[6, 7]; got [1, 2]")
    with pytest.raises(FragmentError) as info:
        pod_fragment(fabric, 8, rails=(0, 1, 2, 3, 4, 5, 6, 7))
    assert "none (a full node holds every rail)" in str(info.value)
    managed = fabric_of(existing("gcp", A4, kubernetes={"version": "1.34.1-gke.1829001"},
                                 fabric={"mode": "dra"}))
    with pytest.raises(FragmentError) as info:
        pod_fragment(managed, 2, rails=(0, 1))
    assert str(info.value).startswith("rails: pool gpu has no rail claim templates")
