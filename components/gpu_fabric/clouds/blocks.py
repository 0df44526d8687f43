"""What every cloud's building blocks share: moved children keep their URNs.

A block (a cloud's fabric network, its GPU node pool) is a ComponentResource
that ``GpuCluster`` composes, and that a team's own program uses alone (the
public modules ``gpu_fabric.gcp``, ``gpu_fabric.aws``...). Its children once were
direct children of the cluster component: when a block's parent is a
``GpuCluster``, :func:`moved_child_opts` parents each child to the block and adds
``pulumi.Alias(parent=<the cluster>)``, so the engine matches the old URN and
updates in place instead of replacing (a node pool or a VPC). A block used alone
has no such history and its children carry no alias.

The parent comes from the block's own ``ResourceOptions`` rather than an Args
field, so the Args stay plain data (a multi-language component package is built
on them).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pulumi


def moved_child_opts(
    component: pulumi.Resource, opts: pulumi.ResourceOptions | None
) -> Callable[..., pulumi.ResourceOptions]:
    """Options for a block's children: parented to the block; aliased to the cluster
    component when ``opts.parent`` (the block's parent) is one."""
    from gpu_fabric.cluster import GpuCluster  # the generic component, no cloud SDK

    parent = opts.parent if opts is not None else None
    moved_from = parent if isinstance(parent, GpuCluster) else None

    def child(**kwargs: Any) -> pulumi.ResourceOptions:
        aliases = [pulumi.Alias(parent=moved_from)] if moved_from is not None else None
        return pulumi.ResourceOptions(parent=component, aliases=aliases, **kwargs)

    return child


@dataclass(frozen=True)
class ExistingCluster:
    """A Kubernetes cluster a node pool joins by name (one this program does not create).

    Kept for programs written against the first blocks; the blocks' Args now take
    the cluster's name or id (``cluster_name``, ``cluster_id``) directly."""

    name: str
