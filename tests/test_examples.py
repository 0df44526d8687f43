"""The example programs in examples/ (a team's own Pulumi programs) run under mocks."""

from __future__ import annotations

import base64
import json
from pathlib import Path

import pytest
import yaml

import gpu_fabric as gf
from gpu_fabric.cli import main

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"


def _run_example(name: str, config: dict[str, str], secret_keys: list[str] | None = None):
    """Through the public API, as a team's CI would (config given explicitly)."""
    return gf.plan_program(EXAMPLES / name, config=config, secret_keys=secret_keys or [])


def test_every_example_is_a_pulumi_project() -> None:
    folders = [p for p in EXAMPLES.iterdir() if p.is_dir()]
    assert len(folders) >= 2
    for folder in folders:
        meta = yaml.safe_load((folder / "Pulumi.yaml").read_text())
        assert meta["runtime"]["name"] == "python", folder
        assert (folder / "__main__.py").is_file() and (folder / "requirements.txt").is_file()
        assert "import gpu_fabric as gf" in (folder / "__main__.py").read_text()


@pytest.mark.parametrize("name", sorted(p.name for p in EXAMPLES.iterdir() if p.is_dir()))
def test_requirements_install_this_repository(name: str) -> None:
    """No placeholder URL: the one requirement is this repo (relative to the project)."""
    lines = [
        ln.strip() for ln in (EXAMPLES / name / "requirements.txt").read_text().splitlines()
        if ln.strip() and not ln.startswith("#")
    ]
    assert len(lines) == 1 and "://" not in lines[0]
    path, _, extras = lines[0].partition("[")
    assert (EXAMPLES / name / path).resolve() == ROOT
    extras_known = ROOT.joinpath("pyproject.toml").read_text()
    for extra in filter(None, extras.rstrip("]").split(",")):
        assert f"\n{extra} = [" in extras_known, extra


def test_plan_program_cli_reads_the_projects_stack(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["plan", "--program", str(EXAMPLES / "gcp-a4-team"), "--stack", "dev",
                 "--json", "--quiet"])
    assert code == 0, capsys.readouterr().err
    doc = json.loads(capsys.readouterr().out)
    assert set(doc) == {"stack", "resources", "outputs"} and doc["stack"] == "dev"
    cluster = [r for r in doc["resources"] if r["type"] == "gcp:container/cluster:Cluster"]
    assert [r["inputs"]["project"] for r in cluster] == ["team-proj"]  # Pulumi.dev.yaml


def test_plan_program_masks_the_stacks_secure_values() -> None:
    plan = gf.plan_program(EXAMPLES / "fabric-only", "dev")
    provider = plan.one("pulumi:providers:kubernetes", "doks")
    assert provider.inputs["kubeconfig"] == "[secret]"


def test_plan_program_names_a_missing_stack(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["plan", "--program", str(EXAMPLES / "gcp-a4-team"), "--stack", "prod",
                 "--quiet"]) == 1
    err = capsys.readouterr().err
    assert "Pulumi.prod.yaml" in err and "dev" in err


def test_team_program_builds_two_pools_and_its_namespaces() -> None:
    plan = _run_example("gcp-a4-team", {"gcp-project": "team-proj", "reservation": "r-a4"})
    cluster = plan.one("gpufabric:gcp:GpuCluster", "team-a4")
    pools = [r for r in plan.by_type("gcp:container/nodePool:NodePool")]
    gpu_pools = [p for p in pools if "a4" in str(p.inputs.get("nodeConfig", {}).get("machineType"))]
    assert len(gpu_pools) == 2
    provider = plan.one("pulumi:providers:kubernetes")
    team_ns = [
        r for r in plan.by_type("kubernetes:core/v1:Namespace")
        if r.name.startswith("team-a4-ns-")
    ]
    assert {r.inputs["metadata"]["name"] for r in team_ns} == {"research", "inference-eval"}
    for ns in team_ns:
        assert ns.parent == cluster.urn and ns.provider.startswith(provider.urn)
    assert plan.outputs["kubeconfig"] == "[secret]"


