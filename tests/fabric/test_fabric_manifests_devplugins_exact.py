"""The device-plugin manifests written out: RDMA shared device plugin and SR-IOV device plugin.

Added for mutation testing (docs/mutation.md, ``scripts/mutation.py fabric-manifests``):
the other tests reach ``rdma_shared.manifests`` / ``sriov.manifests`` only through
whole Pulumi plans, and check a field here and there. Each builder is called directly
here and its whole output compared with a value written out literally.

Sources (pins in components/gpu_fabric/versions.py: plugin images v1.5.3 and v3.9.0):

- RDMA: Mellanox/k8s-rdma-shared-dev-plugin tag v1.5.3 (commit 948098b7540b):
  ``deployment/k8s/base/configmap.yaml`` (ConfigMap ``rdma-devices`` in kube-system, key
  ``config.json``, ``periodicUpdateInterval: 300``, ``configList`` of ``resourceName`` /
  ``rdmaHcaMax`` / ``selectors`` {``vendors``, ``deviceIDs``, ``ifNames``}),
  ``deployment/k8s/base/daemonset.yaml`` (DaemonSet ``rdma-shared-dp-ds``, container
  ``k8s-rdma-shared-dp-ds``, privileged, hostNetwork, priorityClass
  ``system-node-critical``, volumes device-plugin / plugins-registry / config / devs),
  ``pkg/resources/resources_manager.go`` (``DefaultConfigFilePath =
  "/k8s-rdma-shared-dev-plugin/config.json"``), ``pkg/types/types.go`` (JSON keys
  ``resourceName``, ``resourcePrefix``, ``rdmaHcaMax``, ``selectors``, selector keys
  ``vendors deviceIDs drivers ifNames linkTypes``), README (``resourcePrefix`` default
  ``rdma``).
- SR-IOV: k8snetworkplumbingwg/sriov-network-device-plugin tag v3.9.0 (commit
  c625430be6b0): ``deployments/sriovdp-daemonset.yaml`` (ServiceAccount
  ``sriov-device-plugin``, DaemonSet ``kube-sriov-device-plugin``, container
  ``kube-sriovdp``, args ``--log-dir=sriovdp --log-level=10``, memory limit 200Mi,
  volumes devicesock / plugins-registry / log / device-info (DirectoryOrCreate) /
  config-volume), ``deployments/configMap.yaml`` (ConfigMap ``sriovdp-config``, key
  ``config.json``, ``resourceList``), ``cmd/sriovdp/main.go`` (``defaultConfig =
  "/etc/pcidp/config.json"``), ``pkg/types/types.go`` (``resourcePrefix``,
  ``resourceName``, ``vendors``, ``linkTypes``, ``IsRdma`` -> ``isRdma``).
- AKS: Azure/aks-rdma-infiniband at commit 700dabb4fe04:
  ``configs/nicclusterpolicy/sriov-device-plugin/sriov.yaml`` (``resourcePrefix: rdma``,
  ``resourceName: ib``, selectors ``vendors ["15b3"]``, ``linkTypes ["infiniband"]``,
  ``isRdma: true``) and ``configs/nicclusterpolicy/rdma-shared-device-plugin/rdma.yaml``
  (``rdmaHcaMax: 63``, selectors ``vendors ["15b3"]``, ``linkTypes ["infiniband"]``).
- DO seed (../shared/seeds/digitalocean-doks-multinode-gpu.md lines 45-62): pods
  request ``rdma/fabric0`` .. ``rdma/fabric7``.
- Project-defined (no upstream value): the object names' labels (``meta`` in
  gpu_fabric/fabric/manifests/common.py, ``app.kubernetes.io/managed-by: gpu-fabric``, the
  label docs/policy.md's ``fabric-daemonsets-tolerate-gpu-taints`` keys on), the
  tolerations (components/gpu_fabric/fabric/taints.py: every GPU taint key of docs/policy.md with
  ``operator: Exists``, CriticalAddonsOnly, then any NoSchedule / NoExecute), the rolling
  update of one node at a time (docs/clouds/azure.md: "maxUnavailable 1"), the
  ServiceAccounts with no token (the plugins talk to the kubelet only), the container
  sizes, ``rdmaHcaMax`` 64 per rail (``DEFAULT_HCA_MAX``) and the ``indent=2`` JSON text.
"""

