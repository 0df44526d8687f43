"""`validate` and `plan` give the same verdict (issue 20, "one validation path").

Each case mutates one committed stack file (the fixture) in a way that, before
gpu_fabric.preflight existed, `validate` accepted and only `plan` refused (a
GKE pool named `system`, a /28 VPC, an AWS zone outside its region...). For
each, both commands must exit 1 and name the same field. The unmutated stacks
must pass both (tests/spec/test_spec.py plans every committed stack).
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml

from gpu_fabric.cli import main
from gpu_fabric.plan.stackfile import CLUSTER_KEY, stack_path

Mutation = Callable[[dict[str, Any]], None]


def _set(path: str, value: Any) -> Mutation:
    """Set ``a.b[0].c`` inside the cluster spec."""

    def apply(spec: dict[str, Any]) -> None:
        node: Any = spec
        parts = path.replace("[", ".").replace("]", "").split(".")
        for part in parts[:-1]:
            key: Any = int(part) if part.isdigit() else part
            if isinstance(node, dict) and key not in node:
                node[key] = {}
            node = node[key]
        last = parts[-1]
        node[int(last) if last.isdigit() else last] = value

    return apply


# (stack, mutation, field the message must name). Each of these was accepted by
# `validate` and refused by `plan` before validate ran gpu_fabric.preflight.
CASES: list[tuple[str, str, Mutation, str]] = [
    ("gcp-a4", "pool named system", _set("node_pools[0].name", "system"), "node_pools[0].name"),
    ("gcp-a4", "multi-networking off", _set("gcp.multi_networking", False),
     "gcp.multi_networking"),
    ("gcp-a4", "fabric subnets do not fit", _set("network.fabric_cidr", "192.168.0.0/22"),
     "network.fabric_subnet_prefix"),
    ("gcp-a4", "host-network on GKE", _set("fabric.mode", "host-network"), "fabric.mode"),
    ("gcp-a4", "release channel without node auto-upgrade",
     _set("gcp.release_channel", "REGULAR"), "node_pools[0].auto_upgrade"),
    ("aws-p5", "/28 VPC", _set("network.cidr", "10.0.0.0/28"), "network.cidr"),
    ("aws-p5", "AZ outside the region", _set("aws.availability_zones", ["us-west-2a",
                                                                        "us-west-2b"]),
     "aws.availability_zones[0]"),
    ("aws-p5", "pod range on EKS", _set("network.pod_cidr", "10.100.0.0/16"),
     "network.pod_cidr"),
    ("aws-p5", "unknown AMI type", _set("node_pools[0].os_image", "UBUNTU"),
     "node_pools[0].os_image"),
    ("aws-p5", "public service range", _set("network.service_cidr", "100.64.0.0/16"),
     "network.service_cidr"),
    ("azure-ndv5", "pool named system", _set("node_pools[0].name", "system"),
     "node_pools[0].name"),
    ("azure-ndv5", "/28 VNet", _set("network.cidr", "10.10.0.0/28"), "network.cidr"),
    ("do-h200", "/8 VPC", _set("network.cidr", "10.0.0.0/8"), "network.cidr"),
    ("do-h200", "host-network on DOKS", _set("fabric.mode", "host-network"), "fabric.mode"),
    ("do-h200", "macvlan on DOKS", _set("fabric.nad_type", "macvlan"), "fabric.nad_type"),
    ("oci-h100", "rdma-shared on OKE", _set("fabric.device_plugin", "rdma-shared"),
     "fabric.device_plugin"),
    ("oci-h100", "autoscaling on OKE", _set("node_pools[0].min_nodes", 1),
     "node_pools[0].max_nodes"),
]


def _write(tmp_path: Path, stack: str, mutate: Mutation | None) -> Path:
    doc = yaml.safe_load(stack_path(stack).read_text())
    doc = copy.deepcopy(doc)
    if mutate is not None:
        mutate(doc["config"][CLUSTER_KEY])
    out = tmp_path / f"Pulumi.{stack}.yaml"
    out.write_text(yaml.safe_dump(doc, sort_keys=False))
    return out


def _verdict(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    code = main(argv)
    captured = capsys.readouterr()
    return code, captured.err


@pytest.mark.parametrize(
    ("stack", "mutate", "field"),
    [pytest.param(s, m, f, id=f"{s}: {label}") for s, label, m, f in CASES],
)
def test_validate_and_plan_refuse_the_same_mutation(
    stack: str, mutate: Mutation, field: str, tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    path = _write(tmp_path, stack, mutate)
    if field.endswith("max_nodes"):
        # OKE refuses autoscaling bounds; set both so the generic spec accepts them.
        doc = yaml.safe_load(path.read_text())
        doc["config"][CLUSTER_KEY]["node_pools"][0]["max_nodes"] = 4
        path.write_text(yaml.safe_dump(doc, sort_keys=False))
    v_code, v_err = _verdict(["validate", "--config", str(path)], capsys)
    p_code, p_err = _verdict(["plan", "--config", str(path), "--quiet"], capsys)
    assert (v_code, p_code) == (1, 1), f"validate exit {v_code}, plan exit {p_code}\n{v_err}"
    assert field in v_err, v_err
    assert field in p_err, p_err
    # Same problems, in the same words (source line aside).
    assert v_err.splitlines()[1:] == p_err.splitlines()[1:]


@pytest.mark.parametrize("stack", ["gcp-a4", "aws-p5", "azure-ndv5", "do-h200", "oci-h100"])
def test_unmutated_fixture_passes_both(
    stack: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _write(tmp_path, stack, None)
    assert _verdict(["validate", "--config", str(path)], capsys)[0] == 0
    assert _verdict(["plan", "--config", str(path), "--quiet"], capsys)[0] == 0
