"""Every GB200/GB300 pod gets an IMEX channel, in every fabric mode its cloud accepts.

Upstream: awsome-distributed-training 7217859
micro-benchmarks/nccl-tests/kubernetes/nccl-tests-gb200.yaml runs the GPUs on the device
plugin (lines 113-120: ``nvidia.com/gpu: 4``, ``vpc.amazonaws.com/efa: 4``) and joins a
ComputeDomain through its channel claim (lines 1-10, 121-125); NVIDIA/k8s-dra-driver-gpu
v25.12.0 ``demo/specs/imex/README.sh`` installs the driver with
``resources.gpus.enabled=false`` for that. Without the channel NCCL stops with
ncclSystemError, "Check the IMEX channel configuration" (NVIDIA/nccl src/mnnvl.cc).
"""

from __future__ import annotations

from typing import Any

import pytest

from gpu_fabric.errors import SpecError
from gpu_fabric.fabric.addons import resolve_addons
from gpu_fabric.fabric.description import describe_cluster
from gpu_fabric.fabric.injection import injection_part
from gpu_fabric.fabric.layer import build_layer
from gpu_fabric.fabric.workload import (
    FragmentError,
    fragment_for,
    job_compute_domain,
    pod_fragment,
)
from gpu_fabric.spec import load_spec
from tests.fabric_helpers import existing
from tests.support.variants import gb200_spec

CHANNEL = {"name": "compute-domain-channel",
           "resourceClaimTemplateName": "gpu-compute-domain-channel"}
GB200 = {"gcp": "a4x-highgpu-4g", "aws": "p6e-gb200.36xlarge",
         "azure": "Standard_ND128isr_NDR_GB200_v6", "oci": "BM.GPU.GB200-v3.4"}
# (cloud, mode, the GPU resource left on the container: None where DRA claims the GPUs)
ACCEPTED = [
    ("gcp", "device-plugin", "nvidia.com/gpu"), ("gcp", "dra", None),
    ("aws", "device-plugin", "nvidia.com/gpu"), ("aws", "dra", None),
    ("azure", "device-plugin", "nvidia.com/gpu"), ("azure", "dra", None),
    ("oci", "device-plugin", "nvidia.com/gpu"), ("oci", "dra", None),
    ("oci", "host-network", "nvidia.com/gpu"),
]


@pytest.mark.parametrize(("cloud", "mode", "gpu_limit"), ACCEPTED)
def test_every_accepted_mode_gives_the_channel_claim(cloud: str, mode: str,
                                                      gpu_limit: str | None) -> None:
    frag = fragment_for(GB200[cloud], 4, cloud=cloud, mode=mode)
    assert CHANNEL in frag.resource_claims
    assert "compute-domain-channel" in frag.container_claims
    assert frag.container_patch()["resources"]["claims"][-1] == {"name": "compute-domain-channel"}
    if gpu_limit:  # the device plugin still serves the GPUs (awsome lines 113-118)
        assert frag.limits[gpu_limit] == "4"
        assert frag.resource_claims == [CHANNEL]
    else:
        assert "nvidia.com/gpu" not in frag.limits


def test_a_job_names_its_own_compute_domain() -> None:
    """One ComputeDomain per job, as awsome's nccl-tests-gb200.yaml (lines 2-10) and the
    driver's demo (v25.12.0 demo/specs/imex/nvbandwidth-test-job.yaml lines 2-10) do."""
    frag = fragment_for("p6e-gb200.36xlarge", 4, compute_domain="nccl-tests")
    assert frag.resource_claims == [{"name": "compute-domain-channel",
                                     "resourceClaimTemplateName": "nccl-tests-channel"}]
    assert job_compute_domain("nccl-tests", "team-a") == {
        "apiVersion": "resource.nvidia.com/v1beta1",
        "kind": "ComputeDomain",
        "metadata": {"name": "nccl-tests", "namespace": "team-a",
                     "labels": {"app.kubernetes.io/managed-by": "gpu-fabric"}},
        # numNodes 0: the CRD's recommendation with IMEXDaemonsWithDNSNames (v25.12.0
        # crds/resource.nvidia.com_computedomains.yaml lines 73-76).
        "spec": {"numNodes": 0,
                 "channel": {"resourceClaimTemplate": {"name": "nccl-tests-channel"}}},
    }


