"""The lazy attributes of the public per-cloud modules (``gpu_fabric.gcp``...).

Importing ``gpu_fabric.<cloud>`` must stay free of that cloud's SDK (it is an
optional extra, and ``import gpu_fabric.aws`` should not cost a second), so each
public name is looked up on first use. A missing SDK stops there with the install
hint of :func:`gpu_fabric.sdks.require_sdk` (naming the pip extra), instead of a
``ModuleNotFoundError`` from deep inside the cloud package.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from typing import Any

from gpu_fabric.catalog import Cloud
from gpu_fabric.sdks import require_sdk


def load(
    namespace: dict[str, Any], cloud: Cloud, names: Mapping[str, str], name: str
) -> Any:
    """The public ``name`` of ``cloud``'s module, imported from its home
    (``names``: public name -> ``module:attribute``) and cached in ``namespace``."""
    target = names.get(name)
    if target is None:
        raise AttributeError(f"module 'gpu_fabric.{cloud.value}' has no attribute {name!r}")
    require_sdk(cloud)
    module, _, attribute = target.partition(":")
    value = getattr(importlib.import_module(module), attribute)
    namespace[name] = value
    return value
