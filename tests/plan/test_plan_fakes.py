"""Every offline fake's answer, written out (components/gpu_fabric/clouds/*/fakes.py).

Plans of every stack read these values (an EKS endpoint in a kubeconfig, a GCP
network's self link in a subnet, an ARM subnet id in an agent pool), so a changed
fake changes committed plans. Shapes follow the providers' documented outputs
(module docstrings: pulumi-aws, pulumi-gcp, pulumi-azure-native 3.29.0, the DO
API, OCI OCIDs). The derived ids are literal too; each was computed once outside
the fakes from its documented recipe, not by calling the fake:
* AWS ``_hex(name)``: ``f"{crc32(name):08x}{crc32(name[::-1]):08x}0"`` cut to n (zlib);
* GCP network ``numericId``: ``str(crc32(path))``;
* DigitalOcean ids: ``uuid5(UUID("6f1c2d4e-0d0c-4e55-9a57-646f6b733031"), f"{kind}/{name}")``;
* OCI OCIDs: ``f"ocid1.{kind}.oc1.iad.aaaa" + sha256(f"{kind}/{name}").hexdigest()[:24]``;
* base64 of the fake CA texts (``base64.b64encode``).
"""

from __future__ import annotations

import base64

from gpu_fabric.clouds.aws import fakes as aws
from gpu_fabric.clouds.azure import fakes as azure
from gpu_fabric.clouds.digitalocean import fakes as digitalocean
from gpu_fabric.clouds.gcp import fakes as gcp
from gpu_fabric.clouds.oci import fakes as oci

ACCOUNT = "123456789012"
EC2 = f"arn:aws:ec2:us-east-1:{ACCOUNT}"
SUB = "/subscriptions/00000000-0000-0000-0000-000000000000"
TENANT = "11111111-1111-1111-1111-111111111111"
API = "https://www.googleapis.com/compute/v1"


# -- AWS -------------------------------------------------------------------------------------


def test_aws_ec2_ids() -> None:
    assert aws.RESOURCE_OUTPUTS["aws:ec2/vpc:Vpc"]("vpc1", {}) == {
        "__id": "vpc-24ef7052b51b985e0", "arn": f"{EC2}:vpc/vpc-24ef7052b51b985e0",
        "ownerId": ACCOUNT,
    }
    prefixes = {
        "aws:ec2/vpc:Vpc": "vpc", "aws:ec2/subnet:Subnet": "subnet",
        "aws:ec2/internetGateway:InternetGateway": "igw", "aws:ec2/eip:Eip": "eipalloc",
        "aws:ec2/natGateway:NatGateway": "nat", "aws:ec2/routeTable:RouteTable": "rtb",
        "aws:ec2/routeTableAssociation:RouteTableAssociation": "rtbassoc",
    }
    for token, prefix in prefixes.items():
        assert aws.RESOURCE_OUTPUTS[token]("vpc1", {})["__id"] == f"{prefix}-24ef7052b51b985e0"
    # The table's fakes are built at import; the builder called here is the same code.
    assert aws._with_id("subnet")("vpc1", {}) == {
        "__id": "subnet-24ef7052b51b985e0", "arn": f"{EC2}:subnet/subnet-24ef7052b51b985e0",
        "ownerId": ACCOUNT,
    }
    assert aws.RESOURCE_OUTPUTS["aws:ec2/securityGroup:SecurityGroup"]("sg1", {}) == {
        "__id": "sg-d294f24139588b530", "arn": f"{EC2}:security-group/sg-d294f24139588b530",
        "ownerId": ACCOUNT, "name": "sg1-d294f24",
    }
    assert aws.RESOURCE_OUTPUTS["aws:ec2/securityGroup:SecurityGroup"](
        "sg1", {"name": "given"})["name"] == "given"
    for token in ("aws:vpc/securityGroupIngressRule:SecurityGroupIngressRule",
                  "aws:vpc/securityGroupEgressRule:SecurityGroupEgressRule"):
        assert aws.RESOURCE_OUTPUTS[token]("rule1", {}) == {
            "__id": "sgr-1148b980fb15cefd0", "securityGroupRuleId": "sgr-1148b980fb15cefd0",
            "arn": f"{EC2}:security-group-rule/sgr-1148b980fb15cefd0",
        }