def test_a_compute_domain_on_a_machine_without_nvlink_domain_is_refused() -> None:
    with pytest.raises(FragmentError) as err:
        fragment_for("p5.48xlarge", 8, compute_domain="nccl-tests")
    assert str(err.value) == (
        "compute_domain: p5.48xlarge (pool gpu) has no multi-node NVLink domain, so its "
        "pods join no ComputeDomain; got 'nccl-tests'")


def _layer(raw: dict[str, Any]) -> Any:
    spec = load_spec(raw)
    return spec, build_layer(spec, describe_cluster(spec))


@pytest.mark.parametrize("cloud", ["aws", "azure", "oci"])
def test_device_plugin_mode_runs_the_driver_for_compute_domains_only(cloud: str) -> None:
    _, layer = _layer(gb200_spec(cloud, "device-plugin"))
    (driver,) = [c for c in layer.charts() if c.chart.name == "nvidia-dra-driver-gpu"]
    # nvidia-dra-driver-gpu 25.12.0 values.yaml lines 70-74 (resources.gpus.enabled,
    # resources.computeDomains.enabled); templates/validation.yaml refuses gpus without
    # gpuResourcesEnabledOverride beside a device plugin.
    assert driver.values["resources"] == {"gpus": {"enabled": False},
                                          "computeDomains": {"enabled": True}}
    assert driver.values["gpuResourcesEnabledOverride"] is False
    domains = [m for m in layer.manifests() if m["kind"] == "ComputeDomain"]
    assert [(m["metadata"]["namespace"], m["metadata"]["name"], m["spec"]) for m in domains] == [
        ("default", "gpu-compute-domain",
         {"numNodes": 0, "channel": {"resourceClaimTemplate": {
             "name": "gpu-compute-domain-channel"}}}),
    ]


def test_the_injection_adds_the_channel_and_keeps_the_device_plugin_gpus() -> None:
    raw = gb200_spec("aws", "device-plugin")
    spec = load_spec(raw)
    fabrics = describe_cluster(spec)
    _, injection = injection_part(spec, fabrics, resolve_addons(spec, fabrics))
    mutate = next(m for m in injection.manifests
                  if m["metadata"]["name"] == "gpufabric-inject-gpu")
    names = [r["name"] for r in mutate["spec"]["rules"]]
    # No claims-N-gpu rule: that rule moves the GPU count to a DRA claim (DRA pools only).
    assert names == ["fabric-1-gpu", "fabric-1-gpu-container", "fabric-2-gpu",
                     "fabric-2-gpu-container", "fabric-3-gpu", "fabric-3-gpu-container",
                     "fabric-4-gpu", "fabric-4-gpu-container"]
    four = next(r for r in mutate["spec"]["rules"] if r["name"] == "fabric-4-gpu")
    # Kyverno's add-if-absent anchor: a pod naming its job's own channel keeps it.
    assert four["mutate"]["patchStrategicMerge"]["spec"]["resourceClaims"] == [
        {"name": "compute-domain-channel",
         "+(resourceClaimTemplateName)": "gpu-compute-domain-channel"}]
    # The channel template is namespaced: the policy is scoped to the namespaces that
    # hold the ComputeDomain.
    assert four["match"] == {"any": [{"resources": {"kinds": ["Pod"], "operations": ["CREATE"],
                                                    "namespaces": ["default"]}}]}


