"""GPUDirect-TCPX/TCPXO: the RxDM sidecar a workload pod runs beside NCCL, and the node
pieces it depends on (TCPXO host set-up, NRI device injector). Pure; no SDK.

A3 High (TCPX) and A3 Mega (TCPXO) move GPU memory over gVNIC through a
user-space receive-data-path manager (RxDM, the ``tcpx-daemon`` /
``tcpxo-daemon`` container). It must share the workload pod's network
namespace, so it runs *in* every pod that uses the fabric; without it the
NCCL plugin finds no daemon and NCCL falls back to plain sockets.

It runs unprivileged: GKE's NRI device injector (a DaemonSet, see
``nri_injector_manifests``) hands it the GPU device nodes listed in the pod's
``devices.gke.io/container.<name>`` annotation. It runs as a native sidecar
(an init container with ``restartPolicy: Always``) so Jobs complete when the
main container does (GKE's TCPX(O) best practice; GA since Kubernetes 1.33).

Facts from GoogleCloudPlatform/container-engine-accelerators:
``gpudirect-tcpxo/nccl-test-latest.yaml`` and ``best-practice.md`` (TCPXO
entrypoint, capabilities, mounts, startup probe),
``gpudirect-tcpx/nccl-test-unprivileged-without-hostnetwork.yaml`` (TCPX
command line and socket directory), ``nri_device_injector/nri-device-injector.yaml``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from gpu_fabric import versions
from gpu_fabric.catalog import FabricKind, Machine
from gpu_fabric.clouds.gcp.gke import ACCELERATOR_LABEL, GKE_NVIDIA_DIR
from gpu_fabric.fabric.manifests.common import (
    host_path,
    mount,
    node_affinity_in,
    node_agent,
    resources,
    service_account,
)

DEVICES_ANNOTATION_PREFIX = "devices.gke.io/container."
DEFAULT_INTERFACE_ANNOTATION = "networking.gke.io/default-interface"
NVIDIA_LIB = "/usr/local/nvidia/lib64"
HOST_NVIDIA_LIB = f"{GKE_NVIDIA_DIR}/lib64"
# TCPXO: the LLCM "aperture" devices the FasTrak plugin maps (NCCL_FASTRAK_LLCM_DEVICE_DIRECTORY).
APERTURE_DEVICES = "/dev/aperture_devices"
# TCPX: the Unix socket directory daemon and plugin share (NCCL_GPUDIRECTTCPX_UNIX_CLIENT_PREFIX).
TCPX_SOCKET_DIR = "/run/tcpx"
# TCPXO daemon writes this file once its buffer manager is up (best-practice.md; the
# name may not contain an underscore).
HEALTH_CHECK_FILE = "/run/health-check"


@dataclass(frozen=True)
class RxdmSetup:
    """What a pool's pods need for the RxDM: the sidecar and what it brings along."""

    sidecar: dict[str, Any]
    # Pod volumes only the sidecar mounts.
    volumes: tuple[dict[str, Any], ...]
    # Host path -> mount path in the main (NCCL) container.
    main_host_paths: dict[str, str] = field(default_factory=dict)
    annotations: dict[str, str] = field(default_factory=dict)


def rxdm_setup(machine: Machine) -> RxdmSetup | None:
    """The RxDM for a TCPX/TCPXO machine; ``None`` for every other fabric."""
    if machine.fabric is FabricKind.TCPXO:
        return _tcpxo(machine)
    if machine.fabric is FabricKind.TCPX:
        return _tcpx(machine)
    return None


def _tcpxo(machine: Machine) -> RxdmSetup:
    name = "tcpxo-daemon"
    sidecar = _sidecar(
        name,
        versions.GKE_TCPXO_RXDM.ref,
        command=["/bin/sh", "-c"],
        args=["\n".join([
            "set -ex",
            "chmod 755 /fts/entrypoint_rxdm_container.sh",
            # gpudirect-tcpxo/nccl-test-latest.yaml (992db812) line 90; README line 158
            # retired --num_nics ("no longer has any effect").
            "/fts/entrypoint_rxdm_container.sh --num_hops=2",
        ])],
        capabilities=["NET_ADMIN", "NET_BIND_SERVICE"],
        env={"HEALTH_CHECK_LOG_FILE": HEALTH_CHECK_FILE},
    )
    sidecar["startupProbe"] = {
        "exec": {"command": ["cat", HEALTH_CHECK_FILE]},
        "initialDelaySeconds": 1,
        "periodSeconds": 5,
        "timeoutSeconds": 1,
        "successThreshold": 1,
        "failureThreshold": 6,
    }
    return RxdmSetup(
        sidecar=sidecar,
        volumes=_common_volumes(),
        main_host_paths={APERTURE_DEVICES: APERTURE_DEVICES},
        annotations=_annotations(name, machine, ["/dev/dmabuf_import_helper"]),
    )


def _tcpx(machine: Machine) -> RxdmSetup:
    name = "tcpx-daemon"
    sidecar = _sidecar(
        name,
        versions.GKE_TCPX_RXDM.ref,
        command=[
            "/tcpgpudmarxd/build/app/tcpgpudmarxd",
            "--gpu_nic_preset", "a3vm",
            "--gpu_shmem_type", "fd",
            "--uds_path", TCPX_SOCKET_DIR,
            "--setup_param", "--verbose 128 2 0 ",
        ],
        capabilities=["NET_ADMIN"],
        extra_mounts=[mount("rxdm-socket", TCPX_SOCKET_DIR)],
    )
    return RxdmSetup(
        sidecar=sidecar,
        volumes=(*_common_volumes(), host_path("rxdm-socket", TCPX_SOCKET_DIR,
                                                "DirectoryOrCreate")),
        main_host_paths={TCPX_SOCKET_DIR: TCPX_SOCKET_DIR},
        annotations=_annotations(name, machine, []),
    )


