"""Cloud SDKs load only for the cloud a stack uses (pulumi_azure_native alone is huge),
and a cloud's folder only when that cloud is asked for (issue 28: importing any module
used to load 77 modules, 32 of them under gpu_fabric.clouds, through the registry)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from gpu_fabric.catalog import Cloud
from gpu_fabric.cli.stacks import stack_cloud
from gpu_fabric.plan.stackfile import available_stacks

SDKS = {
    "gcp": "pulumi_gcp", "aws": "pulumi_aws", "azure": "pulumi_azure_native",
    "digitalocean": "pulumi_digitalocean", "oci": "pulumi_oci",
}

PROBE = """
import json, sys
{body}
print(json.dumps(sorted(m for m in sys.modules if m.split('.')[0] in {sdks!r})))
"""


def _loaded_sdks(body: str) -> list[str]:
    code = PROBE.format(body=body, sdks=set(SDKS.values()))
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    mods: list[str] = json.loads(out.stdout.strip().splitlines()[-1])
    return sorted({m.split(".")[0] for m in mods})


def test_import_gpu_fabric_loads_no_cloud_sdk() -> None:
    assert _loaded_sdks("import gpu_fabric; gpu_fabric.load_spec; gpu_fabric.get_machine") == []


def _one_stack_per_cloud() -> list[str]:
    seen: dict[str, str] = {}
    for stack in available_stacks():
        seen.setdefault(stack_cloud(stack), stack)
    return sorted(seen.values())


@pytest.mark.parametrize("stack", _one_stack_per_cloud())
def test_plan_loads_only_the_stacks_cloud_sdk(stack: str) -> None:
    body = (
        "from gpu_fabric.plan import load_stack_file, run_plan\n"
        f"run_plan(load_stack_file({stack!r}))"
    )
    cloud = stack_cloud(stack)
    expected = [SDKS[cloud]] if cloud in SDKS else []
    assert _loaded_sdks(body) == expected


# -- which gpu_fabric modules an import loads ---------------------------------------------
MODULES = """
import json, sys
{body}
print(json.dumps(sorted(m for m in sys.modules if m.startswith('gpu_fabric'))))
"""
# What the spec needs of every cloud: the registry, the provider (its facts) and the
# options model of the spec's section; nothing else of any cloud's folder.
SPEC_SIDE = {"gpu_fabric.clouds", "gpu_fabric.clouds.registry", "gpu_fabric.clouds.contract",
             "gpu_fabric.clouds.adapter", "gpu_fabric.clouds.options_base"}


def _loaded(body: str) -> list[str]:
    out = subprocess.run([sys.executable, "-c", MODULES.format(body=body)],
                         capture_output=True, text=True, check=True)
    loaded: list[str] = json.loads(out.stdout.strip().splitlines()[-1])
    return loaded


def _cloud_modules(loaded: list[str]) -> list[str]:
    return [m for m in loaded if m.startswith("gpu_fabric.clouds")]


def _folder_modules(loaded: list[str]) -> dict[str, list[str]]:
    """cloud -> the modules of its folder that were loaded, besides provider and options."""
    found: dict[str, list[str]] = {}
    for m in loaded:
        parts = m.split(".")
        if len(parts) == 4 and parts[1] == "clouds" and parts[3] not in ("provider", "options"):
            found.setdefault(parts[2], []).append(parts[3])
    return found


def test_importing_the_catalog_loads_no_cloud_module() -> None:
    loaded = _loaded("import gpu_fabric.catalog")
    assert "gpu_fabric.catalog" in loaded  # the probe sees the import
    assert _cloud_modules(loaded) == []


def test_importing_gpu_fabric_loads_no_cloud_module() -> None:
    loaded = _loaded("import gpu_fabric; gpu_fabric.get_machine('a3-megagpu-8g')")
    assert _cloud_modules(loaded) == []
    assert len(loaded) < 30  # 77 before issue 28; 18 after


def test_the_spec_loads_each_clouds_provider_and_options_only() -> None:
    loaded = _loaded("import gpu_fabric.spec")
    clouds = sorted(c.value for c in Cloud)
    expected = SPEC_SIDE | {f"gpu_fabric.clouds.{c}{m}" for c in clouds
                            for m in ("", ".provider", ".options")}
    assert sorted(_cloud_modules(loaded)) == sorted(expected)


def test_describing_an_aws_pool_loads_only_the_aws_folder() -> None:
    body = (
        "from gpu_fabric.spec import load_spec\n"
        "from gpu_fabric.fabric.description import describe_cluster\n"
        "from tests.specs import spec_dict\n"
        "describe_cluster(load_spec(spec_dict('aws')))"
    )
    folders = _folder_modules(_loaded(body))
    assert list(folders) == ["aws"]
    assert "fabric" in folders["aws"]
    assert "cluster" not in folders["aws"]  # the component (and the SDK) only for a stack


def test_a_clouds_component_class_comes_through_its_provider() -> None:
    loaded = _loaded("import gpu_fabric; gpu_fabric.OciGpuCluster")
    assert list(_folder_modules(loaded)) == ["oci"]
    assert "gpu_fabric.clouds.oci.cluster" in loaded
