"""The operator builders written out: Network Operator, GPU Operator, the NVIDIA DRA
driver, DraNet and the resource.k8s.io objects, every field literal and sourced.

Added for mutation testing (docs/mutation.md, ``scripts/mutation.py fabric-manifests``):
the older tests reached these builders through whole plans and checked a few keys, so
wrong versions of them passed. Each builder is called directly here, once per option
path, and its whole output compared with an object written out below. Sources (pins in
components/gpu_fabric/versions.py; copies with provenance in tests/data/upstream/sources.json):

* Mellanox/network-operator v26.4.1 (NETWORK_OPERATOR, commit 85afd6d9):
  example/crs/mellanox.com_v1alpha1_nicclusterpolicy_cr-full.yaml (image names
  ``doca-driver``, ``k8s-rdma-shared-dev-plugin``, ``sriov-network-device-plugin``,
  ``multus-cni``, ``plugins``, ``nvidia-k8s-ipam``; repository ``nvcr.io/nvidia/mellanox``;
  tag ``network-operator-v26.4.1``; ``nvIpam.enableWebhook: false``; the ofedDriver
  upgradePolicy/drain block), example/crs/nvidia.com_v1alpha1_nv_ipam_ippool_cr.yaml
  (IPPool subnet / perNodeBlockSize / gateway), deployment/network-operator/values.yaml
  (``nfd.enabled``, ``nfd.deployNodeFeatureRules``, ``sriovNetworkOperator.enabled``,
  ``operator.tolerations``, ``node-feature-discovery.worker.tolerations``) and
  deployment/network-operator/crds/mellanox.com_nicclusterpolicies.yaml.
* Azure/aks-rdma-infiniband configs/nicclusterpolicy/base/nic.yaml (at 700dabb): the
  ofedDriver probes (startupProbe 10/20, livenessProbe 30/30, readinessProbe 10/30),
  the ``pci-15b3.present`` node affinity and the OFED_BLACKLIST_MODULES_FILE env; the
  upstream example's startupProbe period is 10, the project follows Azure's 20.
* NVIDIA/gpu-operator v26.7.0 (GPU_OPERATOR) deployments/gpu-operator/values.yaml:
  ``driver.enabled``, ``driver.rdma.{enabled,useHostMofed}``, ``toolkit.{enabled,
  installDir}``, ``devicePlugin.enabled``, ``dcgmExporter.serviceMonitor.enabled``
  (chart default true, so it is always written), ``nfd.enabled``,
  ``daemonsets.{tolerations,priorityClassName}`` (default system-node-critical),
  ``cdi.enabled``, ``hostPaths.driverInstallDir``, ``node-feature-discovery.worker``.
* NVIDIA/k8s-dra-driver-gpu v25.12.0 (NVIDIA_DRA_DRIVER): deployments/helm/
  nvidia-dra-driver-gpu/values.yaml (``nvidiaDriverRoot`` default ``/``,
  ``gpuResourcesEnabledOverride``, ``resources.{gpus,computeDomains}.enabled``,
  ``controller.affinity`` requires a control-plane node, ``kubeletPlugin.affinity``),
  templates/validation.yaml line 33 (gpus enabled needs gpuResourcesEnabledOverride),
  crds/resource.nvidia.com_computedomains.yaml and demo/specs/imex/channel-injection.yaml
  (ComputeDomain ``numNodes`` + ``channel.resourceClaimTemplate.name``).
* kubernetes-sigs/dranet v1.4.0 (DRANET): deployments/helm/dranet/values.schema.json
  ``args.cloudProviderHint`` enum GCE, AZURE, OKE, AWS, ALIBABA, NONE;
  cmd/dranet/app.go ``--cloud-provider-hint``; examples/demo_gke_rdma/nccl-gib-test.yaml
  (``device.attributes["dra.net"].ifName == "gpu1rdma0"``, ``exactly:`` in v1).
* resource.k8s.io: v1 DeviceRequest wraps deviceClassName / selectors / allocationMode /
  count in ``exactly`` (ExactDeviceRequest); v1beta1 has them on the request;
  DeviceConstraint ``requests`` + ``matchAttribute``; DeviceClassSpec
  ``extendedResourceName`` (KEP-5004, Kubernetes 1.34).
* shared/seeds/gke-nvidia-dra-dranet.md lines 280-287 (the ``dranet`` DeviceClass) and
  293-314 (``2-gpu-nic-aligned``: 2 GPUs + 2 NICs on one pcieRoot).
* Project-defined values: the label ``app.kubernetes.io/managed-by: gpu-fabric``
  (docs/policy.md, components/gpu_fabric/fabric/manifests/common.py MANAGED_BY), the node-agent
  tolerations (components/gpu_fabric/fabric/taints.py daemonset_tolerations docstring: every GPU
  taint key of every cloud with operator Exists, CriticalAddonsOnly, then any
  NoSchedule / NoExecute taint), the ComputeDomain channel template name
  ``<domain>-channel`` (components/gpu_fabric/fabric/naming.py) and the request / constraint
  names of aligned_claim_spec (its docstring).
"""