def _sidecar(
    name: str,
    image: str,
    *,
    command: list[str],
    capabilities: list[str],
    args: list[str] | None = None,
    env: dict[str, str] | None = None,
    extra_mounts: list[dict[str, Any]] | None = None,
) -> dict[str, Any]:
    container: dict[str, Any] = {
        "name": name,
        "image": image,
        # A native sidecar: starts before, and stops after, the main container.
        "restartPolicy": "Always",
        "command": command,
        "securityContext": {"capabilities": {"add": capabilities}},
        "env": [{"name": "LD_LIBRARY_PATH", "value": NVIDIA_LIB}]
        + [{"name": k, "value": v} for k, v in (env or {}).items()],
        "volumeMounts": [
            mount("rxdm-nvidia-lib", NVIDIA_LIB),
            mount("rxdm-sys", "/hostsysfs"),
            mount("rxdm-proc-sys", "/hostprocsysfs"),
            *(extra_mounts or []),
        ],
    }
    if args:
        container["args"] = args
    return container


def _common_volumes() -> tuple[dict[str, Any], ...]:
    return (
        host_path("rxdm-nvidia-lib", HOST_NVIDIA_LIB),
        host_path("rxdm-sys", "/sys"),
        host_path("rxdm-proc-sys", "/proc/sys"),
    )


def _annotations(container: str, machine: Machine, extra_devices: list[str]) -> dict[str, str]:
    """The NRI device list for the daemon (every GPU of the node) and eth0 as default route."""
    devices = [f"/dev/nvidia{i}" for i in range(machine.gpus)]
    devices += ["/dev/nvidiactl", "/dev/nvidia-uvm", *extra_devices]
    return {
        DEVICES_ANNOTATION_PREFIX + container: "".join(f"- path: {d}\n" for d in devices),
        DEFAULT_INTERFACE_ANNOTATION: "eth0",
    }


# -- node set-up for TCPXO ----------------------------------------------------------------
# PCI vendor:device of the A3 Mega GPU NICs' LLCM aperture (container-engine-accelerators
# gpudirect-tcpxo/nccl-tcpxo-installer.yaml, pre-installation step).
APERTURE_PCI_ID = "1ae0:0084"


def tcpxo_host_setup_script() -> str:
    """What an A3 Mega node needs before TCPXO works, run in the host's namespaces.

    * TCP from the peers' GPU NICs must reach the node (COS drops inbound by default);
      the VPC firewall rules still limit who can connect.
    * The ``import-helper`` module provides ``/dev/dmabuf_import_helper``.
    * Each NIC's aperture (PCI resource files) is bind-mounted under
      ``/dev/aperture_devices/<BDF>``, the directory TCPXO pods mount
      (``NCCL_FASTRAK_LLCM_DEVICE_DIRECTORY``), readable and its resources writable.
    Every step is idempotent: the DaemonSet may run it again on the same node.
    """
    return "\n".join([
        "set -eu",
        "iptables -C INPUT -p tcp -m tcp -j ACCEPT 2>/dev/null"
        " || iptables -I INPUT -p tcp -m tcp -j ACCEPT",
        "modprobe import-helper",
        f"mkdir -p {APERTURE_DEVICES}",
        f"for bdf in $(lspci -nn -D | grep '{APERTURE_PCI_ID}' | cut -d' ' -f1); do",
        f'  target="{APERTURE_DEVICES}/$bdf"',
        '  mkdir -p "$target"',
        '  umount -R "$target" 2>/dev/null || true',
        '  mount --bind "$(readlink -f "/sys/bus/pci/devices/$bdf")" "$target"',
        "done",
        f"chmod -R a+r {APERTURE_DEVICES}",
        f"chmod a+rw {APERTURE_DEVICES}/*/resource* 2>/dev/null || true",
    ])


# -- the NRI device injector DaemonSet -------------------------------------------------
NRI_INJECTOR = "device-injector"


def nri_injector_manifests(accelerators: list[str], namespace: str) -> list[dict[str, Any]]:
    """GKE's NRI device injector on the TCPX/TCPXO nodes (by GKE accelerator type).

    It enables NRI in containerd and injects the devices a pod's
    ``devices.gke.io/container.<name>`` annotation lists. It needs the host's /dev
    and NRI socket and runs privileged in the host PID and network namespaces, as
    upstream's manifest does; its ServiceAccount gets no token and no RBAC.
    """
    injector = {
        "name": NRI_INJECTOR,
        "image": versions.GKE_NRI_DEVICE_INJECTOR.ref,
        "securityContext": {"privileged": True},
        "resources": resources("150m", "64Mi", memory_limit="256Mi"),
        "volumeMounts": [mount("dev", "/dev"), mount("nri", "/var/run/nri")],
    }
    return [
        service_account(NRI_INJECTOR, namespace, automount=False),
        node_agent(
            NRI_INJECTOR, namespace,
            containers=[injector],
            service_account=NRI_INJECTOR,
            volumes=[host_path("dev", "/dev"), host_path("nri", "/var/run/nri")],
            host_network=True,
            host_pid=True,
            affinity=node_affinity_in(ACCELERATOR_LABEL, accelerators),
        ),
    ]
