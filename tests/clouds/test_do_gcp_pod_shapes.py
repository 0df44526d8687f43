"""Pods with fewer GPUs than the node, on fabrics where that cannot work: refused.

Sources (expected values are written from them, not from the code):
* container-engine-accelerators gpudirect-tcpxo/README.md (992db81257553607), release
  "Jan 9, 2026" (installer v1.0.15, the pinned one): NCCL_FASTRAK_IFNAME=eth1..eth8 and
  CUDA_VISIBLE_DEVICES=0,1,2,3,4,5,6,7; the guest config checker enforces the config.
* DigitalOcean "How to Configure Networking for Multi-Node GPU Worker Nodes" (the seed
  shared/seeds/digitalocean-doks-multinode-gpu.md, lines 19-21 and 80-86): Multus moves
  fabric0..7 "into the container namespace via the host-device plugin"; pods request
  rdma/fabric0..7 with 8 GPUs.
* GKE multi-networking: deviceMode RDMA Networks rdma-0..7 are attached by annotation,
  with no link to the GPUs the device plugin picks.
"""

from __future__ import annotations

import pytest

from gpu_fabric.errors import SpecError
from gpu_fabric.fabric.injection import guard_policy, mutate_policy
from gpu_fabric.fabric.workload import FragmentError, pod_fragment
from tests.fabric_helpers import existing, fabric_of

DO_H200 = "gpu-h200x8-1128gb-fabric-contracted"


@pytest.mark.parametrize(
    ("cloud", "machine", "fabric", "words"),
    [
        ("gcp", "a3-megagpu-8g", {}, "NCCL_FASTRAK_IFNAME=eth1..eth8"),
        ("gcp", "a3-highgpu-8g", {}, "NCCL_GPUDIRECTTCPX_SOCKET_IFNAME=eth1..eth4"),
        ("gcp", "a3-ultragpu-8g", {"mode": "device-plugin"}, "fabric.mode: dra"),
        ("digitalocean", DO_H200, {}, "host-device"),
    ],
)
def test_partial_node_pods_are_refused_in_the_fragment_helper(cloud, machine, fabric, words):
    fab = fabric_of(existing(cloud, machine, fabric=fabric))
    for gpus in (1, 2, 4):
        with pytest.raises(FragmentError) as info:
            pod_fragment(fab, gpus)
        assert "only to pods with 8 GPUs" in str(info.value) and words in str(info.value)
    assert pod_fragment(fab, 8).gpus == 8


@pytest.mark.parametrize(
    ("cloud", "machine", "fabric"),
    [
        ("gcp", "a3-megagpu-8g", {}),
        ("gcp", "a3-ultragpu-8g", {"mode": "device-plugin"}),
        ("digitalocean", DO_H200, {}),
    ],
)
def test_admission_only_admits_full_node_fabric_pods(cloud, machine, fabric) -> None:
    spec = existing(cloud, machine, fabric=fabric)
    fab = fabric_of(spec)
    guard = guard_policy(spec, fab, several=False)
    rule = guard["spec"]["rules"][0]
    assert rule["validate"]["deny"]["conditions"]["all"][-1]["value"] == ["8"]
    assert fab.pod_gpu_counts_reason in rule["validate"]["message"]
    names = [r["name"] for r in mutate_policy(spec, fab, several=False)["spec"]["rules"]]
    assert names == ["fabric-8-gpu", "fabric-8-gpu-container"]


def test_a3_mega_full_node_env_names_exactly_the_pods_nics() -> None:
    import json

    fragment = pod_fragment(fabric_of(existing("gcp", "a3-megagpu-8g")), 8)
    interfaces = json.loads(fragment.annotations["networking.gke.io/interfaces"])
    fabric_ifs = [i["interfaceName"] for i in interfaces if i["network"] != "default"]
    assert fabric_ifs == ["eth1", "eth2", "eth3", "eth4", "eth5", "eth6", "eth7", "eth8"]
    assert [i["network"] for i in interfaces[1:]] == [f"vpc{n}" for n in range(1, 9)]
    assert fragment.env["NCCL_FASTRAK_IFNAME"] == "eth1,eth2,eth3,eth4,eth5,eth6,eth7,eth8"
    assert fragment.env["CUDA_VISIBLE_DEVICES"] == "0,1,2,3,4,5,6,7"


def test_a3_ultra_with_dra_keeps_partial_node_claims() -> None:
    fab = fabric_of(existing("gcp", "a3-ultragpu-8g", fabric={"mode": "dra", "dranet": "self"}))
    assert fab.pod_gpu_counts is None
    assert pod_fragment(fab, 2).resource_claims[0]["resourceClaimTemplateName"] == (
        "2-gpu-nic-aligned"
    )


@pytest.mark.parametrize(
    ("cloud", "machine"), [("gcp", "a3-megagpu-8g"), ("digitalocean", DO_H200)]
)
def test_partial_node_acceptance_is_refused_before_any_resource(cloud, machine) -> None:
    from gpu_fabric.fabric.description import describe_cluster
    from gpu_fabric.nccl.manifests import plan_acceptance

    spec = existing(cloud, machine, acceptance={"enabled": True, "gpus_per_node": 4})
    with pytest.raises(SpecError) as info:
        plan_acceptance(spec, describe_cluster(spec), "acc")
    assert "acceptance.gpus_per_node" in str(info.value)