from __future__ import annotations

from typing import Any

import pytest

from gpu_fabric.errors import Problem, SpecError
from gpu_fabric.fabric.manifests import rdma_shared, sriov
from gpu_fabric.fabric.manifests.rdma_shared import SharedResource
from gpu_fabric.fabric.manifests.sriov import VfResource
from gpu_fabric.versions import Image
from tests.fabric_helpers import existing, layer_of
from tests.support.literals import TOLERATIONS

# The pinned images (components/gpu_fabric/versions.py, docs/images.md lines 38-39), written out.
RDMA_IMAGE = Image("ghcr.io/mellanox/k8s-rdma-shared-dev-plugin", "v1.5.3")
SRIOV_IMAGE = Image("ghcr.io/k8snetworkplumbingwg/sriov-network-device-plugin", "v3.9.0")


# A pool's labels (components/gpu_fabric/fabric/description.py POOL_LABEL / FABRIC_LABEL).
POOL_SELECTOR = {"gpufabric.dev/pool": "gpu", "gpufabric.dev/fabric": "roce"}


# -- RDMA shared device plugin: one config entry --------------------------------------


def test_shared_resource_defaults_are_the_rdma_prefix_and_64_slots() -> None:
    # README v1.5.3: resourcePrefix defaults to "rdma"; DO seed: rdma/fabric0.
    r = SharedResource("fabric0")
    assert r.name == "fabric0"
    assert r.prefix == "rdma"
    assert r.hca_max == 64
    assert r.resource == "rdma/fabric0"
    assert r.to_config() == {
        "resourceName": "fabric0",
        "resourcePrefix": "rdma",
        "rdmaHcaMax": 64,
        "selectors": {},
    }


def test_shared_resource_config_writes_every_field_and_lists_the_selectors() -> None:
    # aks-rdma-infiniband rdma.yaml: rdmaHcaMax 63, vendors 15b3, linkTypes infiniband;
    # the name is the k8s-rdma-shared-dev-plugin example's (configmap.yaml v1.5.3), which
    # NeMo's Azure default requests (docs/clouds/azure.md).
    r = SharedResource(
        "hca_shared_devices_a", {"vendors": ("15b3",), "linkTypes": ("infiniband",)}, "rdma", 63
    )
    assert r.resource == "rdma/hca_shared_devices_a"
    out = r.to_config()
    assert out == {
        "resourceName": "hca_shared_devices_a",
        "resourcePrefix": "rdma",
        "rdmaHcaMax": 63,
        "selectors": {"vendors": ["15b3"], "linkTypes": ["infiniband"]},
    }
    # JSON arrays: lists, never the tuples the caller passed.
    assert type(out["selectors"]["vendors"]) is list
    assert type(out["selectors"]["linkTypes"]) is list


def test_shared_resource_config_keeps_a_non_default_prefix() -> None:
    # README v1.5.3 example: "resourcePrefix": "example_prefix", "rdmaHcaMax": 500,
    # selectors vendors / deviceIDs / ifNames (configmap.yaml hca_shared_devices_b).
    r = SharedResource(
        "hca_shared_devices_b",
        {"vendors": ["15b3"], "deviceIDs": ["1017"], "ifNames": ["ib3", "ib4"]},
        prefix="example_prefix",
        hca_max=500,
    )
    assert r.resource == "example_prefix/hca_shared_devices_b"
    assert r.to_config() == {
        "resourceName": "hca_shared_devices_b",
        "resourcePrefix": "example_prefix",
        "rdmaHcaMax": 500,
        "selectors": {"vendors": ["15b3"], "deviceIDs": ["1017"], "ifNames": ["ib3", "ib4"]},
    }


def test_shared_resource_selectors_are_copied_not_shared() -> None:
    names = ["ib0"]
    r = SharedResource("a", {"ifNames": names})
    out = r.to_config()
    out["selectors"]["ifNames"].append("ib1")
    assert names == ["ib0"]
    assert r.to_config()["selectors"] == {"ifNames": ["ib0"]}