from __future__ import annotations

from typing import Any

import pytest

from gpu_fabric import versions
from gpu_fabric.fabric.manifests import dra, dra_driver, dranet, gpu_operator, network_operator
from gpu_fabric.fabric.manifests.rdma_shared import SharedResource
from gpu_fabric.fabric.manifests.sriov import VfResource
from tests.support.helm_values import check_values
from tests.support.literals import TOLERATIONS

LABELS = {"app.kubernetes.io/managed-by": "gpu-fabric"}


PCIE_ROOT = "resource.kubernetes.io/pcieRoot"
RDMA_CEL = 'device.attributes["dra.net"].rdma == true'  # seed line 312


# -- Network Operator --------------------------------------------------------------------


@pytest.mark.parametrize("release", ["26.4.1", "v26.4.1"])
def test_component_version_is_the_release_tag_of_the_operators_images(release: str) -> None:
    # example/crs/...cr-full.yaml at v26.4.1: version: network-operator-v26.4.1
    assert network_operator.component_version(release) == "network-operator-v26.4.1"


def test_component_version_strips_only_a_leading_v() -> None:
    assert network_operator.component_version("vv1.0.0v") == "network-operator-v1.0.0v"
    assert network_operator.component_version("Xv1.0.0") == "network-operator-vXv1.0.0"


# Azure/aks-rdma-infiniband configs/nicclusterpolicy/base/nic.yaml ofedDriver, and
# network-operator v26.4.1 example cr-full.yaml upgradePolicy (same values).
DOCA_DEFAULT = {
    "image": "doca-driver",
    "repository": "nvcr.io/nvidia/mellanox",
    "version": "doca3.2.0-25.10-1.2.8.0-2",
    "upgradePolicy": {
        "autoUpgrade": True,
        "maxParallelUpgrades": 1,
        "drain": {"enable": True, "force": True, "deleteEmptyDir": True, "timeoutSeconds": 300},
    },
    "startupProbe": {"initialDelaySeconds": 10, "periodSeconds": 20},
    "livenessProbe": {"initialDelaySeconds": 30, "periodSeconds": 30},
    "readinessProbe": {"initialDelaySeconds": 10, "periodSeconds": 30},
}


def test_doca_driver_defaults_write_no_env() -> None:
    spec = network_operator.DocaDriver("doca3.2.0-25.10-1.2.8.0-2").to_spec()
    assert spec == DOCA_DEFAULT


def test_doca_driver_env_in_order_and_own_repository() -> None:
    driver = network_operator.DocaDriver(
        "doca3.4.1-26.04-1.1.0.0-1",
        env={
            "OFED_BLACKLIST_MODULES_FILE": "/host/etc/modprobe.d/blacklist-ofed-modules.conf",
            "UNLOAD_STORAGE_MODULES": "true",
        },
        repository="registry.example.com/mellanox",
    )
    assert driver.to_spec() == {
        **DOCA_DEFAULT,
        "repository": "registry.example.com/mellanox",
        "version": "doca3.4.1-26.04-1.1.0.0-1",
        "env": [
            {"name": "OFED_BLACKLIST_MODULES_FILE",
             "value": "/host/etc/modprobe.d/blacklist-ofed-modules.conf"},
            {"name": "UNLOAD_STORAGE_MODULES", "value": "true"},
        ],
    }


