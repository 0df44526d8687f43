"""Which node ports the AKS control plane reaches (the webhook-reachability model).

Every TCP port: the AKS API server reaches nodes and pods through its tunnel
(konnectivity-agent pods in the cluster dial out to the control plane and carry the API
server's calls, webhooks included), not through inbound rules on the node subnet
(MicrosoftDocs/SupportArticles-docs support/azure/azure-kubernetes/connectivity/
tunnel-connectivity-issues.md: "AKS uses a specific component for tunneled, secure
communication between the nodes and the control plane"; the default NSG allows the
VNet's own traffic).
"""

from __future__ import annotations

REACHABLE_PORTS: tuple[int, ...] | None = None  # every TCP port
SOURCE = (
    "https://learn.microsoft.com/troubleshoot/azure/azure-kubernetes/connectivity/"
    "tunnel-connectivity-issues"
)
