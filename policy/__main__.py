"""gpu-fabric CrossGuard policy pack: ``pulumi preview --policy-pack policy``.

The validators live in :mod:`gpufabric_policies` (pure functions, unit-tested);
this file only serves them. They read machine numbers and GPU taint keys from the
gpu-fabric library, ``gpu_fabric``: installed, or else the checkout this
directory belongs to (its ``components/`` folder); see :mod:`gpufabric_policies.library`.
"""

import sys
from pathlib import Path

try:
    import gpu_fabric  # noqa: F401  # installed (a wheel, or a checkout installed editable)
except ImportError:  # running from a checkout: use the library next to this pack
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "components"))

from pulumi_policy import EnforcementLevel, PolicyPack

from gpufabric_policies.pack import PACK_NAME, build_policies

PolicyPack(
    name=PACK_NAME,
    enforcement_level=EnforcementLevel.MANDATORY,
    policies=build_policies(),
)
