"""Which add-ons a cluster gets, at which pinned version.

Three layers decide, last one wins: the generic rules below (derived from the
fabric descriptions), the ``addon_defaults`` of the cloud and of the layers above
the fabric (:mod:`gpu_fabric.fabric.plugins`; the platform turns on Kueue for
teams) and what the spec says explicitly (``addons.<name>.enabled``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from gpu_fabric import versions
from gpu_fabric.fabric.description import Attach, DevicePlugin
from gpu_fabric.versions import Chart, Image

if TYPE_CHECKING:
    from gpu_fabric.fabric.description import FabricDescription
    from gpu_fabric.fabric.plugins import LayerPlugins
    from gpu_fabric.spec import AddonSpec, ClusterSpec


@dataclass(frozen=True)
class AddonInfo:
    """Static facts about an add-on: its pinned artefact and namespace."""

    key: str
    artifact: Chart | Image | None
    namespace: str
    summary: str


ADDONS: dict[str, AddonInfo] = {
    a.key: a
    for a in (
        AddonInfo("multus", versions.MULTUS_THICK, "kube-system", "Multus CNI (thick plugin)"),
        AddonInfo(
            "rdma_shared_device_plugin", versions.RDMA_SHARED_DEVICE_PLUGIN, "kube-system",
            "Mellanox RDMA shared device plugin (one resource per rail)",
        ),
        AddonInfo(
            "sriov_device_plugin", versions.SRIOV_DEVICE_PLUGIN, "kube-system",
            "SR-IOV network device plugin (VFs)",
        ),
        AddonInfo(
            "network_operator", versions.NETWORK_OPERATOR, "network-operator",
            "NVIDIA Network Operator + NicClusterPolicy",
        ),
        AddonInfo("gpu_operator", versions.GPU_OPERATOR, "gpu-operator", "NVIDIA GPU Operator"),
        AddonInfo(
            "nvidia_device_plugin", versions.NVIDIA_DEVICE_PLUGIN, "nvidia-device-plugin",
            "NVIDIA device plugin (nvidia.com/gpu)",
        ),
        AddonInfo(
            "efa_device_plugin", versions.EFA_DEVICE_PLUGIN, "kube-system",
            "AWS EFA device plugin (vpc.amazonaws.com/efa)",
        ),
        AddonInfo(
            "nvidia_dra_driver", versions.NVIDIA_DRA_DRIVER, "nvidia-dra-driver-gpu",
            "NVIDIA DRA driver for GPUs (gpu.nvidia.com, ComputeDomains)",
        ),
        AddonInfo("dranet", versions.DRANET, "kube-system", "DraNet (NICs as DRA devices)"),
        AddonInfo("nccl_installer", None, "kube-system",
                  "Cloud NCCL plugin installer DaemonSet (GKE A3: + NRI device injector)"),
        AddonInfo("kyverno", versions.KYVERNO, "kyverno", "Kyverno + fabric injection policies"),
        AddonInfo("kueue", versions.KUEUE, "kueue-system", "Kueue gang scheduling"),
        AddonInfo("jobset", versions.JOBSET, "jobset-system", "JobSet"),
        AddonInfo(
            "mpi_operator", versions.MPI_OPERATOR, "mpi-operator",
            "Kubeflow MPI Operator (installed by NcclAcceptance when an MPIJob runs the test)",
        ),
        AddonInfo(
            "prometheus", versions.KUBE_PROMETHEUS_STACK, "monitoring",
            "kube-prometheus-stack (Prometheus Operator, Grafana)",
        ),
    )
}


@dataclass(frozen=True)
class ResolvedAddon:
    key: str
    enabled: bool
    version: str | None
    values: Mapping[str, Any] = field(default_factory=dict)
    namespace: str = ""

    def chart(self) -> Chart:
        """The pinned chart, at the spec's version if it overrides the default."""
        artifact = ADDONS[self.key].artifact
        if not isinstance(artifact, Chart):
            raise TypeError(f"add-on {self.key} is not a Helm chart")
        return Chart(artifact.repo, artifact.name, self.version or artifact.version)

    def image(self, default: Image | None = None) -> Image:
        artifact = default or ADDONS[self.key].artifact
        if not isinstance(artifact, Image):
            raise TypeError(f"add-on {self.key} is not an image")
        return artifact.with_tag(self.version) if self.version else artifact


class ResolvedAddons(dict[str, ResolvedAddon]):
    def on(self, key: str) -> bool:
        return self[key].enabled


def generic_defaults(fabrics: Mapping[str, FabricDescription]) -> dict[str, bool]:
    """What the fabric descriptions alone imply (clouds refine this)."""
    fabs = list(fabrics.values())
    dra_nics = any(f.attach is Attach.DRA and f.dra and not f.dra.managed_nics for f in fabs)
    return {
        "multus": any(f.nad_type == "host-device" for f in fabs),
        "rdma_shared_device_plugin": False,
        "sriov_device_plugin": False,
        "network_operator": False,
        "gpu_operator": False,
        "nvidia_device_plugin": False,
        "efa_device_plugin": any(f.device_plugin is DevicePlugin.EFA for f in fabs),
        "nvidia_dra_driver": any(f.uses_dra for f in fabs),
        "dranet": dra_nics,
        "nccl_installer": any(f.needs_nccl_installer for f in fabs),
        "kyverno": any(f.machine.has_fabric for f in fabs),
        "kueue": False,
        "jobset": False,
        "mpi_operator": False,
        "prometheus": False,
    }


def resolve_addons(
    spec: ClusterSpec,
    fabrics: Mapping[str, FabricDescription],
    plugins: LayerPlugins | None = None,
) -> ResolvedAddons:
    from gpu_fabric.fabric.plugins import installed

    enabled = generic_defaults(fabrics)
    for contributor in installed(plugins).contributors(spec.cloud):
        enabled.update(contributor.addon_defaults(spec, fabrics))
    resolved = ResolvedAddons()
    for key, info in ADDONS.items():
        choice: AddonSpec = getattr(spec.addons, key)
        on = choice.enabled if choice.enabled is not None else enabled.get(key, False)
        resolved[key] = ResolvedAddon(
            key=key,
            enabled=on,
            version=choice.version,
            values=dict(choice.values),
            namespace=info.namespace,
        )
    return resolved
