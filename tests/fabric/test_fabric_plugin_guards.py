"""Device plugins that would crash-loop or fight another plugin are refused at spec time
(issue 20 follow-ups: both showed only on a real cluster after a green ``pulumi up``).

Sources, written out literally here:

- Mellanox/k8s-rdma-shared-dev-plugin v1.5.3 (commit 948098b7540b),
  pkg/resources/resources_manager.go line 289: ``regexp.MustCompile(`^[a-zA-Z0-9_]+$`)``;
  ValidateConfigs line 144-145 returns "resource name ... contains invalid characters",
  cmd/k8s-rdma-shared-dp/main.go line 74-75 ``log.Fatalf("Exiting.. one or more invalid
  configuration(s) given ...")``.
- k8snetworkplumbingwg/sriov-network-device-plugin v3.9.0 (commit c625430be6b0),
  pkg/utils/utils.go line 301: ``regexp.MustCompile(`^[a-zA-Z0-9_-]+$`)``;
  cmd/sriovdp/manager.go line 204 validConfigs, cmd/sriovdp/main.go line 58-59
  ``glog.Fatalf("Exiting.. one or more invalid configuration(s) given")``.
- Azure: ../shared/reference/azure.md lines 104-116 (NicClusterPolicy
  ``sriovDevicePlugin`` -> ``rdma/ib``; ``rdmaSharedDevicePlugin`` ->
  ``rdma/hca_shared_devices_a``).
- OCI: network-operator 26.4.1 values.yaml line 105 (sriov-network-operator
  ``resourcePrefix: "nvidia.com"``) and line 166 (its ``sriovDevicePlugin`` image): the
  SR-IOV network operator runs the SR-IOV device plugin for ``nvidia.com/rdma-vf``
  (../shared/reference/oci.md lines 91-100).
"""

from __future__ import annotations

import dataclasses
import re

import pytest

from gpu_fabric.catalog import MACHINES
from gpu_fabric.errors import Problem, SpecError
from gpu_fabric.fabric.description import FabricDescription, describe_cluster
from gpu_fabric.fabric.layer import build_layer
from gpu_fabric.fabric.plugin_guards import RDMA_SHARED_NAME, SRIOV_NAME
from gpu_fabric.spec import ClusterSpec
from tests.fabric_helpers import existing, layer_of

# The upstream patterns, copied literally from the files cited above.
UPSTREAM_RDMA_SHARED = r"^[a-zA-Z0-9_]+$"
UPSTREAM_SRIOV = r"^[a-zA-Z0-9_-]+$"


def test_the_guards_use_the_upstream_patterns() -> None:
    assert RDMA_SHARED_NAME.pattern == UPSTREAM_RDMA_SHARED
    assert SRIOV_NAME.pattern == UPSTREAM_SRIOV
    # '-' splits the two plugins; '.' (a VLAN netdev like ib0.8001) fits neither.
    assert RDMA_SHARED_NAME.fullmatch("rdma-vf") is None
    assert SRIOV_NAME.fullmatch("rdma-vf") is not None
    assert RDMA_SHARED_NAME.fullmatch("ib0.8001") is None
    assert SRIOV_NAME.fullmatch("ib0.8001") is None


def test_every_catalog_interface_name_fits_the_rdma_shared_plugin() -> None:
    # The generic RDMA shared plugin names one resource per rail after its interface
    # (rdma_shared.per_interface): every catalog nic_name must pass upstream's check.
    pattern = re.compile(UPSTREAM_RDMA_SHARED)
    bad = [(m.name, n) for m in MACHINES for n in m.nic_names if not pattern.match(n)]
    assert bad == []
    # 216 interface names over 43 machines (components/gpu_fabric/catalog, 2026-11-25): the check
    # above ran over the whole catalog, not an empty one.
    assert (len(MACHINES), sum(len(m.nic_names) for m in MACHINES)) == (43, 216)