def test_aws_placement_group_template_and_role() -> None:
    pg = aws.RESOURCE_OUTPUTS["aws:ec2/placementGroup:PlacementGroup"]
    assert pg("pg1", {}) == {
        "__id": "pg1-d0d24c1", "name": "pg1-d0d24c1", "placementGroupId": "pg-d0d24c18a051dae90",
        "arn": f"{EC2}:placement-group/pg1-d0d24c1",
    }
    assert pg("pg1", {"name": "efa"})["__id"] == "efa"
    lt = aws.RESOURCE_OUTPUTS["aws:ec2/launchTemplate:LaunchTemplate"]
    assert lt("lt1", {}) == {
        "__id": "lt-a401579ed5bfc7340", "arn": f"{EC2}:launch-template/lt-a401579ed5bfc7340",
        "latestVersion": 1, "defaultVersion": 1, "name": "lt1-a401579",
    }
    assert lt("lt1", {"name": "gpu"})["name"] == "gpu"
    role = aws.RESOURCE_OUTPUTS["aws:iam/role:Role"]
    assert role("role1", {}) == {
        "__id": "role1-2eec0e7", "name": "role1-2eec0e7",
        "arn": f"arn:aws:iam::{ACCOUNT}:role/role1-2eec0e7", "uniqueId": "AROA2EEC0E7B4B383426",
    }
    assert role("role1", {"name": "nodes"})["arn"] == f"arn:aws:iam::{ACCOUNT}:role/nodes"


def test_aws_eks_cluster() -> None:
    oidc = "FE584233122728A00" + "0" * 15  # _hex("eks", 32) is 17 characters, padded to 32
    fake = aws.RESOURCE_OUTPUTS["aws:eks/cluster:Cluster"]
    assert fake("x", {"name": "eks", "vpcConfig": {"subnetIds": ["s1"]}}) == {
        "__id": "eks",
        "name": "eks",
        "arn": f"arn:aws:eks:us-east-1:{ACCOUNT}:cluster/eks",
        "endpoint": f"https://{oidc}.gr7.us-east-1.eks.amazonaws.com",
        "certificateAuthority": {"data": "ZmFrZS1la3MtY2EtZm9yLWVrcw=="},
        "identities": [{"oidcs": [{"issuer": f"https://oidc.eks.us-east-1.amazonaws.com/id/{oidc}"}]}],
        "vpcConfig": {"subnetIds": ["s1"], "clusterSecurityGroupId": "sg-b0f74a6cd55d2a210",
                      "vpcId": "vpc-0fake0000000000001"},
        "platformVersion": "eks.1",
        "status": "ACTIVE",
        "clusterId": "fe584233-0000-4000-8000-fe5842331227",
    }
    bare = fake("eks", {})
    assert bare["name"] == "eks" and bare["vpcConfig"] == {
        "clusterSecurityGroupId": "sg-b0f74a6cd55d2a210", "vpcId": "vpc-0fake0000000000001",
    }


def test_aws_node_group_oidc_and_access_entry() -> None:
    ng = aws.RESOURCE_OUTPUTS["aws:eks/nodeGroup:NodeGroup"]
    assert ng("ng1", {"clusterName": "eks", "nodeGroupName": "gpu"}) == {
        "__id": "eks:gpu",
        "nodeGroupName": "gpu",
        "arn": f"arn:aws:eks:us-east-1:{ACCOUNT}:nodegroup/eks/gpu/c66ac262",
        "status": "ACTIVE",
        "resources": [{"autoscalingGroups": [{"name": "eks-gpu-c66ac262"}]}],
    }
    assert ng("ng1", {})["__id"] == "cluster:ng1"
    oidc = aws.RESOURCE_OUTPUTS["aws:iam/openIdConnectProvider:OpenIdConnectProvider"]
    arn = f"arn:aws:iam::{ACCOUNT}:oidc-provider/oidc.eks.us-east-1.amazonaws.com/id/ABC"
    assert oidc("o", {"url": "https://oidc.eks.us-east-1.amazonaws.com/id/ABC"}) == {
        "__id": arn, "arn": arn,
    }
    assert oidc("o", {})["arn"] == f"arn:aws:iam::{ACCOUNT}:oidc-provider/"
    entry = aws.RESOURCE_OUTPUTS["aws:eks/accessEntry:AccessEntry"]
    assert entry("ae1", {"clusterName": "eks", "principalArn": "arn:p"}) == {
        "__id": "eks:arn:p",
        "accessEntryArn": f"arn:aws:eks:us-east-1:{ACCOUNT}:access-entry/eks/ff00e7dd",
    }
    assert entry("ae1", {})["__id"] == "cluster:None"
    assert aws.CALLS == {}


