"""Fabric device counts must match the machine catalog.

A P5 with 31 EFA interfaces or an A4 node pool with 7 RDMA networks still boots
and passes a single-node test, then runs multi-node NCCL at a fraction of the line
rate. The expected counts come from ``gpu_fabric.catalog`` (the one place machine
numbers live), never from this module.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from gpufabric_policies.library import Cloud, FabricKind, Machine, UnknownMachineError, get_machine
from gpufabric_policies.props import get, items, mappings

EFA_INTERFACE_TYPES = ("efa", "efa-only")


def catalog_machine(name: Any, cloud: Cloud) -> Machine | None:
    """The catalog entry for a machine type name, or None (unknown machines are not judged)."""
    if not isinstance(name, str):
        return None
    try:
        return get_machine(name, cloud)
    except UnknownMachineError:
        return None


def expected_gke_networks(machine: Machine) -> int:
    """Additional node networks a GKE pool of ``machine`` needs.

    Every NIC but the primary one is an additional network: the extra gVNIC(s)
    (``general_nics - 1``) plus one per fabric NIC (RDMA or GPUDirect-TCPX/O).
    """
    return machine.general_nics - 1 + machine.fabric_nics


def _aws_launch_template(props: Mapping[str, Any]) -> list[str]:
    machine = catalog_machine(get(props, "instanceType"), Cloud.AWS)
    if machine is None or machine.fabric is not FabricKind.EFA or not machine.has_fabric:
        return []
    efa = [
        nic for nic in mappings(get(props, "networkInterfaces"))
        if str(get(nic, "interfaceType") or "") in EFA_INTERFACE_TYPES
    ]
    out = []
    if len(efa) != machine.fabric_nics:
        out.append(
            f"networkInterfaces has {len(efa)} EFA interface(s) (interfaceType efa/efa-only) "
            f"but {machine.name} has {machine.fabric_nics} EFA devices in the machine catalog"
        )
    cards = [get(nic, "networkCardIndex") for nic in efa]
    # The engine sends numbers as floats (protobuf Struct).
    numbered = [int(c) for c in cards if isinstance(c, int | float) and not isinstance(c, bool)]
    if len(set(numbered)) != len(numbered):
        out.append(f"EFA interfaces share a networkCardIndex: {sorted(numbered)}")
    if machine.network_cards is not None:
        beyond = sorted(c for c in numbered if not 0 <= c < machine.network_cards)
        if beyond:
            out.append(
                f"networkCardIndex {beyond} out of range: {machine.name} has "
                f"{machine.network_cards} network cards (0..{machine.network_cards - 1})"
            )
    return out


def _gke_node_pool(props: Mapping[str, Any]) -> list[str]:
    machine = catalog_machine(get(props, "nodeConfig", "machineType"), Cloud.GCP)
    if machine is None or not machine.has_fabric:
        return []
    network = get(props, "networkConfig")
    if get(network, "acceleratorNetworkProfile"):
        return []  # GKE managed DRANet creates the networks itself
    found = len(items(get(network, "additionalNodeNetworkConfigs")))
    expected = expected_gke_networks(machine)
    if found == expected:
        return []
    return [
        f"networkConfig.additionalNodeNetworkConfigs has {found} network(s) but {machine.name} "
        f"needs {expected} ({machine.general_nics - 1} extra gVNIC + {machine.fabric_nics} "
        f"{machine.fabric.value} NICs per the machine catalog)"
    ]


CHECKS: dict[str, Callable[[Mapping[str, Any]], list[str]]] = {
    "aws:ec2/launchTemplate:LaunchTemplate": _aws_launch_template,
    "gcp:container/nodePool:NodePool": _gke_node_pool,
}


def device_counts(resource_type: str, props: Mapping[str, Any]) -> list[str]:
    """Violations of "fabric device counts match the catalog" (empty: compliant)."""
    check = CHECKS.get(resource_type)
    return check(props) if check else []