def test_the_cloud_resource_names_fit_their_plugins() -> None:
    from gpu_fabric.clouds.azure.fabric import SHARED_RESOURCE, SRIOV_RESOURCE
    from gpu_fabric.clouds.oci.fabric import VF_RESOURCE

    assert (SHARED_RESOURCE, SRIOV_RESOURCE, VF_RESOURCE) == (
        "rdma/hca_shared_devices_a", "rdma/ib", "nvidia.com/rdma-vf")
    assert re.match(UPSTREAM_RDMA_SHARED, "hca_shared_devices_a")
    assert re.match(UPSTREAM_SRIOV, "ib")
    assert re.match(UPSTREAM_SRIOV, "rdma-vf")


def _with_first_rail(netdev: str) -> tuple[ClusterSpec, dict[str, FabricDescription]]:
    """The DO seed pool (the layer's RDMA shared plugin instead of DOKS's) with rail 0
    renamed."""
    spec = existing("digitalocean", addons={"rdma_shared_device_plugin": {"enabled": True}},
                    digitalocean={"components": {"rdma_shared_device_plugin": False}})
    fabric = describe_cluster(spec)["gpu"]
    rails = tuple(dataclasses.replace(r, netdev=netdev) if r.index == 0 else r
                  for r in fabric.rails)
    return spec, {"gpu": dataclasses.replace(fabric, rails=rails)}


def test_a_rail_interface_the_rdma_shared_plugin_rejects_is_refused() -> None:
    # Old code rendered configList entry resourceName "ib0.8001": the plugin exits.
    spec, fabrics = _with_first_rail("ib0.8001")
    with pytest.raises(SpecError) as info:
        build_layer(spec, fabrics)
    assert info.value.problems == [Problem(
        "node_pools[0].machine_type",
        "the rdma-shared device plugin would get resourceName 'ib0.8001' (the rail "
        "interface ib0.8001 of gpu-h200x8-1128gb-fabric-contracted), which "
        "k8s-rdma-shared-dev-plugin v1.5.3 rejects at start-up (its pods crash-loop): a "
        "resource name must match ^[a-zA-Z0-9_]+$ (letters, digits and '_' only); choose "
        "a machine type whose fabric resource names fit",
        "gpu-h200x8-1128gb-fabric-contracted",
        True,
    )]


def test_a_dash_is_refused_for_the_rdma_shared_plugin_too() -> None:
    spec, fabrics = _with_first_rail("fabric-0")
    with pytest.raises(SpecError) as info:
        build_layer(spec, fabrics)
    assert "resourceName 'fabric-0'" in info.value.problems[0].message


def test_valid_rail_interfaces_still_render() -> None:
    spec, fabrics = _with_first_rail("fabric_0")
    names = [p.name for p in build_layer(spec, fabrics).parts]
    assert "rdma-shared-device-plugin" in names


def test_a_vf_resource_the_sriov_plugin_rejects_is_refused() -> None:
    # Azure SR-IOV pools with the generic SR-IOV plugin (Network Operator off).
    spec = existing("azure", fabric={"device_plugin": "sriov"},
                    addons={"network_operator": {"enabled": False},
                            "sriov_device_plugin": {"enabled": True}})
    fabric = describe_cluster(spec)["gpu"]
    fabrics = {"gpu": dataclasses.replace(fabric, pooled_resources={"rdma/ib.0": 8})}
    with pytest.raises(SpecError) as info:
        build_layer(spec, fabrics)
    assert info.value.problems == [Problem(
        "node_pools[0].machine_type",
        "the sriov device plugin would get resourceName 'ib.0' (the pool's VF resource "
        "rdma/ib.0), which sriov-network-device-plugin v3.9.0 rejects at start-up (its "
        "pods crash-loop): a resource name must match ^[a-zA-Z0-9_-]+$ (letters, digits, "
        "'_' and '-' only); choose a machine type whose fabric resource names fit",
        "Standard_ND96isr_H100_v5",
        True,
    )]


