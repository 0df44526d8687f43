"""Issue 21: who may reach the API server, and Secrets encrypted with the user's key.

Before: GKE had no master authorized networks, EKS a public endpoint with no
``publicAccessCidrs``, AKS no ``apiServerAccessProfile`` / Entra ID with local
accounts on, DOKS no control-plane firewall. Each test below fails on that code.

Argument names are the installed provider SDKs' (``/work/main/.venv``): pulumi_gcp
``container.Cluster(master_authorized_networks_config, database_encryption)``,
pulumi_aws ``eks.Cluster(vpc_config.public_access_cidrs, encryption_config)``,
azure-native ``containerservice.ManagedCluster(api_server_access_profile, aad_profile,
disable_local_accounts, security_profile.azure_key_vault_kms)``, pulumi_digitalocean
``KubernetesCluster(control_plane_firewall)``, pulumi_oci
``containerengine.Cluster(kms_key_id, endpoint_config.is_public_ip_enabled)``.
"""

from __future__ import annotations

import pytest

from gpu_fabric.errors import SpecError
from gpu_fabric.plan.stackfile import available_stacks, load_stack_file
from gpu_fabric.security import SecretsEncryptionSpec
from gpu_fabric.spec import load_spec
from tests.specs import spec_dict

GKE = "gcp:container/cluster:Cluster"
EKS = "aws:eks/cluster:Cluster"
AKS = "azure-native:containerservice:ManagedCluster"
DOKS = "digitalocean:index/kubernetesCluster:KubernetesCluster"
OKE = "oci:ContainerEngine/cluster:Cluster"
DOC_RANGE = "203.0.113.0/24"  # RFC 5737 TEST-NET-3, the range the committed stacks use


def _problems(data: dict) -> dict[str, str]:
    with pytest.raises(SpecError) as info:
        load_spec(data)
    return {p.path: str(p) for p in info.value.problems}


# -- validate --------------------------------------------------------------------
@pytest.mark.parametrize("cloud", ["gcp", "aws", "azure", "digitalocean", "oci"])
def test_a_stack_that_says_nothing_is_refused_with_how_to_find_your_address(cloud: str) -> None:
    problems = _problems(spec_dict(cloud, api_access=None))
    assert "api_access" in problems
    assert "curl -s https://checkip.amazonaws.com" in problems["api_access"]
    assert "private_endpoint" in problems["api_access"]


def test_existing_clusters_need_no_api_access() -> None:
    spec = load_spec(load_stack_file("existing").cluster)
    assert spec.api_access is None


@pytest.mark.parametrize("cidrs", [["0.0.0.0/0"], ["0.0.0.0/1", "128.0.0.0/1"], ["0.0.0.0/4"]])
def test_the_internet_needs_the_named_opt_in(cidrs: list[str]) -> None:
    problems = _problems(spec_dict("gcp", api_access={"authorized_cidrs": cidrs}))
    assert "api_access.authorized_cidrs" in problems
    assert "allow_public_internet" in problems["api_access.authorized_cidrs"]
    spec = load_spec(spec_dict("gcp", api_access={"authorized_cidrs": cidrs,
                                                   "allow_public_internet": True}))
    assert spec.api_access is not None and spec.api_access.allow_public_internet


def test_per_cloud_lists_cannot_reopen_the_internet() -> None:
    data = spec_dict("aws")
    data["aws"]["public_access_cidrs"] = ["0.0.0.0/0"]
    assert "allow_public_internet" in _problems(data)["aws"]


@pytest.mark.parametrize(("change", "path"), [
    ({"authorized_cidrs": ["203.0.113.7/24"]}, "api_access.authorized_cidrs"),
    ({"authorized_cidrs": [DOC_RANGE], "surprise": 1}, "api_access.surprise"),
    ({"private_endpoint": True, "allow_public_internet": True}, "api_access"),
])
def test_bad_api_access_names_the_field(change: dict, path: str) -> None:
    assert any(p.startswith(path) for p in _problems(spec_dict("gcp", api_access=change)))


def test_doks_has_no_private_endpoint() -> None:
    problems = _problems(spec_dict("digitalocean", api_access={"private_endpoint": True}))
    assert "control-plane firewall" in problems["api_access.private_endpoint"]


@pytest.mark.parametrize("stack", [s for s in available_stacks() if s != "existing"])
def test_every_committed_stack_says_who_may_reach_the_api(stack: str) -> None:
    access = load_spec(load_stack_file(stack).cluster).api_access
    assert access is not None and not access.allow_public_internet
    assert access.private_endpoint or [str(c) for c in access.authorized_cidrs] == [DOC_RANGE]


