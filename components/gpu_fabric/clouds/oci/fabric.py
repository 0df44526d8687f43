"""How OKE RDMA pools hand RoCE NICs to pods (pure; no SDK).

Default: SR-IOV VFs from the NVIDIA Network Operator (``nvidia.com/rdma-vf``, one
VF per RDMA port: 16 on dual-port shapes, 8 on single-port ones; the count is the
catalog's ``fabric_nics``), attached with one SR-IOV network ``rdma-vf`` (nv-ipam)
listed once per VF in the Multus annotation. Alternative: host network
(oci-hpc-oke's default) with the shape's exact ``NCCL_IB_HCA`` list from the
catalog, or DRA (DraNet).

The RDMA shared device plugin is refused here: on RoCE a pod needs the NIC's
netdev in its network namespace for the GID table NCCL selects with
``NCCL_IB_GID_INDEX=3``; shared HCAs without it do not carry traffic (use
host-network instead).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from gpu_fabric.catalog import GpuVendor
from gpu_fabric.clouds.oci.provider import PROVIDER
from gpu_fabric.fabric.addons import GPU_OPERATOR
from gpu_fabric.fabric.derive import (
    dra_classes,
    fabric_mtu,
    nccl_env,
    pool_labels,
    pool_taints,
    refuse_amd_gpu_dra,
)
from gpu_fabric.fabric.description import (
    Attach,
    DevicePlugin,
    FabricDescription,
    Rail,
    SriovVfNetwork,
)
from gpu_fabric.fabric.problems import refuse

if TYPE_CHECKING:
    from gpu_fabric.clouds.oci.options import OciOptions
    from gpu_fabric.spec import ClusterSpec, GpuNodePoolSpec

VF_RESOURCE = "nvidia.com/rdma-vf"
SRIOV_NETWORK = "rdma-vf"
MULTUS_ANNOTATION = "k8s.v1.cni.cncf.io/networks"
# The VF network's tuning sysctls (oci-hpc-oke terraform/files/nvidia-network-operator/
# sriov-network.yaml): 16 VFs of one subnet in one pod need ARP answered per
# interface and no reverse-path filtering, else RDMA CM address resolution fails.
VF_SYSCTLS: dict[str, str] = {
    "net.ipv4.conf.all.arp_announce": "2",
    "net.ipv4.conf.all.arp_filter": "1",
    "net.ipv4.conf.all.arp_ignore": "1",
    "net.ipv4.conf.all.rp_filter": "0",
    "net.ipv4.conf.all.accept_local": "1",
}
# The VF network's CNI settings: its nv-ipam pool is named after it, spoof checking off
# (oci-hpc-oke sriov-network.yaml ``spoofChk: "off"``), the sysctls above.
VF_NETWORK = SriovVfNetwork(ipam_pool=SRIOV_NETWORK, spoofchk="off", sysctl=VF_SYSCTLS)
# DraNet's provider plug-in for this cloud (``args.cloudProviderHint``; dranet v1.4.0
# cmd/dranet/app.go and values.schema.json).
DRANET_PROVIDER_HINT = "OKE"
# OKE's own GPU device plugin is switched off by this node label when the GPU
# Operator provides nvidia.com/gpu (oci-hpc-oke sets it on GPU pools).
DISABLE_OKE_GPU_PLUGIN = "oci.oraclecloud.com/disable-gpu-device-plugin"
SUPPORTED_DEVICE_PLUGINS = ("auto", "sriov", "network-operator")


def describe(spec: ClusterSpec, pool: GpuNodePoolSpec) -> FabricDescription:
    machine = pool.machine
    mode = spec.fabric.mode.value
    _check(spec, pool)
    if not machine.has_fabric:
        attach = Attach.NONE
    elif mode == "host-network":
        attach = Attach.HOST_NETWORK
    elif mode == "dra":
        attach = Attach.DRA
    else:
        attach = Attach.DEVICE_PLUGIN
    sriov = attach is Attach.DEVICE_PLUGIN
    rails = tuple(
        Rail(i, netdev, hca, None, SRIOV_NETWORK if sriov else None, None)
        for i, (netdev, hca) in enumerate(zip(machine.nic_names, machine.hca_names, strict=True))
    )
    # VFs get their own mlx5_* names in the pod: match by prefix instead of the host list.
    overrides: dict[str, str] = {}
    if attach in (Attach.DEVICE_PLUGIN, Attach.DRA):
        # VF pods: bootstrap over the pod's eth0, not a VF (oci-hpc-oke
        # manifests/nccl-tests/kueue/virtual-functions/BM.GPU.H100.8.yaml and B200/B300).
        overrides = {"NCCL_IB_HCA": "mlx5", "NCCL_SOCKET_IFNAME": "eth0"}
    dra = attach is Attach.DRA
    if dra:
        refuse_amd_gpu_dra(spec, pool, "OKE", "auto, device-plugin or host-network")
    labels = pool_labels(pool, dra=dra)
    if machine.gpu.vendor is GpuVendor.NVIDIA:
        gpu_operator = spec.addons.choice(GPU_OPERATOR).enabled is not False
        labels.setdefault(DISABLE_OKE_GPU_PLUGIN, "true" if gpu_operator else "false")
    return FabricDescription(
        cloud=spec.cloud,
        pool=pool.name,
        machine=machine,
        attach=attach,
        device_plugin=DevicePlugin.SRIOV if sriov else DevicePlugin.NONE,
        rails=rails,
        gpu_resource=machine.gpu_resource,
        pooled_resources={VF_RESOURCE: machine.fabric_nics} if sriov else {},
        pooled_scaling="per_gpu",
        network_annotation_key=MULTUS_ANNOTATION if sriov else None,
        nccl_env=nccl_env(machine, overrides),
        node_labels=labels,
        taints=pool_taints(spec, pool, PROVIDER.gpu_taint(pool.machine.gpu.vendor)),
        mtu=fabric_mtu(spec, machine),
        dra=dra_classes(spec) if dra else None,
        gpu_dra=dra,
        nad_type="sriov" if sriov else None,
        ipam="nv-ipam" if sriov else None,
        # oci-hpc-oke mounts /dev/infiniband in host-network and VF pods alike
        # (manifests/nccl-tests/kueue[/virtual-functions]/*.yaml).
        host_paths={"/dev/infiniband": "/dev/infiniband"}
        if attach in (Attach.HOST_NETWORK, Attach.DEVICE_PLUGIN)
        else {},
        privileged=attach is Attach.HOST_NETWORK,
        sriov_network=VF_NETWORK if sriov else None,
        dranet_provider_hint=DRANET_PROVIDER_HINT,
    )


def _check(spec: ClusterSpec, pool: GpuNodePoolSpec) -> None:
    """OCI rules that need the pool and the cloud section together (before any resource)."""
    if spec.fabric.device_plugin not in SUPPORTED_DEVICE_PLUGINS:
        refuse(
            "fabric.device_plugin",
            "OKE RoCE pools hand NICs to pods as SR-IOV VFs (nvidia.com/rdma-vf); the RDMA "
            "shared device plugin leaves the netdev (and its RoCE GIDs) outside the pod; use "
            f"one of {', '.join(SUPPORTED_DEVICE_PLUGINS)}, or fabric.mode: host-network",
            spec.fabric.device_plugin,
        )
    options: OciOptions | None = spec.options
    if spec.existing is not None or options is None:
        return
    index = spec.node_pools.index(pool)
    if pool.min_nodes is not None or pool.max_nodes is not None:
        refuse(
            f"node_pools[{index}].max_nodes",
            "OKE pools are created with a fixed size here (the cluster autoscaler add-on is "
            "not wired up); remove min_nodes/max_nodes and set node_count",
            pool.max_nodes,
        )
    if not pool.machine.has_fabric:
        return
    if pool.os_image is None and options.gpu_image_id is None:
        refuse(
            "oci.gpu_image_id",
            f"pool '{pool.name}' ({pool.machine_type}) joins the RDMA network, and OKE RDMA "
            "pools boot only custom images with the RDMA (DOCA-OFED) stack; import one (e.g. "
            "an oci-hpc-oke GPU image) and set oci.gpu_image_id or the pool's os_image",
        )
    if pool.os_image is not None and not pool.os_image.startswith("ocid1.image."):
        refuse(
            f"node_pools[{index}].os_image",
            "on OCI os_image is an image OCID (ocid1.image....)",
            pool.os_image,
        )