def test_a_nic_cluster_policy_resource_name_is_checked_too() -> None:
    # Azure's NicClusterPolicy rdmaSharedDevicePlugin runs the same v1.5.3 check.
    spec = existing("azure")
    fabric = describe_cluster(spec)["gpu"]
    fabrics = {"gpu": dataclasses.replace(fabric, pooled_resources={"rdma/hca-shared": 1})}
    with pytest.raises(SpecError) as info:
        build_layer(spec, fabrics)
    assert [p.path for p in info.value.problems] == ["node_pools[0].machine_type"]
    assert "resourceName 'hca-shared'" in info.value.problems[0].message
    assert "^[a-zA-Z0-9_]+$" in info.value.problems[0].message


# -- two plugins for the same devices --------------------------------------------------


def _tail(key: str, plugin: str,
          instead: str = "turn addons.network_operator off to run this one") -> str:
    return (
        f"a second {plugin} device plugin on the same nodes would hand out the same devices "
        "again, and where both register one resource name the kubelet keeps only the "
        f"later registration; leave addons.{key} off (or {instead} instead)"
    )


def test_azure_generic_rdma_shared_plugin_next_to_the_nic_cluster_policy_is_refused() -> None:
    spec = existing("azure", addons={"rdma_shared_device_plugin": {"enabled": True}})
    with pytest.raises(SpecError) as info:
        layer_of(spec)
    assert info.value.problems == [Problem(
        "addons.rdma_shared_device_plugin.enabled",
        "the Network Operator's NicClusterPolicy (addons.network_operator) with "
        "rdmaSharedDevicePlugin already runs the rdma-shared device plugin for these "
        "pools (rdma/hca_shared_devices_a); "
        + _tail("rdma_shared_device_plugin", "rdma-shared"),
        True,
        True,
    )]


def test_azure_generic_sriov_plugin_next_to_the_nic_cluster_policy_is_refused() -> None:
    spec = existing("azure", fabric={"device_plugin": "sriov"},
                    addons={"sriov_device_plugin": {"enabled": True}})
    with pytest.raises(SpecError) as info:
        layer_of(spec)
    assert info.value.problems == [Problem(
        "addons.sriov_device_plugin.enabled",
        "the Network Operator's NicClusterPolicy (addons.network_operator) with "
        "sriovDevicePlugin already runs the sriov device plugin for these pools "
        "(rdma/ib); " + _tail("sriov_device_plugin", "sriov"),
        True,
        True,
    )]


def test_azure_generic_plugins_without_the_network_operator_still_render() -> None:
    shared = existing("azure", addons={"network_operator": {"enabled": False},
                                       "rdma_shared_device_plugin": {"enabled": True}})
    assert "rdma-shared-device-plugin" in [p.name for p in layer_of(shared).parts]
    vfs = existing("azure", fabric={"device_plugin": "sriov"},
                   addons={"network_operator": {"enabled": False},
                           "sriov_device_plugin": {"enabled": True}})
    assert "sriov-device-plugin" in [p.name for p in layer_of(vfs).parts]


OCI_SRIOV_PROBLEM = Problem(
    "addons.sriov_device_plugin.enabled",
    "the Network Operator's SR-IOV network operator (addons.network_operator) already "
    "runs the sriov device plugin for these pools (nvidia.com/rdma-vf); "
    + _tail("sriov_device_plugin", "sriov"),
    True,
    True,
)


def test_oci_generic_sriov_plugin_next_to_the_sriov_network_operator_is_refused() -> None:
    spec = existing("oci", addons={"sriov_device_plugin": {"enabled": True}})
    with pytest.raises(SpecError) as info:
        layer_of(spec)
    assert info.value.problems == [OCI_SRIOV_PROBLEM]


