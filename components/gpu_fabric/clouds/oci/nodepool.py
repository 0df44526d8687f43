"""What an OKE node pool is configured with: its pod network and, on GPU nodes, cloud-init.

Shared by the cluster's system pool and the GPU node pool block
(:class:`~gpu_fabric.clouds.oci.blocks.OciGpuNodePool`), so neither imports the other.
"""

from __future__ import annotations

import base64
import json

from pulumi import Input
from pulumi_oci import containerengine

from gpu_fabric.fabric.description import Taint
from gpu_fabric.kube_version import KubeVersion
from gpu_fabric.spec.values import TAINT_EFFECTS, label_key, label_value, shell_quote

# The OKE CNI types of `cluster_pod_network_options` / a pool's pod network option.
CNI = {"npn": "OCI_VCN_IP_NATIVE", "flannel": "FLANNEL_OVERLAY"}
# Pods per node with VCN-native pod networking: OKE's default is 31; oci-hpc-oke sets
# 110 ("Absolute maximum is 110", terraform/variables.tf max_pods_per_node), and for
# Flex shapes min(110, (ocpus - 1) * 31), 31 at <= 2 OCPUs (terraform/oke-workers.tf).
MAX_PODS_PER_NODE = 110

# The OKE node package repository of the Ubuntu images RDMA pools boot (oci-hpc-oke
# files/oke-ubuntu-cloud-init.sh: installs oci-oke-node-all-<version> when the image
# has no `oke` binary, from the image's local repo or this public bucket).
OKE_APT_REPO = (
    "https://odx-oke.objectstorage.us-sanjose-1.oci.customer-oci.com/n/odx-oke/b/"
    "okn-repositories/o/prod/ubuntu-$VERSION_CODENAME/kubernetes-{minor}"
)
OKE_LOCAL_REPO = "/opt/oke-node-client-packages/ubuntu-$VERSION_CODENAME/kubernetes-{minor}"
# systemd-networkd must leave the routes and rules other agents own (the RDMA
# auto-configuration, sbr) alone (oci-hpc-oke terraform/oke-workers.tf write_files).
NETWORKD_CONF = "[Network]\nManageForeignRoutes=no\nManageForeignRoutingPolicyRules=no\n"


def flex_max_pods(ocpus: int) -> int:
    return 31 if ocpus <= 2 else min(MAX_PODS_PER_NODE, (ocpus - 1) * 31)


def pod_network(
    cni: str, pod_subnet_id: Input[str] | None, max_pods: int = MAX_PODS_PER_NODE
) -> containerengine.NodePoolNodeConfigDetailsNodePoolPodNetworkOptionDetailsArgs:
    """A pool's pod network: VCN-native pods take IPs from ``pod_subnet_id``; flannel none."""
    if cni == "npn":
        if pod_subnet_id is None:
            raise ValueError(
                "pod_subnet_id: cni 'npn' (VCN-native pods) takes pod IPs from a pod subnet; "
                "give its OCID, or use cni 'flannel'"
            )
        return containerengine.NodePoolNodeConfigDetailsNodePoolPodNetworkOptionDetailsArgs(
            cni_type=CNI["npn"], pod_subnet_ids=[pod_subnet_id], max_pods_per_node=max_pods,
        )
    if cni != "flannel":
        raise ValueError(f"cni: '{cni}' is not an OKE CNI; valid: {', '.join(CNI)}")
    return containerengine.NodePoolNodeConfigDetailsNodePoolPodNetworkOptionDetailsArgs(
        cni_type=CNI["flannel"]
    )


# GB200/GB300 hosts run the driver's own IMEX daemon; the NVIDIA DRA driver's
# ComputeDomains run theirs, so the host's is disabled and masked (oci-hpc-oke 61d210a
# files/oke-ubuntu-cloud-init.sh lines 91-124, "for Dynamic Resource Allocation (DRA)
# compatibility"), only where the image has the unit.
MASK_HOST_IMEX = [
    "if systemctl list-unit-files | grep -q nvidia-imex.service; then",
    "  systemctl disable --now nvidia-imex.service && systemctl mask nvidia-imex.service",
    "fi",
]


# oci-hpc-oke files/oke-ubuntu-cloud-init.sh at 61d210a: `run_with_retry` tries
# `oke bootstrap` 20 times, 15 s apart (lines 19-41), after waiting for the instance
# principal's certificate in IMDS (line 89); a one-off failure would leave the node
# unregistered.
BOOTSTRAP_ATTEMPTS = 20
BOOTSTRAP_INTERVAL_SECONDS = 15
IMDS_CERT = "http://169.254.169.254/opc/v2/identity/cert.pem"
IMDS_OKE_INIT = "http://169.254.169.254/opc/v2/instance/metadata/oke_init_script"
# CRI-O's short-name mode is left enforcing by OKE images for Kubernetes >= 1.34;
# upstream writes this drop-in (configure_crio_defaults, lines 43-55), or pods with
# unqualified images (pytorch/pytorch) fail to pull.
CRIO_SHORT_NAME_FILE = "/etc/crio/crio.conf.d/11-default.conf"
CRIO_SHORT_NAME_CONF = '[crio.image]\nshort_name_mode = "disabled"\n'


def crio_short_names_off(kubernetes_version: str) -> bool:
    """True from Kubernetes 1.34 (upstream's ``version_ge "$version" "v1.34"``)."""
    major, minor = (int(x) for x in kubernetes_version.lstrip("v").split(".")[:2])
    return (major, minor) >= (1, 34)


