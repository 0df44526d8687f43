"""What every cloud's building blocks share: moved children keep their URNs; existing clusters.

A block (a cloud's fabric network, its GPU node pool) is a ComponentResource
that ``GpuCluster`` composes. Its children once were direct children of the
cluster component; :func:`moved_child_opts` parents them to the block and adds
``pulumi.Alias(parent=<the old parent>)``, so the engine matches the old URN
and updates in place instead of replacing (a node pool or a VPC).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pulumi


def moved_child_opts(
    component: pulumi.Resource, aliases_parent: pulumi.Resource | None
) -> Callable[..., pulumi.ResourceOptions]:
    """Options for a block's children: parented to the block, aliased to their old parent."""

    def opts(**kwargs: Any) -> pulumi.ResourceOptions:
        aliases = [pulumi.Alias(parent=aliases_parent)] if aliases_parent is not None else None
        return pulumi.ResourceOptions(parent=component, aliases=aliases, **kwargs)

    return opts


@dataclass(frozen=True)
class ExistingCluster:
    """A Kubernetes cluster a node pool joins by name (one this program does not create)."""

    name: str
