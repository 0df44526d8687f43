"""GKE A3 High / A3 Mega: the RxDM sidecar every fabric pod runs and the NRI injector it needs."""

from __future__ import annotations

from typing import Any

import pytest
import yaml

from gpu_fabric import versions
from gpu_fabric.clouds.gcp.kubernetes import INSTALLER_PART, NRI_PART
from gpu_fabric.fabric.workload import pod_fragment
from tests.fabric_helpers import existing, fabric_of, layer_of
from tests.support.manifests import validate, validate_all

TCP = [
    # machine, daemon, image, extra device nodes
    ("a3-megagpu-8g", "tcpxo-daemon", versions.GKE_TCPXO_RXDM, ["/dev/dmabuf_import_helper"]),
    ("a3-highgpu-8g", "tcpx-daemon", versions.GKE_TCPX_RXDM, []),
]


def _pod(machine: str, gpus: int = 8, template: dict[str, Any] | None = None) -> dict[str, Any]:
    fragment = pod_fragment(fabric_of(existing("gcp", machine)), gpus)
    base = template or {"spec": {"containers": [{"name": "train", "image": "trainer:1.0"}]}}
    return fragment.apply(base)


def _volumes(pod: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {v["name"]: v for v in pod["spec"]["volumes"]}


def _host_path_of(pod: dict[str, Any], container: dict[str, Any], mount_path: str) -> str:
    name = next(m["name"] for m in container["volumeMounts"] if m["mountPath"] == mount_path)
    return str(_volumes(pod)[name]["hostPath"]["path"])


@pytest.mark.parametrize(("machine", "daemon", "image", "extra_devices"), TCP)
def test_the_rxdm_runs_as_a_native_sidecar_with_every_gpu_injected(
    machine: str, daemon: str, image: versions.Image, extra_devices: list[str]
) -> None:
    pod = _pod(machine)
    [sidecar] = pod["spec"]["initContainers"]
    assert sidecar["name"] == daemon and sidecar["image"] == image.ref
    assert sidecar["restartPolicy"] == "Always"
    assert "privileged" not in sidecar["securityContext"]
    assert "NET_ADMIN" in sidecar["securityContext"]["capabilities"]["add"]
    # Every mount of the sidecar is backed by a pod volume.
    volumes = _volumes(pod)
    assert {m["name"] for m in sidecar["volumeMounts"]} <= set(volumes)
    assert _host_path_of(pod, sidecar, "/hostsysfs") == "/sys"
    assert _host_path_of(pod, sidecar, "/usr/local/nvidia/lib64") == (
        "/home/kubernetes/bin/nvidia/lib64"
    )
    # The NRI device injector reads this list: all GPUs of the node, then the control nodes.
    gpus = fabric_of(existing("gcp", machine)).machine.gpus
    annotations = pod["metadata"]["annotations"]
    listed = [d["path"] for d in yaml.safe_load(annotations[f"devices.gke.io/container.{daemon}"])]
    assert listed == [f"/dev/nvidia{i}" for i in range(gpus)] + [
        "/dev/nvidiactl", "/dev/nvidia-uvm", *extra_devices
    ]
    assert annotations["networking.gke.io/default-interface"] == "eth0"
    # The main container stays the first container and is not made privileged.
    [main] = pod["spec"]["containers"]
    assert main["name"] == "train" and "privileged" not in main.get("securityContext", {})


def test_tcpxo_daemon_runs_upstreams_command_and_the_plugin_finds_its_devices() -> None:
    pod = _pod("a3-megagpu-8g")
    [sidecar] = pod["spec"]["initContainers"]
    [main] = pod["spec"]["containers"]
    # container-engine-accelerators gpudirect-tcpxo/nccl-test-latest.yaml (992db812) lines
    # 89-90; README.md line 158 retired --num_nics.
    assert sidecar["args"][0].splitlines()[1:] == [
        "chmod 755 /fts/entrypoint_rxdm_container.sh",
        "/fts/entrypoint_rxdm_container.sh --num_hops=2",
    ]
    env = {e["name"]: e.get("value") for e in sidecar["env"]}
    probe = sidecar["startupProbe"]["exec"]["command"]
    assert probe == ["cat", env["HEALTH_CHECK_LOG_FILE"]]
    main_env = {e["name"]: e["value"] for e in main["env"]}
    aperture = main_env["NCCL_FASTRAK_LLCM_DEVICE_DIRECTORY"]
    assert _host_path_of(pod, main, aperture) == aperture == "/dev/aperture_devices"


def test_tcpx_daemon_and_plugin_share_one_socket_directory() -> None:
    pod = _pod("a3-highgpu-8g")
    [sidecar] = pod["spec"]["initContainers"]
    [main] = pod["spec"]["containers"]
    uds = sidecar["command"][sidecar["command"].index("--uds_path") + 1]
    prefix = {e["name"]: e["value"] for e in main["env"]}["NCCL_GPUDIRECTTCPX_UNIX_CLIENT_PREFIX"]
    assert uds == prefix
    assert _host_path_of(pod, sidecar, uds) == _host_path_of(pod, main, prefix)


def test_the_sidecar_joins_a_users_init_containers_and_merging_twice_changes_nothing() -> None:
    template = {"spec": {
        "initContainers": [{"name": "fetch-data", "image": "busybox:1.37"}],
        "containers": [{"name": "train", "image": "trainer:1.0"}],
    }}
    once = _pod("a3-megagpu-8g", template=template)
    assert [c["name"] for c in once["spec"]["initContainers"]] == ["fetch-data", "tcpxo-daemon"]
    fragment = pod_fragment(fabric_of(existing("gcp", "a3-megagpu-8g")), 8)
    assert fragment.apply(once) == once


@pytest.mark.parametrize("machine", ["a3-megagpu-8g", "a3-highgpu-8g"])
def test_fabric_pods_validate_against_the_kubernetes_schema(machine: str) -> None:
    spec = existing("gcp", machine)
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "train"}, **_pod(machine)}
    assert validate(pod, str(spec.kubernetes.version)) == []