# -- GCP -------------------------------------------------------------------------------------


def test_gcp_network_subnetwork_firewall() -> None:
    net = gcp.RESOURCE_OUTPUTS["gcp:compute/network:Network"]
    assert net("net", {"project": "p"}) == {
        "__id": "projects/p/global/networks/net", "name": "net",
        "selfLink": f"{API}/projects/p/global/networks/net", "gatewayIpv4": "",
        "numericId": "3996086571",
    }
    assert net("net", {"name": "given"})["numericId"] == "1960271860"  # fake-project
    sub = gcp.RESOURCE_OUTPUTS["gcp:compute/subnetwork:Subnetwork"]
    assert sub("sub", {"project": "p", "region": "us-central1", "ipCidrRange": "10.1.2.0/24"}) == {
        "__id": "projects/p/regions/us-central1/subnetworks/sub", "name": "sub",
        "selfLink": f"{API}/projects/p/regions/us-central1/subnetworks/sub",
        "gatewayAddress": "10.1.2.1",
    }
    assert sub("sub", {"name": "n"}) == {
        "__id": "projects/fake-project/regions/us-west8/subnetworks/n", "name": "n",
        "selfLink": f"{API}/projects/fake-project/regions/us-west8/subnetworks/n",
        "gatewayAddress": "10.0.0.1",
    }
    fw = gcp.RESOURCE_OUTPUTS["gcp:compute/firewall:Firewall"]
    assert fw("fw", {"name": "rule"}) == {
        "__id": "projects/fake-project/global/firewalls/rule", "name": "rule",
        "selfLink": f"{API}/projects/fake-project/global/firewalls/rule",
    }
    assert fw("fw", {"project": "p"})["__id"] == "projects/p/global/firewalls/fw"


def test_gcp_cluster_and_node_pool() -> None:
    cluster = gcp.RESOURCE_OUTPUTS["gcp:container/cluster:Cluster"]
    path = "projects/p/locations/us-central1-c/clusters/gke"
    assert cluster("gke", {"project": "p", "location": "us-central1-c",
                           "minMasterVersion": "1.33"}) == {
        "__id": path,
        "name": "gke",
        "endpoint": "203.0.113.10",
        "masterAuth": {"clusterCaCertificate": "ZmFrZS1jbHVzdGVyLWNhLWZvci1na2U=",
                       "clientCertificateConfig": {"issueClientCertificate": False}},
        "selfLink": f"https://container.googleapis.com/v1/{path}",
        "masterVersion": "1.33",
        "labelFingerprint": "fake",
    }
    bare = cluster("c", {"name": "gke"})
    assert bare["__id"] == "projects/fake-project/locations/us-west8-c/clusters/gke"
    assert bare["masterVersion"] == "1.34"
    pool = gcp.RESOURCE_OUTPUTS["gcp:container/nodePool:NodePool"]
    assert pool("np", {"project": "p", "location": "l", "cluster": "c", "name": "gpu"}) == {
        "__id": "projects/p/locations/l/clusters/c/nodePools/gpu",
        "name": "gpu",
        "instanceGroupUrls": [f"{API}/projects/p/zones/l/instanceGroupManagers/gke-gpu-grp"],
    }
    assert pool("np", {})["__id"] == (
        "projects/fake-project/locations/us-west8-c/clusters/None/nodePools/np"
    )