# -- what each cloud's cluster resource gets ------------------------------------------
def test_gke_authorized_networks(stack_plan) -> None:
    gke = stack_plan("gcp-a4").one(GKE)
    assert gke.inputs["masterAuthorizedNetworksConfig"] == {
        "cidrBlocks": [{"cidrBlock": DOC_RANGE, "displayName": "authorized-0"}],
        "gcpPublicCidrsAccessEnabled": False,
    }
    assert gke.inputs["privateClusterConfig"]["enablePrivateEndpoint"] is False


def test_gke_private_endpoint(spec_plan) -> None:
    gke = spec_plan(spec_dict("gcp", api_access={"private_endpoint": True})).one(GKE)
    assert gke.inputs["privateClusterConfig"]["enablePrivateEndpoint"] is True
    assert gke.inputs["masterAuthorizedNetworksConfig"]["cidrBlocks"] == []


def test_eks_public_endpoint_answers_only_the_authorized_ranges(stack_plan) -> None:
    vpc = stack_plan("aws-p5").one(EKS).inputs["vpcConfig"]
    assert vpc["endpointPublicAccess"] is True
    assert vpc["endpointPrivateAccess"] is True
    assert vpc["publicAccessCidrs"] == [DOC_RANGE]


def test_eks_private_endpoint(spec_plan) -> None:
    vpc = spec_plan(spec_dict("aws", api_access={"private_endpoint": True})).one(EKS)
    assert vpc.inputs["vpcConfig"]["endpointPublicAccess"] is False
    assert "publicAccessCidrs" not in vpc.inputs["vpcConfig"]


def test_eks_open_only_with_the_opt_in(spec_plan) -> None:
    data = spec_dict("aws", api_access={"allow_public_internet": True})
    vpc = spec_plan(data).one(EKS).inputs["vpcConfig"]
    assert vpc["publicAccessCidrs"] == ["0.0.0.0/0"]


def test_aks_authorized_ranges_entra_id_and_no_local_accounts(stack_plan) -> None:
    plan = stack_plan("azure-ndv5")
    aks = plan.one(AKS).inputs
    assert aks["apiServerAccessProfile"] == {
        "authorizedIPRanges": [DOC_RANGE], "enablePrivateCluster": False,
    }
    assert aks["aadProfile"] == {"enableAzureRBAC": True, "managed": True}
    assert aks["disableLocalAccounts"] is True
    admin = plan.one("azure-native:authorization:RoleAssignment", "azure-ndv5-api-admin")
    # AKS RBAC Cluster Admin (MicrosoftDocs/azure-docs built-in-roles/containers.md), for
    # the principal the fake client config returns (components/gpu_fabric/clouds/azure/fakes.py).
    assert admin.inputs["roleDefinitionId"].endswith(
        "/roleDefinitions/b1ff04bb-8a4e-4dc4-8eb5-8693973ce19b")
    assert admin.inputs["principalId"] == "66666666-6666-6666-6666-666666666666"


def test_doks_control_plane_firewall(stack_plan) -> None:
    doks = stack_plan("do-h200").one(DOKS)
    assert doks.inputs["controlPlaneFirewall"] == {
        "enabled": True, "allowedAddresses": [DOC_RANGE],
    }


def test_oke_stays_private(stack_plan) -> None:
    oke = stack_plan("oci-h100").one(OKE)
    assert oke.inputs["endpointConfig"]["isPublicIpEnabled"] is False


# -- Secrets encryption with a customer key -------------------------------------------
KEYS = {
    "gcp": "projects/test-project/locations/us-west8/keyRings/k8s/cryptoKeys/secrets",
    "aws": "arn:aws:kms:us-east-1:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab",
    "azure": "https://kv-test.vault.azure.net/keys/k8s/0123456789abcdef0123456789abcdef",
    "oci": "ocid1.key.oc1.iad.exampleaaaa.abcdefghijklmnop",
}


def test_gke_database_encryption(spec_plan) -> None:
    data = spec_dict("gcp", secrets_encryption={"kms_key": KEYS["gcp"]})
    assert spec_plan(data).one(GKE).inputs["databaseEncryption"] == {
        "state": "ENCRYPTED", "keyName": KEYS["gcp"],
    }


def test_eks_encryption_config(spec_plan) -> None:
    data = spec_dict("aws", secrets_encryption={"kms_key": KEYS["aws"]})
    assert spec_plan(data).one(EKS).inputs["encryptionConfig"] == {
        "provider": {"keyArn": KEYS["aws"]}, "resources": ["secrets"],
    }


