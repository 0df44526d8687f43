"""The check's scripts ConfigMap: the project's verdict shipped, not re-implemented.

The ConfigMap holds gpu_fabric/nccl/parser.py and verdict.py (and the check's own two
modules) byte for byte; run in a bare interpreter (``python -S``: no site-packages, as
in the python:3.13-slim pod) with the generated catalog stand-in, it gives the same
verdict as ``nccl-report`` here.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from gpu_fabric.catalog import MACHINES, Machine, get_machine
from gpu_fabric.fabric.description import describe_cluster
from gpu_fabric.fabric.layer import build_layer
from gpu_fabric.health.config import machine_facts
from gpu_fabric.health.logic import ConfiguredMachine
from gpu_fabric.nccl.parser import parse
from gpu_fabric.nccl.verdict import judge, judged_floor
from gpu_fabric.spec import load_spec
from tests.specs import spec_dict

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "components" / "gpu_fabric"
DATA = ROOT / "tests" / "data" / "nccl"


def rendered(cloud: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """(scripts ConfigMap, config.json) of a health-enabled stack."""
    spec = load_spec(spec_dict(cloud, health={"enabled": True}))
    part = build_layer(spec, describe_cluster(spec)).part("fabric-health")
    by_name = {m["metadata"]["name"]: m for m in part.manifests if m["kind"] == "ConfigMap"}
    config = json.loads(by_name["gpu-fabric-health-config"]["data"]["config.json"])
    return by_name["gpu-fabric-health-scripts"], config


def unpack(scripts: dict[str, Any], cron: dict[str, Any], where: Path) -> None:
    """Lay the ConfigMap out as the CronJob's volume does (its items: key -> path)."""
    (volume,) = [v for v in cron["spec"]["jobTemplate"]["spec"]["template"]["spec"]["volumes"]
                 if v["name"] == "code"]
    for item in volume["configMap"]["items"]:
        target = where / item["path"]
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(scripts["data"][item["key"]])


def test_the_verdict_and_parser_ship_byte_for_byte() -> None:
    scripts, _ = rendered("aws")
    data = scripts["data"]
    for key, path in [("gpu_fabric.nccl.parser.py", "nccl/parser.py"),
                      ("gpu_fabric.nccl.verdict.py", "nccl/verdict.py"),
                      ("gpu_fabric.health.logic.py", "health/logic.py"),
                      ("gpu_fabric.health.controller.py", "health/controller.py")]:
        assert data[key] == (PACKAGE / path).read_text(), key
    assert sorted(data) == [
        "gpu_fabric.__init__.py", "gpu_fabric.catalog.py", "gpu_fabric.health.__init__.py",
        "gpu_fabric.health.controller.py", "gpu_fabric.health.logic.py",
        "gpu_fabric.nccl.__init__.py", "gpu_fabric.nccl.parser.py",
        "gpu_fabric.nccl.verdict.py",
    ]


JUDGE = """
import json, sys
import gpu_fabric
from gpu_fabric.health import controller, logic
assert gpu_fabric.__file__.startswith(sys.argv[1]), gpu_fabric.__file__
facts = json.loads(sys.argv[2])
result = logic.judge_log(open(sys.argv[3]).read(), logic.ConfiguredMachine(facts), 2,
                         facts["gpus_per_node"])
print(json.dumps([result.passed, result.busbw, list(result.reasons)]))
"""


@pytest.mark.parametrize(("cloud", "log", "machine", "passed", "busbw"), [
    # line 52: 16 GiB in-place busbw 474.28 >= the 377.2 GB/s floor of p5.48xlarge.
    ("aws", "synth-p5-2node-allreduce-efa.log", "p5.48xlarge", True, 474.28),
    # 30 wrong results, 15 out-of-bounds values (tests/nccl/test_nccl_verdict.py).
    ("azure", "synth-azure-2node-wrong-results.log", "Standard_ND96isr_H100_v5", False, 379.55),
    # NET/Socket on a4's RoCE fabric, 11 GB/s.
    ("gcp", "synth-a4-2node-socket-fallback.log", "a4-highgpu-8g", False, 11.0),
])
def test_the_pod_judges_like_nccl_report(tmp_path: Path, cloud: str, log: str, machine: str,
                                         passed: bool, busbw: float) -> None:
    scripts, config = rendered(cloud)
    spec = load_spec(spec_dict(cloud, health={"enabled": True}))
    cron = next(m for m in build_layer(spec, describe_cluster(spec)).part(
        "fabric-health").manifests if m["kind"] == "CronJob")
    unpack(scripts, cron, tmp_path)
    facts = config["pools"][0]["machine"]
    assert facts["name"] == machine
    done = subprocess.run(
        [sys.executable, "-S", "-c", JUDGE, str(tmp_path), json.dumps(facts),
         str(DATA / log)],
        env={"PYTHONPATH": str(tmp_path)}, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    in_pod = json.loads(done.stdout)
    assert in_pod[:2] == [passed, busbw]
    here = judge(parse((DATA / log).read_text()), get_machine(machine), nodes=2, gpus_per_node=8)
    assert in_pod == [here.passed, here.peak, here.reasons]


@pytest.mark.parametrize("machine", [m for m in MACHINES if m.is_multi_node_capable],
                         ids=lambda m: m.name)
def test_the_pods_machine_answers_the_verdict_as_the_catalog_does(machine: Machine) -> None:
    # Every catalog fact the verdict reads (line rate, floor, NVLink domain of GB200/GB300,
    # transport) travels in config.json: the pod's stand-in judges 2 nodes like the catalog.
    pod = ConfiguredMachine(machine_facts(machine, machine.gpus))
    assert judged_floor(pod, 2, machine.gpus) == judged_floor(machine, 2, machine.gpus)
    assert pod.has_fabric == machine.has_fabric
    assert pod.fabric.value == machine.fabric.value
    assert (pod.nccl.transport, pod.nccl.net) == (machine.nccl.transport, machine.nccl.net)
