"""The feature matrix: every committed stack, and a GB200 pool per cloud that sells one
(tests/support/variants.gb200_spec: GKE A4X, EKS p6e-gb200 capacity block, AKS ND GB200
v6, OKE BM.GPU.GB200-v3.4), with each optional feature it supports.

Used by tests/test_feature_matrix.py and, to pin the variants' URNs on purpose,
``python -m tests.feature_matrix --write`` (writes tests/data/urns/matrix/).
"""

from __future__ import annotations

import copy
import sys
from collections.abc import Callable
from functools import cache
from pathlib import Path
from typing import Any

from gpu_fabric.catalog import GpuVendor, get_machine
from gpu_fabric.errors import SpecError
from gpu_fabric.plan.stackfile import available_stacks as committed_stacks
from gpu_fabric.plan.stackfile import load_stack_file
from gpu_fabric.spec import ClusterSpec, load_spec

URN_DIR = Path(__file__).resolve().parent / "data" / "urns" / "matrix"
Raw = dict[str, Any]


def _teams(raw: Raw) -> None:
    # Quotas the pools can hold, each team's and all together (issue 34 refuses more):
    # team-b gets 8 (half of a smaller cluster: 2 x 4 on the GB200 pools), team-a the rest
    # of at most 16.
    gpus = sum(p.get("node_count", 2) * get_machine(p["machine_type"], raw["cloud"]).gpus
               for p in raw["node_pools"])
    team_b = min(8, gpus // 2)
    raw.setdefault("tenancy", {})["teams"] = [
        {"name": "team-a", "group": "team-a-eng", "gpus": min(16, gpus) - team_b,
         "priority": "high"},
        {"name": "team-b", "group": "team-b-eng", "gpus": team_b, "priority": "low",
         "node_pools": [raw["node_pools"][0]["name"]]},
    ]


def _mig(raw: Raw) -> None:
    for pool in raw["node_pools"]:
        gpu = get_machine(pool["machine_type"], raw["cloud"]).gpu
        if gpu.vendor is GpuVendor.NVIDIA and gpu.mig_profiles:
            pool["mig"] = {"profile": gpu.mig_profiles[0]}


def _prometheus(raw: Raw) -> None:
    raw.setdefault("addons", {})["prometheus"] = {"enabled": True}


def _acceptance(raw: Raw) -> None:
    raw["acceptance"] = {"enabled": True}


def _dra(raw: Raw) -> None:
    raw.setdefault("fabric", {})["mode"] = "dra"


def _existing(raw: Raw) -> None:
    raw["existing"] = {"kubeconfig": {"path": "/nonexistent/kubeconfig"}}
    for pool in raw["node_pools"]:
        pool.setdefault("labels", {})["gpufabric.dev/pool"] = pool["name"]


FEATURES: dict[str, Callable[[Raw], None]] = {
    "teams": _teams,
    "mig": _mig,
    "prometheus": _prometheus,
    "acceptance": _acceptance,
    "dra": _dra,
    "existing": _existing,
}


def has_mig(raw: Raw) -> bool:
    return any(get_machine(p["machine_type"], raw["cloud"]).gpu.mig_profiles
               and get_machine(p["machine_type"], raw["cloud"]).gpu.vendor is GpuVendor.NVIDIA
               for p in raw["node_pools"])


# GB200 pools, one per cloud that sells them (issue 33), beside the committed stacks.
GB200_STACKS = {"gb200-gcp": "gcp", "gb200-aws": "aws", "gb200-azure": "azure",
                "gb200-oci": "oci"}


def available_stacks() -> list[str]:
    """The committed stacks, then the GB200 pools."""
    return [*committed_stacks(), *GB200_STACKS]


def base(stack: str) -> Raw:
    if stack in GB200_STACKS:
        from tests.support.variants import gb200_spec

        return copy.deepcopy(gb200_spec(GB200_STACKS[stack]))
    raw = load_stack_file(stack).cluster
    assert isinstance(raw, dict)
    return copy.deepcopy(raw)


def with_features(stack: str, features: list[str]) -> Raw:
    raw = base(stack)
    for name in features:
        FEATURES[name](raw)
    return raw


def validate(raw: Raw) -> ClusterSpec | SpecError:
    """What ``python -m gpu_fabric validate`` decides (exit 0 or 1)."""
    from gpu_fabric.preflight import check_spec

    try:
        spec = load_spec(raw)
        check_spec(spec)
    except SpecError as err:
        return err
    return spec


def applicable(stack: str) -> list[str]:
    """Features that make sense for the stack (MIG only where the GPU has it; existing
    only for stacks that create their cluster)."""
    raw = base(stack)
    out = []
    for name in FEATURES:
        if name == "mig" and not has_mig(raw):
            continue
        if name == "existing" and raw.get("existing"):
            continue
        out.append(name)
    return out


def supported(stack: str) -> list[str]:
    """The applicable features the stack's validation accepts one at a time."""
    return list(_supported(stack))


@cache  # variants() asks three times per stack; the stack files do not change in a run
def _supported(stack: str) -> tuple[str, ...]:
    return tuple(f for f in applicable(stack)
                 if isinstance(validate(with_features(stack, [f])), ClusterSpec))


def all_on(stack: str, existing: bool) -> list[str]:
    """As many supported features together as validate, added in FEATURES order (MIG
    and DRA exclude each other: the first one wins)."""
    chosen: list[str] = ["existing"] if existing else []
    for feature in supported(stack):
        if feature == "existing":
            continue
        trial = [*chosen, feature]
        if isinstance(validate(with_features(stack, trial)), ClusterSpec):
            chosen = trial
    return [f for f in chosen if f != "existing"] + (["existing"] if existing else [])


def variants() -> list[tuple[str, str, list[str]]]:
    """(stack, variant name, features) of the planned variants: all supported features
    on, on the stack's own cluster and (for stacks that create one) an existing one."""
    out = []
    for stack in available_stacks():
        out.append((stack, stack, all_on(stack, existing=False)))
        if "existing" in supported(stack):
            out.append((stack, f"{stack}-existing", all_on(stack, existing=True)))
    return out


WRITE = "python -m tests.feature_matrix --write"


def main(argv: list[str]) -> int:
    """``--write [--stack NAME ...]``: the URN lists of every variant (or of those stacks')."""
    from gpu_fabric.plan import run_spec
    from gpu_fabric.plan import urns as urnfile

    stacks = argv[2::2] if argv[1::2] == ["--stack"] * len(argv[1::2]) else None
    if not argv or argv[0] != "--write" or stacks is None or len(argv) % 2 != 1:
        print(f"usage: {WRITE} [--stack NAME ...]", file=sys.stderr)
        return 2
    URN_DIR.mkdir(parents=True, exist_ok=True)
    for stack, name, features in variants():
        if stacks and stack not in stacks:
            continue
        plan = run_spec(with_features(stack, features), stack=name)
        path = URN_DIR / f"{name}.txt"
        path.write_text(urnfile.update(plan, urnfile.read(path)).render())
        print(f"{name}: {', '.join(features)} -> {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