def _affinity(key: str) -> dict[str, Any]:
    return {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
        {"matchExpressions": [{"key": key, "operator": "In", "values": ["true"]}]}
    ]}}


def test_nic_cluster_policy_with_no_component_is_affinity_and_tolerations_only() -> None:
    assert network_operator.nic_cluster_policy("26.4.1") == {
        "apiVersion": "mellanox.com/v1alpha1",
        "kind": "NicClusterPolicy",
        "metadata": {"name": "nic-cluster-policy", "labels": LABELS},
        "spec": {
            # aks-rdma-infiniband base/nic.yaml: the label NFD adds to Mellanox nodes.
            "nodeAffinity": _affinity("feature.node.kubernetes.io/pci-15b3.present"),
            "tolerations": TOLERATIONS,
        },
    }


def test_nic_cluster_policy_with_every_component() -> None:
    policy = network_operator.nic_cluster_policy(
        "v26.4.1",
        doca_driver=network_operator.DocaDriver("doca3.2.0-25.10-1.2.8.0-2"),
        rdma_shared=[SharedResource("fabric0", {"ifNames": ["ib0"]})],
        sriov=[VfResource("ib", "rdma", {"vendors": ["15b3"], "linkTypes": ["infiniband"],
                                         "isRdma": True})],
        secondary_network=True,
        nv_ipam=True,
        node_selector_label="gpufabric.dev/ib",
    )
    image = {"repository": "nvcr.io/nvidia/mellanox", "version": "network-operator-v26.4.1"}
    assert policy == {
        "apiVersion": "mellanox.com/v1alpha1",
        "kind": "NicClusterPolicy",
        "metadata": {"name": "nic-cluster-policy", "labels": LABELS},
        "spec": {
            "nodeAffinity": _affinity("gpufabric.dev/ib"),
            "tolerations": TOLERATIONS,
            "ofedDriver": DOCA_DEFAULT,
            "rdmaSharedDevicePlugin": {
                "image": "k8s-rdma-shared-dev-plugin", **image,
                # the plugin's config.json (k8s-rdma-shared-dev-plugin README), as a string
                "config": '{"periodicUpdateInterval": 300, "configList": [{"resourceName": '
                          '"fabric0", "resourcePrefix": "rdma", "rdmaHcaMax": 64, '
                          '"selectors": {"ifNames": ["ib0"]}}]}',
            },
            "sriovDevicePlugin": {
                "image": "sriov-network-device-plugin", **image,
                # aks-rdma-infiniband sriov-device-plugin/sriov.yaml resourceList
                "config": '{"resourceList": [{"resourceName": "ib", "resourcePrefix": "rdma", '
                          '"selectors": {"vendors": ["15b3"], "linkTypes": ["infiniband"], '
                          '"isRdma": true}}]}',
            },
            "secondaryNetwork": {
                "multus": {"image": "multus-cni", **image},
                "cniPlugins": {"image": "plugins", **image},
            },
            "nvIpam": {"image": "nvidia-k8s-ipam", **image, "enableWebhook": False},
        },
    }


@pytest.mark.parametrize(("option", "key"), [
    ({"rdma_shared": [SharedResource("fabric0")]}, "rdmaSharedDevicePlugin"),
    ({"sriov": [VfResource("rdma-vf", "nvidia.com")]}, "sriovDevicePlugin"),
    ({"secondary_network": True}, "secondaryNetwork"),
    ({"nv_ipam": True}, "nvIpam"),
    ({"doca_driver": network_operator.DocaDriver("d")}, "ofedDriver"),
])
def test_each_component_alone_adds_only_its_key(option: dict[str, Any], key: str) -> None:
    spec = network_operator.nic_cluster_policy("26.4.1", **option)["spec"]
    assert sorted(spec) == sorted(["nodeAffinity", "tolerations", key])


def test_nfd_worker_values_tolerate_every_pool_taint() -> None:
    # charts/node-feature-discovery values: worker.tolerations (replaced, not merged).
    assert network_operator.nfd_worker_values() == {"worker": {"tolerations": TOLERATIONS}}