def test_team_program_needs_its_project() -> None:
    with pytest.raises(Exception, match="gcp-project"):
        _run_example("gcp-a4-team", {})


def test_fabric_only_program_installs_the_layer_with_its_provider() -> None:
    plan = _run_example(
        "fabric-only", {"kubeconfig": "apiVersion: v1\nkind: Config\n"}, secret_keys=["kubeconfig"]
    )
    assert not [r for r in plan.resources if r.type.split(":")[0] in ("gcp", "digitalocean")]
    provider = plan.one("pulumi:providers:kubernetes", "doks")
    assert provider.inputs["kubeconfig"] == "[secret]"
    nads = plan.by_type("kubernetes:k8s.cni.cncf.io/v1:NetworkAttachmentDefinition")
    assert len(nads) == 8
    assert all(r.provider and r.provider.startswith(provider.urn) for r in nads)
    fragment = plan.outputs["pod_fragment"]
    limits = fragment["container"]["resources"]["limits"]
    assert str(limits["rdma/fabric7"]) == "1" and str(limits["nvidia.com/gpu"]) == "8"


def test_a4_pool_joins_an_existing_gke_cluster_with_its_rdma_networks() -> None:
    plan = _run_example("gcp-a4-existing-gke", {
        "gcp-project": "team-proj", "cluster": "my-gke", "network": "my-vpc",
        "subnetwork": "my-subnet",
        "node-service-account": "nodes@team-proj.iam.gserviceaccount.com",
        "kubeconfig": "apiVersion: v1\nkind: Config\n",
    }, secret_keys=["kubeconfig"])
    # Nothing of the team's own: no cluster, no primary VPC, no system pool.
    assert not plan.by_type("gcp:container/cluster:Cluster")
    assert {r.inputs["name"] for r in plan.by_type("gcp:compute/network:Network")} == {
        "train-gvnic-net", "train-rdma-net"}
    (pool,) = plan.by_type("gcp:container/nodePool:NodePool")
    assert pool.inputs["cluster"] == "my-gke"
    assert pool.inputs["nodeConfig"]["machineType"] == "a4-highgpu-8g"
    # A4: the second gVNIC plus one RoCE subnet per CX-7 NIC (8), as in the A4 seed.
    extra = pool.inputs["networkConfig"]["additionalNodeNetworkConfigs"]
    assert extra[0] == {"network": "train-gvnic-net", "subnetwork": "train-gvnic-sub"}
    assert [e["subnetwork"] for e in extra[1:]] == [f"train-rdma-sub-{i}" for i in range(8)]
    assert plan.one("gpufabric:gcp:GpuNodePool", "train-a4").urn == pool.parent
    provider = plan.one("pulumi:providers:kubernetes", "my-gke")
    k8s = [r for r in plan.resources if r.type.startswith("kubernetes:")]
    assert k8s and all(r.provider and r.provider.startswith(provider.urn) for r in k8s)


