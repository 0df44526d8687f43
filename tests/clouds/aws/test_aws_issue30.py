"""EKS at parity with terraform-aws-eks and AWS's training templates (issue 30).

Expected values are literal, from the sources named beside them.
"""

from __future__ import annotations

import pytest

from gpu_fabric.errors import SpecError
from tests.specs import with_pool

LT = "aws:ec2/launchTemplate:LaunchTemplate"
NG = "aws:eks/nodeGroup:NodeGroup"
PG = "aws:ec2/placementGroup:PlacementGroup"
GB200 = "p6e-gb200.36xlarge"
CB = {"type": "capacity_block", "reservation": "cr-0123456789abcdef0"}


def _nics(plan) -> list[tuple[int, int, str]]:
    (template,) = plan.by_type(LT)
    return [(n["networkCardIndex"], n["deviceIndex"], n["interfaceType"])
            for n in template.inputs["networkInterfaces"]]


# -- 1. p6e-gb200: Capacity Blocks only, 17 network cards ---------------------------------
@pytest.mark.parametrize("capacity", [
    {"type": "on_demand"}, {"type": "spot"},
    {"type": "reservation", "reservation": "cr-0123456789abcdef0"},
])
def test_gb200_outside_a_capacity_block_is_refused(spec_plan, capacity) -> None:
    """P6e-GB200 UltraServers are sold only through Capacity Blocks for ML (EKS user
    guide https://docs.aws.amazon.com/eks/latest/userguide/ml-eks-nvidia-ultraserver.html)."""
    with pytest.raises(SpecError) as info:
        spec_plan(with_pool("aws", machine_type=GB200, capacity=capacity))
    (problem,) = info.value.problems
    assert problem.path == "node_pools[0].capacity.type"
    assert problem.value == capacity["type"]
    assert "Capacity Blocks" in str(info.value)


def test_gb200_in_a_capacity_block_plans_without_a_new_placement_group(spec_plan) -> None:
    plan = spec_plan(with_pool("aws", machine_type=GB200, capacity=CB))
    assert plan.by_type(PG) == []
    (template,) = plan.by_type(LT)
    assert template.inputs["instanceMarketOptions"]["marketType"] == "capacity-block"


# aws-parallelcluster PR #6930 (review, 2025-08-07, from EC2 DescribeInstanceTypes):
# MaximumNetworkCards 17; MaximumNetworkInterfaces 2 on even cards, 1 on odd cards.
GB200_ENA_PRIMARY = [(0, 0, "interface")] + [(c, 0, "efa-only") for c in range(1, 17)]
GB200_EFA_PRIMARY = [(0, 0, "interface")] + [
    (c, 0 if c % 2 else 1, "efa-only") for c in range(1, 17)]


@pytest.mark.parametrize(("layout", "expected"), [
    ("ena-primary", GB200_ENA_PRIMARY), ("efa-primary", GB200_EFA_PRIMARY)])
def test_gb200_launch_template_uses_the_17_cards(spec_plan, layout, expected) -> None:
    data = with_pool("aws", machine_type=GB200, capacity=CB)
    data["aws"] = {"efa_interface_layout": layout}
    assert _nics(spec_plan(data)) == expected


def test_gb200_catalog_row_has_17_cards() -> None:
    from gpu_fabric.catalog import get_machine

    m = get_machine(GB200)
    assert (m.network_cards, m.fabric_nics, m.total_fabric_gbps) == (17, 16, 3200)
    assert (
        "https://github.com/aws/aws-parallelcluster/blob/a59f9c94c775a7a2ee68e6eb0ed3ae82ca22ca3b/"
        "cli/src/pcluster/templates/queues_stack.py") in m.sources


# -- 2. efa-only on an existing cluster: the VPC CNI version is an input ----------------
def _block_args(**change: object):
    from gpu_fabric import describe_cluster
    from gpu_fabric.aws import EfaNodeGroupArgs
    from gpu_fabric.spec import load_spec
    from tests.specs import spec_dict

    spec = load_spec(spec_dict("aws"))
    fields: dict = {
        "name_prefix": "p5", "cluster_name": "my-eks", "node_role_arn": "arn:aws:iam::1:role/n",
        "subnet_id": "subnet-0ccc", "pool": spec.pool("gpu"),
        "fabric": describe_cluster(spec)["gpu"], "cluster_security_group_id": "sg-0ddd",
        "efa_security_group_id": "sg-0eee", "kubernetes_version": "1.34", **change}
    return EfaNodeGroupArgs(**fields)


