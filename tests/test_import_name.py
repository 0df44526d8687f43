"""One import name, ``gpu_fabric``: the wheel ships the tested files, a team's own
``components`` package cannot shadow it, and the installed CLI works from a team repo.

The wheel is built here for real (``pip wheel --no-build-isolation`` with the
pinned setuptools of ``[build-system]``) and installed with ``pip install
--target`` (what an install of a pure wheel does), then used from a "team
repository" that is a git repo with its own ``components`` package and its own
stacks, as a Pulumi project often is (issue 28).
"""

from __future__ import annotations

import os
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import pytest

# One worker builds and installs the wheel once for the module (make test's xdist).
pytestmark = pytest.mark.xdist_group("wheel")

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "components" / "gpu_fabric"
SHIPPED_SUFFIXES = {".py", ".typed", ".json", ".yaml", ".xml"}

STACK = """config:
  gpu-fabric:cluster:
    name: {name}
    cloud: digitalocean
    location: {{region: nyc2}}
    api_access: {{authorized_cidrs: [203.0.113.0/24]}}
    node_pools:
      - {{name: g, machine_type: gpu-h200x8-1128gb-fabric-contracted, node_count: {nodes}}}
"""


def _run(args: list[str], cwd: Path, env: dict[str, str] | None = None) -> str:
    out = subprocess.run(
        args, cwd=cwd, env=env, capture_output=True, text=True, check=False, timeout=300
    )
    assert out.returncode == 0, f"{args}: {out.stdout}\n{out.stderr}"
    return out.stdout


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    dist = tmp_path_factory.mktemp("dist")
    build = tmp_path_factory.mktemp("build")
    # A copy of the packaged tree, so the build writes no egg-info into the checkout.
    for name in ("pyproject.toml", "README.md"):
        (build / name).write_bytes((ROOT / name).read_bytes())
    for path in PACKAGE.rglob("*"):
        if path.is_file() and "__pycache__" not in path.parts:
            out = build / path.relative_to(ROOT)
            out.parent.mkdir(parents=True, exist_ok=True)
            out.write_bytes(path.read_bytes())
    _run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation",
         "--no-index", "-q", "-w", str(dist), str(build)],
        build,
    )
    (built,) = dist.glob("gpu_fabric-*.whl")
    return built