def test_efa_node_group_joins_an_existing_vpc_and_eks_cluster() -> None:
    plan = _run_example("aws-efa-existing-eks", {
        "vpc-id": "vpc-0abc", "private-subnet-ids": '["subnet-0aaa", "subnet-0bbb"]',
        "gpu-subnet-id": "subnet-0ccc", "cluster": "my-eks",
        "cluster-security-group-id": "sg-0ddd",
        "node-role-arn": "arn:aws:iam::123456789012:role/my-eks-nodes",
        "vpc-cni-version": "v1.20.1-eksbuild.3",
    })
    assert not plan.by_type("aws:ec2/vpc:Vpc") and not plan.by_type("aws:eks/cluster:Cluster")
    sg = plan.one("aws:ec2/securityGroup:SecurityGroup")
    assert sg.inputs["vpcId"] == "vpc-0abc"
    group = plan.one("aws:eks/nodeGroup:NodeGroup")
    assert group.inputs["clusterName"] == "my-eks"
    assert group.inputs["subnetIds"] == ["subnet-0ccc"]
    template = plan.one("aws:ec2/launchTemplate:LaunchTemplate")
    # p5.48xlarge: 32 EFA on 32 network cards, ena-primary adds the plain ENA on card 0.
    interfaces = template.inputs["networkInterfaces"]
    assert len(interfaces) == 33
    # The team's cluster SG on the primary (plain ENA), the new EFA SG on every EFA.
    assert interfaces[0]["securityGroups"] == ["sg-0ddd"]
    efa_groups = {tuple(i["securityGroups"]) for i in interfaces[1:]}
    assert len(efa_groups) == 1 and "sg-0ddd" not in next(iter(efa_groups))
    assert plan.one("gpufabric:aws:GpuNodeGroup", "p5-nodes").urn == group.parent


def test_nd_pool_joins_an_existing_aks_cluster_and_subnet() -> None:
    subnet = ("/subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/my-aks-rg/"
              "providers/Microsoft.Network/virtualNetworks/my-vnet/subnets/nodes")
    plan = _run_example("azure-nd-existing-aks", {
        "resource-group": "my-aks-rg", "cluster": "my-aks", "node-subnet-id": subnet,
        "kubeconfig": "apiVersion: v1\nkind: Config\n",
    }, secret_keys=["kubeconfig"])
    # Nothing of the team's own: no resource group, VNet, cluster; the subscription
    # feature is only read (check), never registered by a team's program.
    for kind in ("resources:ResourceGroup", "network:VirtualNetwork", "network:Subnet",
                 "containerservice:ManagedCluster", "features:SubscriptionFeatureRegistration"):
        assert not plan.by_type(f"azure-native:{kind}"), kind
    pool = plan.one("azure-native:containerservice:AgentPool")
    assert pool.inputs["resourceName"] == "my-aks"
    assert pool.inputs["resourceGroupName"] == "my-aks-rg"
    assert pool.inputs["vnetSubnetID"] == subnet
    assert pool.inputs["vmSize"] == "Standard_ND96isr_H100_v5"
    assert pool.inputs["agentPoolName"] == "h100" and pool.inputs["count"] == 2
    assert plan.one("gpufabric:azure:GpuNodePool", "train-h100").urn == pool.parent
    provider = plan.one("pulumi:providers:kubernetes", "my-aks")
    k8s = [r for r in plan.resources if r.type.startswith("kubernetes:")]
    assert k8s and all(r.provider and r.provider.startswith(provider.urn) for r in k8s)


def test_fabric_pool_joins_an_existing_doks_cluster() -> None:
    cluster_id = "8d0c3c5e-1234-4abc-8def-0123456789ab"
    plan = _run_example("do-gpu-existing-doks", {
        "cluster-id": cluster_id, "kubeconfig": "apiVersion: v1\nkind: Config\n",
    }, secret_keys=["kubeconfig"])
    # Nothing of the team's own: no VPC, no cluster (so no cluster components either).
    assert not plan.by_type("digitalocean:index/vpc:Vpc")
    assert not plan.by_type("digitalocean:index/kubernetesCluster:KubernetesCluster")
    pool = plan.one("digitalocean:index/kubernetesNodePool:KubernetesNodePool")
    assert pool.inputs["clusterId"] == cluster_id
    assert pool.inputs["size"] == "gpu-h200x8-1128gb-fabric-contracted"
    assert pool.inputs["name"] == "h200" and pool.inputs["nodeCount"] == 2
    assert pool.inputs["taints"] == [{"key": "nvidia.com/gpu", "value": "", "effect": "NoSchedule"}]
    assert pool.inputs["tags"] == ["gpu-fabric", "gpu-fabric-cluster:train"]
    assert plan.one("gpufabric:digitalocean:GpuNodePool", "train-h200").urn == pool.parent
    # The DO seed's host-device NADs, one per fabric NIC (fabric0..7), on the team's cluster.
    nads = plan.by_type("kubernetes:k8s.cni.cncf.io/v1:NetworkAttachmentDefinition")
    assert sorted(r.inputs["metadata"]["name"] for r in nads) == [
        f"roce-net-fabric{i}" for i in range(8)]
    provider = plan.one("pulumi:providers:kubernetes", "my-doks")
    k8s = [r for r in plan.resources if r.type.startswith("kubernetes:")]
    assert k8s and all(r.provider and r.provider.startswith(provider.urn) for r in k8s)


