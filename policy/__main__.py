"""gpu-fabric CrossGuard policy pack: ``pulumi preview --policy-pack policy``.

The validators live in :mod:`gpufabric_policies` (pure functions, unit-tested);
this file only serves them. They read machine numbers and GPU taint keys from the
gpu-fabric library (``components``): installed in the pack's virtualenv, or found
in the repository this directory belongs to.
"""

import sys
from pathlib import Path

try:
    import components  # noqa: F401
except ImportError:  # running from a checkout: use the library next to this pack
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from pulumi_policy import EnforcementLevel, PolicyPack

from gpufabric_policies.pack import PACK_NAME, build_policies

PolicyPack(
    name=PACK_NAME,
    enforcement_level=EnforcementLevel.MANDATORY,
    policies=build_policies(),
)
