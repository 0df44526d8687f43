"""Pod Security for team namespaces: Baseline, with exactly the fabric's exceptions.

A team member may create Jobs, so without Pod Security a privileged pod with a
``hostPath: /`` gets root on a GPU node. Team namespaces therefore enforce the
Kubernetes Pod Security Standards' **baseline** level. But no fabric pod of this
library passes Baseline as is (see :func:`fabric_needs`; the machine catalog decides):

* every RDMA fabric (RoCE, InfiniBand, EFA) needs ``IPC_LOCK`` (memory registration
  beyond the 64 KiB memlock limit) and Baseline allows only the runtime's default
  capabilities;
* GKE pods mount the driver and NCCL plugin from the host (``/home/kubernetes/bin/...``)
  and Baseline forbids every ``hostPath``;
* GPUDirect-TCPXO adds a sidecar with ``NET_ADMIN``.

The built-in admission (PSA namespace labels) has no per-field exception, so where the
fabric needs one the namespace's Baseline is enforced by Kyverno (installed with every
fabric) with a ``podSecurity`` rule whose exclusions name exactly those values
(``restrictedField`` + ``values``: IPC_LOCK, the listed host paths, NET_ADMIN on init
containers), and the PSA label keeps ``audit``/``warn`` at baseline. Without Kyverno
(or when the fabric needs nothing) the PSA label itself enforces Baseline. Namespaces of
node agents are labelled ``privileged`` on purpose (the add-ons whose definition says
``privileged``, :class:`gpu_fabric.fabric.addons.Addon`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from gpu_fabric.fabric.layer import Manifest
from gpu_fabric.fabric.manifests.common import meta

if TYPE_CHECKING:
    from gpu_fabric.fabric.description import FabricDescription

PSA = "pod-security.kubernetes.io"
# Pod Security Standards, Baseline, "Capabilities": the only capabilities that may be
# added (kubernetes/website content/en/docs/concepts/security/pod-security-standards.md;
# k8s.io/pod-security-admission policy/check_capabilities_baseline.go).
BASELINE_CAPABILITIES = frozenset({
    "AUDIT_WRITE", "CHOWN", "DAC_OVERRIDE", "FOWNER", "FSETID", "KILL", "MKNOD",
    "NET_BIND_SERVICE", "SETFCAP", "SETGID", "SETPCAP", "SETUID", "SYS_CHROOT",
})
POLICY = "gpufabric-team-pod-security"
ENFORCED_BY = "gpufabric.dev/pod-security-enforced-by"


@dataclass(frozen=True)
class FabricNeeds:
    """What the fabric's pod fragments ask for beyond Baseline (empty: nothing)."""

    capabilities: tuple[str, ...] = ()
    init_capabilities: tuple[str, ...] = ()
    host_paths: tuple[str, ...] = ()
    host_network: bool = False
    privileged: bool = False

    @property
    def beyond_baseline(self) -> bool:
        return bool(self.capabilities or self.init_capabilities or self.host_paths
                    or self.host_network or self.privileged)

    def describe(self) -> str:
        parts = []
        if self.capabilities:
            parts.append(f"capabilities {', '.join(self.capabilities)}")
        if self.init_capabilities:
            parts.append(f"sidecar capabilities {', '.join(self.init_capabilities)}")
        if self.host_paths:
            parts.append(f"hostPath {', '.join(self.host_paths)}")
        if self.host_network:
            parts.append("hostNetwork")
        if self.privileged:
            parts.append("privileged")
        return "; ".join(parts) or "nothing beyond baseline"


