"""Pool, network, tenancy and tag rules of the spec whose messages, values or error types no
listed test wrote out: each refusal here is the whole rendered problem, and its pydantic
error type and location are checked where the rule raises one.

Written against the survivors of the stop-40 mutation run of ``spec`` (docs/mutation.md,
"spec at stop 40"): ``pools._unique_taints``, the GPU-taint check of ``pools._check_pool``,
``pools._system_machine``, ``pools._shm_quantity``, ``cluster._check_network``,
``tenancy._team_namespace``, the AWS tag limits and claim counts of the cross-field checks.

Sources of the literal facts:
- taints unique by key and effect: kubernetes/kubernetes ``pkg/apis/core/validation/
  validation.go`` ``validateNodeTaints`` ("taints must be unique by key and effect pair"),
  as components/gpu_fabric/spec/values.py cites it; the GPU taint every pool gets is the
  NVIDIA device plugin's resource name ``nvidia.com/gpu`` with NoSchedule
  (components/gpu_fabric/clouds/adapter.py ``gpu_taint``);
- special-purpose ranges: RFC 5737 (192.0.2.0/24 is TEST-NET-1, documentation);
- Kubernetes quantities: kubernetes/apimachinery pkg/api/resource/quantity.go at
  357557a670d84c30ef3b5355f02c11d8aba5a941 (``<binarySI> ::= Ki | Mi | Gi | Ti | Pi | Ei``);
  p5.48xlarge has 2048 GiB (the catalog; karpenter-provider-aws instance-types.md 1d92708,
  "instance-memory 2097152" MiB);
- system machine names: AWS https://docs.aws.amazon.com/ec2/latest/instancetypes/
  instance-type-names.html, OCI https://docs.oracle.com/iaas/Content/Compute/References/
  computeshapes.htm (both quoted in the messages);
- ``kube-`` namespaces: https://kubernetes.io/docs/concepts/overview/working-with-objects/
  namespaces/ ("reserved for Kubernetes system namespaces"); the add-on namespaces are each
  add-on's ``namespace`` in components/gpu_fabric/fabric/addons/;
- AWS tags: https://docs.aws.amazon.com/tag-editor/latest/userguide/tagging.html (50 per
  resource, keys 1-128 and values up to 256 characters); this project adds 3
  (components/gpu_fabric/clouds/aws/provider.py ``tag_rules``);
- a4-highgpu-8g has 8 GPUs (the catalog).
"""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import ValidationError

from gpu_fabric.errors import SpecError
from gpu_fabric.spec import ClusterSpec, load_spec
from gpu_fabric.spec.values import binary_quantity_bytes
from tests.specs import spec_dict, with_pool


def problems(data: Any) -> list[str]:
    """The rendered problems of an invalid spec, in order."""
    with pytest.raises(SpecError) as info:
        load_spec(data)
    return [str(p) for p in info.value.problems]


def kinds(data: dict[str, Any]) -> list[tuple[str, tuple[Any, ...]]]:
    """The pydantic error types and locations of an invalid spec."""
    with pytest.raises(ValidationError) as info:
        ClusterSpec(**data)
    return [(e["type"], tuple(e["loc"])) for e in info.value.errors()]


# -- taints --------------------------------------------------------------------------

def test_repeated_taints_are_named_once_each() -> None:
    taints = [
        {"key": "a", "effect": "NoSchedule"},
        {"key": "a", "value": "x", "effect": "NoSchedule"},
        {"key": "b", "effect": "NoExecute"},
        {"key": "b", "effect": "NoExecute"},
        {"key": "a", "effect": "NoSchedule"},
    ]
    data = with_pool("aws", taints=taints)
    assert problems(data) == [
        "node_pools[0].taints: taints must be unique by key and effect; repeated: "
        "a:NoSchedule, b:NoExecute (got [{'key': 'a', 'effect': 'NoSchedule'}, {'key': 'a', "
        "'value': 'x', 'effect': '...)"
    ]
    assert kinds(data) == [("duplicate_taint", ("node_pools", 0, "taints"))]