def test_gcp_service_account_and_iam() -> None:
    sa = gcp.RESOURCE_OUTPUTS["gcp:serviceaccount/account:Account"]
    assert sa("sa", {"accountId": "nodes", "project": "p"}) == {
        "__id": "projects/p/serviceAccounts/nodes@p.iam.gserviceaccount.com",
        "email": "nodes@p.iam.gserviceaccount.com",
        "member": "serviceAccount:nodes@p.iam.gserviceaccount.com",
        "uniqueId": "100000000000000000001",
    }
    assert sa("sa", {})["email"] == "sa@fake-project.iam.gserviceaccount.com"
    assert gcp.RESOURCE_OUTPUTS["gcp:projects/iAMMember:IAMMember"]("m", {}) == {
        "etag": "BwFake=",
    }
    assert gcp.CALLS == {}


# -- Azure -----------------------------------------------------------------------------------


def test_azure_group_network_ids() -> None:
    out = azure.RESOURCE_OUTPUTS
    assert out["azure-native:resources:ResourceGroup"]("rg1", {"resourceGroupName": "grp"}) == {
        "__id": f"{SUB}/resourceGroups/grp", "name": "grp", "provisioningState": "Succeeded",
    }
    assert out["azure-native:resources:ResourceGroup"]("rg1", {})["name"] == "rg1"
    net = f"{SUB}/resourceGroups/grp/providers/Microsoft.Network"
    assert out["azure-native:network:VirtualNetwork"](
        "v", {"resourceGroupName": "grp", "virtualNetworkName": "vn"}) == {
        "__id": f"{net}/virtualNetworks/vn", "name": "vn", "provisioningState": "Succeeded",
    }
    assert out["azure-native:network:VirtualNetwork"]("v", {})["__id"] == (
        f"{SUB}/resourceGroups/rg/providers/Microsoft.Network/virtualNetworks/v"
    )
    assert out["azure-native:network:Subnet"]("s", {
        "resourceGroupName": "grp", "virtualNetworkName": "vn", "subnetName": "gpu"}) == {
        "__id": f"{net}/virtualNetworks/vn/subnets/gpu", "name": "gpu",
        "provisioningState": "Succeeded",
    }
    assert out["azure-native:network:Subnet"]("s", {})["__id"] == (
        f"{SUB}/resourceGroups/rg/providers/Microsoft.Network/virtualNetworks/vnet/subnets/s"
    )
    assert out["azure-native:network:NetworkSecurityGroup"](
        "n", {"resourceGroupName": "grp", "networkSecurityGroupName": "nsg"}) == {
        "__id": f"{net}/networkSecurityGroups/nsg", "name": "nsg",
        "provisioningState": "Succeeded",
    }
    assert out["azure-native:network:NetworkSecurityGroup"]("n", {})["__id"] == (
        f"{SUB}/resourceGroups/rg/providers/Microsoft.Network/networkSecurityGroups/n"
    )


def test_azure_cluster_and_agent_pool() -> None:
    cluster = azure.RESOURCE_OUTPUTS["azure-native:containerservice:ManagedCluster"]
    aks = f"{SUB}/resourceGroups/g/providers/Microsoft.ContainerService/managedClusters/c"
    assert cluster("aks", {"resourceName": "c", "resourceGroupName": "g",
                           "location": "westus2"}) == {
        "__id": aks,
        "name": "c",
        "fqdn": "c-dns-a1b2c3d4.hcp.westus2.azmk8s.io",
        "nodeResourceGroup": "MC_g_c_westus2",
        "identity": {"type": "SystemAssigned",
                     "principalId": "22222222-2222-2222-2222-222222222222", "tenantId": TENANT},
        "oidcIssuerProfile": {
            "enabled": True,
            "issuerURL": f"https://westus2.oic.prod-aks.azure.com/{TENANT}/"
                         "33333333-3333-3333-3333-333333333333/",
        },
        "provisioningState": "Succeeded",
        "powerState": {"code": "Running"},
    }
    bare = cluster("aks", {})
    assert (bare["name"], bare["nodeResourceGroup"]) == ("aks", "MC_rg_aks_eastus")
    pool = azure.RESOURCE_OUTPUTS["azure-native:containerservice:AgentPool"]
    assert pool("ap", {"agentPoolName": "gpu", "resourceName": "c", "resourceGroupName": "g"}) == {
        "__id": f"{aks}/agentPools/gpu", "name": "gpu", "provisioningState": "Succeeded",
        "nodeImageVersion": "AKSUbuntu-2204gen2containerd-202511.03.0",
    }
    assert pool("ap", {})["__id"] == (
        f"{SUB}/resourceGroups/rg/providers/Microsoft.ContainerService/managedClusters/"
        "cluster/agentPools/ap"
    )


