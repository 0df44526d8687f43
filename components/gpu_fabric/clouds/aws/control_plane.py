"""Which node ports the EKS control plane reaches (the webhook-reachability model).

Every TCP port: the EKS cluster security group's default rules allow all traffic
from members of the group itself, and the control plane's network interfaces carry
that group (Amazon EKS "View Amazon EKS security group requirements for clusters",
https://docs.aws.amazon.com/eks/latest/userguide/sec-group-reqs.html, "Default rules").
This library puts the cluster security group on every node's primary interface
(``nodegroup.interface_args``; managed node groups without a launch-template group get
it by default), so admission webhooks on any port (Kyverno 9443...) are reachable
without the extra 4443/6443/8443/9443 rules terraform-aws-eks adds to its own,
separate node security group.
"""

from __future__ import annotations

REACHABLE_PORTS: tuple[int, ...] | None = None  # every TCP port
SOURCE = "https://docs.aws.amazon.com/eks/latest/userguide/sec-group-reqs.html"
