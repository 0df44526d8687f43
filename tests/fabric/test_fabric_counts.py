"""Every count the fabric layer emits comes from the machine catalog, for every machine."""

from __future__ import annotations

import json

import pytest

from gpu_fabric.catalog import Cloud, FabricKind, GpuVendor, machines
from gpu_fabric.errors import SpecError
from gpu_fabric.fabric.description import Attach
from gpu_fabric.fabric.workload import pod_fragment
from tests.fabric_helpers import existing, fabric_of, layer_of

FABRIC = machines(fabric_only=True)


def _spec(m, **fabric):
    return existing(m.cloud.value, m.name, fabric=fabric) if fabric else existing(
        m.cloud.value, m.name
    )


@pytest.mark.parametrize("m", FABRIC, ids=lambda m: m.name)
def test_full_node_fragment_carries_every_fabric_nic(m) -> None:
    fabric = fabric_of(_spec(m))
    fragment = pod_fragment(fabric, m.gpus)
    assert len(fabric.rails) == m.fabric_nics
    if fabric.attach is Attach.DEVICE_PLUGIN:
        per_rail = [k for k in fragment.limits if k.startswith("rdma/fabric")]
        pooled = {k: int(v) for k, v in fragment.limits.items() if k in fabric.pooled_resources}
        if per_rail:
            assert len(per_rail) == m.fabric_nics
        elif fabric.pooled_scaling == "per_gpu":
            assert sum(pooled.values()) == m.fabric_nics
        else:
            assert pooled and all(v == 1 for v in pooled.values())
    elif fabric.attach is Attach.GKE_MULTINETWORK:
        interfaces = json.loads(fragment.annotations["networking.gke.io/interfaces"])
        fabric_ifs = [i for i in interfaces if i["network"].startswith(("rdma-", "vpc"))]
        assert len(fabric_ifs) == m.fabric_nics
    elif fabric.attach is Attach.DRA:
        assert fragment.resource_claims
    if m.fabric.is_rdma:
        assert "IPC_LOCK" in fragment.capabilities
    assert fragment.env.get("NCCL_NET") == m.nccl.net
    assert any(v["name"] == "shared-memory" for v in fragment.volumes)


@pytest.mark.parametrize("m", FABRIC, ids=lambda m: m.name)
def test_gpu_share_gets_the_rail_aligned_share_of_pooled_devices(m) -> None:
    fabric = fabric_of(_spec(m))
    if not fabric.pooled_resources or fabric.pooled_scaling != "per_gpu":
        pytest.skip("no per-GPU pooled device resource on this fabric")
    # Reads the per-GPU amount only: p4d device-plugin pools refuse 1-GPU pods (issue 30).
    one = pod_fragment(fabric, 1, strict=False)
    total = sum(int(one.limits[k]) for k in fabric.pooled_resources)
    assert total == ONE_GPU_NICS[m.name]


# Fabric NICs one GPU's pod gets, written out from the pairing sources (not from
# Machine.nics_for): aws/aws-ofi-nccl topology/p4d-24xl-topo.xml (2 GPUs share 1 EFA)
# and p5.48xl-topo.xml (4 EFA per GPU); the other AWS shapes and GB200 from their NIC
# and GPU counts (16 EFA / 8 GPUs = 2; p6e-gb200: 16 EFA on cards 1-16 of 17, per
# aws-parallelcluster a59f9c9 queues_stack.py / PR #6930, / 4 GPUs = 4);
# shared/reference/oci.md (16 RoCE ports on
# 8-GPU A100/H100 shapes = 2 per GPU, 8 single-port NICs = 1 per GPU).
ONE_GPU_NICS = {
    "p4d.24xlarge": 1, "p4de.24xlarge": 1, "p5.48xlarge": 4, "p5e.48xlarge": 4,
    "p5en.48xlarge": 2, "p6-b200.48xlarge": 1, "p6-b300.48xlarge": 2,
    "p6e-gb200.36xlarge": 4,
    "BM.GPU4.8": 2, "BM.GPU.B4.8": 2, "BM.GPU.A100-v2.8": 2, "BM.GPU.H100.8": 2,
    "BM.GPU.H200.8": 1, "BM.GPU.B200.8": 1, "BM.GPU.MI300X.8": 1, "BM.GPU.GB200-v3.4": 2,
}


@pytest.mark.parametrize("m", [m for m in FABRIC if m.fabric in
                               (FabricKind.ROCE, FabricKind.INFINIBAND, FabricKind.EFA)],
                         ids=lambda m: m.name)