# -- per_interface: one resource per rail ---------------------------------------------


def test_per_interface_names_each_resource_after_its_rail() -> None:
    # DO seed lines 45-52: rdma/fabric0 .. rdma/fabric7, one per fabric NIC.
    got = rdma_shared.per_interface(f"fabric{i}" for i in range(3))
    assert got == [
        SharedResource("fabric0", {"ifNames": ["fabric0"]}, "rdma", 64),
        SharedResource("fabric1", {"ifNames": ["fabric1"]}, "rdma", 64),
        SharedResource("fabric2", {"ifNames": ["fabric2"]}, "rdma", 64),
    ]
    assert [r.resource for r in got] == ["rdma/fabric0", "rdma/fabric1", "rdma/fabric2"]
    assert [r.to_config() for r in got] == [
        {"resourceName": "fabric0", "resourcePrefix": "rdma", "rdmaHcaMax": 64,
         "selectors": {"ifNames": ["fabric0"]}},
        {"resourceName": "fabric1", "resourcePrefix": "rdma", "rdmaHcaMax": 64,
         "selectors": {"ifNames": ["fabric1"]}},
        {"resourceName": "fabric2", "resourcePrefix": "rdma", "rdmaHcaMax": 64,
         "selectors": {"ifNames": ["fabric2"]}},
    ]


def test_per_interface_takes_a_prefix() -> None:
    got = rdma_shared.per_interface(["ib0", "ib1"], prefix="example_prefix")
    assert [r.to_config() for r in got] == [
        {"resourceName": "ib0", "resourcePrefix": "example_prefix", "rdmaHcaMax": 64,
         "selectors": {"ifNames": ["ib0"]}},
        {"resourceName": "ib1", "resourcePrefix": "example_prefix", "rdmaHcaMax": 64,
         "selectors": {"ifNames": ["ib1"]}},
    ]
    assert [r.resource for r in got] == ["example_prefix/ib0", "example_prefix/ib1"]


def test_per_interface_of_no_rail_is_empty() -> None:
    assert rdma_shared.per_interface([]) == []


# -- config: the plugin's config.json ------------------------------------------------


def test_config_defaults_to_the_upstream_update_interval() -> None:
    # configmap.yaml v1.5.3: "periodicUpdateInterval": 300.
    got = rdma_shared.config(rdma_shared.per_interface(["fabric0", "fabric1"]))
    assert got == {
        "periodicUpdateInterval": 300,
        "configList": [
            {"resourceName": "fabric0", "resourcePrefix": "rdma", "rdmaHcaMax": 64,
             "selectors": {"ifNames": ["fabric0"]}},
            {"resourceName": "fabric1", "resourcePrefix": "rdma", "rdmaHcaMax": 64,
             "selectors": {"ifNames": ["fabric1"]}},
        ],
    }


def test_config_takes_an_interval_and_keeps_the_resources_in_order() -> None:
    # README v1.5.3: 0 disables the periodic update.
    shared = [
        SharedResource("shared_ib", {"vendors": ["15b3"], "linkTypes": ["infiniband"]},
                       "rdma", 63),
        SharedResource("fabric0", {"ifNames": ["fabric0"]}),
    ]
    assert rdma_shared.config(shared, interval=0) == {
        "periodicUpdateInterval": 0,
        "configList": [
            {"resourceName": "shared_ib", "resourcePrefix": "rdma", "rdmaHcaMax": 63,
             "selectors": {"vendors": ["15b3"], "linkTypes": ["infiniband"]}},
            {"resourceName": "fabric0", "resourcePrefix": "rdma", "rdmaHcaMax": 64,
             "selectors": {"ifNames": ["fabric0"]}},
        ],
    }
    assert rdma_shared.config([], 60) == {"periodicUpdateInterval": 60, "configList": []}


# -- manifests: ServiceAccount, ConfigMap, DaemonSet ----------------------------------

