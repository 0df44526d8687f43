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
class NodeUpdate:
    """How a node pool (or a cluster that owns its nodes) applies a change that needs
    new nodes: which inputs roll the nodes, and the surge/unavailable settings that say
    how many at once and whether spare capacity is launched first.

    Values are read from the planned inputs at ``surge_path``/``unavailable_path``;
    absent, the cloud's documented default applies. ``no_surge_when`` is a (path,
    value) that turns the surge off (EKS ``MINIMAL``, DOKS ``surgeUpgrade: false``).
    ``only_when`` is a path that must be true for existing nodes to be rolled at all
    (OKE node cycling); without it the change reaches new nodes only.
    """

    rolling_inputs: tuple[str, ...]
    surge_default: int | str
    unavailable_default: int | str
    surge_path: str | None = None
    unavailable_path: str | None = None
    no_surge_when: tuple[str, object] | None = None
    only_when: str | None = None
    # (path, value, text): a caveat added to the verdict when the planned input at
    # ``path`` equals ``value`` (EKS Capacity Blocks must be scaled to 0 to upgrade).
    warn_when: tuple[str, object, str] | None = None
    source: str = ""


@dataclass(frozen=True)
class RefusedInput:
    """An input the Pulumi provider updates in place (it marks no replacement) that the
    cloud's API refuses to change on an existing resource: ``pulumi up`` sends the update
    and fails on that resource, the rest of the stack applied around it (issue 32).

    ``path`` is an input path prefix (as in ``replacing_inputs``); ``reason`` says what
    the cloud refuses, ``source`` where it says so. ``allowed_between`` is a regular
    expression: a change whose old and new values both match it is accepted (AKS moves
    a pool between Linux OS SKUs in place).
    """

    path: str
    reason: str
    source: str
    allowed_between: str | None = None


@dataclass(frozen=True)
class PlanFacts:
    """One cloud provider's facts, keyed by the provider's own names."""

    # Type token -> input path prefixes whose change forces a replacement (what the
    # provider marks ``forceNew``/``replaceOnChanges`` among the inputs this project
    # sets). Paths use the plan's property names (camelCase) joined by dots; list
    # items are matched by any index ("networkConfig.additionalNodeNetworkConfigs"
    # covers "networkConfig.additionalNodeNetworkConfigs[3].subnetwork").
    replacing_inputs: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    # Type token -> paths of nested blocks that force a replacement only when the block
    # itself changes (added, removed, another number of items), not when a nested
    # input does (Terraform ForceNew on a list of blocks; plan/replacing_data.py).
    replacing_blocks: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    # Provider config keys that hold credentials (``<provider>:<key>``).
    credential_keys: frozenset[str] = frozenset()
    # Regular expressions (alternatives, no groups) of the cloud's access tokens
    # that have a well-known prefix, found anywhere in a stack file's plain strings.
    token_patterns: tuple[str, ...] = ()
    # Secret keys without a prefix, found by their shape (issue 34): (pattern, what) of the
    # key assigned to its name in a plain string, and (id pattern, secret pattern, what):
    # a string of the secret's shape in the same mapping or list as a string of the id's
    # (a credentials pair).
    secret_patterns: tuple[tuple[str, str], ...] = ()
    paired_secrets: tuple[tuple[str, str, str], ...] = ()
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
    # Day-2 verdicts (plan/day2.py). Type token -> "cluster", "pool" or "network":
    # what a replacement or removal of it destroys.
    roles: Mapping[str, str] = field(default_factory=dict)
    # Type token -> how its nodes are rolled (pools; DOKS clusters own their nodes).
    node_updates: Mapping[str, NodeUpdate] = field(default_factory=dict)
    # Type token -> why an in-place update of it still rolls nodes (it is consumed by a
    # pool as a new version: an EKS launch template).
    rolls_through: Mapping[str, str] = field(default_factory=dict)
    # Type token -> inputs that upgrade the control plane in place (no node rolled).
    control_plane_inputs: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    # The cloud's section of docs/day2.md ("gke", "eks", ...), prefix of its anchors.
    runbook: str = ""
    # Type token -> inputs the provider updates in place but the cloud refuses to change
    # (plan/day2.py gives such a change the verdict "refused").
    refused_inputs: Mapping[str, tuple[RefusedInput, ...]] = field(default_factory=dict)
    # Type token -> runbook prefix (filled by :func:`every_cloud`).
    runbooks: Mapping[str, str] = field(default_factory=dict)


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
        replacing_blocks={k: v for f in each for k, v in f.replacing_blocks.items()},
        credential_keys=frozenset(k for f in each for k in f.credential_keys),
        token_patterns=tuple(p for f in each for p in f.token_patterns),
        secret_patterns=tuple(p for f in each for p in f.secret_patterns),
        paired_secrets=tuple(p for f in each for p in f.paired_secrets),
        unique_names={k: v for f in each for k, v in f.unique_names.items()},
        free_names={k: v for f in each for k, v in f.free_names.items()},
        roles={k: v for f in each for k, v in f.roles.items()},
        node_updates={k: v for f in each for k, v in f.node_updates.items()},
        control_plane_inputs={k: v for f in each for k, v in f.control_plane_inputs.items()},
        rolls_through={k: v for f in each for k, v in f.rolls_through.items()},
        refused_inputs={k: v for f in each for k, v in f.refused_inputs.items()},
        runbooks={k: f.runbook for f in each
                  for k in (*f.roles, *f.node_updates, *f.rolls_through, *f.refused_inputs)},
    )
