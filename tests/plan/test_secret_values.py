"""Issue 21: Helm values from secure stack config stay Pulumi secrets and are masked.

A user's ``addons.<key>.values`` may hold a registry password or a token, set with
``pulumi config set --secret --path 'cluster.addons.kyverno.values.token' ...``. Pulumi
marks the whole ``gpu-fabric:cluster`` key secret when any value inside is ``secure:``
(that is what ``secret_keys`` of the stack file / runtime config carries). Before this,
the Release got the decrypted values as plain inputs: they were visible in previews, in
the plan and in the state.
"""

from __future__ import annotations

import json
from pathlib import Path

from gpu_fabric.plan.runner import run_plan, run_spec
from gpu_fabric.plan.stackfile import SECRET_PLACEHOLDER, parse_stack_text
from gpu_fabric.render import render
from gpu_fabric.spec import load_spec
from tests.specs import spec_dict

RELEASE = "kubernetes:helm.sh/v3:Release"
CIPHERTEXT = "v1:AAAAsecretciphertext"
TEXT = f"""config:
  gpu-fabric:cluster:
    name: sec
    cloud: digitalocean
    location: {{region: nyc2}}
    api_access: {{authorized_cidrs: [203.0.113.0/24]}}
    node_pools:
      - {{name: gpu, machine_type: gpu-h200x8-1128gb-fabric-contracted, node_count: 2}}
    addons:
      kyverno:
        values:
          imagePullSecrets:
            token: {{secure: {CIPHERTEXT}}}
"""


def _kyverno(plan) -> dict:
    return next(r for r in plan.by_type(RELEASE) if r.inputs.get("name") == "kyverno").inputs


def test_user_values_from_secure_config_are_secret_in_the_plan() -> None:
    stack = parse_stack_text(TEXT, "sec")
    assert stack.secret_keys == ["gpu-fabric:cluster"]
    plan = run_plan(stack)
    assert _kyverno(plan)["values"] == "[secret]"
    assert CIPHERTEXT not in json.dumps(plan.to_json())


def test_the_same_values_stay_secret_when_decrypted() -> None:
    """What ``pulumi up`` sees: the decrypted value, with the key listed as secret."""
    data = spec_dict("digitalocean",
                     addons={"kyverno": {"values": {"token": "hunter2-plaintext"}}})
    plan = run_spec(data, secret_keys=["gpu-fabric:cluster"])
    assert _kyverno(plan)["values"] == "[secret]"
    assert "hunter2-plaintext" not in json.dumps(plan.to_json())


def test_values_of_a_config_without_secrets_stay_reviewable() -> None:
    data = spec_dict("digitalocean", addons={"kyverno": {"values": {"replicas": 3}}})
    values = _kyverno(run_spec(data))["values"]
    assert isinstance(values, dict) and values["replicas"] == 3


def test_render_masks_secure_values(tmp_path: Path) -> None:
    stack = parse_stack_text(TEXT, "sec")
    render(load_spec(stack.cluster), tmp_path)
    written = "".join(p.read_text() for p in tmp_path.rglob("*.yaml"))
    assert CIPHERTEXT not in written
    values = (tmp_path / "helm" / "kyverno.values.yaml").read_text()
    assert f"token: '{SECRET_PLACEHOLDER}'" in values
