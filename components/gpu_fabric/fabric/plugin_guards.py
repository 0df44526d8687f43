"""Refusals that keep a device plugin from crash-looping or fighting another plugin.

Both failures show only on the nodes, after a green ``pulumi up``: a resource name the
plugin rejects makes it exit at start-up (its pods crash-loop), and two plugins for the
same devices both register with the kubelet, which keeps one endpoint per resource name
(kubernetes pkg/kubelet/cm/devicemanager/manager.go ``PluginConnected``:
``m.endpoints[resourceName] = ...``), so the later registration replaces the earlier
and the two hand out the same HCAs / VFs twice. Each is a spec problem, raised while the
layer is built (``validate`` / ``plan``), before any resource.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, NoReturn

from gpu_fabric.fabric.description import DevicePlugin
from gpu_fabric.fabric.problems import refuse

if TYPE_CHECKING:
    from gpu_fabric.fabric.description import FabricDescription
    from gpu_fabric.spec import ClusterSpec

# Mellanox/k8s-rdma-shared-dev-plugin v1.5.3 (948098b), pkg/resources/resources_manager.go
# line 289 validResourceName; ValidateConfigs (line 144) refuses any other name and
# cmd/k8s-rdma-shared-dp/main.go line 75 log.Fatalf's on it. No '-' and no '.'.
RDMA_SHARED_NAME = re.compile(r"^[a-zA-Z0-9_]+$")
# k8snetworkplumbingwg/sriov-network-device-plugin v3.9.0 (c625430), pkg/utils/utils.go
# line 301 ValidResourceName; cmd/sriovdp/manager.go line 204 validConfigs refuses any
# other name and cmd/sriovdp/main.go line 59 glog.Fatalf's on it. '-' is valid, '.' not.
SRIOV_NAME = re.compile(r"^[a-zA-Z0-9_-]+$")

_PLUGINS = {
    DevicePlugin.RDMA_SHARED: ("k8s-rdma-shared-dev-plugin v1.5.3", RDMA_SHARED_NAME,
                    "letters, digits and '_'"),
    DevicePlugin.SRIOV: ("sriov-network-device-plugin v3.9.0", SRIOV_NAME,
              "letters, digits, '_' and '-'"),
}


def check_resource_name(
    spec: ClusterSpec, fabric: FabricDescription, name: str, plugin: DevicePlugin,
    origin: str,
) -> None:
    """Refuse a ``resourceName`` that ``plugin`` (RDMA shared or SR-IOV) would reject.

    Names come from the catalog machine (rail netdevs) or the cloud's fabric
    description, so the problem points at the pool's ``machine_type``.
    """
    upstream, pattern, valid = _PLUGINS[plugin]
    if pattern.fullmatch(name):
        return
    index = next(i for i, p in enumerate(spec.node_pools) if p.name == fabric.pool)
    refuse(
        f"node_pools[{index}].machine_type",
        f"the {plugin} device plugin would get resourceName {name!r} ({origin}), which "
        f"{upstream} rejects at start-up (its pods crash-loop): a resource name must "
        f"match {pattern.pattern} ({valid} only); choose a machine type whose fabric "
        f"resource names fit",
        fabric.machine.name,
    )


def refuse_second_plugin(
    key: str,
    plugin: str,
    owner: str,
    resources: str,
    instead: str = "turn addons.network_operator off to run this one",
) -> NoReturn:
    """``addons.<key>`` would run a second ``plugin`` device plugin next to ``owner``'s."""
    refuse(
        f"addons.{key}.enabled",
        f"{owner} already runs the {plugin} device plugin for these pools ({resources}); "
        f"a second {plugin} device plugin on the same nodes would hand out the same "
        f"devices again, and where both register one resource name the kubelet keeps "
        f"only the later registration; leave addons.{key} off (or {instead} instead)",
        True,
    )