def test_same_key_with_other_effects_is_not_a_duplicate() -> None:
    taints = [{"key": "a", "effect": "NoSchedule"}, {"key": "a", "effect": "NoExecute"}]
    assert len(load_spec(with_pool("aws", taints=taints)).node_pools[0].taints) == 2


def test_the_gpu_taint_given_again_is_refused_at_its_index() -> None:
    taints = [{"key": "x", "effect": "NoSchedule"},
              {"key": "nvidia.com/gpu", "effect": "NoSchedule"}]
    data = with_pool("aws", taints=taints)
    assert problems(data) == [
        "node_pools[0].taints[1]: taint nvidia.com/gpu:NoSchedule is the cloud's GPU taint, "
        "which the pool already gets (gpu_taint: true); taints must be unique by key and "
        "effect: remove it, or set gpu_taint: false (got 'nvidia.com/gpu')"
    ]
    assert kinds(data) == [("duplicate_taint", ("node_pools", 0))]


def test_the_gpu_taint_is_free_with_another_effect_or_without_gpu_taint() -> None:
    other = [{"key": "nvidia.com/gpu", "effect": "NoExecute"}]
    assert load_spec(with_pool("aws", taints=other)).node_pools[0].taints[0].effect == "NoExecute"
    same = [{"key": "nvidia.com/gpu", "effect": "NoSchedule"}]
    spec = load_spec(with_pool("aws", gpu_taint=False, taints=same))
    assert spec.node_pools[0].gpu_taint is False


# -- /dev/shm ------------------------------------------------------------------------

def test_shm_size_not_a_binary_quantity() -> None:
    data = with_pool("aws", shm_size="64GB")
    assert problems(data) == [
        "node_pools[0].shm_size: shm_size '64GB' is not a Kubernetes binary quantity: a whole "
        "number followed by Ki, Mi, Gi or Ti, e.g. 250Gi (got '64GB')"
    ]
    assert kinds(data) == [("shm_size", ("node_pools", 0, "shm_size"))]


def test_shm_size_above_the_machine_memory_error_type() -> None:
    assert kinds(with_pool("aws", shm_size="2049Gi")) == [("shm_size", ("node_pools", 0))]


def test_binary_quantity_bytes_refuses_a_decimal_unit() -> None:
    assert binary_quantity_bytes("250Gi") == 250 * 2**30
    with pytest.raises(ValueError, match=r"^not a binary quantity: '64GB'$"):
        binary_quantity_bytes("64GB")


# -- system pool machine -------------------------------------------------------------

AWS_SHAPE = (
    "AWS names them <family><generation>[attributes].<size>, e.g. m7i.xlarge, m6i.2xlarge, "
    "c7i.large (https://docs.aws.amazon.com/ec2/latest/instancetypes/instance-type-names.html)"
)


def test_system_machine_not_an_aws_name() -> None:
    data = spec_dict("aws", system_pool={"machine_type": "junk"})
    assert problems(data) == [
        f"system_pool.machine_type: 'junk' is not an AWS machine type name: {AWS_SHAPE} "
        "(got 'junk')"
    ]
    assert kinds(data) == [("system_machine_type", ("system_pool", "machine_type"))]


def test_system_machine_named_like_another_cloud() -> None:
    assert problems(spec_dict("aws", system_pool={"machine_type": "n2-standard-8"})) == [
        "system_pool.machine_type: 'n2-standard-8' is not an AWS machine type name: it looks "
        f"like GCP naming; {AWS_SHAPE} (got 'n2-standard-8')"
    ]


def test_system_machine_null_is_the_default() -> None:
    assert load_spec(spec_dict("aws", system_pool={"machine_type": None})).system_pool \
        .machine_type is None


# -- network -------------------------------------------------------------------------

def test_special_purpose_range_message_and_type() -> None:
    data = spec_dict("gcp", network={"pod_cidr": "192.0.2.0/24"})
    assert problems(data) == [
        "network.pod_cidr: network.pod_cidr 192.0.2.0/24 overlaps the special-purpose range "
        "192.0.2.0/24 (documentation (TEST-NET-1)), which no cloud routes as a network; use "
        "private ranges (10.0.0.0/8, 172.16.0.0/12, 192.168.0.0/16) or 100.64.0.0/10 "
        "(got '192.0.2.0/24')"
    ]
    assert kinds(data) == [("cidr_special", ("network",))]