def test_dra_claims_pair_every_gpu_with_its_nics(m) -> None:
    if m.gpu.vendor is GpuVendor.AMD and m.cloud is not Cloud.DIGITALOCEAN:
        # AKS/OKE install only NVIDIA's GPU DRA driver: refused (issue 18, test_*_first_up).
        with pytest.raises(SpecError, match=r"fabric\.mode"):
            fabric_of(_spec(m, mode="dra"))
        return
    spec = _spec(m, mode="dra")
    fabric = fabric_of(spec)
    if fabric.attach is not Attach.DRA:
        pytest.skip("this cloud keeps NICs on a device plugin in DRA mode")
    templates = [t for t in layer_of(spec).manifests() if t["kind"] == "ResourceClaimTemplate"]
    full = next(t for t in templates if t["metadata"]["name"].startswith(f"{m.gpus}-"))
    requests = full["spec"]["spec"]["devices"]["requests"]
    count = lambda prefix: sum(  # noqa: E731
        r["exactly"]["count"] for r in requests if r["name"].startswith(prefix)
    )
    assert count("gpu") == m.gpus
    # A full-node claim gets every NIC of the node, never more (issue 18: p4d has 4 EFA
    # for 8 GPUs, one per 2-GPU PCIe root).
    assert count("nic") == m.fabric_nics


def test_fragment_refuses_impossible_gpu_counts() -> None:
    fabric = fabric_of(existing("aws", "p5.48xlarge"))
    with pytest.raises(ValueError, match=r"gpus must be 1\.\.8"):
        pod_fragment(fabric, 9)
    with pytest.raises(ValueError):
        pod_fragment(fabric, 0)


def test_oci_vfs_listed_once_per_vf_in_the_multus_annotation() -> None:
    fabric = fabric_of(existing("oci", "BM.GPU.H100.8"))
    assert pod_fragment(fabric, 8).annotations["k8s.v1.cni.cncf.io/networks"].split(",") == [
        "rdma-vf"
    ] * 16
    single_port = fabric_of(existing("oci", "BM.GPU.H200.8"))
    assert pod_fragment(single_port, 8).limits["nvidia.com/rdma-vf"] == "8"


def test_every_daemonset_tolerates_every_clouds_gpu_taints() -> None:
    from gpu_fabric.fabric.taints import GPU_TAINT_KEYS

    for cloud in Cloud:
        for m in machines(cloud, fabric_only=True)[:1]:
            for obj in layer_of(_spec(m)).manifests():
                if obj["kind"] != "DaemonSet":
                    continue
                tolerated = {t.get("key") for t in obj["spec"]["template"]["spec"]["tolerations"]}
                assert set(GPU_TAINT_KEYS) <= tolerated, obj["metadata"]["name"]
                for c in obj["spec"]["template"]["spec"]["containers"]:
                    assert c["resources"]["requests"] and c["resources"]["limits"]


def _tolerates(tolerations: list[dict[str, str]], taint: dict[str, str]) -> bool:
    """Kubernetes' matching rule (k8s.io/api core/v1 Toleration.ToleratesTaint)."""
    for tol in tolerations:
        if tol.get("effect") and tol["effect"] != taint["effect"]:
            continue
        if not tol.get("key"):
            if tol.get("operator") == "Exists":
                return True
            continue
        if tol["key"] != taint["key"]:
            continue
        if tol.get("operator") == "Exists" or tol.get("value", "") == taint["value"]:
            return True
    return False


def _toleration_lists(value: object) -> list[list[dict[str, str]]]:
    if isinstance(value, dict):
        found = [value["tolerations"]] if isinstance(value.get("tolerations"), list) else []
        return found + [x for v in value.values() for x in _toleration_lists(v)]
    if isinstance(value, list):
        return [x for v in value for x in _toleration_lists(v)]
    return []


@pytest.mark.parametrize("cloud", list(Cloud), ids=lambda c: c.value)
def test_node_agents_run_on_pools_with_their_own_taints(cloud: Cloud) -> None:
    """A pool tainted ``dedicated=training`` must still get device plugins, DRA drivers
    and installers, or it has no fabric."""
    from gpu_fabric.spec import load_spec
    from tests.specs import spec_dict

    m = machines(cloud, fabric_only=True)[0]
    taints = [{"key": "dedicated", "value": "training", "effect": "NoSchedule"},
              {"key": "maintenance", "value": "soon", "effect": "NoExecute"}]
    data = spec_dict(cloud.value, existing={"kubeconfig": {"path": "/nonexistent"}})
    data["node_pools"][0].update(machine_type=m.name, taints=taints)
    layer = layer_of(load_spec(data))
    daemonsets = [o for o in layer.manifests() if o["kind"] == "DaemonSet"]
    values = [c.values for p in layer.parts for c in p.charts]
    lists = [d["spec"]["template"]["spec"]["tolerations"] for d in daemonsets]
    lists += [t for v in values for t in _toleration_lists(v)]
    assert lists, "no node agent found"
    for tolerations in lists:
        for taint in taints:
            assert _tolerates(tolerations, taint), (taint, tolerations)
    # ...while an untolerated taint really is refused by the matcher.
    assert not _tolerates([{"key": "x", "operator": "Exists"}], taints[0])
