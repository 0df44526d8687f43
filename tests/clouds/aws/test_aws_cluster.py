"""The EKS resource graph: EFA interfaces per machine, the EFA SG, placement, capacity."""

from __future__ import annotations

import pytest

from gpu_fabric import versions
from gpu_fabric.catalog import get_machine
from gpu_fabric.errors import SpecError
from tests.specs import spec_dict, with_pool

LT = "aws:ec2/launchTemplate:LaunchTemplate"
NG = "aws:eks/nodeGroup:NodeGroup"
SG = "aws:ec2/securityGroup:SecurityGroup"
INGRESS = "aws:vpc/securityGroupIngressRule:SecurityGroupIngressRule"
EGRESS = "aws:vpc/securityGroupEgressRule:SecurityGroupEgressRule"
EFA_TYPES = ("efa", "efa-only")


def _nics(plan) -> list[dict]:
    (template,) = plan.by_type(LT)
    return template.inputs["networkInterfaces"]


def _efa(nics: list[dict]) -> list[dict]:
    return [n for n in nics if n["interfaceType"] in EFA_TYPES]


def _gpu_group(plan):
    return next(r for r in plan.by_type(NG) if r.inputs["nodeGroupName"] != "system")


@pytest.mark.parametrize(
    ("machine", "expected"),
    [("p5.48xlarge", 32), ("p4d.24xlarge", 4), ("p6-b300.48xlarge", 16),
     ("p6-b200.48xlarge", 8), ("p5en.48xlarge", 16)],
)
@pytest.mark.parametrize("layout", ["ena-primary", "efa-primary"])
def test_one_efa_per_card_from_the_catalog(spec_plan, machine, expected, layout) -> None:
    data = with_pool("aws", machine_type=machine)
    data["aws"] = {"efa_interface_layout": layout}
    nics = _nics(spec_plan(data))
    efa = _efa(nics)
    assert len(efa) == expected == get_machine(machine).fabric_nics
    cards = [n["networkCardIndex"] for n in efa]
    assert len(set(cards)) == len(cards)
    assert max(cards) < (get_machine(machine).network_cards or expected)
    # Exactly one primary (card 0, device 0), never efa-only; no subnet or public IP.
    primary = [n for n in nics if n["networkCardIndex"] == 0 and n["deviceIndex"] == 0]
    assert len(primary) == 1 and primary[0]["interfaceType"] != "efa-only"
    assert all("subnetId" not in n and "associatePublicIpAddress" not in n for n in nics)
    assert all(n["securityGroups"] for n in nics)


def test_ena_primary_layout_on_p5(stack_plan) -> None:
    nics = _nics(stack_plan("aws-p5"))
    assert len(nics) == 33
    assert nics[0] == {**nics[0], "networkCardIndex": 0, "deviceIndex": 0,
                       "interfaceType": "interface"}
    others = [n for n in nics if n["networkCardIndex"] > 0]
    assert {(n["deviceIndex"], n["interfaceType"]) for n in others} == {(0, "efa-only")}
    card0_efa = [n for n in _efa(nics) if n["networkCardIndex"] == 0]
    assert [(n["deviceIndex"], n["interfaceType"]) for n in card0_efa] == [(1, "efa-only")]


def test_efa_primary_layout_on_p4d(stack_plan) -> None:
    nics = _nics(stack_plan("aws-p4d"))
    assert [(n["networkCardIndex"], n["deviceIndex"], n["interfaceType"]) for n in nics] == [
        (0, 0, "efa"), (1, 1, "efa-only"), (2, 1, "efa-only"), (3, 1, "efa-only")]


def test_p6_b300_card_zero_is_ena_only() -> None:
    from gpu_fabric.clouds.aws.layout import interfaces

    nics = interfaces(get_machine("p6-b300.48xlarge"), "efa-primary")
    card0 = [i for i in nics if i.network_card_index == 0]
    assert [i.interface_type for i in card0] == ["interface"]


def test_security_groups_per_interface_not_on_template(stack_plan) -> None:
    plan = stack_plan("aws-p5")
    (template,) = plan.by_type(LT)
    assert not template.inputs.get("vpcSecurityGroupIds")
    nics = _nics(plan)
    efa_only = [n for n in nics if n["interfaceType"] == "efa-only"]
    groups = {tuple(n["securityGroups"]) for n in efa_only}
    assert len(groups) == 1 and len(next(iter(groups))) == 1  # the EFA SG only
    (efa_sg_id,) = next(iter(groups))
    assert efa_sg_id not in nics[0]["securityGroups"]  # ENA primary: cluster SG