def test_a_kubernetes_without_dra_is_refused_for_gb200() -> None:
    raw = gb200_spec("oci", "device-plugin")
    raw["kubernetes"] = {"version": "1.31"}
    with pytest.raises(SpecError) as err:
        load_spec(raw)
    assert ("kubernetes.version: pool 'gpu' (BM.GPU.GB200-v3.4) runs NCCL over multi-node "
            "NVLink, which needs an IMEX channel from a ComputeDomain of the NVIDIA DRA driver "
            "(nvidia-dra-driver-gpu 25.12.0 needs Kubernetes 1.32 or later); every fabric mode "
            "(auto, device-plugin, dra) gives it from 1.32 (got '1.31')") in str(err.value)


def test_turning_the_driver_off_is_refused_on_a_created_cluster_only() -> None:
    raw = gb200_spec("azure", "device-plugin")
    raw["addons"] = {"nvidia_dra_driver": {"enabled": False}}
    with pytest.raises(SpecError) as err:
        load_spec(raw)
    assert "addons.nvidia_dra_driver.enabled: pool 'gpu' (Standard_ND128isr_NDR_GB200_v6)" \
        in str(err.value)
    assert "only the NVIDIA DRA driver's ComputeDomains give" in str(err.value)
    # An existing cluster may run its own driver: its size-preserving ComputeDomain is
    # still created and pods still get the channel.
    spec = existing("azure", "Standard_ND128isr_NDR_GB200_v6",
                    addons={"nvidia_dra_driver": {"enabled": False}})
    assert CHANNEL in pod_fragment(describe_cluster(spec)["gpu"], 4).resource_claims


def _gpu_pod(claims: list[dict[str, str]] | None = None) -> dict[str, Any]:
    trainer = {"name": "trainer", "image": "nccl-tests:1",
               "resources": {"limits": {"nvidia.com/gpu": "4"},
                             "requests": {"nvidia.com/gpu": "4"}}}
    spec: dict[str, Any] = {"containers": [trainer]}
    if claims:
        spec["resourceClaims"] = claims
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "train-0"}, "spec": spec}


def test_admission_gives_the_default_channel_and_keeps_a_jobs_own() -> None:
    from tests.kyverno_eval import admit

    _, layer = _layer(gb200_spec("oci", "device-plugin"))
    policies = list(layer.part("injection").manifests)
    plain = admit(policies, _gpu_pod(), "default")
    assert plain.denied is None
    assert plain.pod["spec"]["resourceClaims"] == [CHANNEL]
    trainer = plain.pod["spec"]["containers"][0]
    assert trainer["resources"]["claims"] == [{"name": "compute-domain-channel"}]
    assert trainer["resources"]["limits"]["nvidia.com/gpu"] == "4"
    own = {"name": "compute-domain-channel", "resourceClaimTemplateName": "job-7-channel"}
    kept = admit(policies, _gpu_pod([own]), "default")
    assert kept.pod["spec"]["resourceClaims"] == [own]


@pytest.mark.parametrize(("cloud", "message"), [
    ("gcp", "fabric.mode: GKE pods cannot take the GPU NICs with hostNetwork; use "
            "device-plugin or dra (got 'host-network')"),
    ("aws", "fabric.mode: EKS EFA pods use the device plugin or DRA, not hostNetwork "
            "(got 'host-network')"),
    ("azure", "fabric.mode: AKS pods get IB devices from a device plugin; use device-plugin "
              "(got 'host-network')"),
])
def test_the_modes_a_gb200_pool_cannot_use_are_refused_with_the_valid_ones(
    cloud: str, message: str
) -> None:
    """host-network is the only mode refused on a GB200 pool (by the cloud, for every
    machine); OKE accepts it and gives the channel (ACCEPTED above)."""
    raw = gb200_spec(cloud, "host-network")
    with pytest.raises(SpecError) as err:
        spec = load_spec(raw)
        describe_cluster(spec)
    assert message in str(err.value)