def test_aks_key_vault_kms(spec_plan) -> None:
    data = spec_dict("azure", secrets_encryption={"kms_key": KEYS["azure"]})
    kms = spec_plan(data).one(AKS).inputs["securityProfile"]["azureKeyVaultKms"]
    assert kms == {"enabled": True, "keyId": KEYS["azure"], "keyVaultNetworkAccess": "Public"}


def test_oke_kms_key(spec_plan) -> None:
    data = spec_dict("oci", secrets_encryption={"kms_key": KEYS["oci"]})
    assert spec_plan(data).one(OKE).inputs["kmsKeyId"] == KEYS["oci"]


def test_no_key_no_setting(stack_plan) -> None:
    assert "databaseEncryption" not in stack_plan("gcp-a4").one(GKE).inputs
    assert "encryptionConfig" not in stack_plan("aws-p5").one(EKS).inputs


@pytest.mark.parametrize(("cloud", "key", "expect"), [
    ("gcp", KEYS["aws"], "projects/PROJECT"),
    ("aws", "arn:aws:kms:eu-west-1:123456789012:key/abc", "region us-east-1"),
    ("azure", "https://kv-test.vault.azure.net/keys/k8s", "VERSION"),
    ("oci", "ocid1.vault.oc1.iad.x", "ocid1.key"),
    ("digitalocean", "anything", "no customer-managed key"),
])
def test_wrong_keys_are_refused(cloud: str, key: str, expect: str) -> None:
    problems = _problems(spec_dict(cloud, secrets_encryption={"kms_key": key}))
    text = " ".join(problems.values())
    assert any(p.startswith("secrets_encryption") for p in problems), problems
    assert expect in text


VAULT = "/subscriptions/sub/resourceGroups/rg/providers/Microsoft.KeyVault/vaults/kv"


@pytest.mark.parametrize("cloud", ["gcp", "aws", "oci"])
def test_a_key_vault_id_only_applies_on_azure(cloud: str) -> None:
    """The rule is the providers' (only Azure's accepts the field), text unchanged."""
    enc = {"kms_key": KEYS[cloud], "azure_key_vault_id": VAULT}
    problems = _problems(spec_dict(cloud, secrets_encryption=enc))
    assert problems == {"secrets_encryption.azure_key_vault_id":
                        f"secrets_encryption.azure_key_vault_id: only applies on Azure "
                        f"(got '{VAULT}')"}


def test_a_key_vault_id_is_taken_on_azure() -> None:
    enc = {"kms_key": KEYS["azure"], "azure_key_vault_id": VAULT}
    assert load_spec(spec_dict("azure", secrets_encryption=enc)).secrets_encryption == (
        SecretsEncryptionSpec(kms_key=KEYS["azure"], azure_key_vault_id=VAULT))


def test_doks_offers_no_customer_key_in_those_words() -> None:
    problems = _problems(spec_dict("digitalocean", secrets_encryption={"kms_key": "k"}))
    assert problems == {"secrets_encryption": "secrets_encryption: DigitalOcean offers no "
                        "customer-managed key for Kubernetes Secrets; remove secrets_encryption"}


# -- programs that only add building blocks (issue 28) -----------------------------
REQUIRED = (  # components/gpu_fabric/security.py missing_api_access, word for word
    "api_access: required: say who may reach the Kubernetes API server. Set "
    "api_access.authorized_cidrs (find the public address `pulumi up` runs from with "
    "`curl -s https://checkip.amazonaws.com` and list it as <address>/32"
)


@pytest.mark.parametrize("cloud", ["gcp", "aws", "azure", "digitalocean", "oci"])
def test_a_blocks_only_program_loads_its_spec_without_api_access(cloud: str) -> None:
    spec = load_spec(spec_dict(cloud, api_access=None), creates_api_server=False)
    assert spec.api_access is None and spec.existing is None


def test_creates_api_server_false_lasts_only_for_that_load() -> None:
    load_spec(spec_dict("aws", api_access=None), creates_api_server=False)
    assert "api_access" in _problems(spec_dict("aws", api_access=None))


def test_creating_a_cluster_from_a_blocks_only_spec_is_refused_before_any_resource() -> None:
    from gpu_fabric import build_cluster
    from gpu_fabric.clouds.aws.cluster import AwsGpuCluster
    from gpu_fabric.preflight import check_spec

    spec = load_spec(spec_dict("aws", api_access=None), creates_api_server=False)
    for create in (lambda: check_spec(spec), lambda: build_cluster("c", spec),
                   lambda: AwsGpuCluster("c", spec)):
        with pytest.raises(SpecError) as info:
            create()  # outside any Pulumi runtime: a registration would fail otherwise
        assert [p.path for p in info.value.problems] == ["api_access"]
        assert str(info.value.problems[0]).startswith(REQUIRED)
