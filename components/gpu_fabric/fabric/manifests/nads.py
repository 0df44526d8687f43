"""NetworkAttachmentDefinitions: one per rail (host-device) or one SR-IOV network,
with IPAM where the cloud needs pod IPs on the fabric.

The config string is JSON with the keys in CNI order; for host-device it is
exactly the DO seed's ``{"cniVersion": "0.3.1", "type": "host-device", "device": "fabric0"}``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from gpu_fabric.fabric.manifests.common import Manifest, meta

API_VERSION = "k8s.cni.cncf.io/v1"
CNI_VERSION = "0.3.1"
RESOURCE_ANNOTATION = "k8s.v1.cni.cncf.io/resourceName"


def nad(name: str, namespace: str, config: Mapping[str, Any],
        annotations: Mapping[str, str] | None = None) -> Manifest:
    return {
        "apiVersion": API_VERSION,
        "kind": "NetworkAttachmentDefinition",
        "metadata": meta(name, namespace, annotations=annotations),
        "spec": {"config": json.dumps(dict(config))},
    }


def host_device(name: str, namespace: str, device: str) -> Manifest:
    """Moves the node NIC ``device`` into the pod (the DO seed's ``roce-net-fabricN``)."""
    return nad(name, namespace, {"cniVersion": CNI_VERSION, "type": "host-device",
                                 "device": device})


def nv_ipam(pool: str) -> dict[str, Any]:
    return {"type": "nv-ipam", "poolName": pool}


def sriov(name: str, namespace: str, resource: str, ipam: Mapping[str, Any],
          mtu: int | None = None, *, spoofchk: str | None = None,
          sysctl: Mapping[str, str] | None = None) -> Manifest:
    """An SR-IOV network for RDMA VFs: the NAD names the device-plugin resource its VFs
    come from; the chain sets the MTU and sysctls (tuning), moves the VF's RDMA device
    into the pod (rdma) and adds source-based routing (sbr), as oci-hpc-oke's
    SriovNetwork does (``spoofChk: "off"`` becomes the sriov CNI's ``spoofchk``).
    """
    tuning: dict[str, Any] = {"type": "tuning"}
    if sysctl:
        tuning["sysctl"] = dict(sysctl)
    if mtu:
        tuning["mtu"] = mtu
    vf: dict[str, Any] = {"type": "sriov"}
    if spoofchk:
        vf["spoofchk"] = spoofchk
    vf["ipam"] = dict(ipam)
    config = {
        "cniVersion": CNI_VERSION,
        "name": name,
        "plugins": [
            vf,
            tuning,
            {"type": "rdma"},
            {"type": "sbr"},
        ],
    }
    return nad(name, namespace, config, annotations={RESOURCE_ANNOTATION: resource})
