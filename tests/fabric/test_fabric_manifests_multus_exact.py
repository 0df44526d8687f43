"""Multus (thick) and the NetworkAttachmentDefinitions, written out whole.

Every expected value is literal and says where it comes from:

- UPSTREAM: k8snetworkplumbingwg/multus-cni v4.3.0 (commit db30741)
  deployments/multus-daemonset-thick.yml, copied with provenance to
  tests/data/upstream/crds/k8s.cni.cncf.io/multus-daemonset-thick.yml (sources.json).
- DO SEED: /work/shared/seeds/digitalocean-doks-multinode-gpu.md "Configure Multus CNI
  Plugin" (the host-device NADs ``roce-net-fabric0..7``).
- OKE: oracle-quickstart/oci-hpc-oke terraform/files/nvidia-network-operator/
  sriov-network.yaml (the SriovNetwork whose NAD ``nads.sriov`` writes directly).
- PROJECT: a value this project defines on purpose where it departs from upstream; the
  comment names the doc that says so (the ``multus`` module docstring lists the
  departures, docs/security.md the node confinement, docs/api.md the tolerations).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from gpu_fabric.fabric.manifests import multus, nads
from gpu_fabric.versions import Image
from tests.support.literals import MANAGED, TOLERATIONS

# Any image works: the builders only print its reference.
IMAGE = Image("registry.example/multus-cni", "v9.9.9-thick")
IMAGE_REF = "registry.example/multus-cni:v9.9.9-thick"


# UPSTREAM: the CRD, except the descriptions (ours is one line, the properties have none:
# descriptions are documentation, not schema) -- PROJECT.
NAD_CRD: dict[str, Any] = {
    "apiVersion": "apiextensions.k8s.io/v1",
    "kind": "CustomResourceDefinition",
    "metadata": {"name": "network-attachment-definitions.k8s.cni.cncf.io", "labels": MANAGED},
    "spec": {
        "group": "k8s.cni.cncf.io",
        "scope": "Namespaced",
        "names": {
            "plural": "network-attachment-definitions",
            "singular": "network-attachment-definition",
            "kind": "NetworkAttachmentDefinition",
            # UPSTREAM v4.3.0 lists both ("nad" since multus-cni 5dd752d9f).
            "shortNames": ["nad", "net-attach-def"],
        },
        "versions": [
            {
                "name": "v1",
                "served": True,
                "storage": True,
                "schema": {
                    "openAPIV3Schema": {
                        "description": "A network a pod can attach to through Multus.",
                        "type": "object",
                        "properties": {
                            "apiVersion": {"type": "string"},
                            "kind": {"type": "string"},
                            "metadata": {"type": "object"},
                            "spec": {
                                "type": "object",
                                "properties": {"config": {"type": "string"}},
                            },
                        },
                    }
                },
            }
        ],
    },
}

# UPSTREAM: ConfigMap multus-daemon-config, key daemon-config.json, same keys in the same
# order with the same values.
DAEMON_CONFIG = {
    "chrootDir": "/hostroot",
    "cniVersion": "0.3.1",
    "logLevel": "verbose",
    "logToStderr": True,
    "cniConfigDir": "/host/etc/cni/net.d",
    "multusAutoconfigDir": "/host/etc/cni/net.d",
    "multusConfigFile": "auto",
    "socketDir": "/host/run/multus/",
}
# The ConfigMap's text: the config above as JSON indented by 2 (written out, not dumped).
DAEMON_CONFIG_TEXT = (
    '{\n'
    '  "chrootDir": "/hostroot",\n'
    '  "cniVersion": "0.3.1",\n'
    '  "logLevel": "verbose",\n'
    '  "logToStderr": true,\n'
    '  "cniConfigDir": "/host/etc/cni/net.d",\n'
    '  "multusAutoconfigDir": "/host/etc/cni/net.d",\n'
    '  "multusConfigFile": "auto",\n'
    '  "socketDir": "/host/run/multus/"\n'
    '}'
)


# UPSTREAM container kube-multus, except: resources (PROJECT, module docstring: 512Mi
# memory request = limit, no CPU limit) and no multus-conf-dir mount (PROJECT, module
# docstring: every NAD here carries its config).
DAEMON = {
    "name": "kube-multus",
    "image": IMAGE_REF,
    "command": ["/usr/src/multus-cni/bin/multus-daemon"],
    "resources": {"requests": {"cpu": "100m", "memory": "512Mi"},
                  "limits": {"memory": "512Mi"}},
    "securityContext": {"privileged": True},
    "terminationMessagePolicy": "FallbackToLogsOnError",
    "env": [{"name": "MULTUS_NODE_NAME",
             "valueFrom": {"fieldRef": {"fieldPath": "spec.nodeName"}}}],
    "volumeMounts": [
        {"name": "cni", "mountPath": "/host/etc/cni/net.d"},
        # UPSTREAM: "multus-daemon expects that cnibin path must be identical between pod
        # and container host" (multus-cni PR #1161): without it every delegate fails with
        # 'failed to find plugin "host-device" in path [/opt/cni/bin]'.
        {"name": "cnibin", "mountPath": "/opt/cni/bin"},
        {"name": "host-run", "mountPath": "/host/run"},
        {"name": "host-var-lib-cni-multus", "mountPath": "/var/lib/cni/multus"},
        {"name": "host-var-lib-kubelet", "mountPath": "/var/lib/kubelet",
         "mountPropagation": "HostToContainer"},
        {"name": "host-run-k8s-cni-cncf-io", "mountPath": "/run/k8s.cni.cncf.io"},
        {"name": "host-run-netns", "mountPath": "/run/netns",
         "mountPropagation": "HostToContainer"},
        {"name": "multus-daemon-config", "mountPath": "/etc/cni/net.d/multus.d",
         "readOnly": True},
        {"name": "hostroot", "mountPath": "/hostroot", "mountPropagation": "HostToContainer"},
    ],
}

# UPSTREAM init container install-multus-binary (install_multus since multus-cni
# a234ce68f, v4.3.0: an atomic copy; the old `cp` hit "Text file busy", issue #1221),
# except resources (PROJECT, module docstring: 10m / 64Mi, 64Mi limit).
INSTALL = {
    "name": "install-multus-binary",
    "image": IMAGE_REF,
    "command": ["/usr/src/multus-cni/bin/install_multus", "-d", "/host/opt/cni/bin",
                "-t", "thick"],
    "resources": {"requests": {"cpu": "10m", "memory": "64Mi"}, "limits": {"memory": "64Mi"}},
    "securityContext": {"privileged": True},
    "terminationMessagePolicy": "FallbackToLogsOnError",
    "volumeMounts": [{"name": "cnibin", "mountPath": "/host/opt/cni/bin",
                      "mountPropagation": "Bidirectional"}],
}

# UPSTREAM volumes in upstream order, without multus-conf-dir (PROJECT, see DAEMON).
VOLUMES = [
    {"name": "cni", "hostPath": {"path": "/etc/cni/net.d"}},
    {"name": "cnibin", "hostPath": {"path": "/opt/cni/bin"}},
    {"name": "hostroot", "hostPath": {"path": "/"}},
    {"name": "multus-daemon-config", "configMap": {
        "name": "multus-daemon-config",
        "items": [{"key": "daemon-config.json", "path": "daemon-config.json"}]}},
    {"name": "host-run", "hostPath": {"path": "/run"}},
    {"name": "host-var-lib-cni-multus", "hostPath": {"path": "/var/lib/cni/multus"}},
    {"name": "host-var-lib-kubelet", "hostPath": {"path": "/var/lib/kubelet"}},
    {"name": "host-run-k8s-cni-cncf-io", "hostPath": {"path": "/run/k8s.cni.cncf.io"}},
    {"name": "host-run-netns", "hostPath": {"path": "/run/netns/"}},
]


def _daemonset(ns: str, affinity: dict[str, Any] | None) -> dict[str, Any]:
    """UPSTREAM DaemonSet kube-multus-ds (hostNetwork, hostPID, serviceAccountName multus,
    tier/app labels, terminationGracePeriodSeconds 10) with the PROJECT's node-agent frame
    (module docstring, common.node_agent): app.kubernetes.io/name selector, maxUnavailable
    1, system-node-critical, ClusterFirstWithHostNet (DNS of a hostNetwork pod)."""
    pod: dict[str, Any] = {
        "serviceAccountName": "multus",
        "tolerations": TOLERATIONS,
        "containers": [DAEMON],
        "initContainers": [INSTALL],
        "volumes": VOLUMES,
        "hostNetwork": True,
        "dnsPolicy": "ClusterFirstWithHostNet",
        "hostPID": True,
    }
    if affinity is not None:
        pod["affinity"] = affinity
    pod |= {"priorityClassName": "system-node-critical", "terminationGracePeriodSeconds": 10}
    return {
        "apiVersion": "apps/v1",
        "kind": "DaemonSet",
        "metadata": {"name": "kube-multus-ds", "namespace": ns, "labels": {
            **MANAGED, "app.kubernetes.io/name": "kube-multus-ds",
            "tier": "node", "app": "multus"}},
        "spec": {
            "selector": {"matchLabels": {"app.kubernetes.io/name": "kube-multus-ds"}},
            "updateStrategy": {"type": "RollingUpdate", "rollingUpdate": {"maxUnavailable": 1}},
            "template": {
                "metadata": {"labels": {"app.kubernetes.io/name": "kube-multus-ds",
                                        "tier": "node", "app": "multus"}},
                "spec": pod,
            },
        },
    }


def _expected(ns: str, affinity: dict[str, Any] | None = None) -> list[dict[str, Any]]:
    return [
        NAD_CRD,
        # UPSTREAM ServiceAccount multus.
        {"apiVersion": "v1", "kind": "ServiceAccount",
         "metadata": {"name": "multus", "namespace": ns, "labels": MANAGED},
         "automountServiceAccountToken": True},
        # UPSTREAM ClusterRole multus, the first rule narrowed from '*' to what the daemon
        # does (PROJECT, module docstring); pods: UPSTREAM's get/list/update/watch (the
        # network-status annotation is written with UpdateStatus, NAD client v1.7.6
        # pkg/utils/net-attach-def.go); events: UPSTREAM.
        {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole",
         "metadata": {"name": "multus", "labels": MANAGED},
         "rules": [
             {"apiGroups": ["k8s.cni.cncf.io"], "resources": ["network-attachment-definitions"],
              "verbs": ["get", "list", "watch"]},
             {"apiGroups": [""], "resources": ["pods", "pods/status"],
              "verbs": ["get", "list", "update", "watch"]},
             {"apiGroups": ["", "events.k8s.io"], "resources": ["events"],
              "verbs": ["create", "patch", "update"]},
         ]},
        # UPSTREAM ClusterRoleBinding multus.
        {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRoleBinding",
         "metadata": {"name": "multus", "labels": MANAGED},
         "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole",
                     "name": "multus"},
         "subjects": [{"kind": "ServiceAccount", "name": "multus", "namespace": ns}]},
        # UPSTREAM ConfigMap multus-daemon-config (labels: PROJECT).
        {"apiVersion": "v1", "kind": "ConfigMap",
         "metadata": {"name": "multus-daemon-config", "namespace": ns, "labels": MANAGED},
         "data": {"daemon-config.json": DAEMON_CONFIG_TEXT}},
        _daemonset(ns, affinity),
    ]


UPSTREAM_FILE = (Path(__file__).parents[1] / "data" / "upstream" / "crds" / "k8s.cni.cncf.io"
                 / "multus-daemonset-thick.yml")


def _upstream(kind: str) -> dict[str, Any]:
    docs = [d for d in yaml.safe_load_all(UPSTREAM_FILE.read_text()) if d]
    return next(d for d in docs if d["kind"] == kind)


def _upstream_pod() -> dict[str, Any]:
    return _upstream("DaemonSet")["spec"]["template"]["spec"]


def test_literals_above_agree_with_the_pinned_upstream_file() -> None:
    """The UPSTREAM parts of the literals, checked against the file itself."""
    crd = _upstream("CustomResourceDefinition")["spec"]
    assert {k: crd[k] for k in ("group", "scope", "names")} == {
        k: NAD_CRD["spec"][k] for k in ("group", "scope", "names")}
    assert json.loads(_upstream("ConfigMap")["data"]["daemon-config.json"]) == DAEMON_CONFIG
    pod = _upstream_pod()
    up_daemon, up_install = pod["containers"][0], pod["initContainers"][0]
    for key in ("name", "command", "securityContext", "terminationMessagePolicy", "env"):
        assert up_daemon[key] == DAEMON[key], key
    for key in ("name", "command", "securityContext", "terminationMessagePolicy",
                "volumeMounts"):
        assert up_install[key] == INSTALL[key], key
    # Ours = upstream minus multus-conf-dir (PROJECT, module docstring), same order.
    assert [m for m in up_daemon["volumeMounts"] if m["name"] != "multus-conf-dir"] == [
        m for m in DAEMON["volumeMounts"]]
    assert [v for v in pod["volumes"] if v["name"] != "multus-conf-dir"] == VOLUMES
    assert pod["terminationGracePeriodSeconds"] == 10
    assert (pod["hostNetwork"], pod["hostPID"], pod["serviceAccountName"]) == (
        True, True, "multus")
    up_rules = _upstream("ClusterRole")["rules"]
    assert up_rules[1] == {"apiGroups": [""], "resources": ["pods", "pods/status"],
                           "verbs": ["get", "list", "update", "watch"]}
    assert up_rules[2] == {"apiGroups": ["", "events.k8s.io"], "resources": ["events"],
                           "verbs": ["create", "patch", "update"]}


def test_daemon_sees_the_host_cni_bin_dir_at_the_same_path() -> None:
    """Bug fixed: the daemon lacked the ``cnibin`` mount, so the delegate lookup
    (libcni FindInPath in the daemon's own filesystem, multus-cni PR #1161) found no
    host-device / sriov plugin and no secondary network ever attached."""
    daemon = multus.manifests(IMAGE)[-1]["spec"]["template"]["spec"]["containers"][0]
    assert {"name": "cnibin", "mountPath": "/opt/cni/bin"} in daemon["volumeMounts"]


def test_installer_copies_atomically() -> None:
    """Bug fixed: ``cp`` onto a running multus-shim fails "Text file busy" after a node
    reboot (multus-cni issue #1221); v4.3.0's sample runs install_multus (temp + rename)."""
    install = multus.manifests(IMAGE)[-1]["spec"]["template"]["spec"]["initContainers"][0]
    assert install["command"] == ["/usr/src/multus-cni/bin/install_multus", "-d",
                                  "/host/opt/cni/bin", "-t", "thick"]


def test_nad_crd_is_upstreams() -> None:
    assert multus.nad_crd() == NAD_CRD


def test_daemon_config_is_upstreams_key_for_key_in_order() -> None:
    config = multus.daemon_config()
    assert config == DAEMON_CONFIG
    assert list(config) == list(DAEMON_CONFIG)


def test_daemon_config_text_parses_back_to_the_config() -> None:
    assert json.loads(DAEMON_CONFIG_TEXT) == DAEMON_CONFIG  # the literal above is sound


def test_manifests_default_namespace_and_any_node() -> None:
    # UPSTREAM namespace kube-system; no selectors: no affinity (docs/security.md: an
    # existing cluster whose pools declare no labels runs Multus on every node).
    assert multus.manifests(IMAGE) == _expected("kube-system")


def test_manifests_namespace_and_fabric_pool_affinity() -> None:
    # PROJECT (docs/security.md "Node agents only where they are needed"): required node
    # affinity on the pools' labels, one term per pool (either pool's nodes).
    got = multus.manifests(IMAGE, "fabric-system",
                           node_selectors=[{"gpufabric.dev/pool": "h200"}])
    assert got == _expected("fabric-system", {"nodeAffinity": {
        "requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
            {"matchExpressions": [
                {"key": "gpufabric.dev/pool", "operator": "In", "values": ["h200"]}]},
        ]}}})


