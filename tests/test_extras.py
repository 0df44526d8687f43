"""Each cloud's SDK is an optional extra; a missing one says which extra installs it."""

from __future__ import annotations

import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from gpu_fabric.catalog import Cloud
from gpu_fabric.sdks import sdk_module

ROOT = Path(__file__).resolve().parents[1]
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
# The distribution of each SDK (pypi.org/project/<name>), pinned in pyproject.toml.
DISTRIBUTIONS = {
    "gcp": "pulumi-gcp", "aws": "pulumi-aws", "azure": "pulumi-azure-native",
    "digitalocean": "pulumi-digitalocean", "oci": "pulumi-oci",
}


def _names(requirements: list[str]) -> list[str]:
    return [r.split("==")[0].split("[")[0].strip() for r in requirements]


def test_core_dependencies_carry_no_cloud_sdk() -> None:
    assert sorted(_names(PYPROJECT["dependencies"])) == [
        "PyYAML", "pulumi", "pulumi-kubernetes", "pydantic"
    ]


@pytest.mark.parametrize("cloud", [c.value for c in Cloud])
def test_one_extra_per_cloud_with_its_pinned_sdk(cloud: str) -> None:
    extra = PYPROJECT["optional-dependencies"][cloud]
    assert _names(extra) == [DISTRIBUTIONS[cloud]]
    assert "==" in extra[0]  # pinned
    assert sdk_module(Cloud(cloud)) == DISTRIBUTIONS[cloud].replace("-", "_")


def test_all_and_dev_carry_every_cloud_at_the_same_pin() -> None:
    extras = PYPROJECT["optional-dependencies"]
    pins = {extras[c.value][0] for c in Cloud}
    assert pins <= set(extras["all"]) and pins <= set(extras["dev"])


def _run_without(module: str, argv: list[str]) -> subprocess.CompletedProcess[str]:
    code = (
        "import sys\n"
        f"sys.modules[{module!r}] = None  # as if the extra were not installed\n"
        "from gpu_fabric.cli import main\n"
        f"sys.exit(main({argv!r}))\n"
    )
    return subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=False
    )


def test_plan_without_the_stacks_sdk_names_the_extra() -> None:
    proc = _run_without("pulumi_gcp", ["plan", "--stack", "gcp-a4", "--quiet"])
    assert proc.returncode == 3, proc.stderr
    assert "pip install 'gpu-fabric[gcp]'" in proc.stderr
    assert "Traceback" not in proc.stderr and proc.stdout == ""


def test_plan_of_another_cloud_does_not_need_that_sdk() -> None:
    proc = _run_without("pulumi_gcp", ["plan", "--stack", "do-h200", "--quiet"])
    assert proc.returncode == 0, proc.stderr


def test_team_program_gets_the_hint_from_the_component_class() -> None:
    code = (
        "import sys\nsys.modules['pulumi_aws'] = None\nimport gpu_fabric\n"
        "try:\n    gpu_fabric.AwsGpuCluster\nexcept ModuleNotFoundError as exc:\n"
        "    print(exc)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         cwd=ROOT, check=True).stdout
    assert "pip install 'gpu-fabric[aws]'" in out


# -- the per-cloud building-block modules (gpu_fabric.gcp, gpu_fabric.aws...) -------------
def _python(code: str) -> str:
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          cwd=ROOT, check=True).stdout


@pytest.mark.parametrize("cloud", [c.value for c in Cloud])
def test_a_block_without_its_sdk_names_the_extra(cloud: str) -> None:
    """Installed without the extra: the block says which one, not a raw import error."""
    module = DISTRIBUTIONS[cloud].replace("-", "_")
    out = _python(
        f"import sys\nsys.modules[{module!r}] = None  # as if the extra were not installed\n"
        f"import gpu_fabric.{cloud} as blocks\n"
        "try:\n    blocks.FabricNetworkArgs\n"
        "except ModuleNotFoundError as exc:\n    print(type(exc).__name__, exc)\n"
    )
    assert out.startswith("CloudSdkMissing "), out
    assert f"pip install 'gpu-fabric[{cloud}]'" in out


@pytest.mark.parametrize("cloud", [c.value for c in Cloud])
def test_importing_a_cloud_module_loads_no_sdk(cloud: str) -> None:
    out = _python(
        f"import sys\nimport gpu_fabric.{cloud} as blocks\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in "
        f"{sorted(d.replace('-', '_') for d in DISTRIBUTIONS.values())!r}))\n"
        "blocks.FabricNetwork\n"
        f"print({DISTRIBUTIONS[cloud].replace('-', '_')!r} in sys.modules)\n"
    )
    assert out.splitlines() == ["[]", "True"]  # nothing until a block is used, then its SDK
