"""The specs the upstream-truth checks run on: every committed stack, plus per cloud the
features no committed stack turns on (teams + Kueue, NCCL acceptance, JobSet,
monitoring, DRA, GB200 ComputeDomains), so every kind of object the project can
render is checked at least once.

Plans are cached per process: planning every variant once costs ~30 s.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from gpu_fabric.fabric.description import describe_cluster
from gpu_fabric.fabric.layer import Layer, build_layer
from gpu_fabric.plan import PlanResult, load_stack_file, run_spec
from gpu_fabric.plan.stackfile import available_stacks
from gpu_fabric.spec import ClusterSpec, load_spec
from tests.specs import CLOUDS, spec_dict, with_pool
from tests.support.shared_cache import shared

TEAMS = [
    {"name": "vision", "group": "vision-eng", "gpus": 8, "priority": "high"},
    {"name": "speech", "group": "speech-eng", "gpus": 8, "priority": "low"},
]
ON = {"enabled": True}
# One GB200 machine per cloud that has one (catalog.py): DRA + ComputeDomain.
GB200 = {"gcp": "a4x-highgpu-4g", "aws": "p6e-gb200.36xlarge",
         "azure": "Standard_ND128isr_NDR_GB200_v6", "oci": "BM.GPU.GB200-v3.4"}


def _platform(cloud: str) -> dict[str, Any]:
    data = spec_dict(cloud, tenancy={"teams": TEAMS}, acceptance=ON,
                     addons={"prometheus": ON, "jobset": ON})
    if cloud == "gcp":
        # The gke-nvidia-dra-dranet seed's /dev/shm (line 383), as gcp-a4 sets it: the
        # acceptance StatefulSet tests/data/parity/gcp/gke-seed-nccl-test.yaml compares.
        data["node_pools"][0]["shm_size"] = "250Gi"
    return data


def _variants() -> dict[str, dict[str, Any]]:
    out: dict[str, dict[str, Any]] = {
        f"stack:{name}": dict(load_stack_file(name).cluster) for name in available_stacks()
    }
    for cloud in CLOUDS:
        out[f"{cloud}:platform"] = _platform(cloud)
        out[f"{cloud}:dra"] = spec_dict(cloud, fabric={"mode": "dra"})
        if cloud == "aws":  # 4 EFA for 8 GPUs: DRA claims pair 2 GPUs per NIC
            out["aws:p4d-dra"] = with_pool(cloud, machine_type="p4d.24xlarge")
            out["aws:p4d-dra"]["fabric"] = {"mode": "dra"}
        if cloud in GB200:
            for mode in GB200_MODES[cloud]:
                name = f"{cloud}:gb200" if mode == "auto" else f"{cloud}:gb200-{mode}"
                out[name] = gb200_spec(cloud, mode)
    return out


# Every fabric mode each cloud's GB200 pool accepts (the others are refused by the cloud's
# describer, tests/nvlink/test_channels.py): each one must give every pod its IMEX channel.
GB200_MODES = {"gcp": ("auto", "device-plugin", "dra"), "aws": ("auto", "dra"),
               "azure": ("auto", "dra"), "oci": ("auto", "dra", "host-network")}
# How each GB200 machine is sold (issue 29: A4X by reservation only, as cluster-toolkit's
# gke-a4x blueprint consumes it; issue 30: p6e-gb200 as UltraServer Capacity Blocks only,
# EKS user guide ml-eks-nvidia-ultraserver), so the variants survive those refusals.
GB200_CAPACITY = {
    "gcp": {"type": "reservation", "reservation": "a4x-reservation"},
    "aws": {"type": "capacity_block", "reservation": "cr-0123456789abcdef0"},
}


def gb200_spec(cloud: str, mode: str = "auto") -> dict[str, Any]:
    """The cloud's GB200 pool (2 nodes) in ``mode``, bought the way the cloud sells it."""
    pool: dict[str, Any] = {"machine_type": GB200[cloud]}
    if cloud in GB200_CAPACITY:
        pool["capacity"] = dict(GB200_CAPACITY[cloud])
    raw = with_pool(cloud, **pool)
    if mode != "auto":
        raw["fabric"] = {"mode": mode}
    return raw


VARIANTS = _variants()


@cache
def spec_of(variant: str) -> ClusterSpec | None:
    """The validated spec, or None when the spec layer refuses the variant (e.g. a cloud
    without DRA): refusals are covered by the spec tests."""
    from gpu_fabric.preflight import check_spec

    try:
        spec = load_spec(VARIANTS[variant])
        check_spec(spec)  # what plan refuses before any resource
        return spec
    except Exception:  # SpecError and friends
        if variant.startswith("stack:"):
            raise
        return None


def usable() -> list[str]:
    return [v for v in VARIANTS if spec_of(v) is not None]


@cache
def layer_of(variant: str) -> Layer:
    spec = spec_of(variant)
    assert spec is not None
    return build_layer(spec, describe_cluster(spec))


@cache
def plan_of(variant: str) -> PlanResult:
    if variant.startswith("stack:"):
        from tests.conftest import _stack_plan

        return _stack_plan(variant.removeprefix("stack:"), False)
    # Once per run for all xdist workers (tests/support/shared_cache.py).
    return shared(f"variant-plan:{variant}", lambda: run_spec(VARIANTS[variant]))