def test_the_image_reference_is_used_as_given() -> None:
    digest = "sha256:" + "ab" * 32
    ds = multus.manifests(Image("r.example/m", "v1", digest))[-1]
    pod = ds["spec"]["template"]["spec"]
    assert pod["containers"][0]["image"] == f"r.example/m:v1@{digest}"
    assert pod["initContainers"][0]["image"] == f"r.example/m:v1@{digest}"


# -- fabric_node_affinity (PROJECT: docs/security.md, issue 21) -------------------------

def _affinity(*terms: list[dict[str, Any]]) -> dict[str, Any]:
    return {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
        "nodeSelectorTerms": [{"matchExpressions": t} for t in terms]}}}


def test_affinity_one_term_per_distinct_pool_keys_sorted() -> None:
    got = multus.fabric_node_affinity([
        {"gpufabric.dev/pool": "gpu", "a.example/zone": "z1"},
        {"gpufabric.dev/pool": "gpu2"},
        {"a.example/zone": "z1", "gpufabric.dev/pool": "gpu"},  # the first pool again
    ])
    assert got == _affinity(
        [{"key": "a.example/zone", "operator": "In", "values": ["z1"]},
         {"key": "gpufabric.dev/pool", "operator": "In", "values": ["gpu"]}],
        [{"key": "gpufabric.dev/pool", "operator": "In", "values": ["gpu2"]}],
    )