def test_a_cidr_with_host_bits_is_refused() -> None:
    assert problems(spec_dict("gcp", network={"pod_cidr": "10.64.0.1/14"})) == [
        "network.pod_cidr: '10.64.0.1/14' is not a valid IPv4 CIDR (10.64.0.1/14 has host "
        "bits set); write it like 10.0.0.0/16 (got '10.64.0.1/14')"
    ]


# -- tenancy -------------------------------------------------------------------------

SYSTEM_NAMESPACES = (
    "cert-manager, gpu-operator, jobset-system, kube-system, kueue-system, kyverno, "
    "monitoring, mpi-operator, network-operator, nvidia-device-plugin, "
    "nvidia-dra-driver-gpu, nvsentinel"
)


@pytest.mark.parametrize("name", ["kube-x", "kueue-system"])
def test_a_team_may_not_become_a_system_namespace(name: str) -> None:
    data = spec_dict("gcp", tenancy={"teams": [{"name": name, "group": "g", "gpus": 1}]})
    assert problems(data) == [
        f"tenancy.teams[0].name: team '{name}' would become the namespace '{name}', which is "
        f"a system namespace (kube-* or an add-on's: {SYSTEM_NAMESPACES}); name the team "
        f"after itself (got '{name}')"
    ]
    assert kinds(data) == [("team_namespace", ("tenancy", "teams", 0, "name"))]


def test_a_team_quota_over_two_pools_names_both() -> None:
    reserved = {"type": "reservation", "reservation": "test-reservation"}
    pools = [
        {"name": "a", "machine_type": "a4-highgpu-8g", "node_count": 1, "capacity": reserved},
        {"name": "b", "machine_type": "a4-highgpu-8g", "node_count": 1, "capacity": reserved},
    ]
    data = spec_dict("gcp", node_pools=pools,
                     tenancy={"teams": [{"name": "ml", "group": "g", "gpus": 17}]})
    assert problems(data) == [
        "tenancy.teams[0].gpus: team 'ml' is given 17 GPUs, but its pools hold at most 16 "
        "(a, b at their largest size) (got 17)"
    ]


# -- claims, tags --------------------------------------------------------------------

def test_claim_counts_above_the_largest_machine_are_listed() -> None:
    assert load_spec(spec_dict("gcp", fabric={"claim_gpu_counts": [8]}))
    assert problems(spec_dict("gcp", fabric={"claim_gpu_counts": [1, 16, 32]})) == [
        "fabric.claim_gpu_counts: 16, 32 GPUs per claim: the largest machine of this cluster "
        "has 8 GPUs (got [16, 32])"
    ]


def test_aws_tag_count_up_to_50_with_the_3_added() -> None:
    assert load_spec(spec_dict("aws", tags={f"k{i}": "v" for i in range(47)}))
    assert problems(spec_dict("aws", tags={f"k{i}": "v" for i in range(48)})) == [
        "tags: AWS 48 tags plus the 3 this project adds exceed the cloud's 50 per resource "
        "(got 48)"
    ]


def test_aws_tag_key_up_to_128_and_value_up_to_256() -> None:
    assert load_spec(spec_dict("aws", tags={"k" * 128: "v", "v": "v" * 256}))
    key = "k" * 129
    assert problems(spec_dict("aws", tags={key: "v"})) == [
        f"tags.{key}: AWS key is 129 characters; 1 to 128 allowed (got 'v')"
    ]
    # a long value's repr is shown as its first 77 characters and '...' (gpu_fabric.errors._show)
    assert problems(spec_dict("aws", tags={"k": "v" * 257})) == [
        f"tags.k: AWS value is 257 characters; at most 256 (got '{'v' * 76}...)"
    ]


# -- health --------------------------------------------------------------------------

def test_health_schedule_not_cron_message_and_type() -> None:
    data = spec_dict("gcp", health={"schedule": "bad"})
    assert problems(data) == [
        "health.schedule: 'bad' is not a five-field cron schedule (minute hour day month "
        "weekday), e.g. '17 * * * *' (got 'bad')"
    ]
    assert kinds(data) == [("cron", ("health", "schedule"))]
