"""The add-ons: one module per add-on holding its one definition (:class:`Addon`),
the registry that lists them (:data:`ADDONS`) and the resolver that decides which a
cluster gets (:func:`resolve_addons`).

Code names an add-on by its definition (``addons.on(GPU_OPERATOR)``,
``chart_release(GPU_OPERATOR, ...)``), never by re-spelling its key: the key
string lives in the definition's module only (``tests/fabric/test_addon_registry.py``).
"""

from __future__ import annotations

from gpu_fabric.fabric.addons.model import Addon
from gpu_fabric.fabric.addons.registry import (
    ADDONS,
    CERT_MANAGER,
    DRANET,
    EFA_DEVICE_PLUGIN,
    GPU_OPERATOR,
    JOBSET,
    KUEUE,
    KYVERNO,
    MPI_OPERATOR,
    MULTUS,
    NCCL_INSTALLER,
    NETWORK_OPERATOR,
    NVIDIA_DEVICE_PLUGIN,
    NVIDIA_DRA_DRIVER,
    NVSENTINEL,
    PROMETHEUS,
    RDMA_SHARED_DEVICE_PLUGIN,
    SRIOV_DEVICE_PLUGIN,
)
from gpu_fabric.fabric.addons.resolve import (
    ResolvedAddon,
    ResolvedAddons,
    generic_defaults,
    resolve_addons,
)

__all__ = [
    "ADDONS",
    "CERT_MANAGER",
    "DRANET",
    "EFA_DEVICE_PLUGIN",
    "GPU_OPERATOR",
    "JOBSET",
    "KUEUE",
    "KYVERNO",
    "MPI_OPERATOR",
    "MULTUS",
    "NCCL_INSTALLER",
    "NETWORK_OPERATOR",
    "NVIDIA_DEVICE_PLUGIN",
    "NVIDIA_DRA_DRIVER",
    "NVSENTINEL",
    "PROMETHEUS",
    "RDMA_SHARED_DEVICE_PLUGIN",
    "SRIOV_DEVICE_PLUGIN",
    "Addon",
    "ResolvedAddon",
    "ResolvedAddons",
    "generic_defaults",
    "resolve_addons",
]