@pytest.mark.parametrize("selectors", [
    [],
    [{}],
    [{"gpufabric.dev/pool": "gpu"}, {}],  # one pool cannot be told apart: no confinement
    [{}, {"gpufabric.dev/pool": "gpu"}],
])
def test_affinity_none_when_any_pool_has_no_selector(selectors: list[dict[str, str]]) -> None:
    assert multus.fabric_node_affinity(selectors) is None


def test_affinity_single_pool() -> None:
    assert multus.fabric_node_affinity([{"gpufabric.dev/pool": "h100"}]) == _affinity(
        [{"key": "gpufabric.dev/pool", "operator": "In", "values": ["h100"]}])


# -- NADs --------------------------------------------------------------------------------

def test_host_device_nad_is_the_do_seeds() -> None:
    # DO SEED: roce-net-fabric0, config {"cniVersion": "0.3.1", "type": "host-device",
    # "device": "fabric0"}; namespaced ("install them in your desired namespace").
    assert nads.host_device("roce-net-fabric0", "team-a", "fabric0") == {
        "apiVersion": "k8s.cni.cncf.io/v1",
        "kind": "NetworkAttachmentDefinition",
        "metadata": {"name": "roce-net-fabric0", "namespace": "team-a", "labels": MANAGED},
        "spec": {"config": '{"cniVersion": "0.3.1", "type": "host-device", "device": "fabric0"}'},
    }


