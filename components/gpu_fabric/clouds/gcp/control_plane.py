"""Which node ports GKE's control plane reaches, and which webhook ports need a rule.

GKE private clusters (private nodes, ``master_ipv4_cidr_block``): the control plane
reaches the nodes only through the firewall rule GKE creates itself
(``gke-<cluster>-<hash>-master``), which allows tcp 443 and 10250 from the
control-plane range. An admission webhook served on any other port (Kyverno, Kueue and
JobSet serve on 9443) times out until a rule from that range allows it: GKE "Add
firewall rules for specific use cases"
(https://cloud.google.com/kubernetes-engine/docs/how-to/latest/network-isolation#add_firewall_rules).
Webhook calls go to the serving pod's IP, an alias IP of its node, so a rule on the
node VPC covers them.
"""

from __future__ import annotations

from collections.abc import Iterable

from gpu_fabric.fabric.addons import ResolvedAddons
from gpu_fabric.fabric.addons.registry import ADDONS

# None: every TCP port (the other clouds' models); GKE private nodes: these only.
REACHABLE_PORTS: tuple[int, ...] | None = (443, 10250)
SOURCE = (
    "https://cloud.google.com/kubernetes-engine/docs/how-to/latest/"
    "network-isolation#add_firewall_rules"
)


def webhook_ports(addons: ResolvedAddons) -> list[int]:
    """Every port an admission webhook of an enabled add-on serves on, sorted."""
    return sorted({p for key, a in ADDONS.items() if addons.on(key) for p in a.webhook_ports})


def ports_to_open(ports: Iterable[int]) -> list[int]:
    """The webhook ports GKE's own master rule does not already allow."""
    return sorted(set(ports) - set(REACHABLE_PORTS or ()))
