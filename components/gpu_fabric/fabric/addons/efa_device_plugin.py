"""EFA device plugin: ``vpc.amazonaws.com/efa``, on wherever a fabric's plugin is EFA.

The cloud that has EFA builds its part (its chart needs that cloud's node labels
and tolerations).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from gpu_fabric import versions
from gpu_fabric.fabric.addons.model import BY_THE_CLOUD, Addon

if TYPE_CHECKING:
    from gpu_fabric.fabric.description import FabricDescription


def _efa_plugin(fabrics: Sequence[FabricDescription]) -> bool:
    from gpu_fabric.fabric.description import DevicePlugin

    return any(f.device_plugin is DevicePlugin.EFA for f in fabrics)


EFA_DEVICE_PLUGIN = Addon(
    key="efa_device_plugin",
    artifact=versions.EFA_DEVICE_PLUGIN,
    namespace="kube-system",
    summary="EFA device plugin (vpc.amazonaws.com/efa)",
    built_by=BY_THE_CLOUD,
    part="efa-device-plugin",
    default=_efa_plugin,
    gpu_nodes=True,
    arm64=(
        "aws/eks-charts aws-efa-k8s-device-plugin chart v0.5.30 values.yaml line 216 "
        "(supportedInstanceLabels lists p6e-gb200.36xlarge; tests/data/upstream/values/aws-"
        "efa-k8s-device-plugin/v0.5.30)"
    ),
)
