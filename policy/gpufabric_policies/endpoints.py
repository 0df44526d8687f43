"""No Kubernetes API server that the whole internet can reach.

A managed control plane with a public endpoint and no source restriction answers
every scanner on the internet; one credential leak or API-server CVE away from the
cluster. A public endpoint must list its authorized sources (none wider than /8), or
be private. Input names are the providers' wire names: GKE
``masterAuthorizedNetworksConfig`` / ``privateClusterConfig.enablePrivateEndpoint``,
EKS ``vpcConfig.endpointPublicAccess`` / ``publicAccessCidrs``, AKS
``apiServerAccessProfile.authorizedIPRanges`` / ``enablePrivateCluster``, DOKS
``controlPlaneFirewall``. OKE filters its endpoint with the endpoint subnet's
security list, which ``fabric-no-open-ingress`` judges.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from gpufabric_policies.network import is_open
from gpufabric_policies.props import get, strings

_HOW = ("list the networks that administer the cluster (gpu-fabric: api_access."
        "authorized_cidrs) or make the endpoint private")


def _judge(where: str, sources: list[str]) -> list[str]:
    if not sources:
        return [f"the API server has a public endpoint and {where} is empty: the whole "
                f"internet can reach it; {_HOW}"]
    wide = [s for s in sources if is_open(s)]
    if wide:
        return [f"{where} admits {', '.join(wide)}: (a large part of) the internet can reach "
                f"the API server; {_HOW}"]
    return []


def _gke(props: Mapping[str, Any]) -> list[str]:
    if get(props, "privateClusterConfig", "enablePrivateEndpoint") is True:
        return []
    config = get(props, "masterAuthorizedNetworksConfig")
    if not isinstance(config, Mapping):
        return _judge("masterAuthorizedNetworksConfig", [])
    cidrs = [str(get(b, "cidrBlock") or "") for b in (get(config, "cidrBlocks") or [])]
    out = _judge("masterAuthorizedNetworksConfig.cidrBlocks", cidrs) if cidrs else []
    if get(config, "gcpPublicCidrsAccessEnabled") is True:
        out.append("masterAuthorizedNetworksConfig.gcpPublicCidrsAccessEnabled lets every "
                   f"Google Cloud public IP reach the API server; {_HOW}")
    return out


def _eks(props: Mapping[str, Any]) -> list[str]:
    vpc = get(props, "vpcConfig")
    if not isinstance(vpc, Mapping) or get(vpc, "endpointPublicAccess") is False:
        return [] if isinstance(vpc, Mapping) else _judge("vpcConfig.publicAccessCidrs", [])
    return _judge("vpcConfig.publicAccessCidrs", strings(get(vpc, "publicAccessCidrs")))


def _aks(props: Mapping[str, Any]) -> list[str]:
    profile = get(props, "apiServerAccessProfile")
    if isinstance(profile, Mapping) and get(profile, "enablePrivateCluster") is True:
        return []
    ranges = strings(get(profile, "authorizedIPRanges")) if isinstance(profile, Mapping) else []
    return _judge("apiServerAccessProfile.authorizedIPRanges", ranges)


def _doks(props: Mapping[str, Any]) -> list[str]:
    firewall = get(props, "controlPlaneFirewall")
    if not isinstance(firewall, Mapping) or get(firewall, "enabled") is not True:
        return _judge("controlPlaneFirewall", [])
    return _judge("controlPlaneFirewall.allowedAddresses",
                  strings(get(firewall, "allowedAddresses")))


CHECKS: dict[str, Callable[[Mapping[str, Any]], list[str]]] = {
    "gcp:container/cluster:Cluster": _gke,
    "aws:eks/cluster:Cluster": _eks,
    "azure-native:containerservice:ManagedCluster": _aks,
    "digitalocean:index/kubernetesCluster:KubernetesCluster": _doks,
}


def public_api_endpoint(resource_type: str, props: Mapping[str, Any]) -> list[str]:
    """Violations of "no API server open to the internet" (empty: compliant)."""
    check = CHECKS.get(resource_type)
    return check(props) if check else []
