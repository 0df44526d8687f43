"""Cloud SDKs load only for the cloud a stack uses (pulumi_azure_native alone is huge)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

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


def test_import_components_loads_no_cloud_sdk() -> None:
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
