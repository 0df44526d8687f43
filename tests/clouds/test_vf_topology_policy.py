"""SR-IOV pools whose pods take one VF per GPU get the kubelet Topology Manager policy
``restricted`` (issue 31): VFs aligned with the pod's GPUs by NUMA node.

Source: https://kubernetes.io/docs/tasks/administer-cluster/topology-manager/ ("restricted"
policy: a pod is admitted only when the hint providers' merged affinity is preferred, i.e.
the narrowest NUMA set). AKS: ``kubeletConfig.topologyManagerPolicy`` ("Allowed values are
'none', 'best-effort', 'restricted', and 'single-numa-node'", pulumi-azure-native 3.29.0
KubeletConfigArgs). OKE: the kubelet flag ``--topology-manager-policy`` through ``oke
bootstrap --kubelet-extra-args`` (oci-hpc-oke files/oke-ubuntu-cloud-init.sh at 61d210a,
lines 136-146, passes its kubelet flags the same way).
"""

from __future__ import annotations

import base64

import yaml

from tests.specs import spec_dict

AGENT_POOL = "azure-native:containerservice:AgentPool"
NODE_POOL = "oci:ContainerEngine/nodePool:NodePool"


def _gpu_pool(plan, type_: str):
    return next(r for r in plan.by_type(type_) if not r.name.endswith("-system"))


def test_aks_sriov_pool_aligns_vfs_with_gpus(spec_plan) -> None:
    plan = spec_plan(spec_dict("azure", fabric={"device_plugin": "sriov"}))
    pool = _gpu_pool(plan, AGENT_POOL)
    assert pool.inputs["kubeletConfig"] == {"topologyManagerPolicy": "restricted"}


def test_aks_shared_hca_pool_keeps_the_default(stack_plan) -> None:
    # rdma/hca_shared_devices_a: one slot gives every HCA, nothing to align.
    assert "kubeletConfig" not in _gpu_pool(stack_plan("azure-ndv5"), AGENT_POOL).inputs


def test_oke_vf_pool_registers_with_the_topology_policy(stack_plan) -> None:
    pool = _gpu_pool(stack_plan("oci-h100"), NODE_POOL)
    config = yaml.safe_load(base64.b64decode(pool.inputs["nodeMetadata"]["user_data"]))
    script = next(f["content"] for f in config["write_files"]
                  if f["path"] == "/var/run/gpufabric-oke-bootstrap.sh")
    assert "--topology-manager-policy=restricted'" in script


def test_oke_host_network_pool_has_no_vfs_to_align(spec_plan) -> None:
    plan = spec_plan(spec_dict("oci", fabric={"mode": "host-network"}))
    pool = _gpu_pool(plan, NODE_POOL)
    config = yaml.safe_load(base64.b64decode(pool.inputs["nodeMetadata"]["user_data"]))
    assert "topology-manager" not in str(config)