def test_oci_add_on_mode_is_refused_the_same_way() -> None:
    # oci.network_operator: addon -> the OKE add-on with sriovNetworkOperator.enabled.
    spec = existing("oci", oci={"network_operator": "addon",
                                "compartment_id": "ocid1.compartment.oc1..aaaa"},
                    addons={"sriov_device_plugin": {"enabled": True}})
    with pytest.raises(SpecError) as info:
        layer_of(spec)
    assert info.value.problems == [OCI_SRIOV_PROBLEM]


def test_oci_generic_rdma_shared_plugin_is_already_impossible() -> None:
    # OCI pools never use the RDMA shared plugin (fabric.device_plugin: rdma-shared is
    # refused there, docs/clouds/oci.md), so the idle-plugin refusal (parts.py) answers.
    spec = existing("oci", addons={"rdma_shared_device_plugin": {"enabled": True}})
    with pytest.raises(SpecError) as info:
        layer_of(spec)
    assert [p.path for p in info.value.problems] == ["addons.rdma_shared_device_plugin.enabled"]
    assert "no node pool's fabric uses the rdma-shared device plugin" in (
        info.value.problems[0].message)


def test_do_layer_rdma_shared_plugin_next_to_the_doks_one_is_refused() -> None:
    # docs/clouds/digitalocean.md: DOKS runs the RDMA shared plugin (rdma/fabricN) unless
    # digitalocean.components.rdma_shared_device_plugin is false; the layer's add-on on
    # top of it used to render a second DaemonSet for the same rdma/fabric0..7.
    spec = existing("digitalocean", addons={"rdma_shared_device_plugin": {"enabled": True}})
    with pytest.raises(SpecError) as info:
        layer_of(spec)
    assert info.value.problems == [Problem(
        "addons.rdma_shared_device_plugin.enabled",
        "DOKS (digitalocean.components.rdma_shared_device_plugin) already runs the "
        "rdma-shared device plugin for these pools (rdma/fabric0, rdma/fabric1, "
        "rdma/fabric2, rdma/fabric3, rdma/fabric4, rdma/fabric5, rdma/fabric6, "
        "rdma/fabric7); " + _tail(
            "rdma_shared_device_plugin", "rdma-shared",
            "set digitalocean.components.rdma_shared_device_plugin: false to run this one"),
        True,
        True,
    )]


@pytest.mark.parametrize("fabric", [{}, {"mode": "dra"}], ids=["device-plugin", "gpu-dra"])
def test_do_layer_nvidia_plugin_next_to_the_doks_gpu_plugin_is_refused(fabric: dict) -> None:
    # docs/clouds/digitalocean.md: DOKS runs nvidia_gpu_device_plugin (or, with
    # fabric.mode dra, nvidia_gpu_dra_driver) for NVIDIA pools; the layer's add-on forced on
    # top of it used to render a second source of nvidia.com/gpu.
    spec = existing("digitalocean", fabric=fabric,
                    addons={"nvidia_device_plugin": {"enabled": True}})
    with pytest.raises(SpecError) as info:
        layer_of(spec)
    assert info.value.problems == [Problem(
        "addons.nvidia_device_plugin.enabled",
        "DOKS (digitalocean.components: nvidia_gpu_device_plugin or nvidia_gpu_dra_driver) "
        "already runs the NVIDIA GPU device plugin for these pools (nvidia.com/gpu); a second "
        "NVIDIA GPU device plugin on the same nodes would hand out the same devices again, "
        "and where both register one resource name the kubelet keeps only the later "
        "registration; leave addons.nvidia_device_plugin off (or set "
        "digitalocean.components.gpu_device_plugin: false, without fabric.mode dra, to run "
        "this one instead)",
        True,
        True,
    )]


def test_do_layer_nvidia_plugin_runs_when_doks_gpu_plugin_is_off() -> None:
    """The refusal does not over-reach: with DOKS's GPU plugin off the add-on is the one
    source of nvidia.com/gpu (its default then, docs/clouds/digitalocean.md)."""
    spec = existing("digitalocean", digitalocean={"components": {"gpu_device_plugin": False}})
    assert "nvidia-device-plugin" in [part.name for part in layer_of(spec).parts]
