"""How private GKE nodes reach the registries they pull from (pure; no SDK).

Nodes without public IPs (``gcp.private_nodes``, the default) reach Google's
registries (``gcr.io``, ``*.gcr.io``, ``*.pkg.dev``) over Private Google Access on
the node subnet, and everything else (``nvcr.io``, ``registry.k8s.io``,
``reg.kyverno.io``, ``ghcr.io``, Docker Hub) only through a Cloud NAT on the node
VPC's region. Without the NAT the Helm releases time out on their first image
pull. cluster-toolkit creates the same pair in ``modules/network/vpc``
(``enable_cloud_router`` / ``enable_cloud_nat``, router ``<network>-router``, NAT
``cloud-nat-<region>``, one per subnet region).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from gpu_fabric.clouds.gcp.options import GcpOptions

PRIVATE_GOOGLE_ACCESS = "private-google-access"
NAT = "cloud-nat"
PUBLIC_IP = "node-public-ip"
DOCKER_HUB = "docker.io"


def wants_nat(opts: GcpOptions) -> bool:
    """Cloud NAT unless the spec says otherwise: on for private nodes on created networks."""
    if opts.cloud_nat is not None:
        return opts.cloud_nat
    return opts.private_nodes and opts.existing_networks is None


def router_name(network: str) -> str:
    """cluster-toolkit modules/network/vpc: ``${network_name}-router``."""
    return f"{network}-router"


def nat_name(region: str) -> str:
    """cluster-toolkit modules/network/vpc: ``cloud-nat-${region}``."""
    return f"cloud-nat-{region}"


def registry_host(image: str) -> str:
    """The registry host of an image reference (Docker's rule: a first path part with a
    dot or a colon, or ``localhost``, is a host; otherwise the image is on Docker Hub)."""
    first, sep, _ = image.partition("/")
    if sep and ("." in first or ":" in first or first == "localhost"):
        return first.split(":")[0].lower()
    return DOCKER_HUB


def is_google_registry(host: str) -> bool:
    """Registries Private Google Access reaches: Container Registry and Artifact Registry."""
    return host == "gcr.io" or host.endswith(".gcr.io") or host.endswith(".pkg.dev")


def image_route(
    image: str, *, private_nodes: bool, google_access: bool, nat: bool
) -> str | None:
    """How a node pulls ``image``, or ``None`` when it cannot."""
    if not private_nodes:
        return PUBLIC_IP
    if is_google_registry(registry_host(image)) and google_access:
        return PRIVATE_GOOGLE_ACCESS
    return NAT if nat else None
