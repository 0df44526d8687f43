"""Which Pulumi provider SDK each cloud needs, and the pip extra that installs it.

Each cloud's provider names its SDK (``sdk``); each SDK is an optional extra
of the package (``pip install 'gpu-fabric[aws]'``; pyproject.toml
``[project.optional-dependencies]``), since
together they are ~1.3 GB a team that uses one cloud does not want. A stack
whose cloud SDK is missing stops with the command that installs it, instead of
a ``ModuleNotFoundError`` from deep inside a cloud module. The extras are named
after the :class:`~gpu_fabric.catalog.Cloud` values, so
``pip install 'gpu-fabric[<spec.cloud>]'`` always works.
"""

from __future__ import annotations

import importlib.util

from gpu_fabric.catalog import Cloud

DISTRIBUTION = "gpu-fabric"


def sdk_module(cloud: Cloud) -> str:
    """Import name of ``cloud``'s SDK, as its provider declares it."""
    from gpu_fabric.clouds.registry import provider_for

    return provider_for(cloud).sdk


class CloudSdkMissing(ModuleNotFoundError):
    """A stack's cloud SDK is not installed; the message says which extra installs it."""


def install_hint(cloud: Cloud) -> str:
    return f"pip install '{DISTRIBUTION}[{cloud.value}]'"


def missing_message(cloud: Cloud) -> str:
    return (
        f"the {cloud.value} cloud needs its Pulumi SDK ({sdk_module(cloud)}), which is not "
        f"installed: {install_hint(cloud)} (or '{DISTRIBUTION}[all]' for every cloud)"
    )


def is_installed(cloud: Cloud) -> bool:
    return importlib.util.find_spec(sdk_module(cloud)) is not None


def require_sdk(cloud: Cloud) -> None:
    """Raise :class:`CloudSdkMissing` unless ``cloud``'s SDK can be imported."""
    if not is_installed(cloud):
        raise CloudSdkMissing(missing_message(cloud), name=sdk_module(cloud))


def cloud_of_missing(exc: ModuleNotFoundError) -> Cloud | None:
    """The cloud whose SDK an import error is about (None for any other module)."""
    from gpu_fabric.clouds.registry import clouds

    top = (exc.name or "").split(".")[0]
    return next((cloud for cloud in clouds() if sdk_module(cloud) == top), None)
