"""Which node ports the OKE control plane reaches (the webhook-reachability model).

Every TCP port: the security lists this library writes (``network.py``) allow TCP on all
ports from the Kubernetes API endpoint subnet to the worker subnet ("Control plane to
workers (kubelet, webhooks)") and, with VCN-native pod networking, to the pod subnet,
as Oracle's "Network Resource Configuration for Cluster Creation and Deployment"
(https://docs.oracle.com/en-us/iaas/Content/ContEng/Concepts/contengnetworkconfig.htm,
security rules for the Kubernetes API endpoint and worker node subnets) lists them.
"""

from __future__ import annotations

REACHABLE_PORTS: tuple[int, ...] | None = None  # every TCP port
SOURCE = "https://docs.oracle.com/en-us/iaas/Content/ContEng/Concepts/contengnetworkconfig.htm"
