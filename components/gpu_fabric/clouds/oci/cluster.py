"""``OciGpuCluster``: an enhanced OKE cluster whose GPU pools sit in RDMA compute clusters.

Per RDMA pool: one ``core.ComputeCluster`` (the RDMA network group, empty, in the
pool's availability domain) and one OKE managed node pool launched into it via
``node_config_details.compute_cluster_id``. Node pools launch instances as the
``nodepool`` principal, so an IAM policy grants exactly
``COMPUTE_CLUSTER_LAUNCH_INSTANCE`` to that principal type (oci-hpc-oke's
statement), and every RDMA node pool waits for it.

Child names (compatibility surface, keep stable): ``<name>-vcn``, ``-nat``,
``-sgw``, ``-igw``, ``-private-rt``, ``-public-rt``, ``-<role>-sl``,
``-<role>-subnet`` (role: endpoint, workers, pods, lb) in an
:class:`~gpu_fabric.clouds.oci.blocks.OciFabricNetwork` ``<name>-network`` (none with
``oci.existing_network``); ``<name>-oke``, ``<name>-system``;
``<name>-<pool>-rdma`` (compute cluster) and ``<name>-<pool>`` (node pool) in an
:class:`~gpu_fabric.clouds.oci.blocks.OciGpuNodePool` ``<name>-<pool>-pool``;
``<name>-compute-cluster-launch`` (policy), ``<name>-nfd`` /
``<name>-network-operator`` (OKE add-ons, add-on mode only).

The blocks' children keep the names above and carry ``pulumi.Alias(parent=<name>)``:
stacks created before the blocks keep their URNs (``tests/clouds/test_building_blocks.py``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import pulumi
from pulumi_oci import containerengine, identity

from gpu_fabric.catalog import Cloud, GpuVendor
from gpu_fabric.clouds.oci import addressing
from gpu_fabric.clouds.oci.blocks import (
    PINNED_IMAGE,
    OciFabricNetwork,
    OciFabricNetworkArgs,
    OciGpuNodePool,
    OciGpuNodePoolArgs,
)
from gpu_fabric.clouds.oci.iam import home_region_provider, launch_policy, lookup_tenancy
from gpu_fabric.clouds.oci.kubernetes import (
    NETWORK_OPERATOR_ADDON_PART,
    network_operator_addon_config,
)
from gpu_fabric.clouds.oci.network import NetworkIds
from gpu_fabric.clouds.oci.nodepool import CNI, MAX_PODS_PER_NODE, flex_max_pods, pod_network
from gpu_fabric.clouds.oci.options import DEFAULT_SYSTEM_SHAPE, OciOptions, oke_version
from gpu_fabric.cluster import ClusterInfra, GpuCluster, NodePoolInfo
from gpu_fabric.fabric.addons import NETWORK_OPERATOR, resolve_addons
from gpu_fabric.security import effective_api_access

if TYPE_CHECKING:
    from gpu_fabric.fabric.stack import Installer

CLUSTER_TYPE = "ENHANCED_CLUSTER"
SYSTEM_LABEL = "gpufabric.dev/system"
TOKEN_VERSION = "2.0.0"


class OciGpuCluster(GpuCluster):
    """An OKE cluster (enhanced) with GPU node pools in RDMA compute clusters."""

    module = "oci"
    cloud = Cloud.OCI
    # Add-on mode: the cluster and the NFD add-on the Network Operator add-on needs.
    _operator_addon_inputs: tuple[containerengine.Cluster, containerengine.Addon] | None = None

    def _create_infrastructure(self) -> ClusterInfra:
        options: OciOptions = self.spec.options
        assert options is not None  # the spec requires the oci: section
        addresses = addressing.plan(self.spec)  # refuses a bad plan before any child
        # RDMA pools need the launch policy, written in the home region: a stack that
        # cannot name it is refused before any child exists.
        tenancy: str | None = None
        if options.home_region is None and any(p.machine.has_fabric
                                               for p in self.spec.node_pools):
            tenancy = lookup_tenancy(options.compartment_id,
                                     pulumi.Config("oci").get("tenancyOcid"))
        version = oke_version(self.spec.kubernetes.parsed)
        tags = {**self.spec.tags, "gpufabric-cluster": self.spec.name}
        access = effective_api_access(self.spec)
        net = self._network(options, addresses, access.public, access.public_cidrs, tags)
        network_outputs = {"vcn_id": net.vcn_id, "worker_subnet_id": net.worker_subnet_id,
                           "pod_subnet_id": net.pod_subnet_id}

        cluster = containerengine.Cluster(
            f"{self.name}-oke",
            compartment_id=options.compartment_id,
            kubernetes_version=version,
            name=self.spec.name,
            type=CLUSTER_TYPE,
            vcn_id=net.vcn_id,
            endpoint_config=containerengine.ClusterEndpointConfigArgs(
                subnet_id=net.endpoint_subnet_id,
                is_public_ip_enabled=access.public,
            ),
            cluster_pod_network_options=[
                containerengine.ClusterClusterPodNetworkOptionArgs(cni_type=CNI[options.cni])
            ],
            options=containerengine.ClusterOptionsArgs(
                service_lb_subnet_ids=[net.lb_subnet_id] if net.lb_subnet_id else None,
                kubernetes_network_config=containerengine.ClusterOptionsKubernetesNetworkConfigArgs(
                    pods_cidr=None if addresses.pods_in_vcn else str(addresses.pods),
                    services_cidr=str(addresses.services),
                ),
            ),
            kms_key_id=self.spec.secrets_encryption.kms_key if self.spec.secrets_encryption
            else None,
            freeform_tags=tags,
            opts=self.child_opts(),
        )
        shape = self.spec.system_pool.machine_type or DEFAULT_SYSTEM_SHAPE
        system_network = pod_network(
            options.cni, net.pod_subnet_id,
            flex_max_pods(options.system_ocpus) if shape.endswith(".Flex") else MAX_PODS_PER_NODE,
        )
        system_pool = self._system_pool(options, cluster, net, version, system_network, tags)

        # The launch policy names every pool's compute cluster (compute-cluster scope) and
        # every RDMA pool waits for it: the pools get its promise, kept once it exists.
        policy_ready: pulumi.Output[list[pulumi.Resource]]
        keep_promise: Callable[[pulumi.Output[list[pulumi.Resource]]], None]
        policy_ready, keep_promise = pulumi.deferred_output()
        blocks: dict[str, OciGpuNodePool] = {}
        infos: list[NodePoolInfo] = []
        for pool in self.spec.node_pools:
            looked_up = not (pool.os_image or options.gpu_image_id)
            image: pulumi.Input[str] = (
                pool.os_image or options.gpu_image_id or self._oke_image(options, version, "GPU")
            )
            block = OciGpuNodePool(
                f"{self.name}-{pool.name}-pool",
                OciGpuNodePoolArgs(
                    name_prefix=self.name, display_prefix=self.spec.name,
                    compartment_id=options.compartment_id, cluster_id=cluster.id,
                    availability_domain=self._zone, pool=pool, fabric=self.fabrics[pool.name],
                    kubernetes_version=version, worker_subnet_id=net.worker_subnet_id,
                    image_id=image, pin_image=looked_up, cni=options.cni,
                    pod_subnet_id=net.pod_subnet_id,
                    ssh_public_key=options.ssh_public_key, tags=tags,
                    depends_on=policy_ready if pool.machine.has_fabric else (),
                ),
                opts=self.child_opts(),
            )
            blocks[pool.name] = block
            infos.append(NodePoolInfo(pool.name, pool.machine, pool.node_count,
                                      block.node_pool.name))
        compute_clusters = {n: b.compute_cluster for n, b in blocks.items() if b.compute_cluster}
        policy: identity.Policy | None = None
        if compute_clusters:
            # IAM writes go to the tenancy's home region (oci-hpc-oke terraform/iam.tf at
            # 61d210a: every oci_identity_policy has `provider = oci.home`).
            home = home_region_provider(self.name, options.home_region, tenancy, self)
            policy = launch_policy(
                self.name, self.spec.name, options.compartment_id,
                [cc.id for cc in compute_clusters.values()], options.compute_cluster_policy,
                tags, self.child_opts(provider=home),
            )
        keep_promise(pulumi.Output.from_input([policy] if policy else []))

        ready: list[pulumi.Resource] = [system_pool]
        ready += self._addons(options, cluster, system_pool)
        self._amd_gpu_plugin(cluster, system_pool)

        kubeconfig = containerengine.get_cluster_kube_config_output(
            cluster_id=cluster.id,
            token_version=TOKEN_VERSION,
            endpoint="PUBLIC_ENDPOINT" if access.public else "PRIVATE_ENDPOINT",
            opts=pulumi.InvokeOutputOptions(parent=self),
        ).content
        return ClusterInfra(
            kubeconfig=pulumi.Output.secret(kubeconfig),
            cluster_name=cluster.name,
            node_pools=infos,
            kubernetes_ready=ready,
            extra_outputs={
                "cluster_id": cluster.id,
                "kubernetes_version": version,
                "compute_cluster_ids": {n: cc.id for n, cc in compute_clusters.items()},
                **network_outputs,
            },
        )

    # -- pieces -------------------------------------------------------------
    @property
    def _zone(self) -> str:
        zone = self.spec.location.zone
        assert zone is not None  # required on OCI by the spec
        return zone

    def _network(
        self, options: OciOptions, addresses: addressing.AddressPlan, endpoint_public: bool,
        endpoint_allowed_cidrs: list[str], tags: dict[str, str],
    ) -> NetworkIds:
        """The fabric-network block, or the ids of ``oci.existing_network`` (no block)."""
        ex = options.existing_network
        if ex is not None:
            return NetworkIds(ex.vcn_id, ex.endpoint_subnet_id, ex.worker_subnet_id,
                              ex.pod_subnet_id, ex.lb_subnet_id)
        return OciFabricNetwork(
            f"{self.name}-network",
            OciFabricNetworkArgs(
                name_prefix=self.name, compartment_id=options.compartment_id,
                addresses=addresses, endpoint_public=endpoint_public,
                endpoint_allowed_cidrs=endpoint_allowed_cidrs,
                public_load_balancers=options.public_load_balancers, tags=tags,
            ),
            opts=self.child_opts(),
        ).ids

    def _oke_image(self, options: OciOptions, version: str, kind: str) -> pulumi.Output[str]:
        """Newest OKE Oracle Linux image of ``kind`` ("" for CPU, "GPU") for ``version``."""
        found = containerengine.get_node_pool_option_output(
            node_pool_option_id="all",
            compartment_id=options.compartment_id,
            node_pool_k8s_version=version,
            node_pool_os_type="OL",
            opts=pulumi.InvokeOutputOptions(parent=self),
        )
        wanted = version.lstrip("v")

        def pick(sources: Any) -> str:
            matches = sorted(
                (s.source_name, s.image_id) for s in sources or []
                if f"OKE-{wanted}" in s.source_name
                and ("GPU" in s.source_name) == (kind == "GPU")
                and "aarch64" not in s.source_name
            )
            if not matches:
                raise ValueError(
                    f"no OKE {kind or 'CPU'} Oracle Linux image for Kubernetes {version}; set "
                    "oci.system_image_id (or the pool's os_image)"
                )
            return str(matches[-1][1])

        return found.sources.apply(pick)

    def _system_pool(
        self, options: OciOptions, cluster: containerengine.Cluster, net: NetworkIds,
        version: str, pod_network: Any, tags: dict[str, str],
    ) -> containerengine.NodePool:
        shape = self.spec.system_pool.machine_type or DEFAULT_SYSTEM_SHAPE
        image = options.system_image_id or self._oke_image(options, version, "")
        return containerengine.NodePool(
            f"{self.name}-system",
            cluster_id=cluster.id,
            compartment_id=options.compartment_id,
            kubernetes_version=version,
            name=f"{self.spec.name}-system",
            node_shape=shape,
            node_shape_config=containerengine.NodePoolNodeShapeConfigArgs(
                ocpus=options.system_ocpus, memory_in_gbs=options.system_memory_gbs,
            ) if shape.endswith(".Flex") else None,
            node_source_details=containerengine.NodePoolNodeSourceDetailsArgs(
                source_type="IMAGE", image_id=image,
            ),
            node_config_details=containerengine.NodePoolNodeConfigDetailsArgs(
                size=self.spec.system_pool.node_count,
                placement_configs=[
                    containerengine.NodePoolNodeConfigDetailsPlacementConfigArgs(
                        availability_domain=self._zone, subnet_id=net.worker_subnet_id,
                    )
                ],
                node_pool_pod_network_option_details=pod_network,
                freeform_tags=tags,
            ),
            initial_node_labels=[
                containerengine.NodePoolInitialNodeLabelArgs(key=SYSTEM_LABEL, value="true")
            ],
            # OKE replaces the system nodes itself (one extra node at a time, none down)
            # when the pool's version or image changes (docs/clouds/oci.md, day 2).
            node_pool_cycling_details=containerengine.NodePoolNodePoolCyclingDetailsArgs(
                is_node_cycling_enabled=True, maximum_surge="1", maximum_unavailable="0",
            ),
            ssh_public_key=options.ssh_public_key,
            freeform_tags=tags,
            # A looked-up image is resolved once: the pool keeps it (no diff on every
            # OKE image release); oci.system_image_id moves it on.
            opts=self.child_opts(ignore_changes=None if options.system_image_id
                                 else PINNED_IMAGE),
        )

    def _addons(
        self, options: OciOptions, cluster: containerengine.Cluster,
        system_pool: containerengine.NodePool,
    ) -> list[pulumi.Resource]:
        """OKE add-ons (add-on mode): NFD before the fabric layer (the GPU Operator relies
        on it); the Network Operator add-on comes later, as a layer part
        (:meth:`_layer_installers`)."""
        addons = resolve_addons(self.spec, self.fabrics)
        if options.network_operator != "addon" or not addons.on(NETWORK_OPERATOR):
            return []
        nfd = containerengine.Addon(
            f"{self.name}-nfd",
            addon_name="NodeFeatureDiscovery",
            cluster_id=cluster.id,
            remove_addon_resources_on_delete=True,
            opts=self.child_opts(depends_on=[system_pool]),
        )
        self._operator_addon_inputs = (cluster, nfd)
        return [nfd]

    def _amd_gpu_plugin(
        self, cluster: containerengine.Cluster, system_pool: containerengine.NodePool
    ) -> containerengine.Addon | None:
        """``<name>-amd-gpu-plugin``: OKE's AmdGpuPlugin add-on, the AMD device plugin that
        publishes ``amd.com/gpu`` on BM.GPU.MI300X.8 nodes (whose image carries the amdgpu
        driver). oci-hpc-oke terraform/oke-addons.tf at 61d210a, lines 121-125 and 339-349:
        ``addon_name = "AmdGpuPlugin"`` whenever a worker shape is an AMD GPU shape. Like
        upstream, no add-on version is set: OKE serves its current one."""
        if not any(p.machine.gpu.vendor is GpuVendor.AMD for p in self.spec.node_pools):
            return None
        return containerengine.Addon(
            f"{self.name}-amd-gpu-plugin",
            addon_name="AmdGpuPlugin",
            cluster_id=cluster.id,
            override_existing=True,
            remove_addon_resources_on_delete=True,
            opts=self.child_opts(depends_on=[system_pool]),
        )

    def _layer_installers(self) -> Mapping[str, Installer]:
        """Add-on mode: the layer part ``network-operator`` is the OKE add-on, created
        after the GPU Operator's toolkit rollout (components/gpu_fabric/clouds/oci/kubernetes.py
        ``addon_parts``; oci-hpc-oke terraform/oke-addons.tf orders them so)."""
        if self._operator_addon_inputs is None:
            return {}
        return {NETWORK_OPERATOR_ADDON_PART: self._network_operator_addon}

    def _network_operator_addon(
        self, waits: Sequence[pulumi.Resource]
    ) -> list[pulumi.Resource]:
        assert self._operator_addon_inputs is not None
        cluster, nfd = self._operator_addon_inputs
        return [containerengine.Addon(
            f"{self.name}-network-operator",
            addon_name="NvidiaNetworkOperator",
            cluster_id=cluster.id,
            remove_addon_resources_on_delete=True,
            configurations=[
                containerengine.AddonConfigurationArgs(key=k, value=v)
                for k, v in network_operator_addon_config().items()
            ],
            opts=self.child_opts(depends_on=[nfd, *waits]),
        )]
