"""Multus CNI, thick plugin, as typed objects (the DO seed applied a fetched URL instead).

Facts from k8snetworkplumbingwg/multus-cni deployments/multus-daemonset-thick.yml
(v4.3.0): the CRD, the daemon config, the daemon's and the installer's commands and
mounts. The daemon needs the host's CNI bin directory at the same path (``/opt/cni/bin``):
it runs the delegate plugins chrooted to ``/hostroot`` but looks them up in its own
filesystem first (multus-cni PR #1161). The installer is ``install_multus`` (copy to a
temp file, then rename): a plain ``cp`` onto a ``multus-shim`` the runtime is executing
fails with "Text file busy" after a node reboot (multus-cni issue #1221, fixed in v4.3.0).

Changes from the sample, on purpose: a pinned release image instead of
``snapshot-thick``; a 512Mi memory limit instead of 50Mi (the sample OOMs on busy nodes,
issues #1346/#1349/#1416) and no CPU limit (``common.resources``); the installer gets
10m / 64Mi with that as its limit (the sample: a 15Mi request, no limit); RBAC narrowed to
what the daemon does (read NADs, read pods and update their network-status, write
events) instead of ``*`` on ``k8s.cni.cncf.io``; no ``/etc/cni/multus/net.d`` mount (the
daemon reads it only for a NAD without a config, multus-cni 19f9283db; every NAD here
carries its config); the project's labels, GPU-taint tolerations, priority class and
rolling update (``common.node_agent``); and only on the fabric pools' nodes
(``fabric_node_affinity``, docs/security.md).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from gpu_fabric.fabric.manifests.common import (
    Manifest,
    cluster_role,
    cluster_role_binding,
    config_map,
    host_path,
    meta,
    mount,
    node_agent,
    resources,
    rule,
    service_account,
)
from gpu_fabric.versions import Image

NAME = "multus"
DAEMONSET = "kube-multus-ds"
CONFIG_MAP = "multus-daemon-config"
NAD_GROUP = "k8s.cni.cncf.io"
MEMORY = "512Mi"


def nad_crd() -> Manifest:
    """The NetworkAttachmentDefinition CRD (k8s.cni.cncf.io/v1, namespaced)."""
    return {
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": meta(f"network-attachment-definitions.{NAD_GROUP}"),
        "spec": {
            "group": NAD_GROUP,
            "scope": "Namespaced",
            "names": {
                "plural": "network-attachment-definitions",
                "singular": "network-attachment-definition",
                "kind": "NetworkAttachmentDefinition",
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


def daemon_config() -> dict[str, object]:
    return {
        "chrootDir": "/hostroot",
        "cniVersion": "0.3.1",
        "logLevel": "verbose",
        "logToStderr": True,
        "cniConfigDir": "/host/etc/cni/net.d",
        "multusAutoconfigDir": "/host/etc/cni/net.d",
        "multusConfigFile": "auto",
        "socketDir": "/host/run/multus/",
    }


def fabric_node_affinity(node_selectors: Sequence[Mapping[str, str]]) -> dict[str, Any] | None:
    """Required node affinity: a node matching any of the pools' selectors (None: any node).

    Multus (thick) runs privileged with the host's ``/`` mounted; only fabric nodes need
    it (issue 21), so system nodes never run it. A pool without a selector (an existing
    cluster whose pool declares no labels) cannot be told apart: then no confinement."""
    if not node_selectors or any(not s for s in node_selectors):
        return None
    terms = []
    for selector in node_selectors:
        term = {"matchExpressions": [{"key": k, "operator": "In", "values": [v]}
                                     for k, v in sorted(selector.items())]}
        if term not in terms:
            terms.append(term)
    return {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
        "nodeSelectorTerms": terms}}}


def manifests(
    image: Image,
    namespace: str = "kube-system",
    node_selectors: Sequence[Mapping[str, str]] = (),
) -> list[Manifest]:
    """Multus thick, on the nodes matching ``node_selectors`` (the fabric pools)."""
    rules = [
        rule([NAD_GROUP], ["network-attachment-definitions"], ["get", "list", "watch"]),
        rule([""], ["pods", "pods/status"], ["get", "list", "update", "watch"]),
        rule(["", "events.k8s.io"], ["events"], ["create", "patch", "update"]),
    ]
    privileged = {"privileged": True}
    daemon = {
        "name": "kube-multus",
        "image": image.ref,
        "command": ["/usr/src/multus-cni/bin/multus-daemon"],
        "resources": resources("100m", MEMORY),
        "securityContext": privileged,
        "terminationMessagePolicy": "FallbackToLogsOnError",
        "env": [{"name": "MULTUS_NODE_NAME",
                 "valueFrom": {"fieldRef": {"fieldPath": "spec.nodeName"}}}],
        "volumeMounts": [
            mount("cni", "/host/etc/cni/net.d"),
            mount("cnibin", "/opt/cni/bin"),
            mount("host-run", "/host/run"),
            mount("host-var-lib-cni-multus", "/var/lib/cni/multus"),
            mount("host-var-lib-kubelet", "/var/lib/kubelet", propagation="HostToContainer"),
            mount("host-run-k8s-cni-cncf-io", "/run/k8s.cni.cncf.io"),
            mount("host-run-netns", "/run/netns", propagation="HostToContainer"),
            mount("multus-daemon-config", "/etc/cni/net.d/multus.d", read_only=True),
            mount("hostroot", "/hostroot", propagation="HostToContainer"),
        ],
    }
    install = {
        "name": "install-multus-binary",
        "image": image.ref,
        "command": ["/usr/src/multus-cni/bin/install_multus", "-d", "/host/opt/cni/bin",
                    "-t", "thick"],
        "resources": resources("10m", "64Mi"),
        "securityContext": privileged,
        "terminationMessagePolicy": "FallbackToLogsOnError",
        "volumeMounts": [mount("cnibin", "/host/opt/cni/bin", propagation="Bidirectional")],
    }
    volumes = [
        host_path("cni", "/etc/cni/net.d"),
        host_path("cnibin", "/opt/cni/bin"),
        host_path("hostroot", "/"),
        {"name": "multus-daemon-config", "configMap": {
            "name": CONFIG_MAP,
            "items": [{"key": "daemon-config.json", "path": "daemon-config.json"}],
        }},
        host_path("host-run", "/run"),
        host_path("host-var-lib-cni-multus", "/var/lib/cni/multus"),
        host_path("host-var-lib-kubelet", "/var/lib/kubelet"),
        host_path("host-run-k8s-cni-cncf-io", "/run/k8s.cni.cncf.io"),
        host_path("host-run-netns", "/run/netns/"),
    ]
    return [
        nad_crd(),
        service_account(NAME, namespace),
        cluster_role(NAME, rules),
        cluster_role_binding(NAME, NAME, NAME, namespace),
        config_map(CONFIG_MAP, namespace,
                   {"daemon-config.json": json.dumps(daemon_config(), indent=2)}),
        node_agent(
            DAEMONSET, namespace,
            containers=[daemon],
            init_containers=[install],
            volumes=volumes,
            service_account=NAME,
            host_network=True,
            host_pid=True,
            affinity=fabric_node_affinity(node_selectors),
            termination_grace=10,
            labels={"tier": "node", "app": "multus"},
        ),
    ]