@pytest.mark.parametrize(("version", "words"), [
    (None, "give the cluster's VPC CNI version"),
    # EKS user guide node-efa (https://docs.aws.amazon.com/eks/latest/userguide/node-efa.html):
    # efa-only interfaces need VPC CNI 1.18.5 or later.
    ("v1.18.4-eksbuild.1", "need VPC CNI 1.18.5 or later"),
    ("1.17.1", "need VPC CNI 1.18.5 or later"),
    ("latest", "not a VPC CNI version"),
])
def test_existing_cluster_block_refuses_an_unknown_or_old_vpc_cni(version, words) -> None:
    from gpu_fabric.aws import EfaNodeGroup

    with pytest.raises(SpecError) as info:
        EfaNodeGroup("p5-nodes", _block_args(vpc_cni_version=version))
    (problem,) = info.value.problems
    assert problem.path == "AwsEfaNodeGroupArgs.vpc_cni_version"
    assert words in problem.message


@pytest.mark.parametrize("version", ["v1.18.5-eksbuild.1", "1.20.1", "v1.20.1-eksbuild.3"])
def test_existing_cluster_block_takes_a_new_enough_vpc_cni(version) -> None:
    from gpu_fabric.aws import EfaNodeGroup
    from gpu_fabric.plan.runner import run_program

    plan = run_program(lambda: EfaNodeGroup("p5-nodes", _block_args(vpc_cni_version=version)))
    (template,) = plan.by_type(LT)
    assert {n["interfaceType"] for n in template.inputs["networkInterfaces"]} == {
        "interface", "efa-only"}


# -- 3. reserved pools launch into the placement group their reservation was made in --
ODCR = {"type": "reservation", "reservation": "cr-0123456789abcdef0"}


def test_reserved_compact_pool_launches_into_the_named_group(spec_plan) -> None:
    """A Capacity Reservation created in a cluster placement group is used by launching
    into that group (https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/cr-cpg.html):
    compact + reservation is valid when it names the group; no new group is made."""
    data = with_pool("aws", placement="compact", capacity=ODCR)
    data["aws"] = {"placement_groups": {"gpu": "team-p5-cpg"}}
    plan = spec_plan(data)
    assert plan.by_type(PG) == []
    (template,) = plan.by_type(LT)
    assert template.inputs["placement"] == {"groupName": "team-p5-cpg"}
    assert template.inputs["capacityReservationSpecification"] == {
        "capacityReservationTarget": {"capacityReservationId": "cr-0123456789abcdef0"}}


def test_reserved_compact_pool_without_a_group_is_refused_and_says_how(spec_plan) -> None:
    with pytest.raises(SpecError) as info:
        spec_plan(with_pool("aws", placement="compact", capacity=ODCR))
    (problem,) = info.value.problems
    assert problem.path == "node_pools[0].placement"
    assert "aws.placement_groups.gpu" in problem.message


@pytest.mark.parametrize(("pool", "placement", "path"), [
    ("nope", "auto", "aws.placement_groups.nope"),
    ("gpu", "none", "aws.placement_groups.gpu"),
])
def test_a_placement_group_for_no_pool_or_a_none_pool_is_refused(
    spec_plan, pool, placement, path
) -> None:
    data = with_pool("aws", placement=placement)
    data["aws"] = {"placement_groups": {pool: "team-cpg"}}
    with pytest.raises(SpecError) as info:
        spec_plan(data)
    assert [p.path for p in info.value.problems] == [path]


# -- 4. root disk and instance-store RAID0 ----------------------------------------------
def test_p4d_without_disk_size_gets_a_root_volume_that_fits_images(stack_plan) -> None:
    """aws-p4d sets no disk_size_gb: the node used to get the AMI's 20 GiB root
    (amazon-eks-ami 81fec2e templates/al2023/template.json line 86); with a launch
    template the size must be set in it."""
    (template,) = stack_plan("aws-p4d").by_type(LT)
    assert template.inputs["blockDeviceMappings"] == [{
        "deviceName": "/dev/xvda",
        "ebs": {"volumeSize": 100, "volumeType": "gp3", "encrypted": "true",
                "deleteOnTermination": "true"}}]


def test_p5_disk_size_is_kept(stack_plan) -> None:
    (template,) = stack_plan("aws-p5").by_type(LT)
    assert template.inputs["blockDeviceMappings"][0]["ebs"]["volumeSize"] == 500