def test_rdma_pool_joins_an_existing_oke_cluster_and_subnets() -> None:
    plan = _run_example("oci-rdma-existing-oke", {
        "compartment-id": "ocid1.compartment.oc1..team", "cluster-id": "ocid1.cluster.oc1.iad.mine",
        "availability-domain": "Uocm:US-ASHBURN-AD-2",
        "worker-subnet-id": "ocid1.subnet.oc1.iad.workers",
        "pod-subnet-id": "ocid1.subnet.oc1.iad.pods", "image-id": "ocid1.image.oc1.iad.rdma",
        "kubeconfig": "apiVersion: v1\nkind: Config\n", "home-region": "us-phoenix-1",
    }, secret_keys=["kubeconfig"])
    # IAM in the home region (oci-hpc-oke terraform/iam.tf at 61d210a: provider = oci.home).
    assert plan.one("pulumi:providers:oci", "train-home").inputs["region"] == "us-phoenix-1"
    assert "::train-home::" in str(plan.one("oci:Identity/policy:Policy").provider)
    # Nothing of the team's own: no VCN, subnet, gateway, security list, cluster, system pool.
    assert not [r for r in plan.resources if r.type.startswith("oci:Core/")
                and r.type != "oci:Core/computeCluster:ComputeCluster"]
    assert not plan.by_type("oci:ContainerEngine/cluster:Cluster")
    pool = plan.one("oci:ContainerEngine/nodePool:NodePool")
    assert pool.inputs["clusterId"] == "ocid1.cluster.oc1.iad.mine"
    assert pool.inputs["nodeShape"] == "BM.GPU.H100.8"
    assert pool.inputs["kubernetesVersion"] == "v1.34.1"  # gpu_fabric/versions.py OKE 1.34
    assert pool.inputs["nodeSourceDetails"]["imageId"] == "ocid1.image.oc1.iad.rdma"
    details = pool.inputs["nodeConfigDetails"]
    assert details["size"] == 2
    assert details["placementConfigs"] == [{"availabilityDomain": "Uocm:US-ASHBURN-AD-2",
                                            "subnetId": "ocid1.subnet.oc1.iad.workers"}]
    assert details["nodePoolPodNetworkOptionDetails"] == {
        "cniType": "OCI_VCN_IP_NATIVE", "podSubnetIds": ["ocid1.subnet.oc1.iad.pods"],
        "maxPodsPerNode": 110}  # oci-hpc-oke terraform/variables.tf max_pods_per_node
    # Its own RDMA compute cluster in the same AD (RDMA does not cross ADs or clusters).
    cc = plan.one("oci:Core/computeCluster:ComputeCluster", "train-h100-rdma")
    assert cc.inputs["availabilityDomain"] == "Uocm:US-ASHBURN-AD-2"
    assert details["computeClusterId"] == plan.outputs["compute_cluster_id"]
    user_data = base64.b64decode(pool.inputs["nodeMetadata"]["user_data"]).decode()
    assert "--register-with-taints=nvidia.com/gpu=present:NoSchedule" in user_data
    block = plan.one("gpufabric:oci:GpuNodePool", "train-h100")
    assert pool.parent == block.urn and cc.parent == block.urn
    # The pool waits for the launch policy (compartment scope: oci-hpc-oke's statement).
    policy = plan.one("oci:Identity/policy:Policy", "train-compute-cluster-launch")
    assert policy.inputs["statements"] == [
        "Allow any-user to {COMPUTE_CLUSTER_LAUNCH_INSTANCE} in compartment id "
        "ocid1.compartment.oc1..team where request.principal.type = 'nodepool'"]
    assert plan.depends_on(pool, policy)
    provider = plan.one("pulumi:providers:kubernetes", "my-oke")
    k8s = [r for r in plan.resources if r.type.startswith("kubernetes:")]
    assert k8s and all(r.provider and r.provider.startswith(provider.urn) for r in k8s)


