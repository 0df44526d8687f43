"""The fabric description's typed records: what each cloud's describer fills in, literally.

``FabricDescription`` once carried an untyped ``extra`` dict that the fabric layer
read OCI and GCP keys from (issue 28: "Replace ``extra`` with typed records"). These
tests pin the records the describers fill and that the generic code renders them
without knowing the cloud. Sources:

* OKE's VF network: oci-hpc-oke ``terraform/files/nvidia-network-operator/
  sriov-network.yaml`` (``spoofChk: "off"``, the five ``net.ipv4.conf.all`` sysctls)
  and the IPPool named after the network (``rdma-vf``).
* GKE multi-networking: ``docs/clouds/gcp.md`` lines 97-99 (eth0 on ``default``,
  eth1 on the second gVNIC network ``gvnic-1`` on RDMA machines, then the rails) and
  GKE's ``networking.gke.io/default-interface`` / ``networking.gke.io/interfaces``
  annotations.
"""

from __future__ import annotations

import dataclasses
import json
import typing
from collections.abc import Mapping
from typing import Any

from gpu_fabric.fabric.description import (
    FabricDescription,
    PodInterface,
    PodInterfaces,
    SriovVfNetwork,
)
from gpu_fabric.fabric.workload import pod_fragment
from tests.fabric_helpers import existing, fabric_of

# Fields that hold Kubernetes objects verbatim (core/v1 Container and Volume, the
# RxDM sidecar of GKE TCPX/TCPXO): their schema is the Kubernetes API's, not ours.
KUBERNETES_OBJECT_FIELDS = {"sidecars", "sidecar_volumes"}
FREE = (Mapping[str, Any], dict[str, Any], typing.Mapping[str, Any], typing.Dict[str, Any])  # noqa: UP006


def test_fabric_description_has_no_free_dict_field() -> None:
    hints = typing.get_type_hints(FabricDescription)
    free = sorted(name for name, hint in hints.items() if hint in FREE or hint is Any)
    assert free == []
    assert "extra" not in hints
    # Only the Kubernetes object fields hold JSON objects, each in a tuple.
    nested = sorted(name for name, hint in hints.items()
                    if any(arg in FREE for arg in typing.get_args(hint)))
    assert nested == sorted(KUBERNETES_OBJECT_FIELDS)


def test_oke_vf_pools_carry_the_vf_network_settings() -> None:
    oci = fabric_of(existing("oci"))  # default fabric mode on OKE: SR-IOV VFs
    assert oci.sriov_network == SriovVfNetwork(
        ipam_pool="rdma-vf",
        spoofchk="off",
        sysctl={
            "net.ipv4.conf.all.arp_announce": "2",
            "net.ipv4.conf.all.arp_filter": "1",
            "net.ipv4.conf.all.arp_ignore": "1",
            "net.ipv4.conf.all.rp_filter": "0",
            "net.ipv4.conf.all.accept_local": "1",
        },
    )
    assert oci.pod_interfaces is None


def test_pools_without_vfs_carry_no_vf_network() -> None:
    assert fabric_of(existing("oci", fabric={"mode": "host-network"})).sriov_network is None
    assert fabric_of(existing("aws")).sriov_network is None
    assert fabric_of(existing("azure")).sriov_network is None


def test_gke_roce_multinetwork_pods_list_the_gvnic_before_the_rails() -> None:
    spec = existing("gcp", "a3-ultragpu-8g", kubernetes={"version": "1.33"})
    assert fabric_of(spec).pod_interfaces == PodInterfaces(
        default_key="networking.gke.io/default-interface",
        default_interface="eth0",
        leading=(PodInterface("eth0", "default"), PodInterface("eth1", "gvnic-1")),
    )


def test_gke_tcpx_multinetwork_pods_have_no_second_gvnic() -> None:
    # A3 High (TCPX over gVNIC): the GPU NICs are eth1..eth4 themselves.
    fabric = fabric_of(existing("gcp", "a3-highgpu-8g"))
    assert fabric.pod_interfaces == PodInterfaces(
        "networking.gke.io/default-interface", "eth0", (PodInterface("eth0", "default"),))


def test_gke_dra_pools_list_no_interfaces() -> None:
    spec = existing("gcp", "a4-highgpu-8g", fabric={"mode": "dra", "dranet": "self"})
    assert fabric_of(spec).pod_interfaces is None


def test_the_pod_fragment_renders_whatever_interfaces_the_description_lists() -> None:
    """The generic code names no cloud: another cloud's record renders the same way."""
    spec = existing("gcp", "a3-ultragpu-8g", kubernetes={"version": "1.33"})
    fabric = dataclasses.replace(
        fabric_of(spec),
        pod_interfaces=PodInterfaces("example.com/default", "net0",
                                     (PodInterface("net0", "pods"),)),
    )
    # Full node only: multi-networking serves 8-GPU pods (fabric/shapes.py).
    annotations = pod_fragment(fabric, 8).annotations
    assert annotations["example.com/default"] == "net0"
    # a3-ultragpu-8g: 8 RDMA NICs (catalog), rails eth2..eth9 on rdma-0..rdma-7.
    assert json.loads(annotations["networking.gke.io/interfaces"]) == [
        {"interfaceName": "net0", "network": "pods"},
        {"interfaceName": "eth2", "network": "rdma-0"},
        {"interfaceName": "eth3", "network": "rdma-1"},
        {"interfaceName": "eth4", "network": "rdma-2"},
        {"interfaceName": "eth5", "network": "rdma-3"},
        {"interfaceName": "eth6", "network": "rdma-4"},
        {"interfaceName": "eth7", "network": "rdma-5"},
        {"interfaceName": "eth8", "network": "rdma-6"},
        {"interfaceName": "eth9", "network": "rdma-7"},
    ]
    assert "networking.gke.io/default-interface" not in annotations


def test_gke_managed_dranet_is_read_from_the_dra_classes() -> None:
    # The node pool asks GKE for the accelerator network profile exactly when the
    # NIC driver is GKE's own (managed DRANet; spec fabric.dranet: managed).
    managed = fabric_of(existing("gcp", "a4-highgpu-8g",
                                 fabric={"mode": "dra", "dranet": "managed"}))
    own = fabric_of(existing("gcp", "a4-highgpu-8g", fabric={"mode": "dra", "dranet": "self"}))
    assert managed.dra is not None and managed.dra.managed_nics is True
    assert managed.dra.nic_driver == "mrdma.google.com"
    assert own.dra is not None and own.dra.managed_nics is False