def test_chart_values_defaults() -> None:
    values = network_operator.chart_values()
    assert values == {
        "nfd": {"enabled": True, "deployNodeFeatureRules": True},
        "node-feature-discovery": {"worker": {"tolerations": TOLERATIONS}},
        "sriovNetworkOperator": {"enabled": False},
        "operator": {"tolerations": TOLERATIONS},
    }
    chart = versions.NETWORK_OPERATOR
    assert check_values(chart.name, chart.version, values) == []


def test_chart_values_without_nfd_and_its_rules() -> None:
    assert network_operator.chart_values(nfd=False, node_feature_rules=False) == {
        "nfd": {"enabled": False, "deployNodeFeatureRules": False},
        "node-feature-discovery": {"worker": {"tolerations": TOLERATIONS}},
        "sriovNetworkOperator": {"enabled": False},
        "operator": {"tolerations": TOLERATIONS},
    }


def test_ip_pool_with_gateway() -> None:
    # example/crs/nvidia.com_v1alpha1_nv_ipam_ippool_cr.yaml at v26.4.1
    pool = network_operator.ip_pool("rdma-vf", "nvidia-network-operator", "192.168.0.0/16",
                                    gateway="192.168.0.1")
    assert pool == {
        "apiVersion": "nv-ipam.nvidia.com/v1alpha1",
        "kind": "IPPool",
        "metadata": {"name": "rdma-vf", "namespace": "nvidia-network-operator",
                     "labels": LABELS},
        "spec": {"subnet": "192.168.0.0/16", "perNodeBlockSize": 16, "gateway": "192.168.0.1"},
    }


def test_ip_pool_without_gateway_and_own_block() -> None:
    assert network_operator.ip_pool("p", "ns", "10.0.0.0/24", per_node_block=100) == {
        "apiVersion": "nv-ipam.nvidia.com/v1alpha1",
        "kind": "IPPool",
        "metadata": {"name": "p", "namespace": "ns", "labels": LABELS},
        "spec": {"subnet": "10.0.0.0/24", "perNodeBlockSize": 100},
    }


# -- GPU Operator ------------------------------------------------------------------------


def test_gpu_operator_values_defaults() -> None:
    values = gpu_operator.values(install_driver=True, rdma=True)
    assert values == {
        "driver": {"enabled": True, "rdma": {"enabled": True, "useHostMofed": False}},
        "toolkit": {"enabled": True},
        "devicePlugin": {"enabled": True},
        "dcgmExporter": {"enabled": True, "serviceMonitor": {"enabled": False}},
        "nfd": {"enabled": True},
        "daemonsets": {"tolerations": TOLERATIONS, "priorityClassName": "system-node-critical"},
        "cdi": {"enabled": True},
        "node-feature-discovery": {"worker": {"tolerations": TOLERATIONS}},
    }
    chart = versions.GPU_OPERATOR
    assert check_values(chart.name, chart.version, values) == []


def test_gpu_operator_values_every_option_flipped() -> None:
    values = gpu_operator.values(
        install_driver=False,
        rdma=False,
        host_mofed=True,
        device_plugin=False,
        service_monitor=True,
        nfd=False,
        driver_root="/home/kubernetes/bin/nvidia",
    )
    assert values == {
        "driver": {"enabled": False, "rdma": {"enabled": False, "useHostMofed": True}},
        # the driver's root is where the toolkit looks for it (hostPaths.driverInstallDir
        # "the root at which driver files ... can be found")
        "toolkit": {"enabled": True, "installDir": "/home/kubernetes/bin/nvidia"},
        "devicePlugin": {"enabled": False},
        "dcgmExporter": {"enabled": True, "serviceMonitor": {"enabled": True}},
        "nfd": {"enabled": False},
        "daemonsets": {"tolerations": TOLERATIONS, "priorityClassName": "system-node-critical"},
        "cdi": {"enabled": True},
        "hostPaths": {"driverInstallDir": "/home/kubernetes/bin/nvidia"},
    }
    chart = versions.GPU_OPERATOR
    assert check_values(chart.name, chart.version, values) == []