def bootstrap_script(
    taints: tuple[Taint, ...], kubernetes_version: str, mask_imex: bool = False,
    topology_policy: str | None = None,
) -> str:
    """The node bootstrap oci-hpc-oke runs (files/oke-ubuntu-cloud-init.sh), as a shell
    script: Ubuntu images install the OKE node package when they lack ``oke``; Oracle
    Linux images (the OKE GPU images non-RDMA pools boot) run ``oke`` or OKE's
    ``oke_init_script`` from IMDS. Either way with retries, after the certificate wait;
    ``mask_imex`` (multi-node NVLink shapes) first stops the host's IMEX service for the
    DRA driver's; ``topology_policy`` goes to the kubelet (VF pools, fabric/derive.py
    vf_topology_policy).

    It runs as root on every GPU node, so no value reaches it unchecked: each taint
    is checked as the API server checks it and the kubelet argument is one quoted
    shell word; the version is a Kubernetes version of ASCII digits (issue 34).
    """
    flags = []
    if taints:
        for t in taints:
            problem = label_key(t.key) or label_value(t.value)
            if problem or t.effect not in TAINT_EFFECTS:
                raise ValueError(f"taint {t.key}={t.value}:{t.effect} may not reach the node "
                                 f"bootstrap script: {problem or 'unknown effect'}")
        spec = ",".join(f"{t.key}={t.value}:{t.effect}" for t in taints)
        flags.append(f"--register-with-taints={spec}")
    if topology_policy:
        # VF pools: align each pod's VFs with its GPUs (fabric/derive.py vf_topology_policy).
        flags.append(f"--topology-manager-policy={topology_policy}")
    args = f" --kubelet-extra-args {shell_quote(' '.join(flags))}" if flags else ""
    version = str(KubeVersion.parse(kubernetes_version)).lstrip("v")
    minor = ".".join(version.split(".")[:2])
    local = OKE_LOCAL_REPO.format(minor=minor)
    remote = OKE_APT_REPO.format(minor=minor)
    return "\n".join([
        "set -eu",
        *(MASK_HOST_IMEX if mask_imex else []),
        "run_with_retry() {",
        "  attempt=1",
        f'  while [ "$attempt" -le {BOOTSTRAP_ATTEMPTS} ]; do',
        '    if "$@"; then return 0; fi',
        f'    if [ "$attempt" -lt {BOOTSTRAP_ATTEMPTS} ]; then '
        f"sleep {BOOTSTRAP_INTERVAL_SECONDS}; fi",
        "    attempt=$((attempt + 1))",
        "  done",
        f'  echo "$* failed after {BOOTSTRAP_ATTEMPTS} attempts" >&2',
        "  return 1",
        "}",
        f'until curl -fsSL -H "Authorization: Bearer Oracle" {IMDS_CERT} '
        '| grep -q "BEGIN CERTIFICATE"; do sleep 2; done',
        ". /etc/os-release",
        'case "$ID" in',
        "ubuntu)",
        "  systemctl restart systemd-networkd",
        "  if ! command -v oke >/dev/null 2>&1; then",
        f'    repo="{remote}"',
        f'    if [ -d "{local}/dists" ]; then repo="file://{local}"; fi',
        '    printf "Enabled: yes\\nTypes: deb\\nURIs: %s\\nSuites: stable\\n'
        'Components: main\\nTrusted: yes\\n" "$repo"'
        " > /etc/apt/sources.list.d/oke-node-client.sources",
        "    apt-get -y update || true",
        f"    apt-get -y install oci-oke-node-all-{version}",
        "  fi",
        f"  run_with_retry oke bootstrap{args}",
        "  ;;",
        "ol)",
        "  if command -v oke >/dev/null 2>&1; then",
        f"    run_with_retry oke bootstrap{args}",
        "  else",
        f'    curl --fail -H "Authorization: Bearer Oracle" -L0 {IMDS_OKE_INIT} '
        "| base64 --decode > /var/run/oke-init.sh",
        f"    run_with_retry bash /var/run/oke-init.sh{args}",
        "  fi",
        "  ;;",
        '*) echo "unsupported OS for the OKE bootstrap: $ID" >&2; exit 1 ;;',
        "esac",
        "",
    ])


def taint_user_data(
    taints: tuple[Taint, ...], kubernetes_version: str = "v1.34.1", mask_imex: bool = False,
    topology_policy: str | None = None,
) -> str:
    """cloud-init (base64) for RDMA nodes: networkd leaves foreign routes alone, the OKE
    node package is installed when the image lacks it, and the node registers with its
    taints (OKE pools have no taint field)."""
    script = bootstrap_script(taints, kubernetes_version, mask_imex, topology_policy)
    crio = [{"path": CRIO_SHORT_NAME_FILE, "owner": "root:root", "permissions": "0644",
             "content": CRIO_SHORT_NAME_CONF}] if crio_short_names_off(kubernetes_version) else []
    cloud_config = {
        "write_files": [
            {"path": "/etc/systemd/networkd.conf", "owner": "root:root",
             "permissions": "0644", "content": NETWORKD_CONF},
            *crio,
            {"path": "/var/run/gpufabric-oke-bootstrap.sh", "owner": "root:root",
             "permissions": "0755", "content": script},
        ],
        "runcmd": [["bash", "/var/run/gpufabric-oke-bootstrap.sh"]],
    }
    text = "#cloud-config\n" + json.dumps(cloud_config, indent=1) + "\n"
    return base64.b64encode(text.encode()).decode()