def test_azure_feature_and_role_assignment() -> None:
    feature = azure.RESOURCE_OUTPUTS["azure-native:features:SubscriptionFeatureRegistration"]
    assert feature("f", {"featureName": "AKSInfinibandSupport",
                         "providerNamespace": "Microsoft.Compute",
                         "properties": {"x": 1}}) == {
        "__id": f"{SUB}/providers/Microsoft.Features/providers/Microsoft.Compute/"
                "subscriptionFeatureRegistrations/AKSInfinibandSupport",
        "name": "AKSInfinibandSupport",
        "properties": {"x": 1, "state": "Registered"},
    }
    assert feature("f", {}) == {
        "__id": f"{SUB}/providers/Microsoft.Features/providers/Microsoft.ContainerService/"
                "subscriptionFeatureRegistrations/f",
        "name": "f", "properties": {"state": "Registered"},
    }
    role = azure.RESOURCE_OUTPUTS["azure-native:authorization:RoleAssignment"]
    ra = "44444444-4444-4444-4444-444444444444"
    assert role("ra", {"scope": "/s/x"}) == {
        "__id": f"/s/x/providers/Microsoft.Authorization/roleAssignments/{ra}", "name": ra,
    }
    assert role("ra", {})["__id"] == f"/providers/Microsoft.Authorization/roleAssignments/{ra}"


AKS_KUBECONFIG = """apiVersion: v1
kind: Config
clusters:
- cluster:
    certificate-authority-data: \
LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCmZha2UKLS0tLS1FTkQgQ0VSVElGSUNBVEUtLS0tLQo=
    server: https://c-dns-a1b2c3d4.hcp.eastus.azmk8s.io:443
  name: c
contexts:
- context:
    cluster: c
    user: clusterUser_g_c
  name: c
current-context: c
users:
- name: clusterUser_g_c
  user:
    client-certificate-data: ZmFrZQo=
    client-key-data: ZmFrZQo=
    token: fake-token
"""


def test_azure_calls() -> None:
    creds = azure.CALLS["azure-native:containerservice:listManagedClusterUserCredentials"]
    out = creds({"resourceName": "c", "resourceGroupName": "g"})
    assert [k["name"] for k in out["kubeconfigs"]] == ["clusterUser"]
    assert base64.b64decode(out["kubeconfigs"][0]["value"]).decode() == AKS_KUBECONFIG
    default = base64.b64decode(creds({})["kubeconfigs"][0]["value"]).decode()
    assert "user: clusterUser_rg_cluster\n" in default and "  name: cluster\n" in default
    assert azure.CALLS["azure-native:authorization:getClientConfig"]({}) == {
        "clientId": "55555555-5555-5555-5555-555555555555",
        "objectId": "66666666-6666-6666-6666-666666666666",
        "subscriptionId": "00000000-0000-0000-0000-000000000000", "tenantId": TENANT,
    }
    state = azure.CALLS["azure-native:features:getSubscriptionFeatureRegistration"]
    assert state({"featureName": "AKSInfinibandSupport"}) == {
        "name": "AKSInfinibandSupport", "properties": {"state": "Registered"},
    }
    assert state({}) == {"name": "", "properties": {"state": "Registered"}}


# -- DigitalOcean ----------------------------------------------------------------------------

