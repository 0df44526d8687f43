"""The GKE kubeconfig text (pure): endpoint + CA, credentials from gke-gcloud-auth-plugin.

No token or key is written into it: kubectl and the Pulumi Kubernetes provider
run ``gke-gcloud-auth-plugin`` (the exec credential plugin GKE requires since
1.26), which uses the caller's gcloud / Application Default Credentials. The
cluster component still treats the result as a secret.
"""

from __future__ import annotations

import yaml

AUTH_PLUGIN = "gke-gcloud-auth-plugin"


def kubeconfig(context: str, endpoint: str, ca_data: str) -> str:
    """``context`` names cluster, user and context (gke_<project>_<zone>_<cluster> style)."""
    doc = {
        "apiVersion": "v1",
        "kind": "Config",
        "clusters": [{
            "name": context,
            "cluster": {
                "server": f"https://{endpoint}",
                "certificate-authority-data": ca_data,
            },
        }],
        "users": [{
            "name": context,
            "user": {"exec": {
                "apiVersion": "client.authentication.k8s.io/v1beta1",
                "command": AUTH_PLUGIN,
                "installHint": "Install gke-gcloud-auth-plugin: gcloud components install "
                "gke-gcloud-auth-plugin",
                "provideClusterInfo": True,
                "interactiveMode": "IfAvailable",
            }},
        }],
        "contexts": [{"name": context, "context": {"cluster": context, "user": context}}],
        "current-context": context,
    }
    return yaml.safe_dump(doc, sort_keys=False)
