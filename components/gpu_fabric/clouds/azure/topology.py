"""NCCL topology files for ND-series VM sizes, rendered from the machine catalog (pure).

On Azure VMs the GPUs and IB HCAs sit behind Hyper-V virtual PCIe switches, so
NCCL cannot discover which HCA is close to which GPU; without a topology file it
builds poor rings. The HPC VM images ship these files under /opt/microsoft; AKS
node images do not, so the Kubernetes layer ships them in a ConfigMap per VM
family (``nccl-topology-<ndv4|ndv5>``, key ``topo.xml``) that the pod fragment
mounts at :data:`~gpu_fabric.clouds.azure.fabric.TOPOLOGY_MOUNT` and points
``NCCL_TOPO_FILE`` at.
"""

from __future__ import annotations

from xml.sax.saxutils import quoteattr

from gpu_fabric.catalog import AZURE_TOPOLOGIES, PciTopology
from gpu_fabric.fabric.manifests.common import Manifest, config_map

TOPOLOGY_KEY = "topo.xml"
GPU_CLASS = "0x030200"  # 3D controller
IB_CLASS = "0x020700"  # InfiniBand controller
BRIDGE_CLASS = "0x060400"  # PCI bridge
# Azure's files give the virtual bridges placeholder ids (Azure/azhpc-images 8e9d055
# topology/ndv5-topo.xml line 3). NCCL reads an absent id as 0 too (topo.cc
# ncclTopoAddPci: `if (str)`), so this only makes the file byte-equal to Azure's.
BRIDGE_IDS = {"vendor": "0x0000", "device": "0x0000", "subsystem_vendor": "0x0000",
              "subsystem_device": "0x0000"}


def topology(name: str) -> PciTopology:
    try:
        return AZURE_TOPOLOGIES[name]
    except KeyError:
        known = ", ".join(sorted(AZURE_TOPOLOGIES))
        raise KeyError(f"no NCCL topology '{name}' in the catalog; known: {known}") from None


def _attrs(**values: object) -> str:
    return " ".join(f"{k}={quoteattr(str(v))}" for k, v in values.items())


def topology_xml(name: str) -> str:
    """The NCCL topology XML (``<system version="1">``) of a catalog topology."""
    topo = topology(name)
    link = {"link_speed": topo.link_speed, "link_width": topo.link_width}
    lines = ['<system version="1">']
    for node in topo.numa_nodes:
        cpu = _attrs(numaid=node.numa_id, affinity=node.affinity, arch="x86_64",
                     vendor=topo.cpu_vendor, familyid=topo.cpu_family, modelid=topo.cpu_model)
        lines.append(f"  <cpu {cpu}>")
        for switch in node.switches:
            bridge = _attrs(busid=switch.busid, **{"class": BRIDGE_CLASS}, **link,
                            **(BRIDGE_IDS if topo.bridge_ids else {}))
            lines.append(f"    <pci {bridge}>")
            for gpu, hca in switch.pairs:
                lines.append(f"      <pci {_attrs(busid=gpu, **{'class': GPU_CLASS}, **link)}/>")
                lines.append(f"      <pci {_attrs(busid=hca, **{'class': IB_CLASS}, **link)}/>")
            lines.append("    </pci>")
        lines.append("  </cpu>")
    lines.append("</system>")
    return "\n".join(lines) + "\n"


def config_map_name(name: str) -> str:
    return f"nccl-topology-{name}"


def topology_config_map(name: str, namespace: str) -> Manifest:
    """The ConfigMap a job mounts to get the topology file of its VM family."""
    return config_map(config_map_name(name), namespace, {TOPOLOGY_KEY: topology_xml(name)})
