"""GPU sharing with MIG through the GPU Operator's MIG manager.

A pool with ``mig:`` gets the node label ``nvidia.com/mig.config=all-<profile>``;
the MIG manager reads that label and partitions every GPU of the node with the
named entry of its mig-parted configuration. We ship that configuration
(ConfigMap ``gpu-fabric-mig-parted``) built from the catalog's profiles, so a
profile the catalog does not list can never be asked for (the spec refuses it
first: ``node_pools[].mig.profile``).

How many instances of a profile fit one GPU follows from the profile name:
MIG has 7 compute slices and 8 memory slices per GPU, ``<c>g.<m>gb`` takes ``c``
compute slices and ``m`` GB rounded to memory slices of the GPU model; ``+me``
profiles (media extensions) exist once per GPU.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

import yaml

from gpu_fabric.fabric.layer import Manifest
from gpu_fabric.fabric.manifests.common import config_map

if TYPE_CHECKING:
    from gpu_fabric.catalog import Gpu
    from gpu_fabric.spec import GpuNodePoolSpec

MIG_CONFIG_LABEL = "nvidia.com/mig.config"
MIG_PARTED_CONFIG = "gpu-fabric-mig-parted"
MIG_DISABLED = "all-disabled"
COMPUTE_SLICES = 7
MEMORY_SLICES = 8
_PROFILE = re.compile(r"^([0-9])g\.([0-9]+)gb(\+me)?$")


def instances_per_gpu(gpu: Gpu, profile: str) -> int:
    """MIG devices of ``profile`` one GPU of model ``gpu`` is split into."""
    m = _PROFILE.match(profile)
    if not m or profile not in gpu.mig_profiles:
        valid = ", ".join(gpu.mig_profiles) or "none"
        raise ValueError(f"MIG profile '{profile}' does not exist on {gpu.model}; valid: {valid}")
    if m.group(3):
        return 1
    compute = int(m.group(1))
    slice_gb = gpu.memory_gib / MEMORY_SLICES
    memory = max(1, round(int(m.group(2)) / slice_gb))
    return max(1, min(COMPUTE_SLICES // compute, MEMORY_SLICES // memory))


def config_name(profile: str) -> str:
    return f"all-{profile.replace('+', '.')}"


def node_labels(pool: GpuNodePoolSpec) -> dict[str, str]:
    """Labels a MIG pool's nodes need (clouds merge these into the pool's labels)."""
    if pool.mig is None:
        return {}
    return {MIG_CONFIG_LABEL: config_name(pool.mig.profile)}


def mig_resource(pool: GpuNodePoolSpec) -> tuple[str, int]:
    """The resource a MIG pool advertises and how many of it one whole GPU yields.

    ``single``: MIG devices are advertised as the vendor GPU resource; ``mixed``:
    as ``nvidia.com/mig-<profile>``.
    """
    assert pool.mig is not None
    machine = pool.machine
    per_gpu = instances_per_gpu(machine.gpu, pool.mig.profile)
    if pool.mig.strategy == "mixed":
        return f"nvidia.com/mig-{pool.mig.profile}", per_gpu
    return machine.gpu_resource, per_gpu


def parted_config(pools: list[GpuNodePoolSpec]) -> dict[str, Any]:
    """mig-parted configuration with one ``all-<profile>`` entry per profile in use."""
    configs: dict[str, Any] = {MIG_DISABLED: [{"devices": "all", "mig-enabled": False}]}
    for pool in pools:
        if pool.mig is None:
            continue
        gpu = pool.machine.gpu
        configs[config_name(pool.mig.profile)] = [{
            "devices": "all",
            "mig-enabled": True,
            "mig-devices": {pool.mig.profile: instances_per_gpu(gpu, pool.mig.profile)},
        }]
    return {"version": "v1", "mig-configs": configs}


def manifests(pools: list[GpuNodePoolSpec], namespace: str) -> list[Manifest]:
    """The mig-parted ConfigMap (in the GPU Operator's namespace), if any pool uses MIG."""
    if not any(p.mig for p in pools):
        return []
    body = yaml.safe_dump(parted_config(pools), sort_keys=False)
    return [config_map(MIG_PARTED_CONFIG, namespace, {"config.yaml": body})]