CREATED = "2026-01-01T00:00:00Z"
CLUSTER_ID = "6a06d664-c064-545a-97df-2f23e5b119f6"  # uuid5 of "kubernetes/doks"
POOL_ID = "6b038bfc-b1be-525d-bd62-6cf20e955514"  # uuid5 of "node-pool/doks/gpu"
TOKEN = "dop_v1_888ca2f07fd152728d1ac6516346ee9e"  # uuid5 of "token/doks", hex
DOKS_KUBECONFIG = f"""apiVersion: v1
kind: Config
clusters:
- cluster:
    certificate-authority-data: ZmFrZSBDQSBvZiBjMQ==
    server: https://{CLUSTER_ID}.k8s.ondigitalocean.com
  name: do-nyc2-c1
contexts:
- context:
    cluster: do-nyc2-c1
    user: do-nyc2-c1-admin
  name: do-nyc2-c1
current-context: do-nyc2-c1
users:
- name: do-nyc2-c1-admin
  user:
    token: {TOKEN}
"""


def test_digitalocean_cluster() -> None:
    fake = digitalocean.RESOURCE_OUTPUTS["digitalocean:index/kubernetesCluster:KubernetesCluster"]
    endpoint = f"https://{CLUSTER_ID}.k8s.ondigitalocean.com"
    assert fake("doks", {"name": "c1", "region": "nyc2", "vpcUuid": "v",
                         "nodePool": {"name": "gpu", "nodeCount": 2}}) == {
        "__id": CLUSTER_ID,
        "endpoint": endpoint,
        "ipv4Address": "203.0.113.10",
        "clusterUrn": f"do:kubernetes:{CLUSTER_ID}",
        "status": "running",
        "createdAt": CREATED,
        "updatedAt": CREATED,
        "vpcUuid": "v",
        "clusterSubnet": "10.244.0.0/16",
        "serviceSubnet": "10.245.0.0/16",
        "nodePool": {
            "name": "gpu", "nodeCount": 2, "id": POOL_ID, "actualNodeCount": 2,
            "nodes": [
                {"id": "0a059ea0-8130-53a2-9738-a8869237233d", "name": "gpu-00000",
                 "status": "running", "dropletId": "400000000", "createdAt": CREATED,
                 "updatedAt": CREATED},
                {"id": "3cd27bf7-2e96-5434-a0ea-4d86ee1a900f", "name": "gpu-00001",
                 "status": "running", "dropletId": "400000001", "createdAt": CREATED,
                 "updatedAt": CREATED},
            ],
        },
        "kubeConfigs": [{
            "rawConfig": DOKS_KUBECONFIG,
            "host": endpoint,
            "clusterCaCertificate": "ZmFrZSBDQQ==",
            "token": TOKEN,
            "expiresAt": "2026-01-08T00:00:00Z",
        }],
    }


def test_digitalocean_cluster_defaults() -> None:
    fake = digitalocean.RESOURCE_OUTPUTS["digitalocean:index/kubernetesCluster:KubernetesCluster"]
    out = fake("doks", {"clusterSubnet": "10.1.0.0/16", "serviceSubnet": "10.2.0.0/16",
                        "nodePool": {"minNodes": 3}})
    assert out["vpcUuid"] == "bc6b17ec-8ab7-5c6c-9168-a5e1a5bfd60f"  # uuid5 of "vpc/default"
    assert (out["clusterSubnet"], out["serviceSubnet"]) == ("10.1.0.0/16", "10.2.0.0/16")
    pool = out["nodePool"]
    assert pool["id"] == "3fa67c45-336f-57fc-ac99-e5c9a7a08683"  # "node-pool/doks/default"
    assert pool["actualNodeCount"] == 3 and len(pool["nodes"]) == 3
    assert pool["nodes"][2]["name"] == "None-00002"
    assert "context:\n    cluster: do-None-doks\n" in out["kubeConfigs"][0]["rawConfig"]
    assert fake("doks", {})["nodePool"]["actualNodeCount"] == 1


