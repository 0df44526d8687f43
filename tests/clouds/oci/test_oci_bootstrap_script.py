"""OKE node bootstrap: certificate wait, 20 retries 15 s apart, an Oracle Linux branch
and CRI-O short names off from 1.34 (issue 31).

Source: oracle-quickstart/oci-hpc-oke at 61d210a, files/oke-ubuntu-cloud-init.sh:
lines 19-41 ``run_with_retry`` (``max_attempts=20``, ``interval=15``), line 89 (``until
curl ... /opc/v2/identity/cert.pem | grep -q "BEGIN CERTIFICATE"; do sleep 2; done``),
lines 43-55 ``configure_crio_defaults`` (``version_ge "$version" "v1.34"`` ->
``/etc/crio/crio.conf.d/11-default.conf`` with ``short_name_mode = "disabled"``), lines
228-261 the ``ol)`` branch (``oke bootstrap`` when present, else the IMDS
``oke_init_script`` run as ``bash /var/run/oke-init.sh``).

The script is run for real under bash with fake ``curl``/``oke``/``sleep``/``apt-get``/
``systemctl`` on PATH and a fake /etc/os-release.
"""

from __future__ import annotations

import base64
import os
import stat
import subprocess
from pathlib import Path

import pytest
import yaml

from gpu_fabric.clouds.oci.nodepool import bootstrap_script, taint_user_data
from gpu_fabric.fabric.description import Taint

TAINT = (Taint("nvidia.com/gpu", "present", "NoSchedule"),)


def _fake(bin_dir: Path, name: str, body: str) -> None:
    path = bin_dir / name
    path.write_text("#!/bin/bash\n" + body + "\n")
    path.chmod(path.stat().st_mode | stat.S_IEXEC)


def _run(tmp_path: Path, os_id: str, oke_failures: int, oke_present: bool = True,
         version: str = "v1.34.1") -> tuple[int, list[str]]:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    log = tmp_path / "log"
    count = tmp_path / "count"
    count.write_text("0")
    release = tmp_path / "os-release"
    release.write_text(f"ID={os_id}\nVERSION_CODENAME=noble\n")
    record = f'echo "$(basename "$0") $*" >> {log}'
    init_script = base64.b64encode(b'echo "oke-init $*" >> ' + str(log).encode()).decode()
    _fake(bin_dir, "curl", record + "\n"
          'case "$*" in *cert.pem*) echo "-----BEGIN CERTIFICATE-----";; '
          f'*oke_init_script*) echo {init_script};; esac')
    _fake(bin_dir, "sleep", record)
    _fake(bin_dir, "systemctl", record)
    _fake(bin_dir, "apt-get", record)
    oke = (record + f"\nn=$(cat {count}); echo $((n + 1)) > {count}\n"
           f"[ \"$n\" -ge {oke_failures} ]")
    if oke_present:
        _fake(bin_dir, "oke", oke)
    script = bootstrap_script(TAINT, version).replace("/etc/os-release", str(release))
    script = script.replace("/var/run/oke-init.sh", str(tmp_path / "oke-init.sh"))
    script = script.replace("/etc/apt/sources.list.d/oke-node-client.sources",
                            str(tmp_path / "sources"))
    env = {"PATH": f"{bin_dir}:/usr/bin:/bin", "HOME": str(tmp_path)}
    done = subprocess.run(["bash", "-c", script], env=env, capture_output=True, text=True,
                          timeout=60)
    lines = log.read_text().splitlines() if log.exists() else []
    return done.returncode, lines


@pytest.mark.skipif(os.name != "posix", reason="runs bash")
def test_ubuntu_waits_for_the_certificate_then_retries_oke_bootstrap(tmp_path: Path) -> None:
    code, calls = _run(tmp_path, "ubuntu", oke_failures=3)
    assert code == 0
    assert calls[0].startswith("curl -fsSL -H Authorization: Bearer Oracle "
                               "http://169.254.169.254/opc/v2/identity/cert.pem")
    taints = "--kubelet-extra-args --register-with-taints=nvidia.com/gpu=present:NoSchedule"
    boots = [c for c in calls if c.startswith("oke ")]
    assert boots == [f"oke bootstrap {taints}"] * 4
    assert [c for c in calls if c.startswith("sleep")] == ["sleep 15"] * 3


@pytest.mark.skipif(os.name != "posix", reason="runs bash")
def test_bootstrap_gives_up_after_20_attempts(tmp_path: Path) -> None:
    code, calls = _run(tmp_path, "ubuntu", oke_failures=100)
    assert code != 0
    assert len([c for c in calls if c.startswith("oke ")]) == 20
    assert [c for c in calls if c.startswith("sleep")] == ["sleep 15"] * 19


@pytest.mark.skipif(os.name != "posix", reason="runs bash")
def test_oracle_linux_without_oke_runs_the_imds_init_script(tmp_path: Path) -> None:
    code, calls = _run(tmp_path, "ol", oke_failures=0, oke_present=False)
    assert code == 0
    assert not [c for c in calls if c.startswith(("apt-get", "systemctl"))]
    assert ("curl --fail -H Authorization: Bearer Oracle -L0 "
            "http://169.254.169.254/opc/v2/instance/metadata/oke_init_script") in calls
    assert ("oke-init --kubelet-extra-args "
            "--register-with-taints=nvidia.com/gpu=present:NoSchedule") in calls


@pytest.mark.skipif(os.name != "posix", reason="runs bash")
def test_oracle_linux_with_oke_bootstraps_with_retries(tmp_path: Path) -> None:
    code, calls = _run(tmp_path, "ol", oke_failures=1)
    assert code == 0
    assert len([c for c in calls if c.startswith("oke bootstrap")]) == 2
    assert not [c for c in calls if c.startswith("apt-get")]


def _files(version: str) -> dict[str, str]:
    config = yaml.safe_load(base64.b64decode(taint_user_data(TAINT, version)))
    return {f["path"]: f["content"] for f in config["write_files"]}


def test_crio_short_names_off_from_1_34_only() -> None:
    assert _files("v1.34.1")["/etc/crio/crio.conf.d/11-default.conf"] == (
        '[crio.image]\nshort_name_mode = "disabled"\n')
    assert "/etc/crio/crio.conf.d/11-default.conf" not in _files("v1.33.1")


def test_committed_stack_gets_the_crio_drop_in(stack_plan) -> None:
    plan = stack_plan("oci-h100")
    gpu = next(r for r in plan.by_type("oci:ContainerEngine/nodePool:NodePool")
               if not r.name.endswith("-system"))
    config = yaml.safe_load(base64.b64decode(gpu.inputs["nodeMetadata"]["user_data"]))
    paths = [f["path"] for f in config["write_files"]]
    assert "/etc/crio/crio.conf.d/11-default.conf" in paths
