"""Names and ids the clouds would refuse, refused by ``validate`` / ``plan`` (issue 34).

Sources (the expected values below are written from these, not computed):

* Azure: https://learn.microsoft.com/azure/azure-resource-manager/management/resource-name-rules
  resource groups 1-90 characters, "Underscores, hyphens, periods, parentheses, and letters
  or digits as defined by the Char.IsLetterOrDigit function", "Can't end with period";
  virtualNetworks 2-64 / subnets 1-80, "Alphanumerics, underscores, periods, and hyphens.
  Start with alphanumeric. End alphanumeric or underscore".
* OCI "Resource Identifiers", https://docs.oracle.com/iaas/Content/General/Concepts/identifiers.htm:
  ``ocid1.<RESOURCE TYPE>.<REALM>.[REGION][.FUTURE USE].<UNIQUE ID>``.
* GCP https://cloud.google.com/compute/docs/naming-resources: names are 1-63 characters
  matching ``[a-z]([-a-z0-9]*[a-z0-9])?`` (RFC 1035).
* Machine type names: https://cloud.google.com/compute/docs/machine-resource,
  https://docs.aws.amazon.com/ec2/latest/instancetypes/instance-type-names.html (and
  .../ac.html for the accelerated families), https://learn.microsoft.com/azure/virtual-machines/vm-naming-conventions,
  https://docs.digitalocean.com/reference/api/digitalocean/#tag/Sizes,
  https://docs.oracle.com/iaas/Content/Compute/References/computeshapes.htm.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from gpu_fabric.errors import SpecError
from gpu_fabric.spec import load_spec
from tests.specs import spec_dict

ROOT = Path(__file__).resolve().parents[2]


def _problems(data: dict[str, Any]) -> list[str]:
    with pytest.raises(SpecError) as err:
        load_spec(data)
    return [str(p) for p in err.value.problems]


# -- system_pool.machine_type --------------------------------------------------------------
@pytest.mark.parametrize(("cloud", "machine", "says"), [
    # catalog GPU machines of the cluster's own cloud (catalog/<cloud>.py)
    ("gcp", "a3-highgpu-8g", "'a3-highgpu-8g' is a GPU machine (8 x H100 80GB); the system "
                             "pool runs system pods on CPU machines"),
    ("aws", "p5.48xlarge", "'p5.48xlarge' is a GPU machine (8 x H100 80GB)"),
    ("oci", "BM.GPU.H100.8", "'BM.GPU.H100.8' is a GPU machine (8 x H100 80GB)"),
    # GPU families the catalog does not list
    ("aws", "g5.xlarge", "'g5.xlarge' is a GPU machine type of AWS"),
    ("azure", "Standard_NV36ads_A10_v5", "'Standard_NV36ads_A10_v5' is a GPU machine type of "
                                         "Azure"),
    ("oci", "VM.GPU.A10.1", "'VM.GPU.A10.1' is a GPU machine type of OCI"),
    ("digitalocean", "gpu-l40sx1-48gb", "'gpu-l40sx1-48gb' is a GPU machine type of "
                                        "DigitalOcean"),
    ("gcp", "g2-standard-4", "'g2-standard-4' is a GPU machine type of GCP"),
    # another cloud's machine (catalog, then naming)
    ("azure", "a4-highgpu-8g", "'a4-highgpu-8g' is a GCP GPU machine, not an Azure machine "
                               "type"),
    ("aws", "Standard_D4s_v5", "'Standard_D4s_v5' is not an AWS machine type name: it looks "
                               "like Azure naming; AWS names them <family><generation>"
                               "[attributes].<size>, e.g. m7i.xlarge"),
    ("gcp", "s-4vcpu-8gb", "'s-4vcpu-8gb' is not a GCP machine type name: it looks like "
                           "DigitalOcean naming"),
    ("digitalocean", "e2-standard-8", "'e2-standard-8' is not a DigitalOcean machine type "
                                      "name: it looks like GCP naming"),
    ("oci", "m7i.xlarge", "'m7i.xlarge' is not an OCI machine type name: it looks like AWS "
                          "naming"),
    # any string
    ("azure", "big", "'big' is not an Azure machine type name: Azure names them "
                     "Standard_<family>"),
    ("gcp", "e2-standard-8; rm -rf /", "is not a GCP machine type name"),
    # Graviton on the x86_64 system node group (AMI AL2023_x86_64_STANDARD)
    ("aws", "m7g.xlarge", "'m7g.xlarge' is an AWS Graviton (arm64) type"),
])
def test_a_system_machine_the_cloud_refuses(cloud: str, machine: str, says: str) -> None:
    found = _problems(spec_dict(cloud, system_pool={"machine_type": machine}))
    assert len(found) == 1 and found[0].startswith("system_pool.machine_type: "), found
    assert says in found[0], found


@pytest.mark.parametrize(("cloud", "machine"), [
    # each cloud's default (clouds/<cloud>: DEFAULT_SYSTEM_*) and the committed stacks'
    ("gcp", "e2-standard-8"), ("gcp", "n2-standard-16"), ("gcp", "c3-standard-8-lssd"),
    ("gcp", "e2-medium"), ("gcp", "n2d-highmem-4"), ("gcp", "custom-4-16384"),
    ("gcp", "n2-custom-4-16384-ext"),
    ("aws", "m7i.xlarge"), ("aws", "m6i.2xlarge"), ("aws", "m7i-flex.large"), ("aws", "t3.large"),
    ("azure", "Standard_D4s_v5"), ("azure", "Standard_DS2_v2"), ("azure", "Standard_E4-2s_v5"),
    ("azure", "Standard_B2ms"),
    ("digitalocean", "s-4vcpu-8gb"), ("digitalocean", "c-4"), ("digitalocean", "c2-4vcpu-8gb"),
    ("digitalocean", "so1_5-2vcpu-16gb"), ("digitalocean", "s-4vcpu-8gb-amd"),
    ("oci", "VM.Standard.E5.Flex"), ("oci", "VM.Standard3.Flex"), ("oci", "BM.Standard.E5.192"),
])
def test_a_cpu_machine_of_the_cloud_passes(cloud: str, machine: str) -> None:
    spec = load_spec(spec_dict(cloud, system_pool={"machine_type": machine}))
    assert spec.system_pool.machine_type == machine


def test_committed_stacks_keep_their_system_machines() -> None:
    """stacks/Pulumi.do-h200.yaml and oci-h100.yaml set one; both must stay valid."""
    found = {}
    for path in sorted((ROOT / "stacks").glob("Pulumi.*.yaml")):
        cluster = yaml.safe_load(path.read_text())["config"]["gpu-fabric:cluster"]
        machine = (cluster.get("system_pool") or {}).get("machine_type")
        if machine:
            found[path.name] = load_spec(cluster).system_pool.machine_type
    assert found == {"Pulumi.do-h200.yaml": "s-4vcpu-8gb",
                     "Pulumi.oci-h100.yaml": "VM.Standard.E5.Flex"}


# -- Azure names ---------------------------------------------------------------------------
@pytest.mark.parametrize(("group", "says"), [
    ("team/gpu", "'team/gpu' has '/'; an Azure resource group name has letters, digits, '_', "
                 "'-', '.', '(' and ')' only"),
    ("rg.", "'rg.' ends with '.'; an Azure resource group name cannot end with a period"),
    ("a b", "'a b' has ' '"),
    ("rg#1", "'rg#1' has '#'"),
    ("x" * 91, "is 91 characters; an Azure resource group name has 1 to 90"),
])
def test_azure_resource_group_names(group: str, says: str) -> None:
    found = _problems(spec_dict("azure", azure={"resource_group": group}))
    assert len(found) == 1 and found[0].startswith("azure.resource_group: "), found
    assert says in found[0], found


@pytest.mark.parametrize("group", ["gpu-team", "Grüße_(prod).v2", "x" * 90, "MC_rg-1"])
def test_azure_resource_group_names_azure_accepts(group: str) -> None:
    """Unicode letters count (Char.IsLetterOrDigit)."""
    assert load_spec(spec_dict("azure", azure={"resource_group": group})).options \
        .resource_group == group


GUID = "00000000-0000-0000-0000-000000000000"


@pytest.mark.parametrize(("subnet", "says"), [
    ("subnet-0abc", "is not the resource id of a subnet"),
    ("/subscriptions/x/resourceGroups/net/providers/Microsoft.Network/virtualNetworks/v1/"
     "subnets/aks", "has subscription 'x', which is not a GUID"),
    (f"/subscriptions/{GUID}/resourceGroups/net./providers/Microsoft.Network/virtualNetworks/"
     "v1/subnets/aks", "has resource group 'net.', which ends with '.'"),
    (f"/subscriptions/{GUID}/resourceGroups/net/providers/Microsoft.Network/virtualNetworks/"
     "v/subnets/aks", "has virtual network name 'v'; an Azure virtual network name has 2 to 64"),
    (f"/subscriptions/{GUID}/resourceGroups/net/providers/Microsoft.Network/virtualNetworks/"
     "vnet/subnets/aks-", "has subnet name 'aks-'"),
])
def test_azure_existing_subnet_ids(subnet: str, says: str) -> None:
    found = _problems(spec_dict("azure", azure={"existing_subnet_id": subnet}))
    assert len(found) == 1 and found[0].startswith("azure.existing_subnet_id: "), found
    assert says in found[0], found


# -- OCIDs ---------------------------------------------------------------------------------
def _oci(**options: Any) -> dict[str, Any]:
    data = spec_dict("oci")
    data["oci"].update(options)
    return data


@pytest.mark.parametrize(("field", "value", "says"), [
    ("compartment_id", "ocid1.compartment.aaaatest", "is not an OCID: ocid1.<resource type>."
                                                     "<realm>.[region][.future use].<unique id>"),
    ("compartment_id", "ocid1.compartment.OC1..aaaatest", "is not an OCID"),
    ("compartment_id", "ocid1.compartment.oc1..", "is not an OCID"),
    ("compartment_id", "ocid2.compartment.oc1..aaaatest", "is not an OCID"),
    ("gpu_image_id", "ocid1.image.oc1.iad.aaaa/../x", "is not an OCID"),
    ("gpu_image_id", "ocid1.image.oc1.iad.aaaa test", "is not an OCID"),
    ("gpu_image_id", "ocid1.vcn.oc1.iad.aaaatest", "is the OCID of a vcn; this field takes the "
                                                   "OCID of a image"),
])
def test_malformed_ocids(field: str, value: str, says: str) -> None:
    found = _problems(_oci(**{field: value}))
    assert len(found) == 1 and found[0].startswith(f"oci.{field}: '{value}' "), found
    assert says in found[0], found


@pytest.mark.parametrize("value", [
    "ocid1.compartment.oc1..aaaaaaaareplacewithyourcompartment",  # tenancy-wide: no region
    "ocid1.tenancy.oc1..aaaatest",
    "ocid1.compartment.oc2.us-langley-1.aaaatest",  # another realm, a full region name
    "ocid1.compartment.oc1.iad.futureuse.aaaatest",  # the optional FUTURE USE part
])
def test_well_formed_ocids(value: str) -> None:
    assert load_spec(_oci(compartment_id=value)).options.compartment_id == value


def test_existing_network_ocids() -> None:
    net = {"vcn_id": "ocid1.vcn.oc1.iad.aaaa", "endpoint_subnet_id": "ocid1.subnet.oc1.iad.e",
           "worker_subnet_id": "ocid1.subnet.oc1.iad.w", "pod_subnet_id": "ocid1.subnet.oc1.iad.p"}
    assert load_spec(_oci(existing_network=net)).options.existing_network.vcn_id == net["vcn_id"]
    found = _problems(_oci(existing_network={**net, "worker_subnet_id": "ocid1.subnet.oc1.iad."}))
    assert found[0].startswith("oci.existing_network.worker_subnet_id: 'ocid1.subnet.oc1.iad.' "
                               "is not an OCID"), found


# -- GCP existing network names ------------------------------------------------------------
def _gcp(**networks: Any) -> dict[str, Any]:
    nets = {"network": "corp", "subnetwork": "corp-sub", **networks}
    return spec_dict("gcp", gcp={"project": "test-project", "existing_networks": nets})


@pytest.mark.parametrize(("field", "value"), [
    ("network", "Corp_VPC"), ("network", "1corp"), ("subnetwork", "corp-"),
    ("subnetwork", "a" * 64), ("gvnic_network", "g.v"), ("rdma_network", "-r"),
    ("rdma_subnetworks", ["r0", "R1"]), ("gpu_networks", ["vpc 1"]),
])
def test_gcp_network_names_outside_rfc1035(field: str, value: Any) -> None:
    found = _problems(_gcp(**{field: value}))
    assert len(found) == 1 and found[0].startswith(f"gcp.existing_networks.{field}: "), found
    assert "is not a GCP resource name" in found[0], found


def test_gcp_network_names_gcp_accepts() -> None:
    spec = load_spec(_gcp(network="a" * 63, subnetwork="s", rdma_network="roce-1",
                          rdma_subnetworks=[f"rdma-{i}" for i in range(8)]))
    assert spec.options.existing_networks.network == "a" * 63
