"""Every machine in catalog order, and lookups by name and cloud."""

from __future__ import annotations

from gpu_fabric.catalog import aws, azure, digitalocean, gcp, oci
from gpu_fabric.catalog.model import Cloud, Machine, UnknownMachineError

MACHINES: tuple[Machine, ...] = (
    *gcp.MACHINES,
    *aws.MACHINES,
    *azure.MACHINES,
    *digitalocean.MACHINES,
    *oci.MACHINES,
)


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
            f"'{name}' is not a {Cloud(cloud).display} machine type in the catalog; "
            f"valid: {', '.join(by_name)}"
        )
    for by_name in _BY_CLOUD.values():
        if name in by_name:
            return by_name[name]
    raise UnknownMachineError(
        f"'{name}' is not in the machine catalog; valid: {', '.join(m.name for m in MACHINES)}"
    )