def test_digitalocean_node_pool_and_vpc() -> None:
    fake = digitalocean.RESOURCE_OUTPUTS[
        "digitalocean:index/kubernetesNodePool:KubernetesNodePool"]
    assert fake("pool2", {"name": "gpu", "nodeCount": 0, "minNodes": 2}) == {
        "__id": "ed4a428e-0d07-58b9-bc1f-91b98c8c9088",
        "actualNodeCount": 2,
        "nodes": [
            {"id": "6dcec31b-f7c9-5cc9-9b61-ce1035b23dcf", "name": "gpu-00000",
             "status": "running", "dropletId": "500000000", "createdAt": CREATED,
             "updatedAt": CREATED},
            {"id": "82f66f19-a562-5ea5-87f4-1668e0f52d93", "name": "gpu-00001",
             "status": "running", "dropletId": "500000001", "createdAt": CREATED,
             "updatedAt": CREATED},
        ],
    }
    assert fake("pool2", {"nodeCount": 3})["nodes"][2]["id"] == (
        "0184f743-b028-5ce8-a4bc-ef7b235fc7fc"
    )
    assert fake("pool2", {}) == {"__id": "ed4a428e-0d07-58b9-bc1f-91b98c8c9088",
                                 "actualNodeCount": 0, "nodes": []}
    assert digitalocean.RESOURCE_OUTPUTS["digitalocean:index/vpc:Vpc"]("vpc1", {}) == {
        "__id": "65d361ca-2d31-571f-8b63-9b39bec7af0f",
        "urn": "do:vpc:65d361ca-2d31-571f-8b63-9b39bec7af0f",
        "default": False,
        "createdAt": CREATED,
    }


def test_digitalocean_versions() -> None:
    versions = digitalocean.CALLS["digitalocean:index/getKubernetesVersions:getKubernetesVersions"]
    assert versions({"versionPrefix": "1.34"}) == {
        "id": "1.34", "latestVersion": "1.34.2-do.1",
        "validVersions": ["1.34.2-do.1", "1.34.1-do.0"], "versionPrefix": "1.34",
    }
    assert versions({}) == {
        "id": "all", "latestVersion": "1.35.1-do.0",
        "validVersions": ["1.35.1-do.0", "1.34.2-do.1", "1.34.1-do.0", "1.33.6-do.2",
                          "1.32.10-do.3"],
        "versionPrefix": "",
    }
    assert versions({"versionPrefix": "9."}) == {
        "id": "9.", "latestVersion": "", "validVersions": [], "versionPrefix": "9.",
    }


# -- OCI -------------------------------------------------------------------------------------


def test_oci_resources() -> None:
    out = oci.RESOURCE_OUTPUTS
    assert out["oci:Core/vcn:Vcn"]("v", {}) == {
        "__id": "ocid1.vcn.oc1.iad.aaaa0311e13a9cd0d815e141772c", "state": "AVAILABLE",
        "defaultRouteTableId": "ocid1.routetable.oc1.iad.default", "displayName": "v",
    }
    # The table's fakes are built at import; the builder called here is the same code.
    assert oci._with_id("subnet", natIp="192.0.2.1")("sub", {}) == {
        "__id": "ocid1.subnet.oc1.iad.aaaa1cc501f027d1dde5f23f8148", "state": "AVAILABLE",
        "natIp": "192.0.2.1", "displayName": "sub",
    }
    assert oci._with_id("subnet")("sub", {"name": "x"}) == {
        "__id": "ocid1.subnet.oc1.iad.aaaa1cc501f027d1dde5f23f8148", "state": "AVAILABLE",
    }
    assert "displayName" not in oci._with_id("subnet")("sub", {"displayName": "x"})
    assert out["oci:Core/subnet:Subnet"]("sub", {"displayName": "x"}) == {
        "__id": "ocid1.subnet.oc1.iad.aaaa1cc501f027d1dde5f23f8148", "state": "AVAILABLE",
    }
    assert "displayName" not in out["oci:Core/subnet:Subnet"]("sub", {"name": "x"})
    assert out["oci:Core/natGateway:NatGateway"]("n", {"name": "x"})["natIp"] == "192.0.2.10"
    kinds = {
        "oci:Core/serviceGateway:ServiceGateway": "servicegateway",
        "oci:Core/internetGateway:InternetGateway": "internetgateway",
        "oci:Core/routeTable:RouteTable": "routetable",
        "oci:Core/securityList:SecurityList": "securitylist",
        "oci:Core/computeCluster:ComputeCluster": "computecluster",
        "oci:Identity/policy:Policy": "policy", "oci:ContainerEngine/addon:Addon": "addon",
        "oci:Core/natGateway:NatGateway": "natgateway",
    }
    for token, kind in kinds.items():
        assert out[token]("n", {})["__id"].startswith(f"ocid1.{kind}.oc1.iad.aaaa"), token
    assert out["oci:ContainerEngine/cluster:Cluster"]("oke", {}) == {
        "__id": "ocid1.cluster.oc1.iad.aaaa313b7e223eb3aafffa99b49e",
        "state": "ACTIVE",
        "endpoints": [{
            "kubernetes": "", "privateEndpoint": "10.0.96.2:6443", "publicEndpoint": "",
            "vcnHostnameEndpoint": "oke.endpoint.oraclevcn.com:6443",
        }],
        "availableKubernetesUpgrades": [],
    }
    pool = out["oci:ContainerEngine/nodePool:NodePool"]
    assert pool("np", {"nodeConfigDetails": {"size": 2}}) == {
        "__id": "ocid1.nodepool.oc1.iad.aaaa3e0f1b0c3b422b88da9b50a2",
        "state": "ACTIVE",
        "nodes": [
            {"id": "ocid1.instance.oc1.iad.aaaa8cf451df6a2b035da748acbd", "state": "ACTIVE"},
            {"id": "ocid1.instance.oc1.iad.aaaad170d4bd5626e3c9c06815fc", "state": "ACTIVE"},
        ],
    }
    assert pool("np", {})["nodes"] == []
    assert pool("np", {"nodeConfigDetails": None})["nodes"] == []


