"""A sixth cloud is one folder plus one registry line (issue 28, "each cloud is one folder").

The test copies the package to a temporary directory, adds ``clouds/toy/`` (options,
provider, describer, Kubernetes side, checks, component, fakes, plan facts) and,
outside it, only what issue 28 excepts: the :class:`~gpu_fabric.catalog.Cloud` value, the catalog's
data file for the toy's one machine (and its line in the catalog's list) and the
registry line. Then, in a subprocess with the copy first on ``PYTHONPATH``, it
validates, plans (the offline planner) and renders a stack of the toy cloud, and
checks that the toy's own rules (its regions, no zones) are the ones applied.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "components" / "gpu_fabric"

TOY: dict[str, str] = {
    "clouds/toy/__init__.py": '"""The toy cloud (tests/clouds/test_toy_cloud.py)."""\n',
    "clouds/toy/options.py": '''"""The spec's ``toy:`` section."""

from gpu_fabric.clouds.options_base import CloudOptions


class ToyOptions(CloudOptions):
    project: str = "toy"
''',
    "clouds/toy/provider.py": '''"""The toy cloud's provider: its facts."""

from typing import Any

from gpu_fabric.catalog import Cloud
from gpu_fabric.clouds.adapter import ProviderBase
from gpu_fabric.clouds.contract import CloudDocs
from gpu_fabric.clouds.toy.options import ToyOptions
from gpu_fabric.errors import Problem


class ToyProvider(ProviderBase):
    cloud = Cloud("toy")
    options_model = ToyOptions
    sdk = "pulumi"  # the toy's resources are components: no SDK beyond pulumi
    cluster_class_name = "ToyGpuCluster"
    docs = CloudDocs("TKS", "https://toy.example/prices", "https://toy.example/gpus", "none")
    example_location = ("toy-1", None)
    options_required = False
    has_zones = False

    def location_problems(self, region: str, zone: str | None) -> list[Problem]:
        from gpu_fabric.regions import unknown_region

        return unknown_region(self.cloud, region, ("toy-1", "toy-2"))


PROVIDER: Any = ToyProvider()
''',
    "clouds/toy/fabric.py": '''"""The toy's pools have no scale-out fabric."""

from gpu_fabric.clouds.toy.provider import PROVIDER
from gpu_fabric.fabric.derive import pool_labels, pool_taints
from gpu_fabric.fabric.description import Attach, DevicePlugin, FabricDescription


def describe(spec, pool):
    machine = pool.machine
    return FabricDescription(
        cloud=spec.cloud, pool=pool.name, machine=machine, attach=Attach.NONE,
        device_plugin=DevicePlugin.NONE, rails=(), gpu_resource=machine.gpu_resource,
        node_labels=pool_labels(pool, dra=False),
        taints=pool_taints(spec, pool, PROVIDER.gpu_taint(machine.gpu.vendor)),
    )
''',
    "clouds/toy/kubernetes.py": '''"""The toy's side of the Kubernetes layer: one ConfigMap."""

from gpu_fabric.fabric.model import Part


def addon_defaults(spec, fabrics):
    return {}


def chart_values(addon, spec, fabrics):
    return {}


def parts(spec, fabrics, addons):
    config = {"apiVersion": "v1", "kind": "ConfigMap",
              "metadata": {"name": "toy-fabric", "namespace": "kube-system"},
              "data": {"pools": ",".join(sorted(fabrics))}}
    return [Part("toy-fabric", (config,), description="what the toy's nodes read")]
''',
    "clouds/toy/checks.py": '''"""The toy's node subnet holds every node."""

from gpu_fabric.addressing import all_nodes, holds, raise_problems


def check_infrastructure(spec, fabrics):
    raise_problems(holds("network.cidr", spec.network.cidr, 2, all_nodes(spec),
                         "the toy node subnet"))
''',
    "clouds/toy/cluster.py": '''"""ToyGpuCluster: a network, a cluster, a GPU pool."""

