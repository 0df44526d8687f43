"""The gpu-fabric names the validators read, from whichever library is importable.

Why: the wheel installs the library as ``gpu_fabric`` (setup.py renames the
package so a team's own ``components/`` cannot shadow it); a checkout has it as
``components`` (and ``gpu_fabric`` as an alias of it). Importing ``components``
directly would miss the installed wheel, or read a team's unrelated package.
So: ``gpu_fabric`` first, ``components`` second. Type checkers see the checkout.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from components.catalog import Cloud, FabricKind, Machine, UnknownMachineError, get_machine
    from components.fabric.taints import GPU_TAINT_KEYS
else:
    try:
        from gpu_fabric.catalog import (
            Cloud,
            FabricKind,
            Machine,
            UnknownMachineError,
            get_machine,
        )
        from gpu_fabric.fabric.taints import GPU_TAINT_KEYS
    except ImportError:
        from components.catalog import (
            Cloud,
            FabricKind,
            Machine,
            UnknownMachineError,
            get_machine,
        )
        from components.fabric.taints import GPU_TAINT_KEYS

__all__ = ["GPU_TAINT_KEYS", "Cloud", "FabricKind", "Machine", "UnknownMachineError",
           "get_machine"]
