"""Kubeflow MPI Operator: no layer part; NcclAcceptance installs it when an MPIJob runs
the NCCL test (``enabled: false`` keeps it out, ``version`` picks its image tag)."""

from __future__ import annotations

from gpu_fabric import versions
from gpu_fabric.fabric.addons.model import Addon

MPI_OPERATOR = Addon(
    key="mpi_operator",
    artifact=versions.MPI_OPERATOR,
    namespace="mpi-operator",
    summary="Kubeflow MPI Operator (installed by NcclAcceptance when an MPIJob runs the test)",
    built_by="gpu_fabric.nccl.component:NcclAcceptance",
)