# json.dumps(..., indent=2) of config(per_interface(["fabric0", "fabric1"])), written out.
RDMA_CONFIG_JSON = """{
  "periodicUpdateInterval": 300,
  "configList": [
    {
      "resourceName": "fabric0",
      "resourcePrefix": "rdma",
      "rdmaHcaMax": 64,
      "selectors": {
        "ifNames": [
          "fabric0"
        ]
      }
    },
    {
      "resourceName": "fabric1",
      "resourcePrefix": "rdma",
      "rdmaHcaMax": 64,
      "selectors": {
        "ifNames": [
          "fabric1"
        ]
      }
    }
  ]
}"""


def _rdma_container() -> dict[str, Any]:
    """daemonset.yaml v1.5.3: the container, its privileges and four mounts (the config
    mount read-only: the plugin only reads /k8s-rdma-shared-dev-plugin/config.json)."""
    return {
        "name": "k8s-rdma-shared-dp-ds",
        "image": "ghcr.io/mellanox/k8s-rdma-shared-dev-plugin:v1.5.3",
        "securityContext": {"privileged": True},
        "resources": {
            "requests": {"cpu": "10m", "memory": "64Mi"},
            "limits": {"memory": "128Mi"},
        },
        "volumeMounts": [
            {"name": "device-plugin", "mountPath": "/var/lib/kubelet/device-plugins"},
            {"name": "plugins-registry", "mountPath": "/var/lib/kubelet/plugins_registry"},
            {"name": "config", "mountPath": "/k8s-rdma-shared-dev-plugin", "readOnly": True},
            {"name": "devs", "mountPath": "/dev/"},
        ],
    }


RDMA_VOLUMES = [
    {"name": "device-plugin", "hostPath": {"path": "/var/lib/kubelet/device-plugins"}},
    {"name": "plugins-registry", "hostPath": {"path": "/var/lib/kubelet/plugins_registry"}},
    {"name": "config", "configMap": {
        "name": "rdma-devices", "items": [{"key": "config.json", "path": "config.json"}],
    }},
    {"name": "devs", "hostPath": {"path": "/dev/"}},
]


def test_rdma_shared_manifests_default_to_kube_system_on_every_node() -> None:
    got = rdma_shared.manifests(RDMA_IMAGE, rdma_shared.per_interface(["fabric0", "fabric1"]))
    assert got == [
        {
            "apiVersion": "v1",
            "kind": "ServiceAccount",
            "metadata": {
                "name": "rdma-shared-dp",
                "namespace": "kube-system",
                "labels": {"app.kubernetes.io/managed-by": "gpu-fabric"},
            },
            "automountServiceAccountToken": False,
        },
        {
            "apiVersion": "v1",
            "kind": "ConfigMap",
            "metadata": {
                "name": "rdma-devices",
                "namespace": "kube-system",
                "labels": {"app.kubernetes.io/managed-by": "gpu-fabric"},
            },
            "data": {"config.json": RDMA_CONFIG_JSON},
        },
        {
            "apiVersion": "apps/v1",
            "kind": "DaemonSet",
            "metadata": {
                "name": "rdma-shared-dp-ds",
                "namespace": "kube-system",
                "labels": {
                    "app.kubernetes.io/managed-by": "gpu-fabric",
                    "app.kubernetes.io/name": "rdma-shared-dp-ds",
                },
            },
            "spec": {
                "selector": {"matchLabels": {"app.kubernetes.io/name": "rdma-shared-dp-ds"}},
                "updateStrategy": {
                    "type": "RollingUpdate", "rollingUpdate": {"maxUnavailable": 1},
                },
                "template": {
                    "metadata": {"labels": {"app.kubernetes.io/name": "rdma-shared-dp-ds"}},
                    "spec": {
                        "serviceAccountName": "rdma-shared-dp",
                        "tolerations": TOLERATIONS,
                        "containers": [_rdma_container()],
                        "volumes": RDMA_VOLUMES,
                        "hostNetwork": True,
                        "dnsPolicy": "ClusterFirstWithHostNet",
                        "priorityClassName": "system-node-critical",
                    },
                },
            },
        },
    ]


