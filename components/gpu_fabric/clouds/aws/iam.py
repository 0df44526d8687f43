"""IAM for an EKS cluster: the control-plane role and the node role, AWS managed policies only.

Least privilege: the cluster role has ``AmazonEKSClusterPolicy`` only; the node role
has what a managed node group needs to join (``AmazonEKSWorkerNodePolicy``,
``AmazonEC2ContainerRegistryPullOnly`` - pull only, not the older ReadOnly). The VPC
CNI's ``AmazonEKS_CNI_Policy`` (create, attach and delete network interfaces) is on
its own role that only the ``kube-system/aws-node`` ServiceAccount assumes (IRSA), not
on the node role any pod could reach through IMDS (EKS user guide
cni-iam-role: "configure the plugin to use IAM roles for service accounts").
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
    "AmazonEC2ContainerRegistryPullOnly",
)
CNI_POLICIES = ("AmazonEKS_CNI_Policy",)
CNI_SERVICE_ACCOUNT = "system:serviceaccount:kube-system:aws-node"


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
    return created, attach(name, created, policies, partition, opts)


def attach(
    name: str, created: aws.iam.Role, policies: tuple[str, ...], partition: str, opts: Opts,
) -> list[aws.iam.RolePolicyAttachment]:
    """One attachment per AWS managed policy, named ``<name>-<policy in kebab case>``."""
    return [
        aws.iam.RolePolicyAttachment(
            f"{name}-{policy.lower().replace('_', '-')}",
            role=created.name,
            policy_arn=managed_policy_arn(partition, policy),
            opts=opts(),
        )
        for policy in policies
    ]


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


def irsa_trust_policy(provider_arn: str, issuer_url: str, subject: str) -> str:
    """Trust for one ServiceAccount through the cluster's OIDC provider (IRSA)."""
    issuer = issuer_url.removeprefix("https://")
    return json.dumps({
        "Version": "2012-10-17",
        "Statement": [{
            "Effect": "Allow",
            "Principal": {"Federated": provider_arn},
            "Action": "sts:AssumeRoleWithWebIdentity",
            "Condition": {"StringEquals": {
                f"{issuer}:sub": subject,
                f"{issuer}:aud": "sts.amazonaws.com",
            }},
        }],
    })


def vpc_cni_role(
    name: str, partition: str, oidc: aws.iam.OpenIdConnectProvider, tags: dict[str, str],
    opts: Opts,
) -> tuple[aws.iam.Role, list[aws.iam.RolePolicyAttachment]]:
    """The VPC CNI's role, assumed by kube-system/aws-node only (IRSA)."""
    created = aws.iam.Role(
        f"{name}-vpc-cni-role",
        assume_role_policy=pulumi.Output.all(oidc.arn, oidc.url).apply(
            lambda a: irsa_trust_policy(str(a[0]), str(a[1]), CNI_SERVICE_ACCOUNT)),
        tags=tags or None,
        opts=opts(),
    )
    return created, attach(f"{name}-vpc-cni-role", created, CNI_POLICIES, partition, opts)
