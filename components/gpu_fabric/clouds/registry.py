"""The registry: which provider serves each cloud, one line per cloud, imported when asked.

:data:`PROVIDER_MODULES` is the only table in the library that lists the clouds
(besides the catalog's :class:`~gpu_fabric.catalog.Cloud` values and per-cloud
machine files): cloud -> the module whose ``PROVIDER`` is that cloud's
:class:`~gpu_fabric.clouds.contract.CloudProvider`. Nothing is imported until a
cloud is asked for (:func:`provider_for`), so ``import gpu_fabric`` and
``import gpu_fabric.catalog`` load no cloud module; a provider module itself
imports only the cloud's spec section, never its SDK.

:data:`PROVIDERS` is the clouds' part of the value the fabric layer is given,
:func:`gpu_fabric.layers.plugins` (kept apart: the spec reads this registry, and
the platform layer that value also holds reads the spec).

The factory that picks a cloud's :class:`~gpu_fabric.cluster.GpuCluster` class
is beside it, :mod:`gpu_fabric.clouds.factory`.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator, Mapping
from importlib import import_module
from types import ModuleType
from typing import TYPE_CHECKING

from gpu_fabric.catalog import Cloud

if TYPE_CHECKING:
    from gpu_fabric.clouds.contract import CloudProvider

# Each line: a cloud and the module of its provider (clouds/<cloud>/provider.py).
PROVIDER_MODULES: Mapping[Cloud, str] = {
    Cloud.GCP: "gpu_fabric.clouds.gcp.provider",
    Cloud.AWS: "gpu_fabric.clouds.aws.provider",
    Cloud.AZURE: "gpu_fabric.clouds.azure.provider",
    Cloud.DIGITALOCEAN: "gpu_fabric.clouds.digitalocean.provider",
    Cloud.OCI: "gpu_fabric.clouds.oci.provider",
}


@functools.cache
def provider_for(cloud: Cloud) -> CloudProvider:
    """The provider of ``cloud`` (its module imported on first use); none is a bug, said loudly."""
    module = PROVIDER_MODULES.get(cloud)
    if module is None:
        known = ", ".join(c.value for c in PROVIDER_MODULES)
        raise LookupError(f"no cloud provider registered for '{cloud.value}'; registered: {known}")
    provider: CloudProvider = import_module(module).PROVIDER
    if provider.cloud is not cloud:
        raise LookupError(f"{module}.PROVIDER serves '{provider.cloud.value}', not '{cloud.value}'")
    return provider


def cloud_module_name(cloud: Cloud, leaf: str) -> str:
    """The module ``leaf`` of ``cloud``'s folder: beside its provider module, so the
    registry line is the one place that says where a cloud lives."""
    return f"{PROVIDER_MODULES[cloud].rpartition('.')[0]}.{leaf}"


def cloud_module(cloud: Cloud, leaf: str, *, missing: str) -> ModuleType:
    """``leaf`` of ``cloud``'s folder, imported now (the planner's fakes and plan facts).

    A folder without that module raises ``LookupError(missing)`` (``{name}``: the
    module's name): the caller says what the module should hold. A module that
    exists but fails to import raises as it is.
    """
    name = cloud_module_name(cloud, leaf)
    try:
        return import_module(name)
    except ModuleNotFoundError as err:
        if err.name != name:
            raise
        raise LookupError(missing.format(name=name)) from None


def clouds() -> tuple[Cloud, ...]:
    """The registered clouds, in registry order (imports nothing)."""
    return tuple(PROVIDER_MODULES)


def providers() -> Iterator[CloudProvider]:
    """Every provider, in registry order (imports each provider module, no SDK)."""
    return (provider_for(cloud) for cloud in PROVIDER_MODULES)


class _Providers(Mapping["Cloud", "CloudProvider"]):
    """Cloud -> provider, each imported when looked up (the cloud layers of the fabric layer)."""

    def __getitem__(self, cloud: Cloud) -> CloudProvider:
        if cloud not in PROVIDER_MODULES:
            raise KeyError(cloud)
        return provider_for(cloud)

    def __iter__(self) -> Iterator[Cloud]:
        return iter(PROVIDER_MODULES)

    def __len__(self) -> int:
        return len(PROVIDER_MODULES)


PROVIDERS: Mapping[Cloud, CloudProvider] = _Providers()
