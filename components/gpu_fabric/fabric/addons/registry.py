"""Every add-on, in the order the spec's ``addons:`` section and the resolver list them.

Adding an add-on is one module in this package (its :class:`Addon`) and one line
here; the spec's section (:mod:`gpu_fabric.spec.addons`), the resolver
(:mod:`gpu_fabric.fabric.addons.resolve`), ``render`` and the namespaces Kyverno
exempts follow from this table.
"""

from __future__ import annotations

from gpu_fabric.fabric.addons.cert_manager import CERT_MANAGER
from gpu_fabric.fabric.addons.dranet import DRANET
from gpu_fabric.fabric.addons.efa_device_plugin import EFA_DEVICE_PLUGIN
from gpu_fabric.fabric.addons.gpu_operator import GPU_OPERATOR
from gpu_fabric.fabric.addons.jobset import JOBSET
from gpu_fabric.fabric.addons.kueue import KUEUE
from gpu_fabric.fabric.addons.kyverno import KYVERNO
from gpu_fabric.fabric.addons.model import Addon
from gpu_fabric.fabric.addons.mpi_operator import MPI_OPERATOR
from gpu_fabric.fabric.addons.multus import MULTUS
from gpu_fabric.fabric.addons.nccl_installer import NCCL_INSTALLER
from gpu_fabric.fabric.addons.network_operator import NETWORK_OPERATOR
from gpu_fabric.fabric.addons.nvidia_device_plugin import NVIDIA_DEVICE_PLUGIN
from gpu_fabric.fabric.addons.nvidia_dra_driver import NVIDIA_DRA_DRIVER
from gpu_fabric.fabric.addons.nvsentinel import NVSENTINEL
from gpu_fabric.fabric.addons.prometheus import PROMETHEUS
from gpu_fabric.fabric.addons.rdma_shared_device_plugin import RDMA_SHARED_DEVICE_PLUGIN
from gpu_fabric.fabric.addons.sriov_device_plugin import SRIOV_DEVICE_PLUGIN

ADDONS: dict[str, Addon] = {
    addon.key: addon
    for addon in (
        MULTUS,
        RDMA_SHARED_DEVICE_PLUGIN,
        SRIOV_DEVICE_PLUGIN,
        NETWORK_OPERATOR,
        GPU_OPERATOR,
        NVIDIA_DEVICE_PLUGIN,
        EFA_DEVICE_PLUGIN,
        NVIDIA_DRA_DRIVER,
        DRANET,
        NCCL_INSTALLER,
        KYVERNO,
        KUEUE,
        JOBSET,
        MPI_OPERATOR,
        PROMETHEUS,
        CERT_MANAGER,
        NVSENTINEL,
    )
}
