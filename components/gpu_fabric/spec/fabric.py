"""The fabric section: how NICs reach pods (attach mode, device plugin, DRA, NADs)."""

from __future__ import annotations

from enum import StrEnum
from typing import Literal, Self

from pydantic import (
    Field,
    ValidationInfo,
    field_validator,
    model_validator,
)

from gpu_fabric.catalog import Cloud
from gpu_fabric.clouds.registry import provider_for, providers
from gpu_fabric.kube_version import KubeVersion
from gpu_fabric.spec.base import SpecModel, _ctx_cloud, _ctx_version, _dns_label, _fail


# -- fabric --------------------------------------------------------------------
class AttachMode(StrEnum):
    """How the fabric NICs reach the pods."""

    AUTO = "auto"
    DEVICE_PLUGIN = "device-plugin"
    DRA = "dra"
    HOST_NETWORK = "host-network"


class FabricSpec(SpecModel):
    mode: AttachMode = Field(
        default=AttachMode.AUTO,
        description="device-plugin: device plugin (+ Multus where NICs move into the pod); "
        "dra: NVIDIA DRA driver + DraNet claims aligned on pcieRoot; host-network: pods use "
        "the node's network; auto: the cloud's default",
    )
    device_plugin: Literal["auto", "rdma-shared", "sriov", "efa", "network-operator"] = Field(
        default="auto", description="Which device plugin exposes the fabric (device-plugin mode)"
    )
    dranet: Literal["auto", "managed", "self"] = Field(
        default="auto",
        description="DRA mode NIC driver: GKE-managed DRANet or self-installed DraNet. auto: "
        "managed where the cloud and version allow it",
    )
    dra_api: Literal["auto", "v1", "v1beta1"] = Field(
        default="auto", description="resource.k8s.io version; auto: v1 from Kubernetes 1.34"
    )
    gpu_device_class: str = Field(default="gpu.nvidia.com", description="GPU DeviceClass name")
    nic_device_class: str | None = Field(
        default=None,
        description="NIC DeviceClass name job runners request (default 'dranet'; GKE managed: "
        "mrdma.google.com)",
    )
    mtu: int | None = Field(default=None, ge=1280, le=9216, description="Override fabric MTU")
    nad_type: Literal["auto", "host-device", "sriov"] = "auto"
    namespaces: list[str] = Field(
        default_factory=lambda: ["default"],
        description="Namespaces that get the NetworkAttachmentDefinitions / claim templates",
    )
    claim_gpu_counts: list[int] = Field(
        default_factory=lambda: [1, 2, 4, 8],
        description="ResourceClaimTemplates to create (GPUs per claim, each with as many NICs)",
    )

    @field_validator("namespaces")
    @classmethod
    def _namespaces(cls, value: list[str]) -> list[str]:
        return _checked_namespaces(value)

    @field_validator("gpu_device_class", "nic_device_class")
    @classmethod
    def _device_class(cls, value: str | None) -> str | None:
        return _checked_device_class(value)

    @field_validator("claim_gpu_counts")
    @classmethod
    def _claims(cls, value: list[int]) -> list[int]:
        return _claim_counts(value)

    @model_validator(mode="after")
    def _fits_cluster(self, info: ValidationInfo) -> Self:
        _check_fabric(self, _ctx_cloud(info), _ctx_version(info))
        return self


def _check_fabric(
    fabric: FabricSpec, cloud: Cloud | None, version: KubeVersion | None
) -> None:
    """DRA fits the Kubernetes version; managed DRANet and the EFA plugin fit the cloud."""
    dra = fabric.mode is AttachMode.DRA
    if dra and version is not None:
        if fabric.dra_api == "v1" and version < KubeVersion(1, 34):
            raise _fail(
                "dra_api",
                "resource.k8s.io/v1 needs Kubernetes 1.34+ (cluster is {v}); use "
                "dra_api v1beta1 or a newer version",
                v=str(version),
                at="dra_api", got=fabric.dra_api,
            )
        if fabric.dra_api == "auto" and version < KubeVersion(1, 34):
            raise _fail(
                "dra_api",
                "DRA on Kubernetes {v} uses the beta API resource.k8s.io/v1beta1; set "
                "fabric.dra_api: v1beta1 to opt in, or use Kubernetes 1.34+",
                v=str(version),
                at="dra_api", got=fabric.dra_api,
            )
        if version < KubeVersion(1, 32):
            raise _fail(
                "dra_version", "DRA needs Kubernetes 1.32 or later", at="mode", got="dra"
            )
    if fabric.dranet == "managed" and cloud is not None \
            and not provider_for(cloud).managed_dranet:
        where = " and ".join(p.docs.service for p in providers() if p.managed_dranet)
        raise _fail(
            "dranet_managed",
            f"managed DRANet is a {where} feature; on {{c}} use dranet: self",
            c=cloud.display,
            at="dranet", got=fabric.dranet,
        )
    if fabric.dranet == "managed" and not dra:
        raise _fail("dranet_mode", "dranet: managed needs fabric.mode: dra", at="dranet")
    owners = [p.cloud for p in providers() if fabric.device_plugin in p.own_device_plugins]
    if owners and cloud is not None and cloud not in owners:
        raise _fail(
            "device_plugin",
            f"the {fabric.device_plugin.upper()} device plugin exists only on "
            f"{' and '.join(c.display for c in owners)}",
            at="device_plugin", got=fabric.device_plugin,
        )


def _checked_namespaces(value: list[str]) -> list[str]:
    """Namespace names (DNS labels), each once."""
    for ns in value:
        _dns_label(ns, 63)
    if len(set(value)) != len(value):
        raise _fail("duplicate", "fabric.namespaces lists a namespace twice")
    return value


def _checked_device_class(value: str | None) -> str | None:
    """A DeviceClass name: a DNS-1123 subdomain (<= 253, dot-separated labels; the old
    pattern let 'a..b' and 300 characters through: issue 34)."""
    from gpu_fabric.spec.values import dns1123_subdomain

    if value is not None and dns1123_subdomain(value):
        raise _fail("device_class", "'{v}' is not a valid DeviceClass name ({why})", v=value,
                    why=dns1123_subdomain(value))
    return value


def _claim_counts(value: list[int]) -> list[int]:
    """Distinct positive GPU counts, sorted (one ResourceClaimTemplate each)."""
    if not value or any(n < 1 for n in value) or len(set(value)) != len(value):
        raise _fail("claim_counts", "claim_gpu_counts needs distinct positive GPU counts")
    return sorted(value)
