"""No fabric firewall, security group, NSG, security list or network ACL rule open to the
world (default security groups / lists / ACLs included).

GPU nodes carry the RDMA fabric and the kubelet; nothing on them should accept
traffic from ``0.0.0.0/0``. Only *allow* rules for *ingress* count: egress to the
internet (image pulls) and deny rules from anywhere are fine.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Callable, Mapping
from typing import Any

from gpufabric_policies.props import get, mappings, strings

# Azure NSG source values meaning "any address" besides a /0 prefix.
_AZURE_ANY = {"*", "internet", "any"}


# Ranges shorter than these cover (a large slice of) the internet: ``0.0.0.0/0`` and the
# ``0.0.0.0/1`` + ``128.0.0.0/1`` split that slips past a "/0 only" check alike.
WIDEST_IPV4_PREFIX = 8
WIDEST_IPV6_PREFIX = 16


def is_open(source: str) -> bool:
    """True for a source that admits the internet: ``0.0.0.0/0``, ``::/0``, ``*``, or any
    range wider than /8 (IPv4) or /16 (IPv6), such as ``0.0.0.0/1`` + ``128.0.0.0/1``."""
    text = source.strip()
    if text.lower() in _AZURE_ANY:
        return True
    try:
        net = ipaddress.ip_network(text, strict=False)
    except ValueError:
        return False
    widest = WIDEST_IPV4_PREFIX if net.version == 4 else WIDEST_IPV6_PREFIX
    return net.prefixlen < widest


def _open_sources(values: Any) -> list[str]:
    return [s for s in strings(values) if is_open(s)]


def _message(where: str, sources: list[str]) -> str:
    return (
        f"{where} allows ingress from {', '.join(sorted(set(sources)))}; fabric and GPU node "
        "rules must name the VPC/subnet CIDRs (or security groups) that need access"
    )


def _gcp_firewall(props: Mapping[str, Any]) -> list[str]:
    if str(get(props, "direction") or "INGRESS").upper() != "INGRESS":
        return []
    if not list(mappings(get(props, "allows"))):
        return []  # a deny rule: denying the world is fine
    ranges = strings(get(props, "sourceRanges"))
    if not ranges and not (
        strings(get(props, "sourceTags")) or strings(get(props, "sourceServiceAccounts"))
    ):
        return [_message("sourceRanges (unset: GCP defaults an ingress rule to 0.0.0.0/0)",
                         ["0.0.0.0/0"])]
    found = _open_sources(ranges)
    return [_message("sourceRanges", found)] if found else []


def _aws_security_group(props: Mapping[str, Any]) -> list[str]:
    out = []
    for i, rule in enumerate(mappings(get(props, "ingress"))):
        found = _open_sources(get(rule, "cidrBlocks")) + _open_sources(get(rule, "ipv6CidrBlocks"))
        if found:
            out.append(_message(f"ingress[{i}]", found))
    return out


def _aws_security_group_rule(props: Mapping[str, Any]) -> list[str]:
    if str(get(props, "type") or "").lower() != "ingress":
        return []
    found = _open_sources(get(props, "cidrBlocks")) + _open_sources(get(props, "ipv6CidrBlocks"))
    return [_message("cidrBlocks", found)] if found else []


def _aws_ingress_rule(props: Mapping[str, Any]) -> list[str]:
    found = _open_sources(get(props, "cidrIpv4")) + _open_sources(get(props, "cidrIpv6"))
    return [_message("cidrIpv4/cidrIpv6", found)] if found else []


def _azure_rule(rule: Mapping[str, Any], where: str) -> list[str]:
    if str(get(rule, "direction") or "").lower() != "inbound":
        return []
    if str(get(rule, "access") or "").lower() != "allow":
        return []
    found = _open_sources(get(rule, "sourceAddressPrefix")) + _open_sources(
        get(rule, "sourceAddressPrefixes")
    )
    return [_message(where, found)] if found else []


def _azure_nsg(props: Mapping[str, Any]) -> list[str]:
    out = []
    for i, rule in enumerate(mappings(get(props, "securityRules"))):
        # Inline rules are ARM sub-resources: fields may sit under "properties".
        body = get(rule, "properties") if isinstance(get(rule, "properties"), Mapping) else rule
        out += _azure_rule(body, f"securityRules[{i}] ({get(rule, 'name') or 'unnamed'})")
    return out


def _azure_security_rule(props: Mapping[str, Any]) -> list[str]:
    return _azure_rule(props, "sourceAddressPrefix(es)")


def _oci_security_list(props: Mapping[str, Any]) -> list[str]:
    out = []
    for i, rule in enumerate(mappings(get(props, "ingressSecurityRules"))):
        if str(get(rule, "sourceType") or "CIDR_BLOCK").upper() != "CIDR_BLOCK":
            continue
        found = _open_sources(get(rule, "source"))
        if found:
            out.append(_message(f"ingressSecurityRules[{i}].source", found))
    return out


def _oci_nsg_rule(props: Mapping[str, Any]) -> list[str]:
    if str(get(props, "direction") or "").upper() != "INGRESS":
        return []
    if str(get(props, "sourceType") or "CIDR_BLOCK").upper() != "CIDR_BLOCK":
        return []
    found = _open_sources(get(props, "source"))
    return [_message("source", found)] if found else []


def _do_firewall(props: Mapping[str, Any]) -> list[str]:
    out = []
    for i, rule in enumerate(mappings(get(props, "inboundRules"))):
        found = _open_sources(get(rule, "sourceAddresses"))
        if found:
            out.append(_message(f"inboundRules[{i}].sourceAddresses", found))
    return out


# Stateless network ACLs must admit the return traffic of outbound connections (NAT,
# image pulls) from anywhere on the ephemeral ports; only that exact shape is accepted.
_EPHEMERAL = (1024, 65535)


def _acl_rule(rule: Mapping[str, Any], where: str, action_key: str) -> list[str]:
    if str(get(rule, action_key) or "").lower() != "allow":
        return []
    found = _open_sources(get(rule, "cidrBlock")) + _open_sources(get(rule, "ipv6CidrBlock"))
    if not found:
        return []
    ports = (get(rule, "fromPort"), get(rule, "toPort"))
    protocol = str(get(rule, "protocol") or "").lower()
    if protocol in ("6", "17", "tcp", "udp") and ports == _EPHEMERAL:
        return []
    return [_message(where, found) + " (network ACL; only ephemeral-port return traffic "
                     "1024-65535 may come from anywhere)"]


def _aws_network_acl(props: Mapping[str, Any]) -> list[str]:
    out = []
    for i, rule in enumerate(mappings(get(props, "ingress"))):
        out += _acl_rule(rule, f"ingress[{i}]", "action")
    return out


def _aws_network_acl_rule(props: Mapping[str, Any]) -> list[str]:
    if get(props, "egress") is True:
        return []
    return _acl_rule(props, "cidrBlock", "ruleAction")


CHECKS: dict[str, Callable[[Mapping[str, Any]], list[str]]] = {
    "gcp:compute/firewall:Firewall": _gcp_firewall,
    "aws:ec2/securityGroup:SecurityGroup": _aws_security_group,
    "aws:ec2/defaultSecurityGroup:DefaultSecurityGroup": _aws_security_group,
    "aws:ec2/networkAcl:NetworkAcl": _aws_network_acl,
    "aws:ec2/defaultNetworkAcl:DefaultNetworkAcl": _aws_network_acl,
    "aws:ec2/networkAclRule:NetworkAclRule": _aws_network_acl_rule,
    "aws:ec2/securityGroupRule:SecurityGroupRule": _aws_security_group_rule,
    "aws:vpc/securityGroupIngressRule:SecurityGroupIngressRule": _aws_ingress_rule,
    "azure-native:network:NetworkSecurityGroup": _azure_nsg,
    "azure-native:network:SecurityRule": _azure_security_rule,
    "oci:Core/securityList:SecurityList": _oci_security_list,
    "oci:Core/defaultSecurityList:DefaultSecurityList": _oci_security_list,
    "oci:Core/networkSecurityGroupSecurityRule:NetworkSecurityGroupSecurityRule": _oci_nsg_rule,
    "digitalocean:index/firewall:Firewall": _do_firewall,
}


def open_ingress(resource_type: str, props: Mapping[str, Any]) -> list[str]:
    """Violations of "no ingress from 0.0.0.0/0" for one resource (empty: compliant)."""
    check = CHECKS.get(resource_type)
    return check(props) if check else []
