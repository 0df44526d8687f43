"""GPU node pools carry a GPU taint; fabric DaemonSets tolerate every GPU taint.

Without the taint, ordinary pods fill GPU nodes; without the toleration, the
fabric agents (Multus, device plugins, RDMA plugins) never run on the GPU nodes
and every fabric pod stays Pending. The keys are the project's own table,
``gpu_fabric.fabric.taints.GPU_TAINT_KEYS``.
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Collection, Mapping
from typing import Any

from gpufabric_policies.devices import catalog_machine
from gpufabric_policies.library import GPU_TAINT_KEYS, Cloud
from gpufabric_policies.props import get, items, mappings, strings

# Effects that keep ordinary pods off a node (GKE/EKS spell them NO_SCHEDULE...).
_BLOCKING_EFFECTS = {"noschedule", "no_schedule", "noexecute", "no_execute"}
# EKS AMI types that ship the NVIDIA driver.
_EKS_GPU_AMI_MARKERS = ("NVIDIA", "GPU")
# Clouds that taint GPU nodes themselves (GKE: nvidia.com/gpu=present; DOKS:
# nvidia.com/gpu / amd.com/gpu); a pool without an explicit taint is fine there
# unless the policy config turns this trust off.
PROVIDER_TAINTED_CLOUDS: tuple[str, ...] = ("gcp", "digitalocean")

FABRIC_STACK_TYPE = "gpufabric:kubernetes:FabricStack"
MANAGED_BY = ("app.kubernetes.io/managed-by", "gpu-fabric")


def _is_gpu_machine(name: Any, cloud: Cloud, prefixes: tuple[str, ...]) -> bool:
    machine = catalog_machine(name, cloud)
    if machine is not None:
        return machine.gpus > 0
    return isinstance(name, str) and name.startswith(prefixes)


def _blocking(effect: Any) -> bool:
    return str(effect or "").lower() in _BLOCKING_EFFECTS


def _object_taint_keys(taints: Any) -> set[str]:
    return {str(get(t, "key")) for t in mappings(taints) if _blocking(get(t, "effect"))}


def _string_taint_keys(taints: Any) -> set[str]:
    """``key=value:Effect`` / ``key:Effect`` strings (AKS nodeTaints, kubelet flags)."""
    keys = set()
    for text in strings(taints):
        head, _, effect = text.rpartition(":")
        if head and _blocking(effect):
            keys.add(head.split("=", 1)[0].strip())
    return keys


def _missing(keys: set[str], where: str) -> list[str]:
    if keys & set(GPU_TAINT_KEYS):
        return []
    return [
        f"GPU node pool has no NoSchedule/NoExecute taint with a GPU key in {where} "
        f"(found: {sorted(keys) or 'none'}; expected one of {', '.join(GPU_TAINT_KEYS)})"
    ]


def _oke_register_taints(props: Mapping[str, Any]) -> set[str]:
    """Taints OKE nodes register with: kubelet ``--register-with-taints`` in user_data."""
    metadata = get(props, "nodeMetadata")
    raw = get(metadata, "user_data") or get(metadata, "userData")
    if not isinstance(raw, str):
        return set()
    try:
        text = base64.b64decode(raw, validate=True).decode("utf-8", "replace")
    except (binascii.Error, ValueError):
        text = raw
    keys: set[str] = set()
    for token in text.replace("'", " ").replace('"', " ").split():
        if token.startswith("--register-with-taints="):
            for taint in token.split("=", 1)[1].split(","):
                keys |= _string_taint_keys(taint)
    return keys


def gpu_pool_taints(
    resource_type: str,
    props: Mapping[str, Any],
    trusted_clouds: Collection[str] = PROVIDER_TAINTED_CLOUDS,
) -> list[str]:
    """Violations of "GPU node pools carry a GPU taint" (empty: compliant or not a GPU pool)."""
    if resource_type == "gcp:container/nodePool:NodePool":
        config = get(props, "nodeConfig")
        gpu = bool(items(get(config, "guestAccelerators"))) or _is_gpu_machine(
            get(config, "machineType"), Cloud.GCP, ("a2-", "a3-", "a4", "g2-", "g4-")
        )
        if not gpu or "gcp" in trusted_clouds:
            return []
        return _missing(_object_taint_keys(get(config, "taints")), "nodeConfig.taints")
    if resource_type == "aws:eks/nodeGroup:NodeGroup":
        ami = str(get(props, "amiType") or "").upper()
        gpu = any(marker in ami for marker in _EKS_GPU_AMI_MARKERS) or any(
            _is_gpu_machine(t, Cloud.AWS, ("p4", "p5", "p6", "g4", "g5", "g6"))
            for t in strings(get(props, "instanceTypes"))
        )
        return _missing(_object_taint_keys(get(props, "taints")), "taints") if gpu else []
    if resource_type == "azure-native:containerservice:AgentPool":
        return _aks_pool(props, "nodeTaints")
    if resource_type == "azure-native:containerservice:ManagedCluster":
        out = []
        for i, pool in enumerate(mappings(get(props, "agentPoolProfiles"))):
            out += _aks_pool(pool, f"agentPoolProfiles[{i}].nodeTaints")
        return out
    if resource_type == "digitalocean:index/kubernetesNodePool:KubernetesNodePool":
        return _do_pool(props, "taints", trusted_clouds)
    if resource_type == "digitalocean:index/kubernetesCluster:KubernetesCluster":
        return _do_pool(get(props, "nodePool"), "nodePool.taints", trusted_clouds)
    if resource_type == "oci:ContainerEngine/nodePool:NodePool":
        if not _is_gpu_machine(get(props, "nodeShape"), Cloud.OCI, ("BM.GPU", "VM.GPU")):
            return []
        return _missing(
            _oke_register_taints(props), "nodeMetadata.user_data (--register-with-taints)"
        )
    return []


def _aks_pool(pool: Any, where: str) -> list[str]:
    if not _is_gpu_machine(get(pool, "vmSize"), Cloud.AZURE, ("Standard_N",)):
        return []
    return _missing(_string_taint_keys(get(pool, "nodeTaints")), where)


def _do_pool(pool: Any, where: str, trusted_clouds: Collection[str]) -> list[str]:
    if not _is_gpu_machine(get(pool, "size"), Cloud.DIGITALOCEAN, ("gpu-",)):
        return []
    if "digitalocean" in trusted_clouds:
        return []
    return _missing(_object_taint_keys(get(pool, "taints")), where)


# -- DaemonSet tolerations --------------------------------------------------------------

DAEMONSET_TYPE = "kubernetes:apps/v1:DaemonSet"


def is_fabric_daemonset(resource_type: str, props: Mapping[str, Any], urn: str = "") -> bool:
    """A DaemonSet the gpu-fabric layer creates (by URN parent chain or managed-by label)."""
    if resource_type != DAEMONSET_TYPE:
        return False
    labels = get(props, "metadata", "labels")
    return FABRIC_STACK_TYPE in urn or get(labels, MANAGED_BY[0]) == MANAGED_BY[1]


def tolerates(tolerations: Any, key: str) -> bool:
    """True when ``tolerations`` admit a NoSchedule taint ``key`` with any value."""
    for tol in mappings(tolerations):
        if str(get(tol, "operator") or "Equal") != "Exists":
            continue
        if str(get(tol, "effect") or "") not in ("", "NoSchedule"):
            continue
        if not get(tol, "key") or get(tol, "key") == key:
            return True
    return False


def daemonset_tolerations(resource_type: str, props: Mapping[str, Any], urn: str = "") -> list[str]:
    """Violations of "fabric DaemonSets tolerate every GPU taint key" (empty: compliant)."""
    if not is_fabric_daemonset(resource_type, props, urn):
        return []
    tolerations = get(props, "spec", "template", "spec", "tolerations")
    missing = [key for key in GPU_TAINT_KEYS if not tolerates(tolerations, key)]
    if not missing:
        return []
    name = get(props, "metadata", "name") or "?"
    return [
        f"DaemonSet {name} does not tolerate GPU taint key(s) {', '.join(missing)}: add "
        "spec.template.spec.tolerations entries {key: <key>, operator: Exists} (any value) "
        "or a blanket {operator: Exists}"
    ]
