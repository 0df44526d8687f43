"""Each provider's tag rules, system-pool machine naming and reserved ranges, written out
(clouds/<cloud>/provider.py ``tag_rules``, ``system_machines``, ``reserved_cidrs``).

tests/inputs/test_types_and_tags.py and tests/inputs/test_cloud_names.py check the spec's
refusals through ``load_spec``; here the records themselves, each number and text from
the page the provider cites:

* tags: GCP https://cloud.google.com/resource-manager/docs/labels-overview#requirements
  (64 labels, keys and values <= 63 characters, lowercase letters, digits, '_' and '-',
  international characters allowed, a key starts with a lowercase letter);
  AWS https://docs.aws.amazon.com/tag-editor/latest/userguide/tagging.html (50 tags, keys
  128 and values 256 characters, letters, numbers, spaces and + - = . _ : / @, ``aws:``
  reserved in keys and values);
  Azure https://learn.microsoft.com/azure/azure-resource-manager/management/tag-resources
  #limitations (50 tags, names 512 and values 256 characters, no < > % & \\ ? / in a name);
  OCI https://docs.oracle.com/iaas/Content/Tagging/Concepts/taggingoverview.htm "Tag limits"
  (64 freeform tags, keys 100 and values 256 characters).
* machine names: the pages each record's ``source`` names (below, literally).
* AKS: "AKS clusters may not use 169.254.0.0/16, 172.30.0.0/16, 172.31.0.0/16, or
  192.0.2.0/24 for the Kubernetes service address range"
  (https://learn.microsoft.com/azure/aks/configure-azure-cni, prerequisites).
"""

from __future__ import annotations

import pytest

from gpu_fabric.catalog import Cloud
from gpu_fabric.clouds.registry import provider_for


@pytest.mark.parametrize(("cloud", "numbers", "reserved", "shape"), [
    (Cloud.GCP, (64, 63, 63, 0), ((), False),
     "lowercase letters, digits, '_' and '-', keys starting with a lowercase letter"),
    (Cloud.AWS, (50, 128, 256, 3), (("aws:",), True),
     "letters, numbers, spaces and + - = . _ : / @"),
    (Cloud.AZURE, (50, 512, 256, 2), ((), False),
     "names without < > % & \\ ? / or control characters"),
    (Cloud.OCI, (64, 100, 256, 1), ((), False), "printable characters"),
])
def test_tag_rules(cloud: Cloud, numbers: tuple[int, ...], reserved: tuple[object, bool],
                   shape: str) -> None:
    rules = provider_for(cloud).tag_rules()
    assert rules is not None
    assert (rules.max_tags, rules.key_max, rules.value_max, rules.added) == numbers
    assert (rules.reserved_prefixes, rules.reserved_values) == reserved
    assert rules.shape == shape


def test_digitalocean_has_no_tag_rules() -> None:
    # DO tags are rewritten to its alphabet (do_tags), not refused.
    assert provider_for(Cloud.DIGITALOCEAN).tag_rules() is None


@pytest.mark.parametrize(("cloud", "key", "ok"), [
    (Cloud.GCP, "team", True), (Cloud.GCP, "équipe", True), (Cloud.GCP, "cost_center-1", True),
    (Cloud.GCP, "团队", True), (Cloud.GCP, "teamX", False),
    (Cloud.GCP, "Team", False), (Cloud.GCP, "1team", False), (Cloud.GCP, "_team", False),
    (Cloud.GCP, "", False), (Cloud.GCP, "a b", False), (Cloud.GCP, "é" * 64, False),
    (Cloud.AWS, "Team ML+x=y.z_w:v/u@t", True), (Cloud.AWS, "a;b", False),
    (Cloud.AWS, "a\tb", False),
    (Cloud.AZURE, "Team; ML (prod)", True), (Cloud.AZURE, "X-Ray", True),
    (Cloud.AZURE, "a/b", False),
    (Cloud.AZURE, "a<b", False), (Cloud.AZURE, "a>b", False), (Cloud.AZURE, "a%b", False),
    (Cloud.AZURE, "a&b", False), (Cloud.AZURE, "a\\b", False), (Cloud.AZURE, "a?b", False),
    (Cloud.AZURE, "a\nb", False),
    (Cloud.OCI, "Team ML", True), (Cloud.OCI, "a\x00b", False),
])
def test_tag_key_characters(cloud: Cloud, key: str, ok: bool) -> None:
    rules = provider_for(cloud).tag_rules()
    assert rules is not None
    assert rules.key_ok(key) is ok