def fabric_needs(fabrics: Iterable[FabricDescription]) -> FabricNeeds:
    """The union of what the pod fragments of ``fabrics`` need beyond Baseline."""
    from gpu_fabric.fabric.workload import pod_fragment

    caps: set[str] = set()
    init_caps: set[str] = set()
    paths: set[str] = set()
    host_network = privileged = False
    for fabric in fabrics:
        if not fabric.machine.has_fabric:
            continue
        fragment = pod_fragment(fabric, fabric.machine.gpus)
        caps |= set(fragment.capabilities) - BASELINE_CAPABILITIES
        for sidecar in fragment.sidecars:
            added = sidecar.get("securityContext", {}).get("capabilities", {}).get("add", [])
            init_caps |= set(added) - BASELINE_CAPABILITIES
            privileged |= bool(sidecar.get("securityContext", {}).get("privileged"))
        paths |= {v["hostPath"]["path"] for v in fragment.volumes if "hostPath" in v}
        host_network |= fragment.host_network
        privileged |= fragment.privileged
    return FabricNeeds(tuple(sorted(caps)), tuple(sorted(init_caps)), tuple(sorted(paths)),
                       host_network, privileged)


def namespace_labels(needs: FabricNeeds, kyverno: bool) -> dict[str, str]:
    """PSA labels of a team namespace (see the module docstring for why)."""
    if needs.beyond_baseline and kyverno:
        return {f"{PSA}/enforce": "privileged", f"{PSA}/audit": "baseline",
                f"{PSA}/warn": "baseline", ENFORCED_BY: POLICY}
    return {f"{PSA}/enforce": "baseline", f"{PSA}/enforce-version": "latest",
            f"{PSA}/audit": "restricted", f"{PSA}/warn": "restricted"}


def team_policy(namespaces: list[str], needs: FabricNeeds) -> Manifest:
    """Kyverno ClusterPolicy: Baseline in the team namespaces, minus exactly ``needs``."""
    exclude: list[dict[str, object]] = []
    if needs.capabilities:
        exclude += [{"controlName": "Capabilities", "images": ["*"],
                     "restrictedField": "spec.containers[*].securityContext.capabilities.add",
                     "values": list(needs.capabilities)}]
    if needs.init_capabilities:
        exclude += [{"controlName": "Capabilities", "images": ["*"],
                     "restrictedField":
                         "spec.initContainers[*].securityContext.capabilities.add",
                     "values": list(needs.init_capabilities)}]
    if needs.host_paths:
        exclude += [{"controlName": "HostPath Volumes",
                     "restrictedField": "spec.volumes[*].hostPath",
                     "values": list(needs.host_paths)}]
    if needs.host_network:
        exclude += [{"controlName": "Host Namespaces", "restrictedField": "spec.hostNetwork",
                     "values": ["true"]}]
    if needs.privileged:
        exclude += [{"controlName": "Privileged Containers", "images": ["*"],
                     "restrictedField": "spec.containers[*].securityContext.privileged",
                     "values": ["true"]}]
    return {
        "apiVersion": "kyverno.io/v1",
        "kind": "ClusterPolicy",
        "metadata": meta(POLICY, annotations={
            "policies.kyverno.io/description":
                "Pod Security Standards baseline in GPU team namespaces; exempt only what "
                f"the fabric needs: {needs.describe()}",
        }),
        "spec": {
            "validationFailureAction": "Enforce",
            "background": True,
            "rules": [{
                "name": "baseline",
                "match": {"any": [{"resources": {"kinds": ["Pod"],
                                                 "namespaces": sorted(namespaces)}}]},
                "validate": {"podSecurity": {"level": "baseline", "version": "latest",
                                             "exclude": exclude}},
            }],
        },
    }


def team_pod_security(
    team_namespaces: list[str], fabrics: Mapping[str, FabricDescription], kyverno: bool
) -> tuple[dict[str, str], list[Manifest]]:
    """(labels for every team namespace, the Kyverno policy if one enforces Baseline)."""
    needs = fabric_needs(fabrics.values())
    labels = namespace_labels(needs, kyverno)
    policy = [team_policy(team_namespaces, needs)] if labels.get(ENFORCED_BY) else []
    return labels, policy
