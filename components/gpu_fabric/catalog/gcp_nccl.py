"""Google's NCCL tuning for GKE GPU fabrics, per pinned plugin version (pure; no SDK).

One table per plugin, keyed by the installer image tag ``components/gpu_fabric/versions.py``
pins; the machine catalog's NCCL profiles are built from it, so the pod fragment,
the injection policies and the NCCL acceptance run all carry the same values. A
version bump without a row here fails at import (``KeyError`` naming the tag), so the
tuning cannot silently go stale.

Paths: Google writes the plugin's config files as ``/usr/local/tcpxo/lib64/...`` and
says to replace that directory with where the installer put the library inside the
workload container; our TCPXO installer copies them into the host's
``/home/kubernetes/bin/nvidia/lib64``, which fabric pods mount at
``/usr/local/nvidia/lib64``. gIB's scripts and configs stay in ``/usr/local/gib``
(the host's ``/home/kubernetes/bin/gib``). Logging variables (``NCCL_DEBUG``,
``NCCL_DEBUG_SUBSYS``) are left to the workload.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

NVIDIA_LIB = "/usr/local/nvidia/lib64"
GIB_DIR = "/usr/local/gib"

# GoogleCloudPlatform/container-engine-accelerators gpudirect-tcpxo/README.md (commit
# 992db81257553607f1477945f1b3219632991829), release "Jan 9, 2026": installer
# nccl-plugin-gpudirecttcpx-dev:v1.0.15 with tcpgpudmarxd-dev:v1.0.21, "NCCL configs"
# (what the image's nccl-env-profile.sh sets). Since Aug 21, 2025 NCCL_ALGO and
# NCCL_NVLS_ENABLE=0 are gone (NVLSTree by default; the guest config checker aborts
# workloads without NCCL_NVLSTREE_MAX_CHUNKSIZE=131072); NCCL_DYNAMIC_CHUNK_SIZE left in
# Nov 2025. NCCL_FASTRAK_LLCM_DEVICE_DIRECTORY: gpudirect-tcpxo/nccl-test-latest.yaml.
_TCPXO: dict[str, dict[str, str]] = {
    "v1.0.15": {
        "NCCL_FASTRAK_CTRL_DEV": "eth0",
        "NCCL_FASTRAK_IFNAME": "eth1,eth2,eth3,eth4,eth5,eth6,eth7,eth8",
        "NCCL_SOCKET_IFNAME": "eth0",
        "NCCL_CROSS_NIC": "0",
        "NCCL_PROTO": "Simple,LL128",
        "NCCL_MIN_NCHANNELS": "4",
        "NCCL_TUNER_PLUGIN": "libnccl-tuner.so",
        "NCCL_TUNER_CONFIG_PATH": f"{NVIDIA_LIB}/a3plus_tuner_config.textproto",
        "NCCL_SHIMNET_GUEST_CONFIG_CHECKER_CONFIG_FILE":
            f"{NVIDIA_LIB}/a3plus_guest_config.textproto",
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
        "NCCL_FASTRAK_LLCM_DEVICE_DIRECTORY": "/dev/aperture_devices",
    },
}

# gIB: Google's guidance is to source /usr/local/gib/scripts/set_nccl_env.sh of the
# installed plugin (it can change between releases; cluster-toolkit's GKE NCCL examples do,
# and modules/management/kubectl-apply/variables.tf line 111 asks to replace hard-coded NCCL
# env with sourcing it). A pod spec cannot source a script, so this table writes out the
# values Google publishes beside it, at cluster-toolkit commit 1047080375af:
# examples/machine-learning/a4-highgpu-8g/a4high-vm.yaml lines 290-299 (A4: the same keys as
# the A3 Ultra nemo-framework Dockerfile lines 31-40, "to match what is in
# /usr/local/gib/scripts/set_nccl_env.sh", plus NCCL_IB_GID_INDEX=3). LD_LIBRARY_PATH
# differs on purpose: on GKE the installer copies the gIB libraries into the driver's
# lib64, mounted at /usr/local/nvidia/lib64. Published for gIB v1.1.0; no published change
# for the pinned v1.1.1 (not verifiable offline: the script ships inside the image).
_GIB_COMMON = {
    "NCCL_CROSS_NIC": "0",
    "NCCL_NET_GDR_LEVEL": "PIX",
    "NCCL_P2P_NET_CHUNKSIZE": "131072",
    "NCCL_NVLS_CHUNKSIZE": "524288",
    "NCCL_IB_GID_INDEX": "3",
    "NCCL_IB_ADAPTIVE_ROUTING": "1",
    "NCCL_IB_QPS_PER_CONNECTION": "4",
    "NCCL_IB_TC": "52",
    "NCCL_IB_FIFO_TC": "84",
}
_GIB: dict[str, dict[str, str]] = {"v1.1.1": _GIB_COMMON, "v1.1.0": _GIB_COMMON}
# Tuner config per machine: A3 Ultra tuner_config_a3u.txtpb (the Dockerfile above, line 40),
# A4 tuner_config.txtpb (a4high-vm.yaml line 299). A4X: Google publishes no file name
# (set_nccl_env.sh picks one when sourced), so none is set; source the script for it.
_GIB_TUNER = {
    "a3-ultragpu-8g": f"{GIB_DIR}/configs/tuner_config_a3u.txtpb",
    "a4-highgpu-8g": f"{GIB_DIR}/configs/tuner_config.txtpb",
}


def tcpxo_env(installer_tag: str) -> Mapping[str, str]:
    """TCPXO NCCL env of the installer ``installer_tag`` (the pinned one by default)."""
    return MappingProxyType({"LD_LIBRARY_PATH": NVIDIA_LIB, **_TCPXO[installer_tag]})


def gib_env(installer_tag: str, machine: str) -> Mapping[str, str]:
    """gIB NCCL env (set_nccl_env.sh values) for ``machine`` with installer ``installer_tag``."""
    env = {"LD_LIBRARY_PATH": NVIDIA_LIB, **_GIB[installer_tag]}
    if machine in _GIB_TUNER:
        env["NCCL_TUNER_CONFIG_PATH"] = _GIB_TUNER[machine]
    return MappingProxyType(env)


def known_versions(tcpxo: bool) -> list[str]:
    """Installer tags with a table (TCPXO, or gIB)."""
    return sorted(_TCPXO if tcpxo else _GIB)
