"""Files a command reads or writes, and a team's own program (issue 34).

Bounded reads of regular files only (a FIFO blocked the read forever, /dev/zero read
to the memory cap), render deleting only inside --out, stack names without path
separators, --out and --plot errors naming the option, and ``plan --program`` with
the guarantees of ``plan --config``: exit 1 for bad input, exit 3 and one line for a
failing program (a traceback only with --debug).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
import yaml

from gpu_fabric.cli import main

ROOT = Path(__file__).resolve().parents[2]
NCCL_LOG = ROOT / "tests" / "data" / "nccl"


def _run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    try:
        code = main(argv)
    except SystemExit as exc:
        code = int(exc.code or 0)
    out = capsys.readouterr()
    assert "Traceback" not in out.err, out.err
    return code, out.out, out.err


@pytest.fixture
def fifo(tmp_path: Path) -> Path:
    path = tmp_path / "Pulumi.fifo.yaml"
    os.mkfifo(path)
    return path


def _kubeconfig_stack(tmp_path: Path, kubeconfig: str) -> Path:
    stack = tmp_path / "Pulumi.ex.yaml"
    stack.write_text(yaml.safe_dump({"config": {"gpu-fabric:cluster": {
        "name": "ex", "cloud": "digitalocean", "location": {"region": "nyc2"},
        "existing": {"kubeconfig": {"path": kubeconfig}},
        "node_pools": [{"name": "gpu", "machine_type": "gpu-h200x8-1128gb-fabric-contracted",
                        "node_count": 2}],
    }}}))
    return stack


def test_a_fifo_or_device_is_refused_everywhere(tmp_path: Path, fifo: Path, capsys) -> None:
    """Each would block or read without end; each is refused with its option named."""
    code, _, err = _run(["validate", "--config", str(fifo)], capsys)
    assert code == 1 and "is a FIFO (named pipe); give a regular file" in err
    for special in (str(fifo), "/dev/zero"):
        code, _, err = _run(["validate", "--config", str(_kubeconfig_stack(tmp_path, special))],
                            capsys)
        assert code == 1 and "existing.kubeconfig.path" in err, err
        assert "give a regular file" in err, err
        code, _, err = _run(["diff", "--base", special, "--head", special], capsys)
        assert code == 1 and err.startswith("diff: ") and "give a regular file" in err, err
        code, _, err = _run(["nccl-report", special, "--machine", "a4-highgpu-8g",
                             "--nodes", "2"], capsys)
        assert code == 1 and err.startswith("LOG: ") and "give a regular file" in err, err


def test_stack_names_have_no_path_separators(tmp_path: Path, capsys) -> None:
    outside = tmp_path / "Pulumi.outside.yaml"
    outside.write_text("config: {}\n")
    for name in ("x/../../outside", "../outside", "a/b", ".."):
        for command in ("validate", "plan"):
            code, out, err = _run([command, "--stack", name], capsys)
            assert code == 1 and out == ""
            assert f"--stack: '{name}' is not a stack name" in err, err


@pytest.mark.parametrize("name", ["Pulumi.gpu+team.yaml", "Pulumi.a b.yaml", "Pulumi..yaml",
                                  f"Pulumi.{'x' * 101}.yaml", "team stack.yaml"])
def test_config_files_give_a_stack_name_pulumi_accepts(tmp_path: Path, capsys, name: str) -> None:
    """Pulumi stack names "may only contain alphanumeric, hyphens, underscores, or periods"
    (https://www.pulumi.com/docs/iac/concepts/stacks/), at most 100 characters: the name a
    --config file gives (Pulumi.<stack>.yaml, else its stem) is refused as --stack is."""
    path = tmp_path / name
    path.write_text("config: {}\n")
    for command in ("validate", "plan"):
        code, out, err = _run([command, "--config", str(path)], capsys)
        assert code == 1 and out == "", (code, out, err)
        assert "--config: the file name '" in err and "which Pulumi refuses" in err, err
        if len(name) < 80:
            assert f"--config: the file name {name!r} gives the stack name" in err, err


def test_render_deletes_only_inside_out(tmp_path: Path, capsys) -> None:
    """A record listing an absolute path or a path through a symlink out of --out."""
    out = tmp_path / "out"
    code, _, _ = _run(["render", "--stack", "do-h200", "--out", str(out)], capsys)
    assert code == 0
    victim = tmp_path / "victim.txt"
    victim.write_text("keep me")
    (tmp_path / "elsewhere").mkdir()
    kept = tmp_path / "elsewhere" / "kept.yaml"
    kept.write_text("keep me too")
    (out / "link").symlink_to(tmp_path / "elsewhere")
    record = out / ".gpu-fabric-render"
    record.write_text(record.read_text() + f"{victim}\n../victim.txt\nlink/kept.yaml\n")
    code, _, err = _run(["render", "--stack", "do-h200", "--out", str(out)], capsys)
    assert code == 0, err
    assert victim.read_text() == "keep me" and kept.read_text() == "keep me too"


def test_schema_out_errors_name_out(tmp_path: Path, capsys) -> None:
    for target in ("/dev/full", str(tmp_path)):
        code, _, err = _run(["schema", "--out", target], capsys)
        assert code == 1 and err.startswith(f"--out: cannot write '{target}'"), err


def test_plot_must_be_an_image_file_other_than_the_log(tmp_path: Path, capsys) -> None:
    log = next(NCCL_LOG.glob("*.log"))
    base = ["nccl-report", str(log), "--machine", "a4-highgpu-8g", "--nodes", "2"]
    cases = {
        str(tmp_path): "must end in .png, .svg, .pdf",
        str(tmp_path / "plot"): "must end in .png, .svg, .pdf",
        str(tmp_path / "plot.xyz"): "must end in .png, .svg, .pdf",
        str(tmp_path / "dir.png"): "is a folder; name the image file",
    }
    (tmp_path / "dir.png").mkdir()
    for plot, says in cases.items():
        code, out, err = _run([*base, "--plot", plot], capsys)
        assert code == 1 and out == "" and err.startswith("--plot: ") and says in err, err
    copy = tmp_path / "log.png"
    copy.write_bytes(log.read_bytes())
    code, _, err = _run(["nccl-report", str(copy), "--machine", "a4-highgpu-8g",
                         "--nodes", "2", "--plot", str(copy)], capsys)
    assert code == 1 and "is the log itself" in err
    assert copy.read_bytes() == log.read_bytes()


# -- plan --program ----------------------------------------------------------------------
def _project(tmp_path: Path, pulumi_yaml: str | bytes, program: str = "import pulumi\n",
             stack: str | None = None) -> Path:
    folder = tmp_path / "team"
    folder.mkdir()
    data = pulumi_yaml if isinstance(pulumi_yaml, bytes) else pulumi_yaml.encode()
    (folder / "Pulumi.yaml").write_bytes(data)
    (folder / "__main__.py").write_text(program)
    if stack is not None:
        (folder / "Pulumi.dev.yaml").write_text(stack)
    return folder


@pytest.mark.parametrize(("pulumi_yaml", "stack", "says"), [
    ("name: t\nruntime: nodejs\n", None, "runtime: the project's runtime is 'nodejs'"),
    ("name: t\nruntime: {name: go}\n", None, "runtime is 'go'"),
    ("name: t\nruntime: python\nmain: ../elsewhere/\n", None, "leads outside the project"),
    ("name: t\nruntime: python\nstackConfigDir: /etc\n", None, "leads outside the project"),
    ("name: t\nruntime: python\nmain: [a]\n", None, "'main' must be a path"),
    (b"name: t\xe9\nruntime: python\n", None, "not UTF-8"),
    ("- name: t\n", None, "needs a 'name:'"),
    ("name: t\nname: u\nruntime: python\n", None, "is written twice"),
    ("name: t\nruntime: python\nconfig: [a, b]\n", None, "'config:' must be a mapping"),
    ("name: t\nruntime: python\n", "- a\n", "needs a top-level 'config:' mapping"),
    ("name: t\nruntime: python\n", "config: {t:password: hunter2-plain}\n",
     "pulumi config set --secret"),
    ("name: t\nruntime: python\n",
     "config:\n  a: &a [x, x, x, x, x, x, x, x, x, x]\n  b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]"
     "\n  c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]\n  d: &d [*c, *c, *c, *c, *c, *c, *c, *c]"
     "\n  e: [*d, *d, *d, *d, *d, *d, *d, *d, *d, *d, *d, *d, *d, *d, *d, *d, *d, *d]\n",
     "alias bomb"),
])
def test_bad_program_input_exits_1(tmp_path: Path, capsys, pulumi_yaml: str | bytes,
                                   stack: str | None, says: str) -> None:
    folder = _project(tmp_path, pulumi_yaml, stack=stack)
    argv = ["plan", "--program", str(folder), "--quiet"]
    if stack is not None:
        argv += ["--stack", "dev"]
    code, out, err = _run(argv, capsys)
    assert code == 1 and out == "", err
    assert says in err, err
    assert len(err.splitlines()) <= 3, err


@pytest.mark.parametrize(("program", "says"), [
    ("raise RuntimeError('the team broke it')\n", "RuntimeError: the team broke it"),
    ("import sys\nsys.exit(7)\n", "ProgramExit: the program called sys.exit(7)"),
    ("import no_such_module_here\n", "ModuleNotFoundError"),
])
def test_a_failing_program_exits_3_with_one_line(tmp_path: Path, capsys, program: str,
                                                 says: str) -> None:
    folder = _project(tmp_path, "name: t\nruntime: python\n", program=program)
    code, out, err = _run(["plan", "--program", str(folder), "--quiet"], capsys)
    assert code == 3 and out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("plan failed: ") and says in lines[0], err
    assert "rerun with --debug" in lines[0]
    code, _, err = _run_debug(["plan", "--program", str(folder), "--quiet", "--debug"], capsys)
    assert code == 3 and "Traceback" in err


def _run_debug(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(argv)
    out = capsys.readouterr()
    return code, out.out, out.err


def test_sys_exit_0_is_a_finished_program(tmp_path: Path, capsys) -> None:
    folder = _project(tmp_path, "name: t\nruntime: python\n",
                      program="import sys\nimport pulumi\npulumi.export('x', 1)\nsys.exit(0)\n")
    code, out, _ = _run(["plan", "--program", str(folder), "--json", "--quiet"], capsys)
    assert code == 0 and '"x": 1' in out