@pytest.mark.parametrize("stack", ["aws-p5", "aws-p4d"])
def test_efa_security_group_references_itself_both_ways(stack_plan, stack) -> None:
    plan = stack_plan(stack)
    (sg,) = plan.by_type(SG)
    assert not sg.inputs.get("ingress") and not sg.inputs.get("egress")
    rules = plan.by_type(INGRESS) + plan.by_type(EGRESS)
    sg_rules = [r for r in rules if plan.depends_on(r, sg)]
    kinds = {r.type for r in sg_rules}
    assert kinds == {INGRESS, EGRESS}
    for rule in sg_rules:
        assert rule.inputs["ipProtocol"] == "-1"
        assert rule.inputs["referencedSecurityGroupId"] == rule.inputs["securityGroupId"]
    for rule in rules:
        assert "cidrIpv4" not in rule.inputs and "cidrIpv6" not in rule.inputs


def test_nothing_opens_a_security_group_to_the_world(stack_plan) -> None:
    plan = stack_plan("aws-p5")
    for res in plan.resources:
        if "securityGroup" in res.type:
            assert "0.0.0.0/0" not in str(res.inputs)


def test_gpu_node_group_in_one_subnet_in_the_gpu_zone(stack_plan) -> None:
    plan = stack_plan("aws-p5")
    group = _gpu_group(plan)
    (subnet_id,) = group.inputs["subnetIds"]
    subnets = plan.by_type("aws:ec2/subnet:Subnet")
    gpu = next(s for s in subnets if s.name.endswith("-gpu"))
    assert gpu.inputs["availabilityZone"] == "us-east-1a"
    assert gpu.inputs["mapPublicIpOnLaunch"] is False
    assert plan.depends_on(group, gpu)
    assert subnet_id.startswith("subnet-")
    private_zones = {s.inputs["availabilityZone"] for s in subnets if "private" in s.name}
    assert private_zones == {"us-east-1a", "us-east-1b"}


def test_placement_group_is_cluster_and_on_the_template(stack_plan) -> None:
    plan = stack_plan("aws-p5")
    (group,) = plan.by_type("aws:ec2/placementGroup:PlacementGroup")
    assert group.inputs["strategy"] == "cluster"
    (template,) = plan.by_type(LT)
    assert template.inputs["placement"]["groupName"]
    assert plan.depends_on(template, group)


def test_reservation_pool_has_no_placement_group(stack_plan) -> None:
    plan = stack_plan("aws-p4d")
    assert plan.by_type("aws:ec2/placementGroup:PlacementGroup") == []
    (template,) = plan.by_type(LT)
    target = template.inputs["capacityReservationSpecification"]["capacityReservationTarget"]
    assert target["capacityReservationId"] == "cr-0123456789abcdef0"
    assert _gpu_group(plan).inputs["capacityType"] == "ON_DEMAND"


def test_capacity_block(spec_plan) -> None:
    plan = spec_plan(with_pool("aws", capacity={"type": "capacity_block",
                                                "reservation": "cr-0aaaabbbbccccdddd"}))
    (template,) = plan.by_type(LT)
    assert template.inputs["instanceMarketOptions"]["marketType"] == "capacity-block"
    assert template.inputs["instanceType"] == "p5.48xlarge"
    group = _gpu_group(plan)
    assert group.inputs["capacityType"] == "CAPACITY_BLOCK"
    assert not group.inputs.get("instanceTypes")


def test_gpu_node_group_ami_taint_labels(stack_plan) -> None:
    group = _gpu_group(stack_plan("aws-p5"))
    assert group.inputs["amiType"] == "AL2023_x86_64_NVIDIA"
    assert {"key": "nvidia.com/gpu", "value": "true", "effect": "NO_SCHEDULE"} in (
        group.inputs["taints"])
    assert group.inputs["labels"]["vpc.amazonaws.com/efa.present"] == "true"
    assert group.inputs["labels"]["nvidia.com/gpu.present"] == "true"


def test_gb200_uses_the_arm_ami(spec_plan) -> None:
    # Capacity Blocks only (EKS user guide ml-eks-nvidia-ultraserver).
    plan = spec_plan(with_pool("aws", machine_type="p6e-gb200.36xlarge", capacity={
        "type": "capacity_block", "reservation": "cr-0123456789abcdef0"}))
    assert _gpu_group(plan).inputs["amiType"] == "AL2023_ARM_64_NVIDIA"


