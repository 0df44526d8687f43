"""Every Helm chart and container image this project deploys, pinned in one place.

Nothing is fetched at preview or apply time except these pinned artefacts (Helm
charts by repo + name + version; images by tag, with a digest where upstream
publishes one). A spec may override an add-on's version; the default is here.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Chart:
    """A Helm chart reference. ``repo`` is an https Helm repo or an ``oci://`` registry."""

    repo: str
    name: str
    version: str

    @property
    def is_oci(self) -> bool:
        return self.repo.startswith("oci://")


@dataclass(frozen=True)
class Image:
    repository: str
    tag: str
    digest: str | None = None

    @property
    def ref(self) -> str:
        """Full reference: ``repo:tag``, ``repo:tag@sha256:...`` when a digest is pinned,
        or ``repo@sha256:...`` for images upstream publishes by digest only."""
        base = f"{self.repository}:{self.tag}" if self.tag else self.repository
        return f"{base}@{self.digest}" if self.digest else base

    def with_tag(self, tag: str) -> Image:
        return Image(self.repository, tag)


NVIDIA_HELM = "https://helm.ngc.nvidia.com/nvidia"

# -- Helm charts ---------------------------------------------------------------
GPU_OPERATOR = Chart(NVIDIA_HELM, "gpu-operator", "v26.7.0")
NETWORK_OPERATOR = Chart(NVIDIA_HELM, "network-operator", "26.4.1")
NVIDIA_DRA_DRIVER = Chart(NVIDIA_HELM, "nvidia-dra-driver-gpu", "25.12.0")
NVIDIA_DEVICE_PLUGIN = Chart(
    "https://nvidia.github.io/k8s-device-plugin", "nvidia-device-plugin", "0.18.2"
)
DRANET = Chart("oci://registry.k8s.io/networking/charts", "dranet", "v1.4.0")
EFA_DEVICE_PLUGIN = Chart(
    "https://aws.github.io/eks-charts", "aws-efa-k8s-device-plugin", "v0.5.30"
)
KYVERNO = Chart("https://kyverno.github.io/kyverno", "kyverno", "3.6.1")
KUEUE = Chart("oci://registry.k8s.io/kueue/charts", "kueue", "0.14.4")
JOBSET = Chart("oci://registry.k8s.io/jobset/charts", "jobset", "0.10.1")
KUBE_PROMETHEUS_STACK = Chart(
    "https://prometheus-community.github.io/helm-charts", "kube-prometheus-stack", "79.7.1"
)
# NVSentinel (GPU/NIC fault detection, cordon/drain; docs/health.md): the chart the
# release workflow publishes to ghcr.io/nvidia (NVIDIA/NVSentinel .github/workflows/
# release.yml + distros/kubernetes/Makefile helm-publish: chart version = the tag).
# v1.19.0: README.md NVSENTINEL_VERSION at e002c5dc (chore(fern): register v1.19.0).
NVSENTINEL = Chart("oci://ghcr.io/nvidia", "nvsentinel", "v1.19.0")
# cert-manager: NVSentinel's datastore (MongoDB, TLS) needs it once fault quarantine
# (cordon) is on; the version NVSentinel's README installs at e002c5dc ("1. Install
# cert-manager (for TLS)": jetstack/cert-manager --version v1.19.1).
CERT_MANAGER = Chart("https://charts.jetstack.io", "cert-manager", "v1.19.1")

