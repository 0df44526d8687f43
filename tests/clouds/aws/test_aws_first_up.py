"""EKS: what a first ``pulumi up`` and the first job hit (issue 18, AWS).

Expected values are literal, from the sources named beside them.
"""

from __future__ import annotations

import pytest

from gpu_fabric.fabric.workload import fragment_for
from tests.fabric_helpers import existing, layer_of

INGRESS = "aws:vpc/securityGroupIngressRule:SecurityGroupIngressRule"
EGRESS = "aws:vpc/securityGroupEgressRule:SecurityGroupEgressRule"
SG = "aws:ec2/securityGroup:SecurityGroup"
ADDON = "aws:eks/addon:Addon"
NG = "aws:eks/nodeGroup:NodeGroup"


# -- security groups ------------------------------------------------------------------
@pytest.mark.parametrize("stack", ["aws-p5", "aws-p4d"])
def test_fabric_rules_only_on_the_group_the_program_owns(stack_plan, stack) -> None:
    """The EKS cluster SG already allows all inbound from itself (EKS user guide
    sec-group-reqs); a second copy fails with InvalidPermission.Duplicate. Like
    terraform-aws-eks v21 (`all_self_efa` on the node-group SG it creates), rules go on
    our EFA SG only; aws-p4d (efa-primary) used to add them to the cluster SG too."""
    plan = stack_plan(stack)
    (efa_sg,) = plan.by_type(SG)
    rules = plan.by_type(INGRESS) + plan.by_type(EGRESS)
    assert len(rules) == 2
    for rule in rules:
        assert plan.depends_on(rule, efa_sg)
    assert not any("cluster-sg" in r.name for r in rules)


def test_efa_primary_interface_carries_the_efa_sg(stack_plan) -> None:
    """SG rules are a union over an interface's groups: the combined EFA primary gets
    EFA traffic through the EFA SG's self rules, with no rule on the cluster SG."""
    plan = stack_plan("aws-p4d")
    (template,) = plan.by_type("aws:ec2/launchTemplate:LaunchTemplate")
    primary = template.inputs["networkInterfaces"][0]
    assert primary["interfaceType"] == "efa"
    assert len(primary["securityGroups"]) == 2  # cluster SG + EFA SG


# -- VPC CNI ------------------------------------------------------------------------------
@pytest.mark.parametrize("stack", ["aws-p5", "aws-p4d"])
def test_vpc_cni_is_a_managed_addon_new_enough_for_efa_only(stack_plan, stack) -> None:
    """efa-only interfaces need VPC CNI >= 1.18.5 (EKS user guide node-efa.adoc). The
    add-on is managed at a pinned version (v1.20.1-eksbuild.3: EKS user guide
    managing-vpc-cni version table), before the GPU node groups boot."""
    plan = stack_plan(stack)
    addon = plan.one(ADDON, {"aws-p5": "eks-p5-vpc-cni", "aws-p4d": "eks-p4d-vpc-cni"}[stack])
    assert addon.inputs["addonName"] == "vpc-cni"
    assert addon.inputs["addonVersion"] == "v1.20.1-eksbuild.3"
    assert addon.inputs["resolveConflictsOnCreate"] == "OVERWRITE"
    gpu = next(r for r in plan.by_type(NG) if r.inputs["nodeGroupName"] != "system")
    assert plan.depends_on(gpu, addon)


def test_vpc_cni_older_than_efa_only_support_is_refused(spec_plan) -> None:
    from gpu_fabric.errors import SpecError
    from tests.specs import with_pool

    data = with_pool("aws", machine_type="p5.48xlarge")
    data["aws"] = {"vpc_cni_version": "v1.18.3-eksbuild.1"}
    with pytest.raises(SpecError) as info:
        spec_plan(data)
    (problem,) = info.value.problems
    assert problem.path == "aws.vpc_cni_version"
    assert "1.18.5" in str(info.value)


# -- hugepages ----------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("gpus", "hugepages", "memory"),
    # awsome-distributed-training micro-benchmarks/nccl-tests/kubernetes/nccl-tests.yaml
    # (7217859): a full p5 pod asks hugepages-2Mi 5120Mi and memory 32000Mi.
    [(8, "5120Mi", "32000Mi"), (4, "2560Mi", "16000Mi"), (2, "1280Mi", "8000Mi"),
     (1, "640Mi", "4000Mi")],
)
def test_hugepages_scale_with_the_gpu_share(gpus, hugepages, memory) -> None:
    fragment = fragment_for("p5.48xlarge", gpus)
    assert fragment.limits["hugepages-2Mi"] == hugepages
    resources = fragment.container_patch()["resources"]
    assert resources["requests"]["hugepages-2Mi"] == hugepages
    # The API server refuses hugepages with neither cpu nor memory (kubernetes
    # pkg/apis/core/validation: "HugePages require cpu or memory"): a memory request,
    # never a memory limit on the training process.
    assert resources["requests"]["memory"] == memory
    assert "memory" not in resources["limits"]


def test_eight_single_gpu_pods_fit_the_nodes_hugepages() -> None:
    """The EFA installer pre-allocates 5128 x 2 MiB = 10256Mi (EKS node-efa doc), the
    smallest figure seen (awsome READMEs: 21122Mi on p4de, 42242Mi on p5)."""
    one = int(fragment_for("p5.48xlarge", 1).limits["hugepages-2Mi"].removesuffix("Mi"))
    assert 8 * one <= 10256


def test_a_users_memory_request_is_kept() -> None:
    template = {"spec": {"containers": [
        {"name": "t", "resources": {"requests": {"memory": "900Gi"}}}]}}
    pod = fragment_for("p5.48xlarge", 8).apply(template)
    assert pod["spec"]["containers"][0]["resources"]["requests"]["memory"] == "900Gi"


# -- DRA on p4d ---------------------------------------------------------------------------
def _claims(machine: str) -> dict[str, dict]:
    spec = existing("aws", machine, fabric={"mode": "dra"})
    return {m["metadata"]["name"]: m["spec"]["spec"]["devices"]
            for m in layer_of(spec).manifests() if m["kind"] == "ResourceClaimTemplate"}


def _count(devices: dict, prefix: str) -> int:
    return sum(r["exactly"]["count"] for r in devices["requests"]
               if r["name"].startswith(prefix))


@pytest.mark.parametrize("machine", ["p4d.24xlarge", "p4de.24xlarge"])
@pytest.mark.parametrize(
    ("claim", "gpus", "nics", "groups"),
    # kubernetes-sigs/dranet examples/aws_eks_examples/gpu-efa/README.md (f258477):
    # p4d has 4 PCIe roots, each with 2 GPUs and 1 EFA.
    [("8-gpu-nic-aligned", 8, 4, 4), ("4-gpu-nic-aligned", 4, 2, 2),
     ("2-gpu-nic-aligned", 2, 1, 1), ("1-gpu-nic-aligned", 1, 1, 1)],
)
def test_p4d_claims_never_ask_for_more_efa_than_the_node_has(
    machine, claim, gpus, nics, groups
) -> None:
    devices = _claims(machine)[claim]
    assert (_count(devices, "gpu"), _count(devices, "nic")) == (gpus, nics)
    assert len(devices["constraints"]) == groups
    assert {c["matchAttribute"] for c in devices["constraints"]} == {
        "resource.kubernetes.io/pcieRoot"}


def test_p5_claims_keep_four_efa_per_gpu() -> None:
    devices = _claims("p5.48xlarge")["8-gpu-nic-aligned"]
    assert (_count(devices, "gpu"), _count(devices, "nic")) == (8, 32)
