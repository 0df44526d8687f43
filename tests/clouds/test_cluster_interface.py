"""The common cluster interface: factory dispatch, type tokens, parentage, outputs."""

from __future__ import annotations

import asyncio

import pulumi
import pytest

from gpu_fabric.catalog import Cloud
from gpu_fabric.clouds.factory import build_cluster, cluster_class
from gpu_fabric.clouds.registry import clouds, provider_for
from gpu_fabric.cluster import GpuCluster
from gpu_fabric.plan.runner import run_program
from gpu_fabric.spec import load_spec
from tests.specs import CLOUDS, spec_dict


def _existing(cloud: str) -> dict:
    return spec_dict(cloud, existing={"kubeconfig": {"path": "/nonexistent/kubeconfig"}})


@pytest.mark.parametrize("cloud", CLOUDS)
def test_existing_cluster_plan_has_the_common_shape(cloud: str, spec_plan) -> None:
    plan = spec_plan(_existing(cloud))
    root = plan.one("gpufabric:existing:GpuCluster")
    provider = plan.one("pulumi:providers:kubernetes")
    fabric = plan.one("gpufabric:kubernetes:FabricStack")
    assert provider.parent == root.urn and fabric.parent == root.urn
    assert provider.name == f"{root.name}-k8s" and fabric.name == f"{root.name}-fabric"
    assert provider.inputs["kubeconfig"] == "[secret]"
    for key in ("kubeconfig", "cluster_name", "node_pools", "fabric", "cloud"):
        assert key in plan.outputs
    assert plan.outputs["kubeconfig"] == "[secret]"
    # Every Kubernetes object sits under the fabric stack and uses the explicit provider.
    k8s_objects = [r for r in plan.resources if r.type.startswith("kubernetes:")]
    assert k8s_objects
    for res in k8s_objects:
        assert fabric in plan.ancestors(res)
        assert res.provider and res.provider.startswith(provider.urn)


def test_factory_maps_every_cloud_to_its_class_token() -> None:
    assert set(clouds()) == set(Cloud)
    for cloud in Cloud:
        cls = cluster_class(cloud)
        assert issubclass(cls, GpuCluster)
        assert cls.cloud is cloud
        assert cls.module == cloud.value
        assert cls.__name__ == provider_for(cloud).cluster_class_name
        assert cls.__module__ == f"gpu_fabric.clouds.{cloud.value}.cluster"  # in its folder


def test_wrong_cloud_class_is_refused() -> None:
    spec = load_spec(spec_dict("gcp"))
    aws_cls = cluster_class(Cloud.AWS)

    def program() -> None:
        aws_cls("x", spec)

    with pytest.raises(ValueError, match="builds aws clusters"):
        run_program(program)


def test_raw_dict_instead_of_spec_is_refused() -> None:
    def program() -> None:
        build_cluster("x", spec_dict("aws"))  # type: ignore[arg-type]

    with pytest.raises((TypeError, AttributeError)):
        run_program(program)


def test_missing_kubeconfig_file_fails_clearly_outside_plans(tmp_path) -> None:
    from gpu_fabric.existing import KubeconfigNotFoundError, read_kubeconfig
    from gpu_fabric.spec import KubeconfigSource

    with pytest.raises(KubeconfigNotFoundError, match=r"existing\.kubeconfig\.path"):
        read_kubeconfig(KubeconfigSource(path=str(tmp_path / "missing")))
    good = tmp_path / "kubeconfig"
    good.write_text("apiVersion: v1\n")
    # An Output needs the thread's event loop; a test that ran a Pulumi program before
    # this one may have closed and unset it (the suite's order is not fixed).
    # The thread's loop is given back afterwards: later tests build Outputs on it.
    try:
        original = asyncio.get_event_loop_policy().get_event_loop()
    except RuntimeError:  # unset by an earlier asyncio.run
        original = None
    loop = asyncio.new_event_loop()
    asyncio.set_event_loop(loop)
    try:
        out = read_kubeconfig(KubeconfigSource(path=str(good)))
        assert isinstance(out, pulumi.Output)
    finally:
        asyncio.set_event_loop(original)
        loop.close()
