"""aws: the cloud's part of the Kubernetes fabric layer (pure; no SDK).

Interface (see gpu_fabric.fabric.layer): addon_defaults, chart_values, parts.

EKS defaults: the AWS EFA device plugin (chart aws-efa-k8s-device-plugin, which
tolerates only CriticalAddonsOnly, so every GPU taint is added) exposes
``vpc.amazonaws.com/efa``; the NVIDIA device plugin exposes ``nvidia.com/gpu``
(the AL2023 NVIDIA AMI ships the driver and toolkit, so the GPU Operator is
optional and, when enabled, installs no driver/toolkit); no Multus (EFA devices
are handed to pods by the device plugin, not moved by a CNI).
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from gpu_fabric.catalog import GpuVendor
from gpu_fabric.clouds.aws.fabric import EFA_PRESENT_LABEL
from gpu_fabric.fabric.addons import (
    EFA_DEVICE_PLUGIN,
    GPU_OPERATOR,
    MULTUS,
    NVIDIA_DEVICE_PLUGIN,
)
from gpu_fabric.fabric.description import DevicePlugin
from gpu_fabric.fabric.layer import Part
from gpu_fabric.fabric.taints import daemonset_tolerations

if TYPE_CHECKING:
    from gpu_fabric.fabric.addons import ResolvedAddons
    from gpu_fabric.fabric.description import FabricDescription
    from gpu_fabric.spec import ClusterSpec

EFA_PART = EFA_DEVICE_PLUGIN.part


def addon_defaults(
    spec: ClusterSpec, fabrics: Mapping[str, FabricDescription]
) -> dict[str, bool]:
    fabs = list(fabrics.values())
    nvidia = any(f.machine.gpu.vendor is GpuVendor.NVIDIA for f in fabs)
    gpu_dra = any(f.gpu_dra for f in fabs)
    return {
        EFA_DEVICE_PLUGIN.key: any(f.device_plugin is DevicePlugin.EFA for f in fabs),
        # Exactly one source of nvidia.com/gpu: the plugin, unless the GPU Operator
        # (which brings its own) or the DRA driver is on.
        NVIDIA_DEVICE_PLUGIN.key: (
            nvidia and not gpu_dra and not spec.addons.choice(GPU_OPERATOR).enabled
        ),
        GPU_OPERATOR.key: False,
        MULTUS.key: False,
    }


def chart_values(
    addon: str, spec: ClusterSpec, fabrics: Mapping[str, FabricDescription]
) -> dict[str, Any]:
    if addon == EFA_DEVICE_PLUGIN.key:
        return {
            "tolerations": daemonset_tolerations(),
            # Our GPU node groups carry this label; the chart's own affinity still
            # requires a supported instance type.
            "nodeSelector": {EFA_PRESENT_LABEL: "true"},
        }
    if addon == GPU_OPERATOR.key:
        # The AL2023 NVIDIA AMI ships the driver and the container toolkit.
        return {"driver": {"enabled": False}, "toolkit": {"enabled": False}}
    return {}


def parts(
    spec: ClusterSpec, fabrics: Mapping[str, FabricDescription], addons: ResolvedAddons
) -> list[Part]:
    if not addons.on(EFA_DEVICE_PLUGIN):
        return []
    from gpu_fabric.fabric.parts import chart_release

    release = chart_release(
        EFA_DEVICE_PLUGIN, addons, {}, sys.modules[__name__], spec, fabrics
    )
    return [Part(EFA_PART, (), (release,),
                 description="AWS EFA device plugin (vpc.amazonaws.com/efa)")]
