"""Who hands out each pool's GPUs and NICs: exactly one source each (issue 34).

Two failures show only on the nodes after a green ``pulumi up``, so both are spec
problems raised while the layer is built (``validate`` / ``plan``), before any resource:

* Two sources of the same GPUs. Device plugins register one resource name with the
  kubelet, which keeps one endpoint per name (kubernetes pkg/kubelet/cm/devicemanager/
  manager.go ``PluginConnected``), so a second ``nvidia.com/gpu`` plugin replaces the
  first and both hand out the same GPUs; and the NVIDIA DRA driver "cannot be deployed
  alongside the standard GPU device plugin on the same node" when it serves GPUs
  (NVIDIA/k8s-dra-driver-gpu v25.12.0, 9c2e721bb2885980aab6cde560d962667178309b,
  deployments/helm/nvidia-dra-driver-gpu/templates/validation.yaml line 35).
* DRA with settings of device-plugin mode: where every fabric pool's NICs come from DRA
  claims, ``fabric.device_plugin`` and ``fabric.nad_type`` choose nothing (no device
  plugin serves a NIC, no NetworkAttachmentDefinition is made), and the SR-IOV / RDMA
  shared device plugin add-ons serve nothing (refused where they are built,
  gpu_fabric.fabric.parts).
* DRA without its drivers: a pool in ``fabric.mode: dra`` gets its GPUs from claims of
  DeviceClass ``gpu.nvidia.com`` (published by the NVIDIA DRA driver) and its NICs from
  claims of the NIC class (published by DraNet, driver ``dra.net``); with the add-on
  turned off nothing publishes those devices and every claim stays Pending.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from gpu_fabric.catalog import GpuVendor
from gpu_fabric.fabric.addons import (
    DRANET,
    GPU_OPERATOR,
    NVIDIA_DEVICE_PLUGIN,
    NVIDIA_DRA_DRIVER,
    ResolvedAddons,
)
from gpu_fabric.fabric.description import GPU_PRESENT_LABEL, Attach
from gpu_fabric.fabric.problems import refuse

if TYPE_CHECKING:
    from gpu_fabric.fabric.description import FabricDescription
    from gpu_fabric.fabric.model import Part
    from gpu_fabric.spec import ClusterSpec

OPERATOR_PLUGIN = "the GPU Operator's device plugin (addons.gpu_operator)"
STANDALONE_PLUGIN = "the NVIDIA device plugin (addons.nvidia_device_plugin)"
DRA_GPUS = "the NVIDIA DRA driver's GPU plugin (addons.nvidia_dra_driver)"


def check_dra_drivers(
    spec: ClusterSpec,
    fabrics: Mapping[str, FabricDescription],
    addons: ResolvedAddons,
    defaults: Mapping[str, bool],
) -> None:
    """Refuse a DRA pool whose GPU or NIC driver the spec turned off (``defaults``: what
    the cloud would run without the spec's ``enabled``; a cloud whose own driver serves
    the claims, such as DOKS, leaves the add-on off there, and nothing is refused)."""
    if spec.existing is not None:
        return  # a running cluster may have its own drivers
    for fabric in fabrics.values():
        what = f"pool '{fabric.pool}' ({fabric.machine.name})"
        if (fabric.gpu_dra and fabric.machine.gpu.vendor is GpuVendor.NVIDIA
                and not addons.on(NVIDIA_DRA_DRIVER) and defaults[NVIDIA_DRA_DRIVER.key]):
            refuse(
                f"addons.{NVIDIA_DRA_DRIVER.key}.enabled",
                f"{what} gets its GPUs from DRA claims (fabric.mode: dra), which only the "
                f"NVIDIA DRA driver publishes; with addons.{NVIDIA_DRA_DRIVER.key} off every "
                f"claim stays Pending. Leave it on, or use fabric.mode device-plugin",
                False,
            )
        nics = fabric.dra
        if (fabric.attach is Attach.DRA and nics is not None and not nics.managed_nics
                and not addons.on(DRANET) and defaults[DRANET.key]):
            refuse(
                f"addons.{DRANET.key}.enabled",
                f"{what} attaches its fabric NICs through DRA claims of DeviceClass "
                f"'{nics.nic_class}' (driver {nics.nic_driver}), which only DraNet "
                f"publishes; with addons.{DRANET.key} off every claim stays Pending. Leave "
                f"it on, or use fabric.mode device-plugin",
                False,
            )


def check_dra_nic_settings(spec: ClusterSpec, fabrics: Mapping[str, FabricDescription]) -> None:
    """Refuse ``fabric.device_plugin`` / ``fabric.nad_type`` where every fabric pool takes
    its NICs from DRA claims (clouds that keep NICs on a device plugin in DRA mode, AKS
    and DOKS, still use them)."""
    pools = [f for f in fabrics.values() if f.machine.has_fabric]
    if not pools or any(f.attach is not Attach.DRA for f in pools):
        return
    names = ", ".join(f"'{f.pool}' ({f.machine.name})" for f in pools)
    for field, value in (("device_plugin", spec.fabric.device_plugin),
                         ("nad_type", spec.fabric.nad_type)):
        if value != "auto":
            refuse(
                f"fabric.{field}",
                f"'{value}' chooses how device-plugin mode hands out NICs, but with "
                f"fabric.mode {spec.fabric.mode.value} the pools {names} take their NICs "
                f"from DRA claims (DraNet), so it would be ignored; remove it (or leave it "
                f"auto), or use fabric.mode device-plugin",
                value,
            )


def check_gpu_sources(
    spec: ClusterSpec,
    fabrics: Mapping[str, FabricDescription],
    addons: ResolvedAddons,
    parts: Sequence[Part],
    cloud: object,
) -> None:
    """Refuse an NVIDIA pool whose GPUs two components would hand out (``parts``: the
    layer as built, whose chart values say which components run; ``cloud``: the layer's
    cloud, whose ``managed_gpu_plugin`` names its own plugin, if it has one)."""
    operator = addons.on(GPU_OPERATOR) and _enabled(
        _values(parts, GPU_OPERATOR.part), "devicePlugin", default=True)
    dra_gpus = addons.on(NVIDIA_DRA_DRIVER) and _enabled(
        _values(parts, NVIDIA_DRA_DRIVER.part), "resources", "gpus", default=True)
    managed = _managed_plugin(spec, cloud)
    for fabric in fabrics.values():
        if fabric.machine.gpu.vendor is not GpuVendor.NVIDIA or not fabric.machine.gpus:
            continue
        sources: list[tuple[str, str]] = []
        if managed is not None and fabric.node_labels.get(managed[1]) != "true":
            sources.append((managed[0], f"label the pool {managed[1]}: \"true\""))
        if operator:
            sources.append((OPERATOR_PLUGIN, f"set addons.{GPU_OPERATOR.key}.values."
                                             "devicePlugin.enabled: false"))
        if addons.on(NVIDIA_DEVICE_PLUGIN):
            sources.append((STANDALONE_PLUGIN, f"set addons.{NVIDIA_DEVICE_PLUGIN.key}."
                                               "enabled: false"))
        if dra_gpus and (fabric.gpu_dra or fabric.node_labels.get(GPU_PRESENT_LABEL) == "true"):
            sources.append((DRA_GPUS, "use fabric.mode device-plugin"))
        if len(sources) < 2:
            continue
        path = (f"addons.{NVIDIA_DEVICE_PLUGIN.key}.enabled"
                if addons.on(NVIDIA_DEVICE_PLUGIN) else f"addons.{GPU_OPERATOR.key}")
        named = " and ".join(s for s, _ in sources)
        remedies = ", or ".join(r for _, r in sources)
        refuse(
            path,
            f"pool '{fabric.pool}' ({fabric.machine.name}) would get its GPUs (nvidia.com/gpu) "
            f"from {len(sources)} sources: {named}; both would hand out the same GPUs (the "
            f"kubelet keeps one device plugin per resource name, and the NVIDIA DRA driver "
            f"cannot serve GPUs beside a device plugin on the same node). Keep exactly one: "
            f"{remedies}",
            True,
        )


def _managed_plugin(spec: ClusterSpec, cloud: object) -> tuple[str, str] | None:
    if spec.existing is not None:
        return None  # the nodes are not ours: their labels are not known here
    # A cloud layer without the hook (a test's stand-in) runs no plugin of its own.
    hook = getattr(cloud, "managed_gpu_plugin", None)
    found = hook() if callable(hook) else None
    return found if isinstance(found, tuple) else None


def _values(parts: Sequence[Part], name: str) -> Mapping[str, Any]:
    for part in parts:
        if part.name == name and part.charts:
            return part.charts[0].values
    return {}


def _enabled(values: Mapping[str, Any], *keys: str, default: bool) -> bool:
    """``values[k1][k2...]["enabled"]`` of a chart's values, or the chart's default."""
    node: Any = values
    for key in keys:
        node = node.get(key) if isinstance(node, Mapping) else None
    found = node.get("enabled") if isinstance(node, Mapping) else None
    return default if found is None else bool(found)