def test_eks_cluster_access_entries_and_oidc(spec_plan) -> None:
    data = spec_dict("aws", aws={"admin_principal_arns": ["arn:aws:iam::123456789012:role/ops"]})
    plan = spec_plan(data)
    cluster = plan.one("aws:eks/cluster:Cluster")
    assert cluster.inputs["accessConfig"]["authenticationMode"] == "API"
    assert cluster.inputs["version"] == "1.34"
    (entry,) = plan.by_type("aws:eks/accessEntry:AccessEntry")
    assert entry.inputs["principalArn"] == "arn:aws:iam::123456789012:role/ops"
    (assoc,) = plan.by_type("aws:eks/accessPolicyAssociation:AccessPolicyAssociation")
    assert assoc.inputs["policyArn"].endswith("AmazonEKSClusterAdminPolicy")
    oidc = plan.one("aws:iam/openIdConnectProvider:OpenIdConnectProvider")
    assert oidc.inputs["url"].startswith("https://oidc.eks.")
    policies = {r.inputs["policyArn"].rsplit("/", 1)[1]
                for r in plan.by_type("aws:iam/rolePolicyAttachment:RolePolicyAttachment")}
    assert not any("FullAccess" in p or p == "AdministratorAccess" for p in policies)


def test_kubeconfig_is_a_secret_with_aws_exec(stack_plan) -> None:
    plan = stack_plan("aws-p5")
    provider = plan.one("pulumi:providers:kubernetes")
    assert provider.inputs["kubeconfig"] == "[secret]"


def test_kubeconfig_text() -> None:
    import yaml

    from gpu_fabric.clouds.aws.kubeconfig import kubeconfig

    doc = yaml.safe_load(kubeconfig("c", "us-east-1", "https://x", "Q0E=", "arn:aws:eks:c"))
    exec_ = doc["users"][0]["user"]["exec"]
    assert exec_["command"] == "aws"
    assert exec_["args"][:4] == ["eks", "get-token", "--cluster-name", "c"]
    assert doc["clusters"][0]["cluster"]["server"] == "https://x"


def test_efa_device_plugin_tolerates_gpu_taints(stack_plan) -> None:
    plan = stack_plan("aws-p5")
    release = next(r for r in plan.by_type("kubernetes:helm.sh/v3:Release")
                   if r.inputs["chart"] == "aws-efa-k8s-device-plugin")
    assert release.inputs["version"] == versions.EFA_DEVICE_PLUGIN.version  # the pin
    keys = {t.get("key") for t in release.inputs["values"]["tolerations"]}
    assert {"nvidia.com/gpu", "CriticalAddonsOnly"} <= keys
    charts = {r.inputs["chart"] for r in plan.by_type("kubernetes:helm.sh/v3:Release")}
    assert "nvidia-device-plugin" in charts and "gpu-operator" not in charts


# -- refusals -----------------------------------------------------------------------
@pytest.mark.parametrize(
    ("data", "path"),
    [
        (spec_dict("aws", aws={"availability_zones": ["us-east-1b", "us-east-1c"]}),
         "aws.availability_zones"),
        (spec_dict("aws", aws={"availability_zones": ["us-east-1a", "us-west-2b"]}),
         "aws.availability_zones[1]"),
        (with_pool("aws", placement="compact",
                   capacity={"type": "reservation", "reservation": "cr-0123456789abcdef0"}),
         "node_pools[0].placement"),
        (with_pool("aws", os_image="AL2023_ARM_64_NVIDIA"), "node_pools[0].os_image"),
        (spec_dict("aws", network={"cidr": "10.0.0.0/24"}), "network.cidr"),
    ],
)
def test_invalid_input_is_refused_before_cloud_resources(spec_plan, data, path) -> None:
    with pytest.raises(SpecError) as info:
        spec_plan(data)
    assert [p.path for p in info.value.problems] == [path]


def test_gpu_subnet_is_one_id_not_a_list() -> None:
    from gpu_fabric.spec import load_spec

    data = spec_dict("aws", aws={"existing_vpc": {
        "vpc_id": "vpc-0abc", "private_subnet_ids": ["subnet-01", "subnet-02"],
        "gpu_subnet_id": ["subnet-03", "subnet-04"]}})
    with pytest.raises(SpecError, match="gpu_subnet_id"):
        load_spec(data)


def test_existing_vpc_creates_no_network(spec_plan) -> None:
    data = spec_dict("aws", aws={"existing_vpc": {
        "vpc_id": "vpc-0abc", "private_subnet_ids": ["subnet-01", "subnet-02"],
        "gpu_subnet_id": "subnet-03"}})
    plan = spec_plan(data)
    assert plan.by_type("aws:ec2/vpc:Vpc") == [] and plan.by_type("aws:ec2/subnet:Subnet") == []
    assert _gpu_group(plan).inputs["subnetIds"] == ["subnet-03"]