def test_gpu_operator_empty_driver_root_sets_no_paths() -> None:
    values = gpu_operator.values(install_driver=True, rdma=False, driver_root="")
    assert "hostPaths" not in values
    assert values["toolkit"] == {"enabled": True}


# -- NVIDIA DRA driver -------------------------------------------------------------------

GPU_PRESENT_AFFINITY = {"nodeAffinity": _affinity("nvidia.com/gpu.present")}


def test_dra_driver_values_defaults() -> None:
    values = dra_driver.values()
    assert values == {
        "nvidiaDriverRoot": "/",
        "gpuResourcesEnabledOverride": True,
        "resources": {"gpus": {"enabled": True}, "computeDomains": {"enabled": False}},
        "controller": {"tolerations": TOLERATIONS, "affinity": None},
        "kubeletPlugin": {"tolerations": TOLERATIONS, "affinity": GPU_PRESENT_AFFINITY},
    }
    chart = versions.NVIDIA_DRA_DRIVER
    assert check_values(chart.name, chart.version, values) == []


def test_dra_driver_values_compute_domains_only_and_own_root() -> None:
    assert dra_driver.values(
        gpus=False, compute_domains=True, driver_root="/home/kubernetes/bin/nvidia"
    ) == {
        "nvidiaDriverRoot": "/home/kubernetes/bin/nvidia",
        "gpuResourcesEnabledOverride": False,
        "resources": {"gpus": {"enabled": False}, "computeDomains": {"enabled": True}},
        "controller": {"tolerations": TOLERATIONS, "affinity": None},
        "kubeletPlugin": {"tolerations": TOLERATIONS, "affinity": GPU_PRESENT_AFFINITY},
    }


# -- DraNet ------------------------------------------------------------------------------


# The hints our clouds' describers use (GCP, AWS, Azure, OCI; NONE: DigitalOcean has no
# DraNet provider plugin), tests/fabric/test_fabric_dra.py checks which cloud gives which.
@pytest.mark.parametrize("hint", ["GCE", "AWS", "AZURE", "OKE", "NONE"])
def test_dranet_values_per_cloud(hint: str) -> None:
    values = dranet.values(hint)
    assert values == {"tolerations": TOLERATIONS, "args": {"cloudProviderHint": hint}}
    chart = versions.DRANET
    assert check_values(chart.name, chart.version, values) == []


# -- resource.k8s.io objects -------------------------------------------------------------


def test_driver_selector() -> None:
    assert dra.driver_selector("dra.net") == 'device.driver == "dra.net"'  # seed line 287


def test_ifname_selector_one_name_is_an_equality() -> None:
    # dranet examples/demo_gke_rdma/nccl-gib-test.yaml, guarded by "ifName" in
    assert dra.ifname_selector("dra.net", ["gpu1rdma0"]) == (
        '"ifName" in device.attributes["dra.net"] && '
        'device.attributes["dra.net"].ifName == "gpu1rdma0"'
    )


def test_ifname_selector_several_names_is_a_list_membership() -> None:
    assert dra.ifname_selector("example.com", ["eth1", "eth2", "eth3"]) == (
        '"ifName" in device.attributes["example.com"] && '
        'device.attributes["example.com"].ifName in ["eth1", "eth2", "eth3"]'
    )


def test_ifname_selector_needs_a_name() -> None:
    with pytest.raises(ValueError) as err:
        dra.ifname_selector("dra.net", [])
    assert str(err.value) == "ifname_selector needs at least one interface name"


def test_device_class_is_the_seeds_dranet_class() -> None:
    # seed lines 280-287
    assert dra.device_class("dranet", "resource.k8s.io/v1beta1",
                            ['device.driver == "dra.net"']) == {
        "apiVersion": "resource.k8s.io/v1beta1",
        "kind": "DeviceClass",
        "metadata": {"name": "dranet", "labels": LABELS},
        "spec": {"selectors": [{"cel": {"expression": 'device.driver == "dra.net"'}}]},
    }


