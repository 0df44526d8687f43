"""GKE node pools: the small system pool and one GPU pool per spec pool.

A GPU pool takes its machine type, accelerator type and count from the
catalog, its extra node networks from the layout (gVNIC + one per RDMA NIC, or
one per GPUDirect-TCPX/TCPXO NIC), its labels and taints from the fabric
description, and its capacity (reservation, spot, flex-start, queued
provisioning) and placement from the spec.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import pulumi
import pulumi_gcp as gcp

from gpu_fabric.clouds.gcp.layout import (
    DEFAULT_IMAGE,
    GPU_POOL_IGNORE_CHANGES,
    GPU_POOL_MAX_SURGE,
    GPU_POOL_MAX_UNAVAILABLE,
    SYSTEM_POOL_NAME,
    auto_repair,
    compact_placement,
    workload_policy_name,
)

if TYPE_CHECKING:
    from gpu_fabric.clouds.gcp.blocks import GcpGpuNodePoolArgs
    from gpu_fabric.clouds.gcp.options import GcpOptions
    from gpu_fabric.cluster import GpuCluster
    from gpu_fabric.spec import GpuNodePoolSpec

DEFAULT_SYSTEM_MACHINE = "e2-standard-8"
SCOPES = ["https://www.googleapis.com/auth/cloud-platform"]
RESERVATION_KEY = "compute.googleapis.com/reservation-name"
_EFFECTS = {"NoSchedule": "NO_SCHEDULE", "PreferNoSchedule": "PREFER_NO_SCHEDULE",
            "NoExecute": "NO_EXECUTE"}


def gpu_driver_version(chosen: str | None, gpu_operator: bool, dra: bool = False) -> str:
    """Who installs the NVIDIA driver: GKE, unless the GPU Operator or a DRA pool's
    driver DaemonSet does.

    GKE "Prepare GKE infrastructure for DRA workloads" (cloud.google.com/kubernetes-engine/
    docs/how-to/set-up-dra, GKE 1.34+): "Automatic GPU driver installation isn't supported
    with DRA"; node pools take ``gpu-driver-version=disabled`` and the driver comes from
    GKE's installer DaemonSet (``gpu_fabric.clouds.gcp.driver``). ``layout.check_pool``
    refuses an explicit DEFAULT / LATEST on such pools before this runs.
    """
    if dra:
        return "INSTALLATION_DISABLED"
    if chosen:
        return chosen
    return "INSTALLATION_DISABLED" if gpu_operator else "DEFAULT"


def system_node_pool(
    owner: GpuCluster, cluster: gcp.container.Cluster, zone: str, sa: pulumi.Input[str]
) -> gcp.container.NodePool:
    spec = owner.spec
    opts: GcpOptions | None = spec.options
    assert opts is not None
    upgrade = spec.kubernetes.auto_upgrade or opts.release_channel != "UNSPECIFIED"
    return gcp.container.NodePool(
        f"{owner.name}-system",
        name=SYSTEM_POOL_NAME,
        project=opts.project,
        cluster=cluster.name,
        location=zone,
        node_locations=[zone],
        node_count=spec.system_pool.node_count,
        node_config=gcp.container.NodePoolNodeConfigArgs(
            machine_type=spec.system_pool.machine_type or DEFAULT_SYSTEM_MACHINE,
            image_type=DEFAULT_IMAGE,
            service_account=sa,
            oauth_scopes=SCOPES,
            labels={"gpufabric.dev/role": "system"},
            shielded_instance_config=gcp.container.NodePoolNodeConfigShieldedInstanceConfigArgs(
                # cluster-toolkit gke-node-pool main.tf lines 220-223 / gke-cluster 354-358
                # (1047080375af): secure boot (variables.tf default true) + integrity monitoring.
                enable_secure_boot=True, enable_integrity_monitoring=True,
            ),
            resource_labels=dict(spec.tags) or None,
            workload_metadata_config=gcp.container.NodePoolNodeConfigWorkloadMetadataConfigArgs(
                mode="GKE_METADATA"
            ) if opts.workload_identity else None,
        ),
        management=gcp.container.NodePoolManagementArgs(auto_repair=True, auto_upgrade=upgrade),
        opts=owner.child_opts(delete_before_replace=True),  # fixed name (plan_facts UNIQUE_NAMES)
    )


def gpu_node_pool(
    args: GcpGpuNodePoolArgs, child: Callable[..., pulumi.ResourceOptions]
) -> gcp.container.NodePool:
    """The pool of ``args`` (a :class:`~gpu_fabric.clouds.gcp.blocks.GcpGpuNodePoolArgs`);
    ``child`` gives each resource its options (parent, aliases, waits)."""
    pool, fabric = args.pool, args.fabric
    machine = pool.machine
    capacity = pool.capacity.type
    # GKE-managed DRANet: the cloud installs the NIC driver (see fabric.describe).
    managed = fabric.dra is not None and fabric.dra.managed_nics
    networks = [
        gcp.container.NodePoolNetworkConfigAdditionalNodeNetworkConfigArgs(
            network=n.network, subnetwork=n.subnetwork
        )
        for n in args.node_networks
    ]
    network_config = None
    if networks or managed:
        network_config = gcp.container.NodePoolNetworkConfigArgs(
            additional_node_network_configs=networks or None,
            # GKE-managed DRANet creates and attaches the RDMA networks itself.
            accelerator_network_profile="auto" if managed else None,
        )
    dynamic = capacity in ("flex_start", "queued")
    autoscaling = None
    if pool.min_nodes is not None or dynamic:
        autoscaling = gcp.container.NodePoolAutoscalingArgs(
            total_min_node_count=pool.min_nodes or 0,
            total_max_node_count=pool.max_nodes or max(pool.node_count, 1),
            location_policy="ANY" if dynamic else "BALANCED",
        )
    accelerator = gcp.container.NodePoolNodeConfigGuestAcceleratorArgs(
        type=str(machine.accelerator),
        count=machine.gpus,
        gpu_driver_installation_config=(
            gcp.container.NodePoolNodeConfigGuestAcceleratorGpuDriverInstallationConfigArgs(
                gpu_driver_version=args.driver_version
            )
        ),
    )
    return gcp.container.NodePool(
        f"{args.name_prefix}-{pool.name}",
        name=pool.name,
        project=args.project,
        cluster=args.cluster_name,
        location=args.zone,
        node_locations=[args.zone],
        node_count=None if dynamic or autoscaling else pool.node_count,
        initial_node_count=0 if dynamic else (pool.node_count if autoscaling else None),
        autoscaling=autoscaling,
        node_config=gcp.container.NodePoolNodeConfigArgs(
            machine_type=machine.name,
            guest_accelerators=[accelerator],
            image_type=pool.os_image or DEFAULT_IMAGE,
            disk_size_gb=pool.disk_size_gb,
            # Images (multi-GB NCCL / training images) and emptyDir on the machine's
            # bundled local SSDs, not the boot disk (cluster-toolkit disk_definitions.tf).
            ephemeral_storage_local_ssd_config=(
                gcp.container.NodePoolNodeConfigEphemeralStorageLocalSsdConfigArgs(
                    local_ssd_count=machine.local_ssd_count
                ) if machine.local_ssd_count else None
            ),
            gvnic=gcp.container.NodePoolNodeConfigGvnicArgs(enabled=True),
            shielded_instance_config=gcp.container.NodePoolNodeConfigShieldedInstanceConfigArgs(
                # cluster-toolkit gke-node-pool main.tf lines 220-223 / gke-cluster 354-358
                # (1047080375af): secure boot (variables.tf default true) + integrity monitoring.
                enable_secure_boot=True, enable_integrity_monitoring=True,
            ),
            labels=dict(fabric.node_labels),
            taints=[
                gcp.container.NodePoolNodeConfigTaintArgs(
                    key=t.key, value=t.value, effect=_EFFECTS[t.effect]
                )
                for t in fabric.taints
            ],
            service_account=args.service_account,
            oauth_scopes=SCOPES,
            resource_labels=dict(args.resource_labels) or None,
            workload_metadata_config=gcp.container.NodePoolNodeConfigWorkloadMetadataConfigArgs(
                mode="GKE_METADATA"
            ) if args.workload_identity else None,
            reservation_affinity=_reservation(pool),
            spot=True if capacity == "spot" else None,
            flex_start=True if capacity == "flex_start" else None,
        ),
        network_config=network_config,
        placement_policy=_placement(args, child),
        queued_provisioning=(
            gcp.container.NodePoolQueuedProvisioningArgs(enabled=True)
            if capacity == "queued" else None
        ),
        management=gcp.container.NodePoolManagementArgs(
            auto_repair=auto_repair(pool), auto_upgrade=pool.auto_upgrade
        ),
        upgrade_settings=gcp.container.NodePoolUpgradeSettingsArgs(
            strategy="SURGE",
            max_surge=GPU_POOL_MAX_SURGE,
            max_unavailable=GPU_POOL_MAX_UNAVAILABLE,
        ),
        # Fixed name: a replacement deletes first (plan_facts UNIQUE_NAMES says why).
        opts=child(ignore_changes=list(GPU_POOL_IGNORE_CHANGES), delete_before_replace=True),
    )


def _placement(
    args: GcpGpuNodePoolArgs, child: Callable[..., pulumi.ResourceOptions]
) -> gcp.container.NodePoolPlacementPolicyArgs | None:
    """Where the pool's VMs sit relative to each other, per machine family.

    * Multi-node NVLink machines (A4X, NVL72): a GCE *workload policy*
      (HIGH_THROUGHPUT, accelerator topology ``1x<NVLink domain>``) named by the pool's
      COMPACT placement, always (cluster-toolkit examples/gke-a4x/gke-a4x.yaml,
      modules/compute/resource-policy): the nodes of one NVLink domain must share a rack.
    * Other GPU families: a plain COMPACT policy where capacity does not already fix
      placement (``layout.compact_placement``); reservations and DWS capacity come densely
      co-located (AI Hypercomputer "Compact placement policy and workload policy overview").
    """
    pool = args.pool
    machine = pool.machine
    if machine.nvlink_domain and pool.placement != "none":
        policy = gcp.compute.ResourcePolicy(
            f"{args.name_prefix}-{pool.name}-workload",
            name=args.workload_policy_name
            or workload_policy_name(args.name_prefix, pool.name),
            project=args.project,
            region=args.zone.rsplit("-", 1)[0],  # a GCP zone is <region>-<letter>
            workload_policy=gcp.compute.ResourcePolicyWorkloadPolicyArgs(
                type="HIGH_THROUGHPUT",
                accelerator_topology=f"1x{machine.nvlink_domain}",
            ),
            opts=child(delete_before_replace=True),  # fixed name (plan_facts UNIQUE_NAMES)
        )
        return gcp.container.NodePoolPlacementPolicyArgs(type="COMPACT", policy_name=policy.name)
    if compact_placement(pool):
        return gcp.container.NodePoolPlacementPolicyArgs(type="COMPACT")
    return None


def _reservation(
    pool: GpuNodePoolSpec,
) -> gcp.container.NodePoolNodeConfigReservationAffinityArgs | None:
    capacity = pool.capacity.type
    if capacity == "reservation":
        return gcp.container.NodePoolNodeConfigReservationAffinityArgs(
            consume_reservation_type="SPECIFIC_RESERVATION",
            key=RESERVATION_KEY,
            values=[str(pool.capacity.reservation)],
        )
    if capacity in ("flex_start", "queued", "spot"):
        # DWS (flex-start, queued) and Spot capacity must not consume reservations.
        return gcp.container.NodePoolNodeConfigReservationAffinityArgs(
            consume_reservation_type="NO_RESERVATION"
        )
    return None