@pytest.mark.parametrize("stack", ["aws-p5", "aws-p4d"])
def test_gpu_nodes_raid0_the_instance_store(stack_plan, stack) -> None:
    """nodeadm localStorage RAID0, as awsome-distributed-training 7217859
    1.architectures/4.amazon-eks/eks-p5-capacity-block.yaml lines 43-49 and
    terraform-aws-eks bef29c4 README.md lines 357-369; MIME multi-part with content type
    application/node.eks.aws (amazon-eks-ami 81fec2e nodeadm/doc/examples.md 12-41)."""
    import base64

    (template,) = stack_plan(stack).by_type(LT)
    text = base64.b64decode(template.inputs["userData"]).decode()
    assert 'Content-Type: multipart/mixed; boundary="BOUNDARY"' in text
    assert "Content-Type: application/node.eks.aws" in text
    assert ("apiVersion: node.eks.aws/v1alpha1\nkind: NodeConfig\nspec:\n  instance:\n"
            "    localStorage:\n      strategy: RAID0\n") in text


# -- 5. acceptance ranks get the image's environment -------------------------------------
def test_efa_launcher_runs_mpirun_by_path_and_forwards_the_images_env() -> None:
    """The pinned image is built from awsome-distributed-training 7217859
    micro-benchmarks/nccl-tests/nccl-tests.Dockerfile: ENV PATH and LD_LIBRARY_PATH (lines
    56-57) and LD_PRELOAD=/opt/nccl/build/lib/libnccl.so (line 117). Ranks started over
    sshd get no Docker ENV; awsome's kubernetes/nccl-tests.yaml (lines 26, 35-38) runs
    /opt/amazon/openmpi/bin/mpirun -x PATH -x LD_LIBRARY_PATH."""
    from gpu_fabric.fabric.description import describe_cluster
    from gpu_fabric.nccl.manifests import mpirun_script, plan_acceptance
    from tests.fabric_helpers import existing

    spec = existing("aws", "p5.48xlarge", acceptance={"enabled": True})
    plan = plan_acceptance(spec, describe_cluster(spec), "acc")
    line = next(x for x in mpirun_script(plan, {"FI_PROVIDER": "efa"}).splitlines()
                if "--allow-run-as-root" in x)
    assert line.startswith("  /opt/amazon/openmpi/bin/mpirun --allow-run-as-root ")
    assert " -x PATH -x LD_LIBRARY_PATH -x LD_PRELOAD -x FI_PROVIDER " in line


# -- 6. p4d partial pods: the EFA device plugin never shares a device -------------------
@pytest.mark.parametrize("machine", ["p4d.24xlarge", "p4de.24xlarge"])
def test_p4d_one_gpu_pods_are_refused_with_the_dra_answer(machine) -> None:
    """aws/aws-ofi-nccl topology/p4d-24xl-topo.xml (2daf7d3): 2 GPUs + 1 EFA per PCIe
    switch, 4 EFA for 8 GPUs. A device plugin counts whole devices: eight 1-GPU pods
    would need 8 EFA, so four stayed Pending. 2-GPU and larger pods fit."""
    from gpu_fabric.fabric.workload import FragmentError, fragment_for

    with pytest.raises(FragmentError, match="never shares one") as info:
        fragment_for(machine, 1)
    assert "fabric.mode dra" in str(info.value)
    two = fragment_for(machine, 2)
    assert two.limits["vpc.amazonaws.com/efa"] == "1"


def test_p4d_device_plugin_serves_two_to_eight_gpu_pods() -> None:
    from gpu_fabric.catalog import get_machine
    from gpu_fabric.clouds.aws.fabric import whole_device_counts

    assert whole_device_counts(get_machine("p4d.24xlarge")) == (2, 3, 4, 5, 6, 7, 8)
    assert whole_device_counts(get_machine("p5.48xlarge")) is None


# -- 7. IMDS hop limit 1, IRSA for the VPC CNI, kube-proxy and CoreDNS managed ------------
ADDON = "aws:eks/addon:Addon"
ATTACH = "aws:iam/rolePolicyAttachment:RolePolicyAttachment"
ROLE = "aws:iam/role:Role"


@pytest.mark.parametrize("stack", ["aws-p5", "aws-p4d"])
def test_gpu_nodes_keep_imds_from_pods(stack_plan, stack) -> None:
    """terraform-aws-eks bef29c4 modules/eks-managed-node-group/variables.tf line 314:
    http_put_response_hop_limit defaults to 1 (IMDSv2 required)."""
    (template,) = stack_plan(stack).by_type(LT)
    assert template.inputs["metadataOptions"] == {
        "httpEndpoint": "enabled", "httpTokens": "required", "httpPutResponseHopLimit": 1}


