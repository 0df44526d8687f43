"""The NCCL topology files the AKS layer ships are Azure's, byte for byte (issue 31 parity).

Source: Azure/azhpc-images at 8e9d055 topology/ndv4-topo.xml and topology/ndv5-topo.xml,
copied unchanged into tests/data/azure/azhpc-images-8e9d055/. Before issue 31 the ndv5
file dropped the virtual bridges' placeholder ids (vendor/device/subsystem 0x0000).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from gpu_fabric.clouds.azure.topology import topology_xml

FILES = Path(__file__).resolve().parents[2] / "data" / "azure" / "azhpc-images-8e9d055"


@pytest.mark.parametrize("name", ["ndv4", "ndv5"])
def test_topology_file_is_azures(name: str) -> None:
    assert topology_xml(name) == (FILES / f"{name}-topo.xml").read_text()


def test_ndv5_bridges_carry_azures_placeholder_ids() -> None:
    assert ('<pci busid="ffff:ff:01.0" class="0x060400" link_speed="32.0 GT/s PCIe" '
            'link_width="16" vendor="0x0000" device="0x0000" subsystem_vendor="0x0000" '
            'subsystem_device="0x0000">') in topology_xml("ndv5")