def test_device_class_v1_with_an_extended_resource_name() -> None:
    assert dra.device_class(
        "gpu", "resource.k8s.io/v1",
        ['device.driver == "gpu.nvidia.com"', 'device.attributes["gpu.nvidia.com"].type == "gpu"'],
        extended_resource_name="nvidia.com/gpu",
    ) == {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "DeviceClass",
        "metadata": {"name": "gpu", "labels": LABELS},
        "spec": {
            "selectors": [
                {"cel": {"expression": 'device.driver == "gpu.nvidia.com"'}},
                {"cel": {"expression": 'device.attributes["gpu.nvidia.com"].type == "gpu"'}},
            ],
            "extendedResourceName": "nvidia.com/gpu",
        },
    }


def test_device_class_v1beta1_drops_the_extended_resource_name() -> None:
    # extendedResourceName is a Kubernetes 1.34 field; v1beta1 is for 1.32 / 1.33.
    assert dra.device_class("gpu", "resource.k8s.io/v1beta1", [],
                            extended_resource_name="nvidia.com/gpu") == {
        "apiVersion": "resource.k8s.io/v1beta1",
        "kind": "DeviceClass",
        "metadata": {"name": "gpu", "labels": LABELS},
        "spec": {"selectors": []},
    }


def _flat(name: str, cls: str, count: int, *cel: str) -> dict[str, Any]:
    """A v1beta1 DeviceRequest (fields on the request)."""
    out: dict[str, Any] = {"name": name, "deviceClassName": cls, "allocationMode": "ExactCount",
                           "count": count}
    if cel:
        out["selectors"] = [{"cel": {"expression": e}} for e in cel]
    return out


def _exactly(name: str, cls: str, count: int, *cel: str) -> dict[str, Any]:
    """A v1 DeviceRequest (fields under ``exactly``)."""
    flat = _flat(name, cls, count, *cel)
    del flat["name"]
    return {"name": name, "exactly": flat}


def _aligned(*pairs: tuple[str, str]) -> list[dict[str, Any]]:
    return [{"requests": [g, n], "matchAttribute": PCIE_ROOT} for g, n in pairs]


def test_aligned_claim_is_the_seeds_two_gpu_two_nic_claim_in_v1beta1() -> None:
    # seed lines 293-314, without the index selector the pinned driver no longer serves
    claim = dra.aligned_claim_spec(
        "resource.k8s.io/v1beta1", gpus=2, gpu_class="gpu.nvidia.com", nic_class="dranet",
        nic_selectors=[RDMA_CEL], gpus_per_root=2,
    )
    assert claim == {"devices": {
        "requests": [
            {"name": "gpu", "deviceClassName": "gpu.nvidia.com", "allocationMode": "ExactCount",
             "count": 2},
            {"name": "nic", "deviceClassName": "dranet", "allocationMode": "ExactCount",
             "count": 2, "selectors": [{"cel": {"expression": RDMA_CEL}}]},
        ],
        "constraints": [{"requests": ["gpu", "nic"],
                         "matchAttribute": "resource.kubernetes.io/pcieRoot"}],
    }}


def test_aligned_claim_in_v1_wraps_each_request_in_exactly() -> None:
    claim = dra.aligned_claim_spec(
        "resource.k8s.io/v1", gpus=2, gpu_class="gpu.nvidia.com", nic_class="dranet",
        nic_selectors=[RDMA_CEL], gpus_per_root=2,
    )
    assert claim == {"devices": {
        "requests": [
            {"name": "gpu", "exactly": {"deviceClassName": "gpu.nvidia.com",
                                        "allocationMode": "ExactCount", "count": 2}},
            {"name": "nic", "exactly": {"deviceClassName": "dranet",
                                        "allocationMode": "ExactCount", "count": 2,
                                        "selectors": [{"cel": {"expression": RDMA_CEL}}]}},
        ],
        "constraints": [{"requests": ["gpu", "nic"],
                         "matchAttribute": "resource.kubernetes.io/pcieRoot"}],
    }}


def test_aligned_claim_one_constraint_per_root_group() -> None:
    claim = dra.aligned_claim_spec(dra.V1, gpus=4, gpu_class="g", nic_class="n",
                                   gpus_per_root=2)
    assert claim == {"devices": {
        "requests": [_exactly("gpu-0", "g", 2), _exactly("nic-0", "n", 2),
                     _exactly("gpu-1", "g", 2), _exactly("nic-1", "n", 2)],
        "constraints": _aligned(("gpu-0", "nic-0"), ("gpu-1", "nic-1")),
    }}