def test_rdma_shared_manifests_in_a_namespace_on_selected_nodes() -> None:
    # The Azure shape (aks-rdma-infiniband rdma.yaml) in another namespace, on one pool.
    shared = [SharedResource("shared_ib", {"vendors": ["15b3"], "linkTypes": ["infiniband"]},
                             "rdma", 63)]
    got = rdma_shared.manifests(
        Image("ghcr.io/mellanox/k8s-rdma-shared-dev-plugin", "network-operator-v25.10.0"),
        shared,
        namespace="fabric-system",
        node_selector=POOL_SELECTOR,
    )
    container = _rdma_container() | {
        "image": "ghcr.io/mellanox/k8s-rdma-shared-dev-plugin:network-operator-v25.10.0",
    }
    assert got == [
        {
            "apiVersion": "v1",
            "kind": "ServiceAccount",
            "metadata": {
                "name": "rdma-shared-dp",
                "namespace": "fabric-system",
                "labels": {"app.kubernetes.io/managed-by": "gpu-fabric"},
            },
            "automountServiceAccountToken": False,
        },
        {
            "apiVersion": "v1",
            "kind": "ConfigMap",
            "metadata": {
                "name": "rdma-devices",
                "namespace": "fabric-system",
                "labels": {"app.kubernetes.io/managed-by": "gpu-fabric"},
            },
            "data": {"config.json": """{
  "periodicUpdateInterval": 300,
  "configList": [
    {
      "resourceName": "shared_ib",
      "resourcePrefix": "rdma",
      "rdmaHcaMax": 63,
      "selectors": {
        "vendors": [
          "15b3"
        ],
        "linkTypes": [
          "infiniband"
        ]
      }
    }
  ]
}"""},
        },
        {
            "apiVersion": "apps/v1",
            "kind": "DaemonSet",
            "metadata": {
                "name": "rdma-shared-dp-ds",
                "namespace": "fabric-system",
                "labels": {
                    "app.kubernetes.io/managed-by": "gpu-fabric",
                    "app.kubernetes.io/name": "rdma-shared-dp-ds",
                },
            },
            "spec": {
                "selector": {"matchLabels": {"app.kubernetes.io/name": "rdma-shared-dp-ds"}},
                "updateStrategy": {
                    "type": "RollingUpdate", "rollingUpdate": {"maxUnavailable": 1},
                },
                "template": {
                    "metadata": {"labels": {"app.kubernetes.io/name": "rdma-shared-dp-ds"}},
                    "spec": {
                        "serviceAccountName": "rdma-shared-dp",
                        "tolerations": TOLERATIONS,
                        "containers": [container],
                        "volumes": RDMA_VOLUMES,
                        "hostNetwork": True,
                        "dnsPolicy": "ClusterFirstWithHostNet",
                        "nodeSelector": {
                            "gpufabric.dev/pool": "gpu", "gpufabric.dev/fabric": "roce",
                        },
                        "priorityClassName": "system-node-critical",
                    },
                },
            },
        },
    ]


def test_rdma_shared_manifests_of_no_resource_render_an_empty_config() -> None:
    # What the builder alone does; the layer never gets here (next test).
    got = rdma_shared.manifests(RDMA_IMAGE, [])
    assert got[1]["data"] == {
        "config.json": '{\n  "periodicUpdateInterval": 300,\n  "configList": []\n}'
    }


def test_the_rdma_shared_plugin_on_a_cluster_without_its_fabric_is_refused() -> None:
    # k8s-rdma-shared-dev-plugin v1.5.3 pkg/resources/resources_manager.go ValidateConfigs:
    # `len(rm.configList) < 1` -> "no resources configuration found", and
    # cmd/k8s-rdma-shared-dp/main.go log.Fatalf's on it: the DaemonSet the layer used to
    # render here (configList []) crash-looped on every node. GKE A4 pools hand their
    # NICs out through DRA, not this plugin.
    spec = existing("gcp", addons={"rdma_shared_device_plugin": {"enabled": True}})
    with pytest.raises(SpecError) as info:
        layer_of(spec)
    assert info.value.problems == [Problem(
        "addons.rdma_shared_device_plugin.enabled",
        "no node pool's fabric uses the rdma-shared device plugin (fabric.device_plugin: "
        "rdma-shared, with fabric NICs), so its configList would be empty, and the plugin "
        'exits on start ("no resources configuration found"); leave '
        "addons.rdma_shared_device_plugin off on this cluster",
        True,
        True,
    )]


