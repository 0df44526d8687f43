"""The gpu-fabric names the validators read, from the one library package.

Why a module of its own: the validators read machine numbers and GPU taint keys
from the library (``gpu_fabric``, installed or the checkout this pack belongs to;
``policy/__main__.py`` puts the checkout's ``components/`` folder on the path when
the library is not installed). One import site keeps that dependency visible.
"""

from __future__ import annotations

from gpu_fabric.catalog import Cloud, FabricKind, Machine, UnknownMachineError, get_machine
from gpu_fabric.fabric.taints import GPU_TAINT_KEYS

__all__ = ["GPU_TAINT_KEYS", "Cloud", "FabricKind", "Machine", "UnknownMachineError",
           "get_machine"]