def test_aligned_claim_not_a_multiple_of_the_root_takes_one_gpu_per_group() -> None:
    claim = dra.aligned_claim_spec(dra.V1BETA1, gpus=3, gpu_class="g", nic_class="n",
                                   gpus_per_root=2)
    assert claim == {"devices": {
        "requests": [_flat("gpu-0", "g", 1), _flat("nic-0", "n", 1),
                     _flat("gpu-1", "g", 1), _flat("nic-1", "n", 1),
                     _flat("gpu-2", "g", 1), _flat("nic-2", "n", 1)],
        "constraints": _aligned(("gpu-0", "nic-0"), ("gpu-1", "nic-1"), ("gpu-2", "nic-2")),
    }}


def test_aligned_claim_two_nics_per_gpu() -> None:
    claim = dra.aligned_claim_spec(dra.V1, gpus=2, gpu_class="g", nic_class="n",
                                   nics_per_gpu=2)
    assert claim == {"devices": {
        "requests": [_exactly("gpu-0", "g", 1), _exactly("nic-0", "n", 2),
                     _exactly("gpu-1", "g", 1), _exactly("nic-1", "n", 2)],
        "constraints": _aligned(("gpu-0", "nic-0"), ("gpu-1", "nic-1")),
    }}


def test_aligned_claim_p4d_two_gpus_share_one_nic() -> None:
    # docstring: "p4d: 2 GPUs share 1 EFA" (nics_per_root wins over nics_per_gpu)
    claim = dra.aligned_claim_spec(dra.V1, gpus=4, gpu_class="g", nic_class="efa",
                                   gpus_per_root=2, nics_per_root=1, nics_per_gpu=3)
    assert claim == {"devices": {
        "requests": [_exactly("gpu-0", "g", 2), _exactly("nic-0", "efa", 1),
                     _exactly("gpu-1", "g", 2), _exactly("nic-1", "efa", 1)],
        "constraints": _aligned(("gpu-0", "nic-0"), ("gpu-1", "nic-1")),
    }}


def test_aligned_claim_nics_per_root_scale_with_the_group() -> None:
    # a whole root of 2 GPUs with 4 NICs gets the 4
    claim = dra.aligned_claim_spec(dra.V1, gpus=2, gpu_class="g", nic_class="n",
                                   gpus_per_root=2, nics_per_root=4)
    assert claim["devices"]["requests"] == [_exactly("gpu", "g", 2), _exactly("nic", "n", 4)]
    # one GPU of that root gets half of them
    claim = dra.aligned_claim_spec(dra.V1, gpus=1, gpu_class="g", nic_class="n",
                                   gpus_per_root=2, nics_per_root=4)
    assert claim["devices"]["requests"] == [_exactly("gpu", "g", 1), _exactly("nic", "n", 2)]


@pytest.mark.parametrize("nics_per_root", [0, 1])
def test_aligned_claim_a_group_smaller_than_its_root_still_gets_a_nic(
    nics_per_root: int,
) -> None:
    claim = dra.aligned_claim_spec(dra.V1, gpus=1, gpu_class="g", nic_class="n",
                                   gpus_per_root=2, nics_per_root=nics_per_root)
    assert claim == {"devices": {
        "requests": [_exactly("gpu", "g", 1), _exactly("nic", "n", 1)],
        "constraints": _aligned(("gpu", "nic")),
    }}


def test_aligned_claim_without_nic_class_is_gpus_only() -> None:
    claim = dra.aligned_claim_spec(dra.V1, gpus=2, gpu_class="g", nic_class=None,
                                   nic_selectors=[RDMA_CEL])
    assert claim == {"devices": {"requests": [_exactly("gpu-0", "g", 1),
                                              _exactly("gpu-1", "g", 1)]}}


