"""What the offline planner knows about each cloud's Pulumi provider.

The PR diff (:mod:`gpu_fabric.plan.diff`) and the plain-text credential check
(:mod:`gpu_fabric.plan.plaintext_secrets`) need provider knowledge: which inputs
force a replacement, which config keys hold credentials. That knowledge belongs to
the cloud, so each cloud folder states it in ``clouds/<cloud>/plan_facts.py`` as one
:class:`PlanFacts` value named ``PLAN_FACTS``; the generic planner code reads it
here and names no cloud. A cloud without the module fails loudly (``LookupError``),
never silently with no facts.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cache

from gpu_fabric.catalog import Cloud
from gpu_fabric.clouds.registry import cloud_module


@dataclass(frozen=True)
class PlanFacts:
    """One cloud provider's facts, keyed by the provider's own names."""

    # Type token -> input path prefixes whose change forces a replacement (what the
    # provider marks ``forceNew``/``replaceOnChanges`` among the inputs this project
    # sets). Paths use the plan's property names (camelCase) joined by dots; list
    # items are matched by any index ("networkConfig.additionalNodeNetworkConfigs"
    # covers "networkConfig.additionalNodeNetworkConfigs[3].subnetwork").
    replacing_inputs: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    # Type token -> input paths the program registers with ``ignore_changes``:
    # Pulumi does not diff them after create, so neither does the PR diff.
    ignored_inputs: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    # Provider config keys that hold credentials (``<provider>:<key>``).
    credential_keys: frozenset[str] = frozenset()
    # Regular expressions (alternatives, no groups) of the cloud's access tokens
    # that have a well-known prefix, found anywhere in a stack file's plain strings.
    token_patterns: tuple[str, ...] = ()
    # Type token -> input paths that hold the resource's physical name where the
    # cloud requires it unique in its scope (project, region, cluster, account...).
    # Pulumi replaces create-before-delete by default, so a replacement of such a
    # resource would fail with "already exists" and leave the stack half-applied.
    # Every one of them is registered with ``delete_before_replace=True`` (issue 32).
    # Why not a suffixed/provider-generated name instead: the name is a replacing
    # input, so renaming a live resource is itself a replacement (every live
    # cluster's pools and networks would be recreated on the next ``pulumi up``).
    unique_names: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    # Type token -> why a create-before-delete replacement of it cannot collide on a
    # name: autonamed by Pulumi (random suffix), a display name the cloud does not
    # require unique, or an identity made only of replacing inputs (a replacement
    # is always another object). Every type a plan creates is in one of the two maps
    # (tests/plan/test_replace_names.py).
    free_names: Mapping[str, str] = field(default_factory=dict)


def plan_facts(cloud: Cloud) -> PlanFacts:
    """``cloud``'s facts, from ``gpu_fabric.clouds.<cloud>.plan_facts`` (imported on use)."""
    module = cloud_module(cloud, "plan_facts", missing=(
        f"cloud '{cloud.value}' has no plan facts: {{name}} is missing "
        "(every cloud folder states its provider's PLAN_FACTS)"))
    facts = getattr(module, "PLAN_FACTS", None)
    if not isinstance(facts, PlanFacts):
        raise LookupError(
            f"{module.__name__}.PLAN_FACTS must be a PlanFacts, got {type(facts).__name__}")
    return facts


@cache
def every_cloud() -> PlanFacts:
    """Every cloud's facts in one (type tokens and config keys never collide across clouds:
    each is prefixed by its provider's name)."""
    each = [plan_facts(cloud) for cloud in Cloud]
    return PlanFacts(
        replacing_inputs={k: v for f in each for k, v in f.replacing_inputs.items()},
        ignored_inputs={k: v for f in each for k, v in f.ignored_inputs.items()},
        credential_keys=frozenset(k for f in each for k in f.credential_keys),
        token_patterns=tuple(p for f in each for p in f.token_patterns),
        unique_names={k: v for f in each for k, v in f.unique_names.items()},
        free_names={k: v for f in each for k, v in f.free_names.items()},
    )
