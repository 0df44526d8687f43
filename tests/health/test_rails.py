"""Per-rail NIC link state and rate: the probe the test pods run (bash, over a fake sysfs
tree), its parser and the rail verdict (gpu_fabric.health.logic).

sysfs layout and files: Linux Documentation/ABI/stable/sysfs-class-infiniband
(torvalds/linux 031616c4): /sys/class/infiniband/<device>/ports/<port-num>/state "Port
state (DOWN, INIT, ARMED, ACTIVE or ACTIVE_DEFER)" and rate "Port data rate (active
width * active speed)". The kernel prints them as "4: ACTIVE" and "400 Gb/sec (4X NDR)"
(what rdma-core's ibstatus shows verbatim: "state: 4: ACTIVE", "rate: 56 Gb/sec (4X FDR)").
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from gpu_fabric.health import logic
from gpu_fabric.health.logic import Port, RailResult


def port(root: Path, dev: str, num: int, state: str, rate: str) -> None:
    where = root / "class" / "infiniband" / dev / "ports" / str(num)
    where.mkdir(parents=True)
    (where / "state").write_text(state + "\n")
    (where / "rate").write_text(rate + "\n")


def probe(tmp_path: Path, host: str = "health-run-worker-0") -> str:
    """Run the probe as the test pod does, with ``hostname`` answering ``host``."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    fake = bin_dir / "hostname"
    fake.write_text(f"#!/bin/sh\necho {host}\n")
    fake.chmod(0o755)
    env = {**os.environ, "GPUFABRIC_SYSFS": str(tmp_path / "sys"),
           "PATH": f"{bin_dir}:{os.environ['PATH']}"}
    done = subprocess.run(["bash", "-c", logic.RAIL_PROBE], env=env, capture_output=True,
                          text=True, check=True, timeout=30)
    return done.stdout


@pytest.fixture
def node_sysfs(tmp_path: Path) -> Path:
    sys_root = tmp_path / "sys"
    port(sys_root, "mlx5_0", 1, "4: ACTIVE", "400 Gb/sec (4X NDR)")
    port(sys_root, "mlx5_1", 1, "1: DOWN", "10 Gb/sec (4X SDR)")
    port(sys_root, "mlx5_2", 1, "4: ACTIVE", "200 Gb/sec (4X HDR)")  # degraded lanes
    port(sys_root, "mlx5_3", 1, "4: ACTIVE", "400 Gb/sec (4X NDR)")
    port(sys_root, "mlx5_9", 1, "4: ACTIVE", "100 Gb/sec (4X EDR)")  # a front-end NIC
    return tmp_path


def test_the_probe_prints_one_line_per_port(node_sysfs: Path) -> None:
    assert probe(node_sysfs).splitlines() == [
        "gpufabric-rail health-run-worker-0 mlx5_0 1 4: ACTIVE | 400 Gb/sec (4X NDR)",
        "gpufabric-rail health-run-worker-0 mlx5_1 1 1: DOWN | 10 Gb/sec (4X SDR)",
        "gpufabric-rail health-run-worker-0 mlx5_2 1 4: ACTIVE | 200 Gb/sec (4X HDR)",
        "gpufabric-rail health-run-worker-0 mlx5_3 1 4: ACTIVE | 400 Gb/sec (4X NDR)",
        "gpufabric-rail health-run-worker-0 mlx5_9 1 4: ACTIVE | 100 Gb/sec (4X EDR)",
    ]


def test_the_probe_prints_nothing_without_rdma_devices(tmp_path: Path) -> None:
    (tmp_path / "sys").mkdir()
    assert probe(tmp_path) == ""


def test_parsed_ports_through_mpirun_tags(node_sysfs: Path) -> None:
    # mpirun --tag-output / kubectl logs --prefix put a tag before each line.
    text = "\n".join(f"[1,{i}]<stdout>:{line}" for i, line in enumerate(
        probe(node_sysfs).splitlines()))
    assert logic.parse_rails(text + "\nNCCL INFO unrelated\n") == {"health-run-worker-0": [
        Port("mlx5_0", 1, True, 400.0), Port("mlx5_1", 1, False, 10.0),
        Port("mlx5_2", 1, True, 200.0), Port("mlx5_3", 1, True, 400.0),
        Port("mlx5_9", 1, True, 100.0)]}


def test_rails_judged_on_the_pools_devices_at_the_catalog_rate(node_sysfs: Path) -> None:
    (ports,) = logic.parse_rails(probe(node_sysfs)).values()
    # Four rails named by the fabric description (DOKS: mlx5_0..): one down, one at 200.
    named = {"expected": 4, "gbps": 400, "devices": ["mlx5_0", "mlx5_1", "mlx5_2", "mlx5_3"]}
    assert logic.judge_rails(ports, named) == RailResult(2, 4, 200.0)
    assert not RailResult(2, 4, 200.0).passed
    # Devices unknown (None): every port counts; the 100 Gb/s front-end NIC is below rate.
    anyname = {"expected": 2, "gbps": 400, "devices": None}
    assert logic.judge_rails(ports, anyname) == RailResult(2, 2, 100.0)
    assert RailResult(2, 2, 100.0).passed
    # Rate not judged (EFA): every ACTIVE port counts.
    counted = {"expected": 4, "gbps": 0, "devices": None}
    assert logic.judge_rails(ports, counted) == RailResult(4, 4, 100.0)


def test_no_rails_seen_is_not_judged() -> None:
    assert logic.judge_rails([], {"expected": 8, "gbps": 400, "devices": None}) is None
    tcpx = {"expected": 0, "gbps": 0, "devices": []}  # GPUDirect-TCPX(O): no RDMA devices
    assert logic.judge_rails([Port("mlx5_0", 1, True, 400.0)], tcpx) is None
