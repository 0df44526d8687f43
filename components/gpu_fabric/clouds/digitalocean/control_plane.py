"""Which node ports the DOKS control plane reaches (the webhook-reachability model).

Every TCP port: DOKS provisions and manages two cloud firewalls per cluster, one of
which "manages the connections between resources in your VPC network, including the
control plane, and worker nodes" (DigitalOcean "The Managed Elements of DigitalOcean
Kubernetes", Worker Node Firewalls). This library creates no firewall of its own on
DOKS nodes, so nothing narrows that.
"""

from __future__ import annotations

REACHABLE_PORTS: tuple[int, ...] | None = None  # every TCP port
SOURCE = "https://docs.digitalocean.com/products/kubernetes/details/managed/"
