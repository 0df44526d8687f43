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


def bootstrap_script(taints: tuple[Taint, ...], kubernetes_version: str,
                     mask_imex: bool = False) -> str:
    """The node bootstrap oci-hpc-oke runs on RDMA nodes, as a shell script; ``mask_imex``
    (multi-node NVLink shapes) first stops the host's IMEX service for the DRA driver's.

    It runs as root on every GPU node, so no value reaches it unchecked: each taint
    is checked as the API server checks it and the kubelet argument is one quoted
    shell word; the version is a Kubernetes version of ASCII digits (issue 34).
    """
    args = ""
    if taints:
        for t in taints:
            problem = label_key(t.key) or label_value(t.value)
            if problem or t.effect not in TAINT_EFFECTS:
                raise ValueError(f"taint {t.key}={t.value}:{t.effect} may not reach the node "
                                 f"bootstrap script: {problem or 'unknown effect'}")
        spec = ",".join(f"{t.key}={t.value}:{t.effect}" for t in taints)
        args = f" --kubelet-extra-args {shell_quote(f'--register-with-taints={spec}')}"
    version = str(KubeVersion.parse(kubernetes_version)).lstrip("v")
    minor = ".".join(version.split(".")[:2])
    local = OKE_LOCAL_REPO.format(minor=minor)
    remote = OKE_APT_REPO.format(minor=minor)
    return "\n".join([
        "set -eu",
        *(MASK_HOST_IMEX if mask_imex else []),
        ". /etc/os-release",
        'if [ "$ID" = ubuntu ]; then systemctl restart systemd-networkd; fi',
        "if ! command -v oke >/dev/null 2>&1; then",
        f'  repo="{remote}"',
        f'  if [ -d "{local}/dists" ]; then repo="file://{local}"; fi',
        '  printf "Enabled: yes\\nTypes: deb\\nURIs: %s\\nSuites: stable\\n'
        'Components: main\\nTrusted: yes\\n" "$repo"'
        " > /etc/apt/sources.list.d/oke-node-client.sources",
        "  apt-get -y update || true",
        f"  apt-get -y install oci-oke-node-all-{version}",
        "fi",
        f"oke bootstrap{args}",
        "",
    ])


def taint_user_data(taints: tuple[Taint, ...], kubernetes_version: str = "v1.34.1",
                    mask_imex: bool = False) -> str:
    """cloud-init (base64) for RDMA nodes: networkd leaves foreign routes alone, the OKE
    node package is installed when the image lacks it, and the node registers with its
    taints (OKE pools have no taint field)."""
    script = bootstrap_script(taints, kubernetes_version, mask_imex)
    cloud_config = {
        "write_files": [
            {"path": "/etc/systemd/networkd.conf", "owner": "root:root",
             "permissions": "0644", "content": NETWORKD_CONF},
            {"path": "/var/run/gpufabric-oke-bootstrap.sh", "owner": "root:root",
             "permissions": "0755", "content": script},
        ],
        "runcmd": [["bash", "/var/run/gpufabric-oke-bootstrap.sh"]],
    }
    text = "#cloud-config\n" + json.dumps(cloud_config, indent=1) + "\n"
    return base64.b64encode(text.encode()).decode()