import pulumi

from gpu_fabric.catalog import Cloud
from gpu_fabric.cluster import ClusterInfra, GpuCluster, NodePoolInfo


class ToyGpuCluster(GpuCluster):
    module = "toy"
    cloud = Cloud("toy")

    def _create_infrastructure(self):
        network = pulumi.ComponentResource("gpufabric:toy:FabricNetwork", f"{self.name}-net",
                                           None, self.child_opts())
        cluster = pulumi.ComponentResource("gpufabric:toy:Cluster", self.name, None,
                                           self.child_opts(depends_on=[network]))
        pools = []
        for pool in self.spec.node_pools:
            pulumi.ComponentResource("gpufabric:toy:GpuNodePool", f"{self.name}-{pool.name}",
                                     None, self.child_opts(depends_on=[cluster]))
            pools.append(NodePoolInfo(pool.name, pool.machine, pool.node_count,
                                      f"{self.name}-{pool.name}"))
        return ClusterInfra(kubeconfig="apiVersion: v1\\nkind: Config\\n",
                            cluster_name=self.name, node_pools=pools)
''',
    "clouds/toy/fakes.py": '''"""The toy creates no SDK resource: nothing to answer offline."""

RESOURCE_OUTPUTS: dict = {}
CALLS: dict = {}
''',
    "clouds/toy/plan_facts.py": '''"""The toy has no replacing inputs, no credentials."""

from gpu_fabric.plan.cloud_facts import PlanFacts

PLAN_FACTS = PlanFacts()
''',
    "catalog/toy.py": '''"""The toy cloud's one machine (no fabric)."""

from dataclasses import replace

from gpu_fabric.catalog import digitalocean
from gpu_fabric.catalog.model import Cloud

_BASE = next(m for m in digitalocean.MACHINES if m.name == "gpu-h100x8-640gb")
MACHINES = (replace(_BASE, name="toy-h100x8", cloud=Cloud("toy")),)
''',
}


def _edit(path: Path, after: str, line: str) -> None:
    """Insert ``line`` after the one line of ``path`` that is ``after``."""
    text = path.read_text()
    assert text.count(after) == 1, (path, after)
    path.write_text(text.replace(after, after + line))


def _build_copy(tmp: Path) -> Path:
    """The package with the toy cloud added; returns the directory to put on the path."""
    dest = tmp / "gpu_fabric"
    shutil.copytree(PACKAGE, dest, ignore=shutil.ignore_patterns("__pycache__"))
    for rel, text in TOY.items():
        (dest / rel).parent.mkdir(parents=True, exist_ok=True)
        (dest / rel).write_text(text)
    # The enum and its title (issue 28 excepts the enum).
    _edit(dest / "catalog/model.py", '    OCI = "oci"\n', '    TOY = "toy"\n')
    _edit(dest / "catalog/model.py", '    Cloud.OCI: "OCI",\n', '    Cloud.TOY: "Toy",\n')
    # The catalog's list of its per-cloud data files.
    _edit(dest / "catalog/lookup.py", "    *oci.MACHINES,\n", "    *toy.MACHINES,\n")
    _edit(dest / "catalog/lookup.py",
          "from gpu_fabric.catalog import aws, azure, digitalocean, gcp, oci", ", toy")
    # The one registry line.
    _edit(dest / "clouds/registry.py", '    Cloud.OCI: "gpu_fabric.clouds.oci.provider",\n',
          '    Cloud.TOY: "gpu_fabric.clouds.toy.provider",\n')
    return tmp


PROBE = '''
import json, sys
from pathlib import Path
from gpu_fabric.errors import SpecError
from gpu_fabric.plan import run_spec
from gpu_fabric.preflight import check_spec
from gpu_fabric.render import render
from gpu_fabric.spec import load_spec