# -- SR-IOV device plugin: one config entry -------------------------------------------


def test_vf_resource_config_writes_every_field() -> None:
    # aks-rdma-infiniband sriov.yaml: resourcePrefix rdma, resourceName ib.
    selectors = {"vendors": ["15b3"], "linkTypes": ["infiniband"], "isRdma": True}
    r = VfResource("ib", "rdma", selectors)
    assert r.resource == "rdma/ib"
    out = r.to_config()
    assert out == {
        "resourceName": "ib",
        "resourcePrefix": "rdma",
        "selectors": {"vendors": ["15b3"], "linkTypes": ["infiniband"], "isRdma": True},
    }
    out["selectors"]["pfNames"] = ["ib0"]
    assert selectors == {"vendors": ["15b3"], "linkTypes": ["infiniband"], "isRdma": True}


def test_vf_resource_without_selectors_has_empty_selectors() -> None:
    r = VfResource("rdma-vf", "nvidia.com")
    assert r.resource == "nvidia.com/rdma-vf"
    assert r.to_config() == {
        "resourceName": "rdma-vf", "resourcePrefix": "nvidia.com", "selectors": {},
    }


def test_rdma_vfs_of_any_link_type_selects_mellanox_rdma_vfs() -> None:
    # deployments/configMap.yaml v3.9.0 mlnx_sriov_rdma: vendors ["15b3"], isRdma true;
    # OCI resource nvidia.com/rdma-vf (shared/reference/kubernetes-layer.md, oci-hpc-oke).
    got = sriov.rdma_vfs("rdma-vf", "nvidia.com")
    assert got == VfResource("rdma-vf", "nvidia.com", {"vendors": ["15b3"], "isRdma": True})
    assert got.to_config() == {
        "resourceName": "rdma-vf",
        "resourcePrefix": "nvidia.com",
        "selectors": {"vendors": ["15b3"], "isRdma": True},
    }
    # An empty link type is no link type (no "linkTypes": [""] that matches nothing).
    assert sriov.rdma_vfs("rdma-vf", "nvidia.com", link_type="").to_config() == {
        "resourceName": "rdma-vf",
        "resourcePrefix": "nvidia.com",
        "selectors": {"vendors": ["15b3"], "isRdma": True},
    }


def test_rdma_vfs_of_infiniband_is_the_aks_resource() -> None:
    # aks-rdma-infiniband sriov.yaml at 700dabb4fe04, config written out.
    got = sriov.rdma_vfs("ib", "rdma", link_type="infiniband")
    assert got.resource == "rdma/ib"
    assert got.to_config() == {
        "resourcePrefix": "rdma",
        "resourceName": "ib",
        "selectors": {"vendors": ["15b3"], "linkTypes": ["infiniband"], "isRdma": True},
    }


def test_rdma_vfs_of_ethernet_selects_ether_links() -> None:
    # sriov-network-device-plugin README v3.9.0: "linkTypes": ["ether"].
    assert sriov.rdma_vfs("rdma-vf", "nvidia.com", link_type="ether").to_config() == {
        "resourceName": "rdma-vf",
        "resourcePrefix": "nvidia.com",
        "selectors": {"vendors": ["15b3"], "isRdma": True, "linkTypes": ["ether"]},
    }


def test_sriov_config_is_a_resource_list_in_order() -> None:
    got = sriov.config([
        sriov.rdma_vfs("ib", "rdma", link_type="infiniband"),
        sriov.rdma_vfs("rdma-vf", "nvidia.com"),
    ])
    assert got == {
        "resourceList": [
            {"resourceName": "ib", "resourcePrefix": "rdma",
             "selectors": {"vendors": ["15b3"], "isRdma": True, "linkTypes": ["infiniband"]}},
            {"resourceName": "rdma-vf", "resourcePrefix": "nvidia.com",
             "selectors": {"vendors": ["15b3"], "isRdma": True}},
        ],
    }
    assert sriov.config([]) == {"resourceList": []}