def test_nad_without_and_with_annotations() -> None:
    assert nads.nad("n", "ns", {"b": 1, "a": [2]}) == {
        "apiVersion": "k8s.cni.cncf.io/v1",
        "kind": "NetworkAttachmentDefinition",
        "metadata": {"name": "n", "namespace": "ns", "labels": MANAGED},
        "spec": {"config": '{"b": 1, "a": [2]}'},  # keys kept in the caller's order
    }
    assert nads.nad("n", "ns", {}, annotations={"x.example/k": "v"})["metadata"] == {
        "name": "n", "namespace": "ns", "labels": MANAGED, "annotations": {"x.example/k": "v"}}


def test_nv_ipam_is_the_oke_networks_ipam() -> None:
    # OKE: ipam {"type": "nv-ipam", "poolName": "sriov-pool"} (Mellanox/nvidia-k8s-ipam
    # CNI config: type nv-ipam, poolName).
    assert nads.nv_ipam("sriov-pool") == {"type": "nv-ipam", "poolName": "sriov-pool"}


OKE_SYSCTLS = {  # OKE: metaPlugins tuning sysctl, in its order
    "net.ipv4.conf.all.arp_announce": "2",
    "net.ipv4.conf.all.arp_filter": "1",
    "net.ipv4.conf.all.arp_ignore": "1",
    "net.ipv4.conf.all.rp_filter": "0",
    "net.ipv4.conf.all.accept_local": "1",
}