@pytest.fixture(scope="module")
def site(wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    target = tmp_path_factory.mktemp("site")
    _run(
        [sys.executable, "-m", "pip", "install", "--no-deps", "--no-index", "-q",
         "--target", str(target), str(wheel)],
        target,
    )
    return target


def _source_files() -> dict[str, bytes]:
    return {
        "gpu_fabric/" + path.relative_to(PACKAGE).as_posix(): path.read_bytes()
        for path in PACKAGE.rglob("*")
        if path.is_file() and "__pycache__" not in path.parts
        and path.suffix in SHIPPED_SUFFIXES
    }


def test_the_wheel_ships_the_source_files_byte_for_byte(wheel: Path) -> None:
    with zipfile.ZipFile(wheel) as archive:
        shipped = {
            name: archive.read(name) for name in archive.namelist()
            if not name.split("/")[0].endswith(".dist-info")
        }
    source = _source_files()
    assert sorted(shipped) == sorted(source)
    different = [name for name in source if shipped[name] != source[name]]
    assert different == []
    assert "gpu_fabric/nccl/crds/kubeflow.org_mpijobs.yaml" in shipped
    assert "gpu_fabric/py.typed" in shipped


def test_the_wheel_has_one_top_level_package(wheel: Path) -> None:
    with zipfile.ZipFile(wheel) as archive:
        tops = {name.split("/")[0] for name in archive.namelist()}
    assert {t for t in tops if not t.endswith(".dist-info")} == {"gpu_fabric"}


@pytest.fixture
def team_repo(tmp_path: Path) -> Path:
    """A team's git repository: its own ``components`` package, a Pulumi project, a stack."""
    repo = tmp_path / "team"
    (repo / "components").mkdir(parents=True)
    (repo / "components" / "__init__.py").write_text("TEAM = True\n")
    (repo / "stacks").mkdir()
    (repo / "Pulumi.yaml").write_text(
        "name: team-training\nruntime: python\nstackConfigDir: stacks\n"
    )
    (repo / "stacks" / "Pulumi.team-h200.yaml").write_text(STACK.format(name="team", nodes=2))
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@example.com"]
    _run([*git, "init", "-q", "-b", "main"], repo)
    _run([*git, "add", "-A"], repo)
    _run([*git, "commit", "-q", "-m", "stacks"], repo)
    return repo


def _installed_env(site: Path) -> dict[str, str]:
    """The installed wheel only: no checkout on the path, the team's folder first (cwd)."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["PYTHONPATH"] = str(site)
    env["PYTHONNOUSERSITE"] = "1"
    return env


def test_the_installed_library_is_not_shadowed_by_a_team_components_package(
    site: Path, team_repo: Path
) -> None:
    code = (
        "import sys, components, gpu_fabric as gf\n"
        "assert components.TEAM\n"
        "print(gf.__file__)\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] == 'components'))\n"
    )
    where, modules = _run(
        [sys.executable, "-c", code], team_repo, _installed_env(site)
    ).splitlines()
    assert where == str(site / "gpu_fabric" / "__init__.py")
    assert modules == "['components']"  # only the team's own package


def test_installed_diff_against_a_git_ref_works_from_a_team_repo(
    site: Path, team_repo: Path
) -> None:
    (team_repo / "stacks" / "Pulumi.team-h200.yaml").write_text(
        STACK.format(name="team", nodes=3)
    )
    out = _run(
        [sys.executable, "-m", "gpu_fabric", "diff", "--stack", "team-h200",
         "--base-ref", "HEAD", "--quiet"],
        team_repo, _installed_env(site),
    )
    # The pool's node_count changed 2 -> 3: one changed resource, the DOKS node pool.
    assert "nodeCount" in out


def test_policy_validators_read_the_installed_library(site: Path, team_repo: Path) -> None:
    code = (
        "import sys\n"
        "from gpufabric_policies import devices, taints\n"
        "print(devices.Cloud.__module__)\n"
        "print(taints.GPU_TAINT_KEYS is sys.modules['gpu_fabric.fabric.taints'].GPU_TAINT_KEYS)\n"
        "print(sys.modules['gpu_fabric'].__file__)\n"
    )
    env = _installed_env(site)
    env["PYTHONPATH"] = os.pathsep.join([str(site), str(ROOT / "policy")])
    assert _run([sys.executable, "-c", code], team_repo, env).splitlines() == [
        "gpu_fabric.catalog.model",  # where Cloud is defined
        "True",
        str(site / "gpu_fabric" / "__init__.py"),
    ]


def test_installed_help_names_the_installed_module(site: Path, team_repo: Path) -> None:
    out = _run([sys.executable, "-m", "gpu_fabric", "--help"], team_repo, _installed_env(site))
    assert out.startswith("usage: python -m gpu_fabric")
    assert "components" not in out


def test_the_editable_checkout_is_imported_beside_a_team_components_package(
    team_repo: Path,
) -> None:
    # `make install` installs the checkout editable: a .pth that adds its components/.
    editable = [
        Path(line.strip()) for pth in Path(sysconfig.get_paths()["purelib"]).glob(
            "__editable__.gpu_fabric*.pth")
        for line in pth.read_text().splitlines() if line.strip()
    ]
    if editable != [ROOT / "components"]:
        pytest.skip(f"this virtualenv's editable install is {editable}, not this checkout")
    code = "import components, gpu_fabric\nassert components.TEAM\nprint(gpu_fabric.__file__)\n"
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    (where,) = _run([sys.executable, "-c", code], team_repo, env).splitlines()
    assert where == str(PACKAGE / "__init__.py")


def test_no_source_file_names_the_old_import_name() -> None:
    offenders = []
    for path in (*PACKAGE.rglob("*.py"), *(ROOT / "tests").rglob("*.py"),
                 *(ROOT / "examples").rglob("*.py"), *(ROOT / "policy").rglob("*.py"),
                 *(ROOT / "docs").rglob("*.md"), ROOT / "README.md", ROOT / "Makefile"):
        text = path.read_text()
        for bad in ("python -m components", "from components.", "import components.",
                    '"components.'):
            if bad in text and path != Path(__file__):
                offenders.append(f"{path.relative_to(ROOT)}: {bad}")
    assert offenders == []


def test_the_readme_install_path_is_the_wheel_this_builds(wheel: Path) -> None:
    """Issue 36: the quick start's `pip install 'gpu-fabric[aws]'` finds no distribution.

    The README builds the wheel with one command and installs it with its extra; the
    wheel built here (the same `pip wheel --no-deps`, offline) has that file name and
    declares every cloud's extra with its pinned SDK (pyproject.toml)."""
    readme = (ROOT / "README.md").read_text()
    assert "pip wheel --no-deps -w dist ./gpu-fabric" in readme
    assert f"pip install 'dist/{wheel.name}[aws]'" in readme
    assert "pip install './gpu-fabric[aws]'" in readme
    with zipfile.ZipFile(wheel) as archive:
        (meta,) = [n for n in archive.namelist() if n.endswith(".dist-info/METADATA")]
        lines = archive.read(meta).decode().splitlines()
    extras = {line.split(": ", 1)[1] for line in lines if line.startswith("Provides-Extra: ")}
    assert {"gcp", "aws", "azure", "digitalocean", "oci", "all"} <= extras
    assert 'Requires-Dist: pulumi-aws==7.51.1; extra == "aws"' in lines  # pyproject.toml
