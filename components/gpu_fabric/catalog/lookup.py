"""Every machine in catalog order, checked once at load, and lookups by name and cloud."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from types import MappingProxyType

from gpu_fabric.catalog import aws, azure, digitalocean, gcp, oci
from gpu_fabric.catalog.model import Cloud, Machine, UnknownMachineError
from gpu_fabric.catalog.pairing import GpuNicPairing


class CatalogRowError(ValueError):
    """A catalog row that contradicts itself (raised when the catalog loads)."""


def check_rows(rows: Iterable[Machine]) -> None:
    """Refuse a row whose fabric NICs have no GPU <-> NIC pairing, or do not match it.

    Without a pairing, every pod on the machine would be refused later with "has no
    scale-out fabric", which sends the reader to the wrong place: say it here, at the row.
    """
    for m in rows:
        where = f"catalog row {m.name} ({m.cloud.value})"
        p = m.pairing
        if m.fabric_nics > 0 and p is None:
            raise CatalogRowError(
                f"{where}: has {m.fabric_nics} fabric NICs but no GPU <-> NIC pairing; "
                "add pairing=GpuNicPairing(gpus_per_group=..., nics_per_group=..., "
                "evidence=..., source=...) to the row"
            )
        if p is None:
            continue
        if m.fabric_nics == 0:
            raise CatalogRowError(f"{where}: has a GPU <-> NIC pairing but no fabric NICs; "
                                  "drop pairing= or set fabric_nics")
        if m.gpus % p.gpus_per_group or p.groups(m.gpus) * p.nics_per_group != m.fabric_nics:
            raise CatalogRowError(
                f"{where}: pairing of {p.gpus_per_group} GPUs + {p.nics_per_group} NICs per "
                f"group does not cover {m.gpus} GPUs and {m.fabric_nics} fabric NICs; valid: "
                "gpus_per_group divides gpus and (gpus / gpus_per_group) x nics_per_group "
                "equals fabric_nics"
            )


MACHINES: tuple[Machine, ...] = (
    *gcp.MACHINES,
    *aws.MACHINES,
    *azure.MACHINES,
    *digitalocean.MACHINES,
    *oci.MACHINES,
)
check_rows(MACHINES)

# Each machine's pairing by machine name, read from the rows (the former pairing table).
GPU_NIC_PAIRING: Mapping[str, GpuNicPairing] = MappingProxyType({
    m.name: m.pairing for m in MACHINES if m.pairing is not None
})


_BY_CLOUD: dict[Cloud, dict[str, Machine]] = {}
for _m in MACHINES:
    _BY_CLOUD.setdefault(_m.cloud, {})[_m.name] = _m


def machines(cloud: Cloud | str | None = None, *, fabric_only: bool = False) -> list[Machine]:
    """All machines (of one cloud), in catalog order."""
    found = [
        m for m in MACHINES
        if (cloud is None or m.cloud == Cloud(cloud)) and (m.has_fabric or not fabric_only)
    ]
    return found


def machine_names(cloud: Cloud | str, *, fabric_only: bool = False) -> list[str]:
    return [m.name for m in machines(cloud, fabric_only=fabric_only)]


def get_machine(name: str, cloud: Cloud | str | None = None) -> Machine:
    """Look a machine up by type name, optionally within one cloud.

    Raises :class:`UnknownMachineError` whose message lists the valid names.
    """
    if cloud is not None:
        by_name = _BY_CLOUD.get(Cloud(cloud), {})
        if name in by_name:
            return by_name[name]
        raise UnknownMachineError(
            f"'{name}' is not {Cloud(cloud).a_display} machine type in the catalog; "
            f"valid: {', '.join(by_name)}"
        )
    for by_name in _BY_CLOUD.values():
        if name in by_name:
            return by_name[name]
    raise UnknownMachineError(
        f"'{name}' is not in the machine catalog; valid: {', '.join(m.name for m in MACHINES)}"
    )