@pytest.mark.parametrize(("cloud", "value", "ok"), [
    (Cloud.GCP, "", True), (Cloud.GCP, "1-ml_x", True), (Cloud.GCP, "ML", False),
    (Cloud.AWS, "", True), (Cloud.AWS, "a;b", False),
    (Cloud.AZURE, "a/b <c>", True), (Cloud.AZURE, "a\nb", False),
    (Cloud.OCI, "ML x", True), (Cloud.OCI, "a\x00b", False),
])
def test_tag_value_characters(cloud: Cloud, value: str, ok: bool) -> None:
    rules = provider_for(cloud).tag_rules()
    assert rules is not None
    assert rules.value_ok(value) is ok


# (cloud, shape, source, CPU names, GPU names, neither)
NAMING = [
    (Cloud.GCP, "<series>-<type>[-<vCPUs>], e.g. e2-standard-8, n2-standard-16, c3-standard-8",
     "https://cloud.google.com/compute/docs/machine-resource",
     ["e2-standard-8", "n2-highmem-16", "c3d-standard-8-lssd", "custom-4-8192",
      "custom-4-8192-ext", "e2-micro"],
     ["a2-highgpu-1g", "a3-megagpu-8g", "a4-highgpu-8g", "a4x-highgpu-4g", "g2-standard-4",
      "g4-standard-48"],
     ["E2-standard-8", "e2", "standard-8", "custom-4"]),
    (Cloud.AWS, "<family><generation>[attributes].<size>, e.g. m7i.xlarge, m6i.2xlarge, "
     "c7i.large",
     "https://docs.aws.amazon.com/ec2/latest/instancetypes/instance-type-names.html",
     ["m7i.xlarge", "c7i.large", "m6i.2xlarge", "u-6tb1.metal"],
     ["p5.48xlarge", "g5.xlarge", "gr6.4xlarge", "dl1.24xlarge", "f1.2xlarge",
      "inf2.xlarge", "trn1.32xlarge", "vt1.3xlarge"],
     ["M7i.xlarge", "m7i", "m7i.", "Standard_D4s_v5"]),
    (Cloud.AZURE, "Standard_<family><vCPUs><features>[_<version>], e.g. Standard_D4s_v5, "
     "Standard_D8ds_v5, Standard_E4s_v5",
     "https://learn.microsoft.com/azure/virtual-machines/vm-naming-conventions",
     ["Standard_D4s_v5", "Standard_E4-2s_v5", "Standard_B2ms"],
     ["Standard_ND96isr_H100_v5", "Standard_NC24ads_A100_v4", "Standard_NV36ads_A10_v5"],
     ["standard_D4s_v5", "Standard_d4s_v5", "D4s_v5", "Standard_"]),
    (Cloud.DIGITALOCEAN, "<plan>-<vCPUs>vcpu-<GB>gb, e.g. s-4vcpu-8gb, c-4, g-2vcpu-8gb",
     "https://docs.digitalocean.com/reference/api/digitalocean/#tag/Sizes",
     ["s-4vcpu-8gb", "c-4", "g-2vcpu-8gb", "so1_5-2vcpu-16gb", "s-2vcpu-4gb-amd", "m-2vcpu-16gb"],
     ["gpu-h100x8-640gb", "gpu-l40sx1-48gb"],
     ["S-4vcpu-8gb", "s", "s-vcpu", "4-s"]),
    (Cloud.OCI, "VM.<series>.<...> or BM.<series>.<...>, e.g. VM.Standard.E5.Flex, "
     "VM.Standard.E4.Flex, VM.Standard3.Flex",
     "https://docs.oracle.com/iaas/Content/Compute/References/computeshapes.htm",
     ["VM.Standard.E5.Flex", "VM.Standard3.Flex", "BM.Standard.E5.192"],
     ["VM.GPU.A10.1", "BM.GPU.H100.8", "BM.GPU4.8"],
     ["vm.Standard.E5.Flex", "VM.Standard", "XM.Standard.E5", "VM..E5"]),
]


@pytest.mark.parametrize(("cloud", "shape", "source", "cpu", "gpu", "neither"), NAMING)
def test_system_machine_naming(cloud: Cloud, shape: str, source: str, cpu: list[str],
                               gpu: list[str], neither: list[str]) -> None:
    naming = provider_for(cloud).system_machines()
    assert (naming.shape, naming.source) == (shape, source)
    assert [n for n in cpu if not naming.pattern.fullmatch(n)] == []
    assert [n for n in cpu if naming.gpu.fullmatch(n)] == []
    assert [n for n in gpu if not naming.gpu.fullmatch(n)] == []
    assert [n for n in neither if naming.pattern.fullmatch(n)] == []


