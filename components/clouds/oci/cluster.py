"""``OciGpuCluster``: an enhanced OKE cluster whose GPU pools sit in RDMA compute clusters.

Per RDMA pool: one ``core.ComputeCluster`` (the RDMA network group, empty, in the
pool's availability domain) and one OKE managed node pool launched into it via
``node_config_details.compute_cluster_id``. Node pools launch instances as the
``nodepool`` principal, so an IAM policy grants exactly
``COMPUTE_CLUSTER_LAUNCH_INSTANCE`` to that principal type (oci-hpc-oke's
statement), before any pool is created.

Child names (compatibility surface, keep stable): ``<name>-vcn``, ``-nat``,
``-sgw``, ``-igw``, ``-private-rt``, ``-public-rt``, ``-<role>-sl``,
``-<role>-subnet`` (role: endpoint, workers, pods, lb), ``<name>-oke``,
``<name>-system``, ``<name>-<pool>-rdma`` (compute cluster),
``<name>-compute-cluster-launch`` (policy), ``<name>-<pool>`` (node pool),
``<name>-nfd`` / ``<name>-network-operator`` (OKE add-ons, add-on mode only).
"""

from __future__ import annotations

import base64
import json
from typing import Any

import pulumi
from pulumi_oci import containerengine, core, identity

from components.catalog import Cloud
from components.clouds.oci import addressing
from components.clouds.oci.kubernetes import network_operator_addon_config
from components.clouds.oci.network import NetworkIds, OkeNetwork
from components.clouds.oci.options import DEFAULT_SYSTEM_SHAPE, OciOptions, oke_version
from components.cluster import ClusterInfra, GpuCluster, NodePoolInfo
from components.fabric.addons import resolve_addons
from components.fabric.description import FabricDescription, Taint
from components.security import effective_api_access
from components.spec import GpuNodePoolSpec

CLUSTER_TYPE = "ENHANCED_CLUSTER"
CNI = {"npn": "OCI_VCN_IP_NATIVE", "flannel": "FLANNEL_OVERLAY"}
SYSTEM_LABEL = "gpufabric.dev/system"
TOKEN_VERSION = "2.0.0"
_Preemptible = containerengine.NodePoolNodeConfigDetailsPlacementConfigPreemptibleNodeConfigArgs
_PreemptionAction = (
    containerengine.NodePoolNodeConfigDetailsPlacementConfigPreemptibleNodeConfigPreemptionActionArgs
)


def launch_policy_statements(
    compartment_id: str, compute_cluster_ids: list[str], scope: str
) -> list[str]:
    """IAM statements letting OKE node pools launch instances into compute clusters."""
    principal = "request.principal.type = 'nodepool'"
    if scope == "compartment":
        return [
            "Allow any-user to {COMPUTE_CLUSTER_LAUNCH_INSTANCE} in compartment id "
            f"{compartment_id} where {principal}"
        ]
    return [
        "Allow any-user to {COMPUTE_CLUSTER_LAUNCH_INSTANCE} in compartment id "
        f"{compartment_id} where all {{{principal}, target.resource.id = '{cc}'}}"
        for cc in compute_cluster_ids
    ]


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
# Pods per node with VCN-native pod networking: OKE's default is 31; oci-hpc-oke sets
# 110 ("Absolute maximum is 110", terraform/variables.tf max_pods_per_node), and for
# Flex shapes min(110, (ocpus - 1) * 31), 31 at <= 2 OCPUs (terraform/oke-workers.tf).
MAX_PODS_PER_NODE = 110


def flex_max_pods(ocpus: int) -> int:
    return 31 if ocpus <= 2 else min(MAX_PODS_PER_NODE, (ocpus - 1) * 31)