def test_the_sriov_plugin_on_a_cluster_without_vfs_is_refused() -> None:
    # sriov-network-device-plugin v3.9.0 cmd/sriovdp/manager.go: an empty resourceList
    # starts no resource server; the DaemonSet would run on every node for nothing.
    # AWS pools hand out EFA devices, not VFs.
    spec = existing("aws", addons={"sriov_device_plugin": {"enabled": True}})
    with pytest.raises(SpecError) as info:
        layer_of(spec)
    assert info.value.problems == [Problem(
        "addons.sriov_device_plugin.enabled",
        "no node pool's fabric uses the sriov device plugin (fabric.device_plugin: sriov, "
        "with fabric NICs), so its resourceList would be empty: it would serve no device; "
        "leave addons.sriov_device_plugin off on this cluster",
        True,
        True,
    )]


# -- manifests: ServiceAccount, ConfigMap, DaemonSet ----------------------------------


def _sriov_container() -> dict[str, Any]:
    """sriovdp-daemonset.yaml v3.9.0: container, args, privileges and five mounts (the
    config mount read-only: the plugin only reads /etc/pcidp/config.json). Requests are
    the project's (upstream 250m / 40Mi); the 200Mi memory limit is upstream's."""
    return {
        "name": "kube-sriovdp",
        "image": "ghcr.io/k8snetworkplumbingwg/sriov-network-device-plugin:v3.9.0",
        "args": ["--log-dir=sriovdp", "--log-level=10"],
        "securityContext": {"privileged": True},
        "resources": {
            "requests": {"cpu": "50m", "memory": "64Mi"},
            "limits": {"memory": "200Mi"},
        },
        "volumeMounts": [
            {"name": "devicesock", "mountPath": "/var/lib/kubelet/device-plugins"},
            {"name": "plugins-registry", "mountPath": "/var/lib/kubelet/plugins_registry"},
            {"name": "log", "mountPath": "/var/log"},
            {"name": "config-volume", "mountPath": "/etc/pcidp", "readOnly": True},
            {"name": "device-info", "mountPath": "/var/run/k8s.cni.cncf.io/devinfo/dp"},
        ],
    }


SRIOV_VOLUMES = [
    {"name": "devicesock", "hostPath": {"path": "/var/lib/kubelet/device-plugins"}},
    {"name": "plugins-registry", "hostPath": {"path": "/var/lib/kubelet/plugins_registry"}},
    {"name": "log", "hostPath": {"path": "/var/log"}},
    {"name": "device-info", "hostPath": {
        "path": "/var/run/k8s.cni.cncf.io/devinfo/dp", "type": "DirectoryOrCreate",
    }},
    {"name": "config-volume", "configMap": {
        "name": "sriovdp-config", "items": [{"key": "config.json", "path": "config.json"}],
    }},
]


