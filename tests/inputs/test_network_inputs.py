"""Network ranges and limits each cloud refuses (issue 34).

Special-purpose IPv4 ranges: IANA IPv4 Special-Purpose Address Registry (RFC 6890) and
RFC 5737's TEST-NETs. AKS: "AKS clusters may not use 169.254.0.0/16, 172.30.0.0/16,
172.31.0.0/16, or 192.0.2.0/24 for the Kubernetes service address range"
(learn.microsoft.com/azure/aks/configure-azure-cni). GCP VPC MTU 1300-8896
(cloud.google.com/vpc/docs/mtu). GKE: up to 100 authorized networks
(cloud.google.com/kubernetes-engine/docs/how-to/authorized-networks).
"""

from __future__ import annotations

from typing import Any

import pytest

from gpu_fabric.errors import SpecError
from gpu_fabric.preflight import check_spec
from gpu_fabric.spec import load_spec
from tests.specs import API_ACCESS, spec_dict


def _refused(data: dict[str, Any]) -> str:
    with pytest.raises(SpecError) as err:
        check_spec(load_spec(data))
    return str(err.value)


@pytest.mark.parametrize(("field", "cidr", "what"), [
    ("cidr", "224.0.0.0/16", "224.0.0.0/4 (multicast)"),
    ("cidr", "127.0.0.0/16", "127.0.0.0/8 (loopback)"),
    ("pod_cidr", "169.254.0.0/16", "169.254.0.0/16 (link-local)"),
    ("service_cidr", "240.0.0.0/16", "240.0.0.0/4 (reserved)"),
    ("fabric_cidr", "0.0.0.0/16", "0.0.0.0/8 ('this network')"),
    ("cidr", "192.0.2.0/24", "192.0.2.0/24 (documentation (TEST-NET-1))"),
    ("pod_cidr", "198.51.100.0/24", "198.51.100.0/24 (documentation (TEST-NET-2))"),
    ("fabric_cidr", "203.0.113.0/24", "203.0.113.0/24 (documentation (TEST-NET-3))"),
])
def test_special_purpose_ranges_are_refused(field: str, cidr: str, what: str) -> None:
    network = {"cidr": "10.0.0.0/16", field: cidr}
    text = _refused(spec_dict("aws", network=network))
    assert f"network.{field}: network.{field} {cidr} overlaps the special-purpose range {what}" \
        in text, text


@pytest.mark.parametrize("cidr", ["169.254.0.0/16", "172.30.0.0/16", "172.31.0.0/16",
                                  "192.0.2.0/24"])
def test_aks_reserved_service_ranges(cidr: str) -> None:
    for field in ("service_cidr", "pod_cidr"):
        text = _refused(spec_dict("azure", network={"cidr": "10.0.0.0/16", field: cidr}))
        assert f"network.{field}" in text and cidr.split("/")[0][:7] in text, text


def test_aks_reserved_ranges_are_fine_elsewhere() -> None:
    """Only AKS reserves 172.31.0.0/16: an EKS pod range there is accepted by the spec."""
    spec = load_spec(spec_dict("aws", network={"cidr": "10.0.0.0/16",
                                               "service_cidr": "172.31.0.0/16"}))
    assert str(spec.network.service_cidr) == "172.31.0.0/16"


@pytest.mark.parametrize(("mtu", "ok"), [(1299, False), (1300, True), (8896, True),
                                         (8897, False), (9000, False)])
def test_gcp_vpc_mtu(mtu: int, ok: bool) -> None:
    data = spec_dict("gcp", fabric={"mtu": mtu})
    if ok:
        check_spec(load_spec(data))
    elif mtu < 1280:
        pass  # below the spec's own 1280 bound: refused by the field
    else:
        assert f"fabric.mtu: a GCP VPC's MTU is 1300 to 8896 (got {mtu})" in _refused(data)


def test_gke_authorized_networks_at_most_100() -> None:
    nets = [f"10.{i}.0.0/24" for i in range(101)]
    text = _refused(spec_dict("gcp", api_access={"authorized_cidrs": nets}))
    assert "api_access.authorized_cidrs: 101 authorized networks; GKE allows at most 100" in text
    check_spec(load_spec(spec_dict("gcp", api_access={"authorized_cidrs": nets[:100]})))
    assert API_ACCESS["authorized_cidrs"] == ["203.0.113.0/24"]  # authorized: not a network