def test_aws_refuses_graviton_for_the_x86_system_group() -> None:
    """The processor letter g is AWS Graviton (instance-type-names.html); the system node
    group's AMI type is AL2023_x86_64_STANDARD (clouds/aws/nodegroup.py)."""
    naming = provider_for(Cloud.AWS).system_machines()
    assert naming.refused is not None
    assert [n for n in ("m7g.xlarge", "c7gn.large", "m6gd.2xlarge", "r8g.metal")
            if not naming.refused.fullmatch(n)] == []
    assert [n for n in ("m7i.xlarge", "c7i.large", "g5.xlarge")
            if naming.refused.fullmatch(n)] == []
    assert naming.refused_why == ("is an AWS Graviton (arm64) type; the system node group "
                                  "runs the x86_64 AMI (AL2023_x86_64_STANDARD)")
    for cloud in (Cloud.GCP, Cloud.AZURE, Cloud.DIGITALOCEAN, Cloud.OCI):
        other = provider_for(cloud).system_machines()
        assert (other.refused, other.refused_why) == (None, "")


def test_aks_reserved_service_and_pod_ranges() -> None:
    reserved = ("169.254.0.0/16", "172.30.0.0/16", "172.31.0.0/16", "192.0.2.0/24")
    assert provider_for(Cloud.AZURE).reserved_cidrs() == {
        "service_cidr": reserved, "pod_cidr": reserved}
    for cloud in (Cloud.GCP, Cloud.AWS, Cloud.DIGITALOCEAN, Cloud.OCI):
        assert provider_for(cloud).reserved_cidrs() == {}


def test_oke_names_its_gpu_plugin_and_the_label_that_turns_it_off() -> None:
    """OKE runs its own NVIDIA device plugin on GPU nodes unless the node carries
    ``oci.oraclecloud.com/disable-gpu-device-plugin`` (the label clouds/oci/fabric.py sets
    as oracle-quickstart/oci-hpc-oke does; that repository was not re-read for this test)."""
    assert provider_for(Cloud.OCI).managed_gpu_plugin() == (
        "OKE's own NVIDIA GPU device plugin", "oci.oraclecloud.com/disable-gpu-device-plugin")


def test_gke_names_its_gpu_plugin_and_the_label_that_turns_it_off() -> None:
    """GKE's NVIDIA device plugin is turned off on GPU nodes labelled
    ``gke-no-default-nvidia-gpu-device-plugin=true`` (GKE "Set up DRA", the label
    clouds/gcp/fabric.py sets; the page was not re-read for this test)."""
    assert provider_for(Cloud.GCP).managed_gpu_plugin() == (
        "GKE's own NVIDIA device plugin", "gke-no-default-nvidia-gpu-device-plugin")
    for cloud in (Cloud.AWS, Cloud.AZURE, Cloud.DIGITALOCEAN):
        assert provider_for(cloud).managed_gpu_plugin() is None


def test_a_cloud_folder_without_the_module_is_a_lookup_error() -> None:
    from gpu_fabric.clouds.registry import cloud_module

    with pytest.raises(LookupError) as info:
        cloud_module(Cloud.GCP, "no_such_module", missing="{name} should hold the facts")
    assert str(info.value) == "gpu_fabric.clouds.gcp.no_such_module should hold the facts"


def test_gke_counts_its_legacy_authorized_networks_with_api_access() -> None:
    """GKE allows "up to 100 authorized networks" on a private cluster
    (https://cloud.google.com/kubernetes-engine/docs/how-to/authorized-networks#limitations);
    ``gcp.master_authorized_networks`` and ``api_access.authorized_cidrs`` fill the same list."""
    from gpu_fabric.errors import Problem, SpecError
    from gpu_fabric.spec import load_spec
    from tests.specs import spec_dict

    nets = [f"10.{i}.0.0/24" for i in range(100)]
    data = spec_dict("gcp", api_access={"authorized_cidrs": nets})
    data["gcp"]["master_authorized_networks"] = ["192.168.0.0/24"]
    with pytest.raises(SpecError) as info:
        load_spec(data)
    assert info.value.problems == [Problem(
        "api_access.authorized_cidrs", "101 authorized networks; GKE allows at most 100",
        101, True)]
