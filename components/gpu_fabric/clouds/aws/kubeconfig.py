"""The EKS kubeconfig text (pure): endpoint + CA, token from ``aws eks get-token``.

No token is written into it: kubectl and the Pulumi Kubernetes provider run the
AWS CLI, which signs a short-lived token with the caller's credentials (the
principal must have an EKS access entry). The component still keeps it secret.
"""

from __future__ import annotations

import yaml


def kubeconfig(cluster_name: str, region: str, endpoint: str, ca_data: str, arn: str) -> str:
    """``arn`` names cluster, user and context (as ``aws eks update-kubeconfig`` does)."""
    context = arn or cluster_name
    doc = {
        "apiVersion": "v1",
        "kind": "Config",
        "clusters": [{
            "name": context,
            "cluster": {"server": endpoint, "certificate-authority-data": ca_data},
        }],
        "users": [{
            "name": context,
            "user": {"exec": {
                "apiVersion": "client.authentication.k8s.io/v1beta1",
                "command": "aws",
                "args": ["eks", "get-token", "--cluster-name", cluster_name,
                         "--region", region, "--output", "json"],
                "installHint": "Install the AWS CLI v2 (aws eks get-token)",
                "interactiveMode": "IfAvailable",
            }},
        }],
        "contexts": [{"name": context, "context": {"cluster": context, "user": context}}],
        "current-context": context,
    }
    return yaml.safe_dump(doc, sort_keys=False)
