"""GPU models (memory, MIG profiles), shared by the clouds' machines."""

from __future__ import annotations

from gpu_fabric.catalog.model import Gpu, GpuVendor, NvlinkDomain

# -- GPU models --------------------------------------------------------------
# MIG profiles: NVIDIA MIG user guide, "Supported MIG profiles" (A100/H100/H200/B200).
A100_40 = Gpu(
    "A100 40GB", GpuVendor.NVIDIA, 40,
    ("1g.5gb", "1g.5gb+me", "1g.10gb", "2g.10gb", "3g.20gb", "4g.20gb", "7g.40gb"),
)
A100_80 = Gpu(
    "A100 80GB", GpuVendor.NVIDIA, 80,
    ("1g.10gb", "1g.10gb+me", "1g.20gb", "2g.20gb", "3g.40gb", "4g.40gb", "7g.80gb"),
)
H100_80 = Gpu(
    "H100 80GB", GpuVendor.NVIDIA, 80,
    ("1g.10gb", "1g.10gb+me", "1g.20gb", "2g.20gb", "3g.40gb", "4g.40gb", "7g.80gb"),
)
H200_141 = Gpu(
    "H200 141GB", GpuVendor.NVIDIA, 141,
    ("1g.18gb", "1g.18gb+me", "1g.35gb", "2g.35gb", "3g.71gb", "4g.71gb", "7g.141gb"),
)
B200 = Gpu(
    "B200 180GB", GpuVendor.NVIDIA, 180,
    ("1g.23gb", "1g.23gb+me", "1g.45gb", "2g.45gb", "3g.90gb", "4g.90gb", "7g.180gb"),
)
GB200 = Gpu("GB200", GpuVendor.NVIDIA, 186)
B300 = Gpu("B300 288GB", GpuVendor.NVIDIA, 288)
GB300 = Gpu("GB300 288GB", GpuVendor.NVIDIA, 288)
L4 = Gpu("L4 24GB", GpuVendor.NVIDIA, 24)
A10 = Gpu("A10 24GB", GpuVendor.NVIDIA, 24)
L40S = Gpu("L40S 48GB", GpuVendor.NVIDIA, 48)
MI300X = Gpu("MI300X 192GB", GpuVendor.AMD, 192)
MI325X = Gpu("MI325X 256GB", GpuVendor.AMD, 256)


# -- multi-node NVLink domains ------------------------------------------------
# NVIDIA's GB200 NVL72 and GB300 NVL72 pages: 72 GPUs in one NVLink domain, "NVLink
# Bandwidth 130 TB/s" for the rack, i.e. 1.8 TB/s per GPU (fifth-generation NVLink,
# both directions; NVIDIA's NVLink page), 900 GB/s in one direction.
_NVLINK = "https://www.nvidia.com/en-us/data-center/nvlink/"
NVL72_GB200 = NvlinkDomain(
    72, 900.0, ("https://www.nvidia.com/en-us/data-center/gb200-nvl72/", _NVLINK),
)
NVL72_GB300 = NvlinkDomain(
    72, 900.0, ("https://www.nvidia.com/en-us/data-center/gb300-nvl72/", _NVLINK),
)
