"""OCI: the compute-cluster launch policy is written through a home-region provider (issue 31).

Source: oracle-quickstart/oci-hpc-oke at 61d210a, terraform/provider.tf lines 4-20
(``data "oci_identity_region_subscriptions" "home"`` filtered on ``is_home_region``, and
``provider "oci" { alias = "home" region = ...home region_name }``) and terraform/iam.tf
line 147 (``resource "oci_identity_policy" "oke_quickstart_all" { provider = oci.home``);
oracle/terraform-provider-oci#1596 shows the "403-NotAllowed, Please go to your home
region" failure of IAM writes elsewhere.
"""

from __future__ import annotations

import pytest

from gpu_fabric.errors import SpecError
from tests.specs import spec_dict

POLICY = "oci:Identity/policy:Policy"
PROVIDER = "pulumi:providers:oci"


def _spec(**oci: object) -> dict[str, object]:
    spec = spec_dict("oci")
    spec["oci"] = {**spec["oci"], **oci}  # type: ignore[dict-item]
    return spec


def test_policy_goes_through_the_home_region_provider(spec_plan) -> None:
    plan = spec_plan(_spec(home_region="us-phoenix-1"))
    home = plan.one(PROVIDER, "test-oci-home")
    assert home.inputs["region"] == "us-phoenix-1"
    policy = plan.one(POLICY)
    assert policy.provider is not None and "::test-oci-home::" in policy.provider


def test_home_region_is_looked_up_from_the_tenancy(spec_plan) -> None:
    # The fake tenancy's subscriptions (clouds/oci/fakes.py) say us-phoenix-1 is home.
    spec = _spec(home_region=None, compartment_id="ocid1.tenancy.oc1..aaaatest")
    home = spec_plan(spec).one(PROVIDER, "test-oci-home")
    assert home.inputs["region"] == "us-phoenix-1"


def test_tenancy_from_the_oci_config(spec_plan) -> None:
    plan = spec_plan(_spec(home_region=None),
                     extra_config={"oci:tenancyOcid": "ocid1.tenancy.oc1..aaaaconfig"})
    assert plan.one(PROVIDER, "test-oci-home").inputs["region"] == "us-phoenix-1"


def test_no_home_region_and_no_tenancy_is_refused_naming_the_field(spec_plan) -> None:
    with pytest.raises(SpecError) as err:
        spec_plan(_spec(home_region=None))
    text = str(err.value)
    assert "oci.home_region" in text and "403-NotAllowed" in text
    assert "oci:tenancyOcid" in text and "ocid1.compartment.oc1..aaaatest" in text


def test_a_bad_home_region_is_refused(spec_plan) -> None:
    with pytest.raises(SpecError, match=r"oci\.home_region") as err:
        spec_plan(_spec(home_region="us-nowhere-1"))
    assert "us-ashburn-1" in str(err.value)


def test_committed_stack_names_its_home_region(stack_plan) -> None:
    plan = stack_plan("oci-h100")
    assert plan.one(PROVIDER, "oci-h100-home").inputs["region"] == "us-ashburn-1"