def test_sriov_nad_is_the_oke_sriov_network() -> None:
    # OKE: spoofChk "off" (the sriov CNI's "spoofchk"), ipam nv-ipam, metaPlugins tuning
    # (sysctl, then mtu 4220), rdma, sbr; the NAD names its VF resource in the
    # k8s.v1.cni.cncf.io/resourceName annotation (what the SR-IOV operator writes).
    got = nads.sriov("rdma-vf", "default", "nvidia.com/rdma-vf",
                     {"type": "nv-ipam", "poolName": "rdma-vf"}, 4220,
                     spoofchk="off", sysctl=OKE_SYSCTLS)
    assert got == {
        "apiVersion": "k8s.cni.cncf.io/v1",
        "kind": "NetworkAttachmentDefinition",
        "metadata": {"name": "rdma-vf", "namespace": "default", "labels": MANAGED,
                     "annotations": {"k8s.v1.cni.cncf.io/resourceName": "nvidia.com/rdma-vf"}},
        "spec": {"config": (
            '{"cniVersion": "0.3.1", "name": "rdma-vf", "plugins": ['
            '{"type": "sriov", "spoofchk": "off", '
            '"ipam": {"type": "nv-ipam", "poolName": "rdma-vf"}}, '
            '{"type": "tuning", "sysctl": {'
            '"net.ipv4.conf.all.arp_announce": "2", '
            '"net.ipv4.conf.all.arp_filter": "1", '
            '"net.ipv4.conf.all.arp_ignore": "1", '
            '"net.ipv4.conf.all.rp_filter": "0", '
            '"net.ipv4.conf.all.accept_local": "1"}, "mtu": 4220}, '
            '{"type": "rdma"}, {"type": "sbr"}]}'
        )},
    }