def test_rail_claim_pins_each_groups_nics_by_name_in_rail_order() -> None:
    claim = dra.aligned_claim_spec(
        dra.V1, gpus=4, gpu_class="gpu.nvidia.com", nic_class="dranet",
        nic_selectors=[RDMA_CEL], gpus_per_root=2,
        nic_names=["gpu0rdma0", "gpu1rdma0", "gpu2rdma0", "gpu3rdma0"],
    )
    guard = '"ifName" in device.attributes["dra.net"] && device.attributes["dra.net"].ifName'
    assert claim == {"devices": {
        "requests": [
            _exactly("gpu-0", "gpu.nvidia.com", 2),
            _exactly("nic-0", "dranet", 2, RDMA_CEL, f'{guard} in ["gpu0rdma0", "gpu1rdma0"]'),
            _exactly("gpu-1", "gpu.nvidia.com", 2),
            _exactly("nic-1", "dranet", 2, RDMA_CEL, f'{guard} in ["gpu2rdma0", "gpu3rdma0"]'),
        ],
        "constraints": _aligned(("gpu-0", "nic-0"), ("gpu-1", "nic-1")),
    }}


def test_rail_claim_of_one_gpu_pins_one_nic_in_its_own_domain() -> None:
    claim = dra.aligned_claim_spec(dra.V1BETA1, gpus=1, gpu_class="g", nic_class="n",
                                   nic_names=["gpu1rdma0"], nic_domain="example.com")
    assert claim == {"devices": {
        "requests": [
            _flat("gpu", "g", 1),
            _flat("nic", "n", 1, '"ifName" in device.attributes["example.com"] && '
                                 'device.attributes["example.com"].ifName == "gpu1rdma0"'),
        ],
        "constraints": _aligned(("gpu", "nic")),
    }}


def test_rail_claim_with_the_wrong_number_of_names_is_refused() -> None:
    with pytest.raises(ValueError) as err:
        dra.aligned_claim_spec(dra.V1, gpus=4, gpu_class="g", nic_class="n", gpus_per_root=2,
                               nic_names=["a", "b", "c"])
    assert str(err.value) == (
        "nic_names: a 4-GPU claim has 2 group(s) of 2 NIC(s), got ['a', 'b', 'c']"
    )


def test_rail_claim_without_a_nic_class_is_refused() -> None:
    with pytest.raises(ValueError) as err:
        dra.aligned_claim_spec(dra.V1, gpus=2, gpu_class="g", nic_class=None,
                               nic_names=["a", "b"])
    assert str(err.value) == (
        "nic_names: a 2-GPU claim has 2 group(s) of 1 NIC(s), got ['a', 'b'] "
        "for a claim without a NIC class"
    )


def test_claim_template_wraps_the_claim_spec() -> None:
    claim = {"devices": {"requests": [_flat("gpu", "gpu.nvidia.com", 2)]}}
    # seed lines 293-297: ResourceClaimTemplate spec.spec
    assert dra.claim_template("2-gpu", "default", "resource.k8s.io/v1beta1", claim) == {
        "apiVersion": "resource.k8s.io/v1beta1",
        "kind": "ResourceClaimTemplate",
        "metadata": {"name": "2-gpu", "namespace": "default", "labels": LABELS},
        "spec": {"spec": {"devices": {"requests": [
            {"name": "gpu", "deviceClassName": "gpu.nvidia.com", "allocationMode": "ExactCount",
             "count": 2},
        ]}}},
    }


def test_claim_template_with_labels() -> None:
    assert dra.claim_template("t", "team-a", "resource.k8s.io/v1", {"devices": {}},
                              labels={"gpufabric.dev/fabric": "gpu"}) == {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceClaimTemplate",
        "metadata": {"name": "t", "namespace": "team-a",
                     "labels": {"app.kubernetes.io/managed-by": "gpu-fabric",
                                "gpufabric.dev/fabric": "gpu"}},
        "spec": {"spec": {"devices": {}}},
    }


def test_compute_domain() -> None:
    # k8s-dra-driver-gpu v25.12.0 demo/specs/imex/channel-injection.yaml
    domain = dra.compute_domain("gb200", "team-a", 18)
    assert domain == {
        "apiVersion": "resource.nvidia.com/v1beta1",
        "kind": "ComputeDomain",
        "metadata": {"name": "gb200", "namespace": "team-a", "labels": LABELS},
        "spec": {"numNodes": 18,
                 "channel": {"resourceClaimTemplate": {"name": "gb200-channel"}}},
    }
