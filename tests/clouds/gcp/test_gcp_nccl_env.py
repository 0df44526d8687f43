"""GKE NCCL tuning: Google's values at the pinned plugin versions, in pods and acceptance.

* TCPXO: container-engine-accelerators gpudirect-tcpxo/README.md (commit
  992db81257553607f1477945f1b3219632991829), release "Jan 9, 2026" = installer
  nccl-plugin-gpudirecttcpx-dev:v1.0.15 (components/gpu_fabric/versions.py), "NCCL configs"; paths
  under /usr/local/tcpxo/lib64 replaced by the workload's library dir
  /usr/local/nvidia/lib64 as that README instructs.
* gIB: cluster-toolkit (commit 1047080375afbb44da4b596be314634e7486af4a)
  examples/machine-learning/a3-ultragpu-8g/nemo-framework/Dockerfile lines 29-40 ("match
  what is in /usr/local/gib/scripts/set_nccl_env.sh") and
  examples/machine-learning/a4-highgpu-8g/a4high-vm.yaml lines 290-299.
"""

from __future__ import annotations

import pytest

from gpu_fabric import versions
from gpu_fabric.errors import SpecError
from gpu_fabric.fabric.workload import pod_fragment
from tests.fabric_helpers import existing, fabric_of

TCPXO_V1_0_15 = {
    "NCCL_FASTRAK_CTRL_DEV": "eth0",
    "NCCL_FASTRAK_IFNAME": "eth1,eth2,eth3,eth4,eth5,eth6,eth7,eth8",
    "NCCL_SOCKET_IFNAME": "eth0",
    "NCCL_CROSS_NIC": "0",
    "NCCL_PROTO": "Simple,LL128",
    "NCCL_MIN_NCHANNELS": "4",
    "NCCL_TUNER_PLUGIN": "libnccl-tuner.so",
    "NCCL_TUNER_CONFIG_PATH": "/usr/local/nvidia/lib64/a3plus_tuner_config.textproto",
    "NCCL_SHIMNET_GUEST_CONFIG_CHECKER_CONFIG_FILE":
        "/usr/local/nvidia/lib64/a3plus_guest_config.textproto",
    "CUDA_VISIBLE_DEVICES": "0,1,2,3,4,5,6,7",
    "NCCL_NVLSTREE_MAX_CHUNKSIZE": "131072",
    "NCCL_P2P_NET_CHUNKSIZE": "524288",
    "NCCL_P2P_PCI_CHUNKSIZE": "524288",
    "NCCL_P2P_NVL_CHUNKSIZE": "1048576",
    "NCCL_FASTRAK_NUM_FLOWS": "2",
    "NCCL_FASTRAK_USE_SNAP": "1",
    "NCCL_FASTRAK_PLUGIN_ACCEPT_TIMEOUT_MS": "600000",
    "NCCL_FASTRAK_ENABLE_CONTROL_CHANNEL": "0",
    "NCCL_BUFFSIZE": "8388608",
    "NCCL_NET_GDR_LEVEL": "PIX",
    "NCCL_FASTRAK_ENABLE_HOTPATH_LOGGING": "0",
    "NCCL_FASTRAK_USE_LLCM": "1",
    "NCCL_NVLS_ENABLE": "1",
}
GIB_SET_NCCL_ENV = {
    "NCCL_NET": "gIB",
    "NCCL_CROSS_NIC": "0",
    "NCCL_NET_GDR_LEVEL": "PIX",
    "NCCL_P2P_NET_CHUNKSIZE": "131072",
    "NCCL_NVLS_CHUNKSIZE": "524288",
    "NCCL_IB_GID_INDEX": "3",  # a4high-vm.yaml line 294
    "NCCL_IB_ADAPTIVE_ROUTING": "1",
    "NCCL_IB_QPS_PER_CONNECTION": "4",
    "NCCL_IB_TC": "52",
    "NCCL_IB_FIFO_TC": "84",
}


def test_tcpxo_pods_get_the_pinned_installers_configs() -> None:
    env = pod_fragment(fabric_of(existing("gcp", "a3-megagpu-8g")), 8).env
    for key, value in TCPXO_V1_0_15.items():
        assert env.get(key) == value, key
    # Removed by Google since Aug 2025 (NVLSTree is the default; NCCL_ALGO left to the tuner).
    for gone in ("NCCL_ALGO", "NCCL_DYNAMIC_CHUNK_SIZE"):
        assert gone not in env
    assert env["NCCL_NET"] == "FasTrak"


@pytest.mark.parametrize(
    ("machine", "tuner"),
    [
        ("a3-ultragpu-8g", "/usr/local/gib/configs/tuner_config_a3u.txtpb"),
        # a4high-vm.yaml line 299 (the file name set_nccl_env.sh uses on A4).
        ("a4-highgpu-8g", "/usr/local/gib/configs/tuner_config.txtpb"),
    ],
)
def test_gib_pods_get_set_nccl_env_tuning(machine, tuner) -> None:
    spec = existing("gcp", machine, fabric={"mode": "dra", "dranet": "self"})
    env = pod_fragment(fabric_of(spec), 2).env
    for key, value in GIB_SET_NCCL_ENV.items():
        assert env.get(key) == value, key
    assert env["NCCL_TUNER_CONFIG_PATH"] == tuner


def test_gib_acceptance_gets_the_tuning_too() -> None:
    from gpu_fabric.fabric.description import describe_cluster
    from gpu_fabric.nccl.manifests import acceptance_manifests, plan_acceptance

    spec = existing("gcp", "a4-highgpu-8g", fabric={"mode": "dra", "dranet": "self"},
                    acceptance={"enabled": True})
    manifests = acceptance_manifests(plan_acceptance(spec, describe_cluster(spec), "acc"))
    workload = next(m for m in manifests if m["kind"] == "StatefulSet")
    container = workload["spec"]["template"]["spec"]["containers"][0]
    env = {e["name"]: e["value"] for e in container["env"]}
    assert env["NCCL_IB_TC"] == "52" and env["NCCL_IB_QPS_PER_CONNECTION"] == "4"
    assert "source /usr/local/gib/scripts/set_nccl_env.sh" in container["args"][0]


def test_an_installer_version_without_a_table_is_refused() -> None:
    from gpu_fabric.fabric.description import describe_cluster

    spec = existing("gcp", "a3-megagpu-8g", addons={"nccl_installer": {"version": "v9.9.9"}})
    with pytest.raises(SpecError) as info:
        describe_cluster(spec)
    message = str(info.value)  # names the field and the version it knows (the pin)
    assert "addons.nccl_installer.version" in message
    assert versions.GKE_TCPXO_INSTALLER.tag in message