def test_sriov_nad_without_the_optional_parts() -> None:
    # No MTU, spoofchk or sysctls: a bare sriov VF and a bare tuning plugin.
    got = nads.sriov("vf", "ns", "rdma/ib", {"type": "nv-ipam", "poolName": "p"})
    assert got["metadata"]["annotations"] == {"k8s.v1.cni.cncf.io/resourceName": "rdma/ib"}
    assert got["spec"]["config"] == (
        '{"cniVersion": "0.3.1", "name": "vf", "plugins": ['
        '{"type": "sriov", "ipam": {"type": "nv-ipam", "poolName": "p"}}, '
        '{"type": "tuning"}, {"type": "rdma"}, {"type": "sbr"}]}'
    )


@pytest.mark.parametrize(("mtu", "spoofchk", "sysctl", "vf", "tuning"), [
    (9000, None, None, '{"type": "sriov", "ipam": {}}', '{"type": "tuning", "mtu": 9000}'),
    (None, "on", None, '{"type": "sriov", "spoofchk": "on", "ipam": {}}',
     '{"type": "tuning"}'),
    (None, None, {"net.ipv4.conf.all.rp_filter": "0"}, '{"type": "sriov", "ipam": {}}',
     '{"type": "tuning", "sysctl": {"net.ipv4.conf.all.rp_filter": "0"}}'),
    (0, "", {}, '{"type": "sriov", "ipam": {}}', '{"type": "tuning"}'),  # empty = absent
])
def test_sriov_each_optional_part_alone(mtu: int | None, spoofchk: str | None,
                                        sysctl: dict[str, str] | None,
                                        vf: str, tuning: str) -> None:
    got = nads.sriov("v", "ns", "r/x", {}, mtu, spoofchk=spoofchk, sysctl=sysctl)
    assert got["spec"]["config"] == (
        '{"cniVersion": "0.3.1", "name": "v", "plugins": ['
        f'{vf}, {tuning}, {{"type": "rdma"}}, {{"type": "sbr"}}]}}'
    )