def test_fabric_daemons_are_host_network() -> None:
    """Hop limit 1 leaves IMDS to hostNetwork pods: the EFA device plugin chart
    (charts/aws-efa-k8s-device-plugin-v0.5.30.tgz templates/daemonset.yaml line 64) and
    DraNet (charts/dranet-v1.4.0.tgz templates/daemonset.yaml line 30) set hostNetwork."""
    import tarfile
    from pathlib import Path

    root = Path(__file__).resolve().parents[3] / "charts"
    for archive, member, line in [
        ("aws-efa-k8s-device-plugin-v0.5.30.tgz",
         "aws-efa-k8s-device-plugin/templates/daemonset.yaml", 64),
        ("dranet-v1.4.0.tgz", "dranet/templates/daemonset.yaml", 30),
    ]:
        with tarfile.open(root / archive) as tar:
            text = tar.extractfile(member).read().decode()  # type: ignore[union-attr]
        assert text.splitlines()[line - 1].strip() == "hostNetwork: true", archive


def test_node_role_has_no_cni_policy_and_aws_node_assumes_its_own(stack_plan) -> None:
    """EKS user guide cni-iam-role: the CNI policy on an IRSA role for kube-system/aws-node,
    not on the node role."""
    import json

    plan = stack_plan("aws-p5")
    node = {r.inputs["policyArn"] for r in plan.by_type(ATTACH) if "node-role" in r.name}
    assert node == {"arn:aws:iam::aws:policy/AmazonEKSWorkerNodePolicy",
                    "arn:aws:iam::aws:policy/AmazonEC2ContainerRegistryPullOnly"}
    cni = plan.one(ATTACH, "eks-p5-vpc-cni-role-amazoneks-cni-policy")
    assert cni.inputs["policyArn"] == "arn:aws:iam::aws:policy/AmazonEKS_CNI_Policy"
    role = plan.one(ROLE, "eks-p5-vpc-cni-role")
    (statement,) = json.loads(role.inputs["assumeRolePolicy"])["Statement"]
    assert statement["Action"] == "sts:AssumeRoleWithWebIdentity"
    (condition,) = statement["Condition"].values()
    subjects = {k.rsplit(":", 1)[1]: v for k, v in condition.items()}
    assert subjects == {"sub": "system:serviceaccount:kube-system:aws-node",
                        "aud": "sts.amazonaws.com"}
    addon = plan.one(ADDON, "eks-p5-vpc-cni")
    assert plan.depends_on(addon, role)


def test_kube_proxy_and_coredns_are_managed_and_pinned(stack_plan) -> None:
    """EKS user guide managing-kube-proxy and managing-coredns version tables, Kubernetes
    1.34: kube-proxy v1.34.1-eksbuild.2, CoreDNS v1.12.4-eksbuild.1."""
    plan = stack_plan("aws-p5")
    proxy = plan.one(ADDON, "eks-p5-kube-proxy")
    dns = plan.one(ADDON, "eks-p5-coredns")
    assert (proxy.inputs["addonName"], proxy.inputs["addonVersion"]) == (
        "kube-proxy", "v1.34.1-eksbuild.2")
    assert (dns.inputs["addonName"], dns.inputs["addonVersion"]) == (
        "coredns", "v1.12.4-eksbuild.1")
    system = plan.one(NG, "eks-p5-system")
    assert plan.depends_on(dns, system)  # CoreDNS needs nodes to become ACTIVE


def test_a_kubernetes_minor_without_pinned_addons_gets_eks_default(spec_plan) -> None:
    """A minor the EKS tables we read do not list (1.35, a day-2 upgrade) plans with EKS's
    default add-on version (no addonVersion) instead of being refused."""
    from tests.specs import spec_dict

    plan = spec_plan(spec_dict("aws", kubernetes={"version": "1.35"}))
    for name in ("test-aws-kube-proxy", "test-aws-coredns"):
        assert "addonVersion" not in plan.one(ADDON, name).inputs


# -- 8. p5 performance: S3 through a gateway endpoint -----------------------------------
def test_s3_goes_through_a_gateway_endpoint_on_every_private_route_table(stack_plan) -> None:
    """awsome-distributed-training 7217859 1.architectures/7.sagemaker-hyperpod-eks/
    cfn-templates/nested-stacks/s3-endpoint-stack.yaml lines 28-35: service
    com.amazonaws.<region>.s3 on the private route table (gateway type, the default)."""
    plan = stack_plan("aws-p5")
    endpoint = plan.one("aws:ec2/vpcEndpoint:VpcEndpoint", "eks-p5-s3")
    assert endpoint.inputs["serviceName"] == "com.amazonaws.us-east-1.s3"
    assert endpoint.inputs["vpcEndpointType"] == "Gateway"
    private = ["eks-p5-private-0-rt", "eks-p5-private-1-rt", "eks-p5-gpu-rt"]
    for name in private:
        assert plan.depends_on(endpoint, plan.one("aws:ec2/routeTable:RouteTable", name))
    assert len(endpoint.inputs["routeTableIds"]) == 3