# -- examples use public names only ------------------------------------------------------
PUBLIC_CLOUD_MODULES = {"gpu_fabric.gcp", "gpu_fabric.aws", "gpu_fabric.azure",
                        "gpu_fabric.digitalocean", "gpu_fabric.oci"}


def non_public_uses(source: str) -> list[str]:
    """What a program takes from gpu_fabric beyond its public API: the top-level names
    (``gpu_fabric.__all__``) and the five per-cloud modules (their ``__all__``)."""
    import ast
    import importlib

    def exported(module: str, name: str) -> bool:
        if module == "gpu_fabric" and f"gpu_fabric.{name}" in PUBLIC_CLOUD_MODULES:
            return True
        return name in importlib.import_module(module).__all__

    out: list[str] = []
    aliases: dict[str, str] = {}  # local name -> public module it stands for
    tree = ast.parse(source)
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for item in node.names:
                if item.name.split(".")[0] != "gpu_fabric":
                    continue
                if item.name != "gpu_fabric" and item.name not in PUBLIC_CLOUD_MODULES:
                    out.append(f"import {item.name}")
                elif item.asname:
                    aliases[item.asname] = item.name
        elif isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "gpu_fabric":
            module = str(node.module)
            if module != "gpu_fabric" and module not in PUBLIC_CLOUD_MODULES:
                out.append(f"from {module} import ...")
                continue
            out += [f"from {module} import {item.name}" for item in node.names
                    if not exported(module, item.name)]
            aliases.update({item.asname or item.name: f"{module}.{item.name}"
                            for item in node.names
                            if f"{module}.{item.name}" in PUBLIC_CLOUD_MODULES})
    for node in ast.walk(tree):
        if (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
                and node.value.id in aliases
                and not exported(aliases[node.value.id], node.attr)):
            out.append(f"{aliases[node.value.id]}.{node.attr}")
    return out


@pytest.mark.parametrize("name", sorted(p.name for p in EXAMPLES.iterdir() if p.is_dir()))
def test_examples_use_public_names_only(name: str) -> None:
    assert non_public_uses((EXAMPLES / name / "__main__.py").read_text()) == []


@pytest.mark.parametrize(("source", "found"), [
    ("from gpu_fabric.clouds.gcp.blocks import GcpGpuNodePool",
     ["from gpu_fabric.clouds.gcp.blocks import ..."]),
    ("import gpu_fabric.clouds.aws.layout", ["import gpu_fabric.clouds.aws.layout"]),
    ("from gpu_fabric.gcp import layout", ["from gpu_fabric.gcp import layout"]),
    ("from gpu_fabric import spec", ["from gpu_fabric import spec"]),
    ("import gpu_fabric as gf\ngf.clouds.factory", ["gpu_fabric.clouds"]),
    ("from gpu_fabric import aws\naws.nodegroup", ["gpu_fabric.aws.nodegroup"]),
    ("import gpu_fabric.oci as o\no.GpuNodePool\no.iam", ["gpu_fabric.oci.iam"]),
    ("import gpu_fabric as gf\nfrom gpu_fabric.azure import NdAgentPool\ngf.load_spec", []),
])
def test_the_public_names_check_finds_deep_uses(source: str, found: list[str]) -> None:
    assert non_public_uses(source) == found
