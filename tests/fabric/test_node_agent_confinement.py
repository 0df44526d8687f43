"""Issue 21: Multus (privileged, the host's ``/`` mounted at /hostroot) ran on every node,
system nodes included, on DOKS and OKE. It now runs only on the fabric pools' nodes.

The pool label ``gpufabric.dev/pool`` is set on every GPU node pool this library creates
(gpu_fabric/fabric/derive.py node labels, passed to DOKS ``KubernetesNodePool.labels`` and
OKE ``initial_node_labels``); on an existing cluster the pool's own ``labels`` select it.
"""

from __future__ import annotations

import pytest

from gpu_fabric.plan.stackfile import load_stack_file
from gpu_fabric.render import layer_for
from gpu_fabric.spec import load_spec
from tests.specs import spec_dict


def _multus(spec) -> dict:
    for part in layer_for(spec).parts:
        for m in part.manifests:
            if m["kind"] == "DaemonSet" and m["metadata"]["name"] == "kube-multus-ds":
                return m["spec"]["template"]["spec"]
    raise AssertionError("no Multus DaemonSet")


def _terms(pod: dict) -> list:
    affinity = pod["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]
    return affinity["nodeSelectorTerms"]


@pytest.mark.parametrize(("stack", "pool"), [("do-h200", "h200"), ("oci-h100", "h100")])
def test_multus_runs_only_on_fabric_pools(stack: str, pool: str) -> None:
    pod = _multus(load_spec(load_stack_file(stack).cluster))
    assert _terms(pod) == [{"matchExpressions": [
        {"key": "gpufabric.dev/pool", "operator": "In", "values": [pool]}]}]


def test_two_fabric_pools_are_either_or() -> None:
    data = spec_dict("digitalocean")
    data["node_pools"].append(dict(data["node_pools"][0], name="gpu2"))
    terms = _terms(_multus(load_spec(data)))
    assert [t["matchExpressions"][0]["values"] for t in terms] == [["gpu"], ["gpu2"]]


def test_existing_cluster_uses_the_pool_labels_or_runs_everywhere() -> None:
    data = load_stack_file("existing").cluster
    assert "affinity" not in _multus(load_spec(data))  # no pool labels: cannot tell apart
    data = dict(data, node_pools=[dict(data["node_pools"][0],
                                       labels={"doks.digitalocean.com/gpu-brand": "nvidia"})])
    assert _terms(_multus(load_spec(data))) == [{"matchExpressions": [
        {"key": "doks.digitalocean.com/gpu-brand", "operator": "In", "values": ["nvidia"]}]}]