OKE_KUBECONFIG = """apiVersion: v1
kind: Config
clusters:
- name: oke
  cluster:
    server: https://10.0.96.2:6443
    certificate-authority-data: RkFLRS1DQQ==
contexts:
- name: oke
  context: {cluster: oke, user: oke}
current-context: oke
users:
- name: oke
  user:
    exec:
      apiVersion: client.authentication.k8s.io/v1beta1
      command: oci
      args: [ce, cluster, generate-token, --cluster-id, ocid1.cluster.x, --region, us-ashburn-1]
"""


def test_oci_calls() -> None:
    kubeconfig = oci.CALLS["oci:ContainerEngine/getClusterKubeConfig:getClusterKubeConfig"]
    assert kubeconfig({"clusterId": "ocid1.cluster.x"}) == {
        "content": OKE_KUBECONFIG, "id": "ocid1.cluster.x",
    }
    assert kubeconfig({})["id"] == "ocid1.cluster.oc1.iad.fake"
    assert oci.CALLS["oci:Core/getServices:getServices"]({}) == {"id": "services", "services": [{
        "id": "ocid1.service.oc1.iad.aaaa4dc42030a0c7aa52924790ee",
        "cidrBlock": "all-iad-services-in-oracle-services-network",
        "description": "All IAD Services In Oracle Services Network",
        "name": "All IAD Services In Oracle Services Network",
    }]}
    options = oci.CALLS["oci:ContainerEngine/getNodePoolOption:getNodePoolOption"]
    assert options({"nodePoolK8sVersion": "v1.33.1"}) == {"id": "all", "sources": [
        {"imageId": "ocid1.image.oc1.iad.aaaa3d89cf634918bd4b22fee5b4",
         "sourceName": "Oracle-Linux-8.10-2026.01.01-0-OKE-1.33.1-900", "sourceType": "IMAGE"},
        {"imageId": "ocid1.image.oc1.iad.aaaaab3836efaccbea438c55ecdd",
         "sourceName": "Oracle-Linux-8.10-Gen2-GPU-2026.01.01-0-OKE-1.33.1-900",
         "sourceType": "IMAGE"},
        {"imageId": "ocid1.image.oc1.iad.aaaa5605cf5e5a0f0c8696152b43",
         "sourceName": "Oracle-Linux-8.10-aarch64-2026.01.01-0-OKE-1.33.1-900",
         "sourceType": "IMAGE"},
    ]}
    assert options({})["sources"][0]["sourceName"] == (
        "Oracle-Linux-8.10-2026.01.01-0-OKE-1.34.1-900"
    )