# -- Images -------------------------------------------------------------------
MULTUS_THICK = Image("ghcr.io/k8snetworkplumbingwg/multus-cni", "v4.3.0-thick")
RDMA_SHARED_DEVICE_PLUGIN = Image("ghcr.io/mellanox/k8s-rdma-shared-dev-plugin", "v1.5.3")
SRIOV_DEVICE_PLUGIN = Image("ghcr.io/k8snetworkplumbingwg/sriov-network-device-plugin", "v3.9.0")
CNI_PLUGINS = Image("ghcr.io/k8snetworkplumbingwg/plugins", "v1.6.2")
GKE_NCCL_RDMA_INSTALLER = Image(
    "us-docker.pkg.dev/gce-ai-infra/gpudirect-gib/nccl-plugin-gib", "v1.1.1"
)
GKE_NCCL_RDMA_INSTALLER_ARM64 = Image(
    "us-docker.pkg.dev/gce-ai-infra/gpudirect-gib/nccl-plugin-gib-arm64", "v1.1.0"
)
GKE_NCCL_DIAGNOSTIC = Image(
    "us-docker.pkg.dev/gce-ai-infra/gpudirect-gib/nccl-plugin-gib-diagnostic", "v1.1.1"
)
GKE_NCCL_DIAGNOSTIC_ARM64 = Image(
    "us-docker.pkg.dev/gce-ai-infra/gpudirect-gib/nccl-plugin-gib-diagnostic-arm64", "v1.0.6"
)
GKE_TCPXO_INSTALLER = Image(
    "us-docker.pkg.dev/gce-ai-infra/gpudirect-tcpxo/nccl-plugin-gpudirecttcpx-dev", "v1.0.15"
)
GKE_TCPXO_RXDM = Image("us-docker.pkg.dev/gce-ai-infra/gpudirect-tcpxo/tcpgpudmarxd-dev", "v1.0.21")
GKE_TCPX_INSTALLER = Image(
    "us-docker.pkg.dev/gce-ai-infra/gpudirect-tcpx/nccl-plugin-gpudirecttcpx-dev", "v3.1.9"
)
GKE_TCPX_RXDM = Image("us-docker.pkg.dev/gce-ai-infra/gpudirect-tcpx/tcpgpudmarxd-dev", "v2.0.12")
# NRI device injector (hands the unprivileged RxDM its GPU device nodes): Google
# publishes it by digest only (container-engine-accelerators
# nri_device_injector/nri-device-injector.yaml).
GKE_NRI_DEVICE_INJECTOR = Image(
    "gcr.io/gke-release/nri-device-injector",
    "",
    "sha256:6e79483d52abdc28454bf186320b10a56b0f117a10e8d65d5c74dbb821a76970",
)
PAUSE = Image("registry.k8s.io/pause", "3.10")
# kubectl for the OKE add-on mode wait on the GPU Operator's toolkit rollout
# (components/gpu_fabric/clouds/oci/toolkit_wait.py): the image Kubernetes publishes with every
# release since 1.28 (kubernetes/sig-release#2260; kubernetes/kubernetes
# build/server-image/kubectl/Dockerfile, ENTRYPOINT /bin/kubectl), at the newest OKE
# version of gpu_fabric.versions.OKE_KUBERNETES_VERSIONS. `kubectl wait --for=create`
# needs kubectl >= 1.31.
KUBECTL = Image("registry.k8s.io/kubectl", "v1.34.1")
# GKE's NVIDIA driver installer for COS nodes whose pools disable GKE's own driver
# install (DRA pools): container-engine-accelerators
# nvidia-driver-installer/cos/daemonset-preloaded.yaml at f2cf4197a5c3. The installer
# image is preloaded on every GKE COS GPU node (imagePullPolicy Never; no registry).
GKE_COS_DRIVER_INSTALLER = Image("cos-nvidia-installer", "fixed")
GKE_PARTITION_GPU = Image(
    "gcr.io/gke-release/nvidia-partition-gpu",
    "",
    "sha256:de12f85ebfb4fb6c1893cd30c23aab662a72fa0448f97ef74fccb82d7522ef17",
)
GKE_PAUSE = Image(
    "gke.gcr.io/pause", "3.8",
    "sha256:880e63f94b145e46f1b1082bb71b85e21f16b99b180b9996407d61240ceb9830",
)
# A shell with nsenter (util-linux) for installer steps that run in the host's
# namespaces (GKE A3 Mega: aperture devices, import-helper module, TCP ingress).
# Docker Official Image: its index digest as docker-library publishes it
# (docker-library/repo-info repos/ubuntu/remote/24.04.md at 1c2b9d92), so a re-pushed
# 24.04 never changes what runs in the host's namespaces.
HOST_TOOLS = Image(
    "ubuntu", "24.04",
    "sha256:69cecf4bbf72d2d44a9eef1b71fb98c7fb973d78af11399deccef19beb008ad9",
)

# The active fabric health check's controller (gpu_fabric.health): the Docker Official
# python image, slim; its index digest as docker-library publishes it
# (docker-library/repo-info repos/python/remote/3.13-slim.md at 2986dca3: PYTHON_VERSION
# 3.13.14), so the script ConfigMap always runs on the same interpreter. Standard
# library only: it talks to the API server with the ServiceAccount token.
HEALTH_CHECK_PYTHON = Image(
    "python", "3.13-slim",
    "sha256:9662417aace5ae7b8e2609cce472b72a8958e134ba372808abe9cc1a0c0125e6",
)

