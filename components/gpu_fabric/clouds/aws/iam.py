"""IAM for an EKS cluster: the control-plane role and the node role, AWS managed policies only.

Least privilege: the cluster role has ``AmazonEKSClusterPolicy`` only; the node role
has the three policies a managed node group needs to join and run the VPC CNI
(``AmazonEKSWorkerNodePolicy``, ``AmazonEKS_CNI_Policy``,
``AmazonEC2ContainerRegistryPullOnly`` - pull only, not the older ReadOnly).
"""

from __future__ import annotations

import json
from collections.abc import Callable

import pulumi
import pulumi_aws as aws

Opts = Callable[..., pulumi.ResourceOptions]

CLUSTER_POLICIES = ("AmazonEKSClusterPolicy",)
NODE_POLICIES = (
    "AmazonEKSWorkerNodePolicy",
    "AmazonEKS_CNI_Policy",
    "AmazonEC2ContainerRegistryPullOnly",
)


def trust_policy(service: str, actions: tuple[str, ...]) -> str:
    return json.dumps({
        "Version": "2012-10-17",
        "Statement": [{
            "Effect": "Allow",
            "Principal": {"Service": service},
            "Action": list(actions),
        }],
    })


def managed_policy_arn(partition: str, policy: str) -> str:
    return f"arn:{partition}:iam::aws:policy/{policy}"


def role(
    name: str, service: str, actions: tuple[str, ...], policies: tuple[str, ...],
    partition: str, tags: dict[str, str], opts: Opts,
) -> tuple[aws.iam.Role, list[aws.iam.RolePolicyAttachment]]:
    created = aws.iam.Role(
        name,
        assume_role_policy=trust_policy(service, actions),
        tags=tags or None,
        opts=opts(),
    )
    attachments = [
        aws.iam.RolePolicyAttachment(
            f"{name}-{policy.lower().replace('_', '-')}",
            role=created.name,
            policy_arn=managed_policy_arn(partition, policy),
            opts=opts(),
        )
        for policy in policies
    ]
    return created, attachments


def cluster_role(
    name: str, partition: str, tags: dict[str, str], opts: Opts
) -> tuple[aws.iam.Role, list[aws.iam.RolePolicyAttachment]]:
    # sts:TagSession: EKS tags the sessions it opens with this role.
    return role(f"{name}-cluster-role", "eks.amazonaws.com",
                ("sts:AssumeRole", "sts:TagSession"), CLUSTER_POLICIES, partition, tags, opts)


def node_role(
    name: str, partition: str, tags: dict[str, str], opts: Opts
) -> tuple[aws.iam.Role, list[aws.iam.RolePolicyAttachment]]:
    return role(f"{name}-node-role", "ec2.amazonaws.com", ("sts:AssumeRole",),
                NODE_POLICIES, partition, tags, opts)