def bootstrap_script(taints: tuple[Taint, ...], kubernetes_version: str) -> str:
    """The node bootstrap oci-hpc-oke runs on RDMA nodes, as a shell script."""
    args = ""
    if taints:
        spec = ",".join(f"{t.key}={t.value}:{t.effect}" for t in taints)
        args = f" --kubelet-extra-args '--register-with-taints={spec}'"
    version = kubernetes_version.lstrip("v")
    minor = ".".join(version.split(".")[:2])
    local = OKE_LOCAL_REPO.format(minor=minor)
    remote = OKE_APT_REPO.format(minor=minor)
    return "\n".join([
        "set -eu",
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


def taint_user_data(taints: tuple[Taint, ...], kubernetes_version: str = "v1.34.1") -> str:
    """cloud-init (base64) for RDMA nodes: networkd leaves foreign routes alone, the OKE
    node package is installed when the image lacks it, and the node registers with its
    taints (OKE pools have no taint field)."""
    script = bootstrap_script(taints, kubernetes_version)
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


class OciGpuCluster(GpuCluster):
    """An OKE cluster (enhanced) with GPU node pools in RDMA compute clusters."""

    module = "oci"
    cloud = Cloud.OCI

    def _create_infrastructure(self) -> ClusterInfra:
        options: OciOptions = self.spec.oci  # type: ignore[assignment]
        assert options is not None  # the spec requires the oci: section
        addresses = addressing.plan(self.spec)  # refuses a bad plan before any child
        version = oke_version(self.spec.kubernetes.parsed)
        tags = {**self.spec.tags, "gpufabric-cluster": self.spec.name}
        access = effective_api_access(self.spec)
        network_outputs: dict[str, Any] = {}
        if options.existing_network is not None:
            ex = options.existing_network
            net = NetworkIds(ex.vcn_id, ex.endpoint_subnet_id, ex.worker_subnet_id,
                             ex.pod_subnet_id, ex.lb_subnet_id)
            network_outputs = {"vcn_id": ex.vcn_id, "worker_subnet_id": ex.worker_subnet_id,
                               "pod_subnet_id": ex.pod_subnet_id}
        else:
            oke_net = OkeNetwork(
                self.name, self, options.compartment_id, addresses, tags=tags,
                endpoint_public=access.public,
                endpoint_allowed_cidrs=access.public_cidrs,
                public_load_balancers=options.public_load_balancers,
            )
            net = oke_net.ids()
            network_outputs = oke_net.outputs()

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
        pod_network = self._pod_network(options, net)
        shape = self.spec.system_pool.machine_type or DEFAULT_SYSTEM_SHAPE
        system_network = self._pod_network(
            options, net,
            flex_max_pods(options.system_ocpus) if shape.endswith(".Flex") else MAX_PODS_PER_NODE,
        )
        system_pool = self._system_pool(options, cluster, net, version, system_network, tags)

        rdma_pools = [p for p in self.spec.node_pools if p.machine.has_fabric]
        compute_clusters = {
            p.name: core.ComputeCluster(
                f"{self.name}-{p.name}-rdma",
                availability_domain=self._zone,
                compartment_id=options.compartment_id,
                display_name=f"{self.spec.name}-{p.name}-rdma",
                freeform_tags=tags,
                opts=self.child_opts(),
            )
            for p in rdma_pools
        }
        policy: identity.Policy | None = None
        if compute_clusters:
            ids = [cc.id for cc in compute_clusters.values()]
            policy = identity.Policy(
                f"{self.name}-compute-cluster-launch",
                compartment_id=options.compartment_id,
                name=f"{self.spec.name}-compute-cluster-launch",
                description=f"OKE node pools of {self.spec.name} launch into its RDMA compute "
                "clusters",
                statements=pulumi.Output.all(*ids).apply(
                    lambda resolved: launch_policy_statements(
                        options.compartment_id, list(resolved), options.compute_cluster_policy
                    )
                ),
                freeform_tags=tags,
                opts=self.child_opts(),
            )

        infos: list[NodePoolInfo] = []
        for pool in self.spec.node_pools:
            cc = compute_clusters.get(pool.name)
            node_pool = self._gpu_pool(
                options, pool, self.fabrics[pool.name], cluster, net, version, pod_network,
                tags, cc, policy,
            )
            infos.append(NodePoolInfo(pool.name, pool.machine, pool.node_count, node_pool.name))

        ready: list[pulumi.Resource] = [system_pool]
        ready += self._addons(options, cluster, system_pool)

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

    def _pod_network(
        self, options: OciOptions, net: NetworkIds, max_pods: int = MAX_PODS_PER_NODE
    ) -> containerengine.NodePoolNodeConfigDetailsNodePoolPodNetworkOptionDetailsArgs:
        if options.cni == "npn":
            # The network step creates (or the options require) a pod subnet for npn.
            assert net.pod_subnet_id is not None, "cni npn without a pod subnet"
            return containerengine.NodePoolNodeConfigDetailsNodePoolPodNetworkOptionDetailsArgs(
                cni_type=CNI["npn"], pod_subnet_ids=[net.pod_subnet_id],
                max_pods_per_node=max_pods,
            )
        return containerengine.NodePoolNodeConfigDetailsNodePoolPodNetworkOptionDetailsArgs(
            cni_type=CNI["flannel"]
        )

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
            ssh_public_key=options.ssh_public_key,
            freeform_tags=tags,
            opts=self.child_opts(),
        )

    def _gpu_pool(
        self, options: OciOptions, pool: GpuNodePoolSpec, fabric: FabricDescription,
        cluster: containerengine.Cluster, net: NetworkIds, version: str, pod_network: Any,
        tags: dict[str, str], compute_cluster: core.ComputeCluster | None,
        policy: identity.Policy | None,
    ) -> containerengine.NodePool:
        image: pulumi.Input[str] = (
            pool.os_image or options.gpu_image_id or self._oke_image(options, version, "GPU")
        )
        placement = containerengine.NodePoolNodeConfigDetailsPlacementConfigArgs(
            availability_domain=self._zone,
            subnet_id=net.worker_subnet_id,
            capacity_reservation_id=pool.capacity.reservation
            if pool.capacity.type == "reservation" else None,
            preemptible_node_config=_Preemptible(
                preemption_action=_PreemptionAction(type="TERMINATE", is_preserve_boot_volume=False)
            ) if pool.capacity.type == "spot" else None,
        )
        depends: list[pulumi.Resource] = [policy] if policy and compute_cluster else []
        return containerengine.NodePool(
            f"{self.name}-{pool.name}",
            cluster_id=cluster.id,
            compartment_id=options.compartment_id,
            kubernetes_version=version,
            name=f"{self.spec.name}-{pool.name}",
            node_shape=pool.machine.name,
            node_source_details=containerengine.NodePoolNodeSourceDetailsArgs(
                source_type="IMAGE", image_id=image,
                boot_volume_size_in_gbs=str(pool.disk_size_gb) if pool.disk_size_gb else None,
            ),
            node_config_details=containerengine.NodePoolNodeConfigDetailsArgs(
                size=pool.node_count,
                compute_cluster_id=compute_cluster.id if compute_cluster else None,
                placement_configs=[placement],
                node_pool_pod_network_option_details=pod_network,
                freeform_tags=tags,
            ),
            initial_node_labels=[
                containerengine.NodePoolInitialNodeLabelArgs(key=k, value=v)
                for k, v in sorted(fabric.node_labels.items())
            ],
            node_metadata={"user_data": taint_user_data(fabric.taints, version)},
            ssh_public_key=options.ssh_public_key,
            freeform_tags=tags,
            opts=self.child_opts(depends_on=depends),
        )

    def _addons(
        self, options: OciOptions, cluster: containerengine.Cluster,
        system_pool: containerengine.NodePool,
    ) -> list[pulumi.Resource]:
        """OKE add-ons (add-on mode): NFD and the Network Operator, before the fabric layer."""
        addons = resolve_addons(self.spec, self.fabrics)
        if options.network_operator != "addon" or not addons.on("network_operator"):
            return []
        nfd = containerengine.Addon(
            f"{self.name}-nfd",
            addon_name="NodeFeatureDiscovery",
            cluster_id=cluster.id,
            remove_addon_resources_on_delete=True,
            opts=self.child_opts(depends_on=[system_pool]),
        )
        operator = containerengine.Addon(
            f"{self.name}-network-operator",
            addon_name="NvidiaNetworkOperator",
            cluster_id=cluster.id,
            remove_addon_resources_on_delete=True,
            configurations=[
                containerengine.AddonConfigurationArgs(key=k, value=v)
                for k, v in network_operator_addon_config().items()
            ],
            opts=self.child_opts(depends_on=[nfd]),
        )
        return [nfd, operator]
