"""``plan`` and ``render`` build the Kubernetes layer once (issue 36).

Before, a plan built it three times (the runner's checks, the cloud factory's checks,
FabricStack) and render twice (the checks, the files); at 256 teams each build is
seconds. :func:`gpu_fabric.fabric.layer.reusing_layers` scopes the reuse to one command.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from gpu_fabric.cli import main
from gpu_fabric.fabric import layer


@pytest.fixture
def builds(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    calls: list[str] = []
    real = layer._build

    def counted(spec: Any, fabrics: Any, plugins: Any) -> layer.Layer:
        calls.append(spec.name)
        return real(spec, fabrics, plugins)

    monkeypatch.setattr(layer, "_build", counted)
    return calls


def test_plan_builds_the_layer_once(builds: list[str], capsys: pytest.CaptureFixture[str]
                                    ) -> None:
    assert main(["plan", "--stack", "gcp-a4", "--quiet"]) == 0
    assert builds == ["dranet"]  # stacks/Pulumi.gcp-a4.yaml: name: dranet


def test_render_builds_the_layer_once(builds: list[str], tmp_path: Path,
                                      capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["render", "--stack", "gcp-a4", "--out", str(tmp_path), "--quiet"]) == 0
    assert builds == ["dranet"]


def test_outside_a_command_each_call_builds(builds: list[str]) -> None:
    from gpu_fabric.layers import plugins
    from gpu_fabric.plan import load_stack_file
    from gpu_fabric.render import layer_for
    from gpu_fabric.spec import load_spec

    spec = load_spec(load_stack_file("gcp-a4").cluster)
    first, second = layer_for(spec), layer_for(spec)
    assert builds == ["dranet", "dranet"] and first is not second
    with layer.reusing_layers():
        assert layer_for(spec) is layer_for(spec)
        assert layer.build_layer(spec, {}, plugins()) is not layer_for(spec)  # other fabrics