# -- AWS (EKS) -------------------------------------------------------------------
# The vpc-cni EKS add-on, managed so the cluster runs one new enough for efa-only
# interfaces (>= 1.18.5, EKS user guide node-efa.adoc). v1.20.1-eksbuild.3: the
# newest add-on version the EKS user guide (managing-vpc-cni) lists for Kubernetes
# 1.27-1.33; `aws.vpc_cni_version` overrides it.
EKS_VPC_CNI_ADDON = "v1.20.1-eksbuild.3"
EKS_VPC_CNI_EFA_ONLY_MIN = (1, 18, 5)
# kube-proxy and CoreDNS as managed EKS add-ons, pinned per Kubernetes minor (as
# terraform-aws-eks manages them per cluster version): the latest add-on version per
# minor in the EKS user guide tables (https://docs.aws.amazon.com/eks/latest/userguide/
# managing-kube-proxy.html and managing-coredns.html, "versions" tables).
EKS_KUBE_PROXY_ADDON: dict[str, str] = {
    "1.34": "v1.34.1-eksbuild.2",
    "1.33": "v1.33.5-eksbuild.2",
    "1.32": "v1.32.9-eksbuild.2",
    "1.31": "v1.31.13-eksbuild.2",
}
EKS_COREDNS_ADDON: dict[str, str] = {
    "1.34": "v1.12.4-eksbuild.1",
    "1.33": "v1.12.4-eksbuild.1",
    "1.32": "v1.11.4-eksbuild.24",
    "1.31": "v1.11.4-eksbuild.24",
}

# -- Azure (AKS InfiniBand) ------------------------------------------------------
# DOCA (MOFED) driver container the NicClusterPolicy runs on ND nodes; the version
# Azure/aks-rdma-infiniband configs pin (the operator appends the OS/arch suffix).
AZURE_DOCA_DRIVER = Image("nvcr.io/nvidia/mellanox/doca-driver", "doca3.2.0-25.10-1.2.8.0-2")

# -- OCI (OKE) -------------------------------------------------------------------
# OKE control-plane/node versions per Kubernetes minor (docs.oracle.com ContEng
# "Supported Kubernetes versions" and the cluster add-on version table, which lists
# 1.31-1.34). The patch level is the one OKE publishes for the minor; a spec may
# give a full version (1.34.1) instead, which is used as is.
OKE_KUBERNETES_VERSIONS: dict[str, str] = {
    "1.31": "v1.31.1",
    "1.32": "v1.32.1",
    "1.33": "v1.33.1",
    "1.34": "v1.34.1",
}

# -- NCCL acceptance (gpu_fabric.nccl) ------------------------------------------
# Kubeflow MPI Operator (runs MPIJobs): kubeflow/mpi-operator v0.6.0 release
# (deploy/v2beta1/mpi-operator.yaml installs image mpioperator/mpi-operator:0.6.0).
MPI_OPERATOR = Image("mpioperator/mpi-operator", "0.6.0")
# nccl-tests with EFA + aws-ofi-nccl (binaries in /opt/nccl-tests/build): tag from
# aws-samples/awsome-distributed-training micro-benchmarks/nccl-tests README table
# (CUDA 12.8.1, EFA 1.43.2, aws-ofi-nccl v1.16.3, NCCL v2.27.7-1, nccl-tests v2.16.9).
NCCL_TESTS_EFA = Image(
    "public.ecr.aws/hpc-cloud/nccl-tests",
    "cuda12.8.1-efa1.43.2-ofiv1.16.3-ncclv2.27.7-1-testsv2.16.9",
)
# nccl-tests with OpenMPI + sshd for IB/RoCE fabrics (Azure, OCI, DigitalOcean): the
# CoreWeave image SkyPilot's InfiniBand NCCL example pins.
NCCL_TESTS_IB = Image(
    "ghcr.io/coreweave/nccl-tests", "12.8.1-devel-ubuntu22.04-nccl2.26.2-1-0708d2e"
)
# The same for arm64 nodes (GB200/GB300): a tag coreweave/nccl-tests lists as multi-arch
# (README.md at f443305cf963: "Each image is multi-arch, and can be used for both
# linux/amd64 and linux/arm64 containers", table of tags), NCCL 2.27.6 (MNNVL).
NCCL_TESTS_IB_ARM64 = Image(
    "ghcr.io/coreweave/nccl-tests", "12.8.1-devel-ubuntu22.04-nccl2.27.6-1-7c12c62"
)