def test_sriov_manifests_default_to_kube_system_on_every_node() -> None:
    got = sriov.manifests(SRIOV_IMAGE, [sriov.rdma_vfs("ib", "rdma", link_type="infiniband")])
    assert got == [
        {
            "apiVersion": "v1",
            "kind": "ServiceAccount",
            "metadata": {
                "name": "sriov-device-plugin",
                "namespace": "kube-system",
                "labels": {"app.kubernetes.io/managed-by": "gpu-fabric"},
            },
            "automountServiceAccountToken": False,
        },
        {
            "apiVersion": "v1",
            "kind": "ConfigMap",
            "metadata": {
                "name": "sriovdp-config",
                "namespace": "kube-system",
                "labels": {"app.kubernetes.io/managed-by": "gpu-fabric"},
            },
            "data": {"config.json": """{
  "resourceList": [
    {
      "resourceName": "ib",
      "resourcePrefix": "rdma",
      "selectors": {
        "vendors": [
          "15b3"
        ],
        "isRdma": true,
        "linkTypes": [
          "infiniband"
        ]
      }
    }
  ]
}"""},
        },
        {
            "apiVersion": "apps/v1",
            "kind": "DaemonSet",
            "metadata": {
                "name": "kube-sriov-device-plugin",
                "namespace": "kube-system",
                "labels": {
                    "app.kubernetes.io/managed-by": "gpu-fabric",
                    "app.kubernetes.io/name": "kube-sriov-device-plugin",
                },
            },
            "spec": {
                "selector": {
                    "matchLabels": {"app.kubernetes.io/name": "kube-sriov-device-plugin"},
                },
                "updateStrategy": {
                    "type": "RollingUpdate", "rollingUpdate": {"maxUnavailable": 1},
                },
                "template": {
                    "metadata": {
                        "labels": {"app.kubernetes.io/name": "kube-sriov-device-plugin"},
                    },
                    "spec": {
                        "serviceAccountName": "sriov-device-plugin",
                        "tolerations": TOLERATIONS,
                        "containers": [_sriov_container()],
                        "volumes": SRIOV_VOLUMES,
                        "hostNetwork": True,
                        "dnsPolicy": "ClusterFirstWithHostNet",
                        "priorityClassName": "system-node-critical",
                    },
                },
            },
        },
    ]


def test_sriov_manifests_in_a_namespace_on_selected_nodes() -> None:
    got = sriov.manifests(
        Image("ghcr.io/k8snetworkplumbingwg/sriov-network-device-plugin", "v3.8.0"),
        [sriov.rdma_vfs("rdma-vf", "nvidia.com"), VfResource("ib", "rdma")],
        namespace="fabric-system",
        node_selector=POOL_SELECTOR,
    )
    container = _sriov_container() | {
        "image": "ghcr.io/k8snetworkplumbingwg/sriov-network-device-plugin:v3.8.0",
    }
    assert got == [
        {
            "apiVersion": "v1",
            "kind": "ServiceAccount",
            "metadata": {
                "name": "sriov-device-plugin",
                "namespace": "fabric-system",
                "labels": {"app.kubernetes.io/managed-by": "gpu-fabric"},
            },
            "automountServiceAccountToken": False,
        },
        {
            "apiVersion": "v1",
            "kind": "ConfigMap",
            "metadata": {
                "name": "sriovdp-config",
                "namespace": "fabric-system",
                "labels": {"app.kubernetes.io/managed-by": "gpu-fabric"},
            },
            "data": {"config.json": """{
  "resourceList": [
    {
      "resourceName": "rdma-vf",
      "resourcePrefix": "nvidia.com",
      "selectors": {
        "vendors": [
          "15b3"
        ],
        "isRdma": true
      }
    },
    {
      "resourceName": "ib",
      "resourcePrefix": "rdma",
      "selectors": {}
    }
  ]
}"""},
        },
        {
            "apiVersion": "apps/v1",
            "kind": "DaemonSet",
            "metadata": {
                "name": "kube-sriov-device-plugin",
                "namespace": "fabric-system",
                "labels": {
                    "app.kubernetes.io/managed-by": "gpu-fabric",
                    "app.kubernetes.io/name": "kube-sriov-device-plugin",
                },
            },
            "spec": {
                "selector": {
                    "matchLabels": {"app.kubernetes.io/name": "kube-sriov-device-plugin"},
                },
                "updateStrategy": {
                    "type": "RollingUpdate", "rollingUpdate": {"maxUnavailable": 1},
                },
                "template": {
                    "metadata": {
                        "labels": {"app.kubernetes.io/name": "kube-sriov-device-plugin"},
                    },
                    "spec": {
                        "serviceAccountName": "sriov-device-plugin",
                        "tolerations": TOLERATIONS,
                        "containers": [container],
                        "volumes": SRIOV_VOLUMES,
                        "hostNetwork": True,
                        "dnsPolicy": "ClusterFirstWithHostNet",
                        "nodeSelector": {
                            "gpufabric.dev/pool": "gpu", "gpufabric.dev/fabric": "roce",
                        },
                        "priorityClassName": "system-node-critical",
                    },
                },
            },
        },
    ]