data = json.loads(sys.argv[1])
out = {"package": __import__("gpu_fabric").__file__}
spec = load_spec(data)
check_spec(spec)                                      # validate
plan = run_spec(data)                                 # plan, offline
out["types"] = sorted({r.type for r in plan.resources})
out["cloud"] = plan.outputs["cloud"]
written = render(spec, Path(sys.argv[2]))             # render
out["rendered"] = sorted(p.name for p in written)
import yaml
out["toy_part"] = next(yaml.safe_load(p.read_text()) for p in written
                       if p.name.endswith("-toy-fabric.yaml"))
refused = {}
for key, bad in (("region", {"region": "toy-9"}), ("zone", {"region": "toy-1", "zone": "a"})):
    try:
        load_spec({**data, "location": bad})
    except SpecError as exc:
        refused[key] = [str(p) for p in exc.problems]
out["refused"] = refused
print(json.dumps(out))
'''

SPEC = {
    "name": "toy", "cloud": "toy", "location": {"region": "toy-1"},
    "api_access": {"authorized_cidrs": ["198.51.100.7/32"]},
    "node_pools": [{"name": "gpu", "machine_type": "toy-h100x8", "node_count": 1}],
}


@pytest.fixture(scope="module")
def toy(tmp_path_factory: pytest.TempPathFactory) -> dict:
    tmp = tmp_path_factory.mktemp("toy")
    path = _build_copy(tmp / "pkg")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(path), str(ROOT / "policy")])}
    run = subprocess.run([sys.executable, "-c", PROBE, json.dumps(SPEC), str(tmp / "render")],
                         capture_output=True, text=True, env=env, cwd=tmp)
    assert run.returncode == 0, run.stderr[-3000:]
    result: dict = json.loads(run.stdout.strip().splitlines()[-1])
    return result


def test_the_copy_is_what_runs(toy: dict) -> None:
    assert toy["package"].endswith("pkg/gpu_fabric/__init__.py")


def test_a_toy_stack_plans_its_network_cluster_and_pool(toy: dict) -> None:
    assert toy["cloud"] == "toy"
    assert {"gpufabric:toy:GpuCluster", "gpufabric:toy:FabricNetwork", "gpufabric:toy:Cluster",
            "gpufabric:toy:GpuNodePool", "gpufabric:kubernetes:FabricStack",
            "pulumi:providers:kubernetes"} <= set(toy["types"])


def test_a_toy_stack_renders_its_layer(toy: dict) -> None:
    """The toy's own part reaches the files, in the layer's order, beside the index."""
    assert "layer.yaml" in toy["rendered"]
    assert [n for n in toy["rendered"] if n.endswith("-toy-fabric.yaml")] != []
    assert toy["toy_part"] == {"apiVersion": "v1", "kind": "ConfigMap",
                               "metadata": {"name": "toy-fabric", "namespace": "kube-system"},
                               "data": {"pools": "gpu"}}


def test_the_toys_own_location_rules_apply(toy: dict) -> None:
    (region,) = toy["refused"]["region"]
    assert region.startswith("location.region: 'toy-9' is not a Toy region; did you mean")
    assert "(known: toy-1, toy-2;" in region
    assert "components/gpu_fabric/clouds/toy/regions.py" in region
    assert toy["refused"]["zone"] == ["location.zone: Toy has no zones; remove location.zone"]


def test_outside_the_folder_only_the_excepted_files_change(tmp_path: Path) -> None:
    """Issue 28 excepts the enum, the catalog's per-cloud data and the registry."""
    copy = _build_copy(tmp_path) / "gpu_fabric"
    changed = sorted(
        rel for p in copy.rglob("*.py")
        if not (rel := p.relative_to(copy).as_posix()).startswith("clouds/toy/")
        and (not (PACKAGE / rel).exists() or (PACKAGE / rel).read_text() != p.read_text())
    )
    assert changed == ["catalog/lookup.py", "catalog/model.py", "catalog/toy.py",
                       "clouds/registry.py"]