def test_roce_machines_run_no_sidecar() -> None:
    pod = _pod("a4-highgpu-8g")
    assert "initContainers" not in pod["spec"]
    assert not any(k.startswith("devices.gke.io/") for k in
                   pod.get("metadata", {}).get("annotations", {}))


def test_the_nri_injector_runs_on_the_tcp_pools_only() -> None:
    spec = existing("gcp", "a3-megagpu-8g")
    layer = layer_of(spec)
    part = layer.part(NRI_PART)
    daemonset = next(m for m in part.manifests if m["kind"] == "DaemonSet")
    pod = daemonset["spec"]["template"]["spec"]
    terms = pod["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]
    [expr] = terms["nodeSelectorTerms"][0]["matchExpressions"]
    assert expr["key"] == "cloud.google.com/gke-accelerator"
    assert expr["values"] == [fabric_of(spec).machine.accelerator]
    [container] = pod["containers"]
    assert container["image"] == versions.GKE_NRI_DEVICE_INJECTOR.ref
    assert container["image"] == (
        "gcr.io/gke-release/nri-device-injector@" + versions.GKE_NRI_DEVICE_INJECTOR.digest
    )
    account = next(m for m in part.manifests if m["kind"] == "ServiceAccount")
    assert account["automountServiceAccountToken"] is False
    assert not any(m["kind"] in ("Role", "ClusterRole") for m in part.manifests)
    assert validate_all(list(part.manifests), str(spec.kubernetes.version)) == []
    assert NRI_PART not in layer_of(existing("gcp", "a4-highgpu-8g")).names


def test_turning_the_nccl_installer_off_also_drops_the_injector() -> None:
    spec = existing("gcp", "a3-megagpu-8g", addons={"nccl_installer": {"enabled": False}})
    names = layer_of(spec).names
    assert INSTALLER_PART not in names and NRI_PART not in names


def test_kyverno_injection_adds_the_sidecar_as_an_init_container() -> None:
    spec = existing("gcp", "a3-megagpu-8g")
    policy = next(p for p in layer_of(spec).part("injection").manifests
                  if p["metadata"]["name"] == "gpufabric-inject-gpu")
    rules = {r["name"]: r for r in policy["spec"]["rules"]}
    patch = rules["fabric-8-gpu"]["mutate"]["patchStrategicMerge"]
    assert [c["name"] for c in patch["spec"]["initContainers"]] == ["tcpxo-daemon"]
    # The GPU container is patched wherever it is (foreach over containers, matched by its
    # GPU request), not containers[0]: the RxDM sidecar may come first.
    (each,) = rules["fabric-8-gpu-container"]["mutate"]["foreach"]
    assert [c["name"] for c in each["patchStrategicMerge"]["spec"]["containers"]] == [
        "{{ element.name }}"]


def test_image_reference_with_digest_only() -> None:
    image = versions.Image("registry.example/x", "", "sha256:" + "0" * 64)
    assert image.ref == "registry.example/x@sha256:" + "0" * 64
    assert versions.Image("registry.example/x", "1.0").ref == "registry.example/x:1.0"


def _installer_pod(machine: str, name: str) -> dict[str, Any]:
    part = layer_of(existing("gcp", machine)).part(INSTALLER_PART)
    daemonset = next(m for m in part.manifests
                     if m["kind"] == "DaemonSet" and m["metadata"]["name"] == name)
    return dict(daemonset["spec"]["template"]["spec"])


def test_the_tcpxo_installer_prepares_the_aperture_devices_pods_mount_first() -> None:
    import subprocess

    from gpu_fabric.clouds.gcp.rxdm import APERTURE_PCI_ID

    pod = _installer_pod("a3-megagpu-8g", "nccl-tcpxo-installer")
    setup, install = pod["initContainers"]
    assert (setup["name"], install["name"]) == ("host-setup", "install")
    # It works in the host's namespaces: the pod must share the host PID namespace.
    assert pod["hostPID"] is True and setup["securityContext"]["privileged"] is True
    assert setup["command"][:4] == ["nsenter", "--target", "1", "--all"]
    assert setup["image"] == versions.HOST_TOOLS.ref and ":latest" not in setup["image"]
    script = setup["args"][0]
    aperture = next(m["mountPath"] for m in _pod("a3-megagpu-8g")["spec"]["containers"][0][
        "volumeMounts"] if "aperture" in m["mountPath"])
    assert f"mkdir -p {aperture}" in script and APERTURE_PCI_ID in script
    assert "modprobe import-helper" in script  # provides /dev/dmabuf_import_helper
    checked = subprocess.run(["sh", "-n"], input=script, text=True, capture_output=True)
    assert checked.returncode == 0, checked.stderr


def test_the_tcpx_installer_needs_no_host_setup() -> None:
    pod = _installer_pod("a3-highgpu-8g", "nccl-tcpx-installer")
    assert [c["name"] for c in pod["initContainers"]] == ["install"]
