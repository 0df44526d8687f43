"""MI300X on AKS and OKE (issue 31): OKE enables the AmdGpuPlugin add-on as oci-hpc-oke
does; AKS refuses ND MI300X v5 with the reason (no AMD stack installed here).

Sources: oracle-quickstart/oci-hpc-oke at 61d210a terraform/oke-addons.tf lines 121-125
(``amd_gpu_plugin_shapes = ["BM.GPU.MI300X.8", ...]``) and 339-349 (``resource
"oci_containerengine_addon" "amd_gpu_plugin" { addon_name = "AmdGpuPlugin"
override_existing = true remove_addon_resources_on_delete = true``);
Azure/aks-rdma-infiniband at 700dabb tests/setup-infra/deploy-aks.sh lines 26-27
(``AMD_GPU_OPERATOR_VERSION:=v1.4.1``, ``CERT_MANAGER_VERSION:=v1.15.1``) and 215-290
(install_amdgpu_driver, install_cert_manager, install_amd_gpu_operator).
"""

from __future__ import annotations

import pytest

from gpu_fabric.errors import SpecError
from tests.specs import spec_dict

ADDON = "oci:ContainerEngine/addon:Addon"


def test_oke_mi300x_pool_gets_the_amd_gpu_plugin_addon(spec_plan) -> None:
    data = spec_dict("oci")
    data["node_pools"][0]["machine_type"] = "BM.GPU.MI300X.8"
    plan = spec_plan(data)
    addon = plan.one(ADDON, "test-oci-amd-gpu-plugin")
    assert addon.inputs["addonName"] == "AmdGpuPlugin"
    assert addon.inputs["overrideExisting"] is True
    assert addon.inputs["removeAddonResourcesOnDelete"] is True


def test_oke_nvidia_pool_gets_no_amd_addon(spec_plan) -> None:
    plan = spec_plan(spec_dict("oci"))
    assert "AmdGpuPlugin" not in {r.inputs["addonName"] for r in plan.by_type(ADDON)}


def test_aks_mi300x_is_refused_with_the_reason(spec_plan) -> None:
    data = spec_dict("azure")
    data["node_pools"][0]["machine_type"] = "Standard_ND96isr_MI300X_v5"
    with pytest.raises(SpecError) as err:
        spec_plan(data)
    (problem,) = err.value.problems
    assert (problem.path, problem.value) == ("node_pools[0].machine_type",
                                             "Standard_ND96isr_MI300X_v5")
    for needed in ("amdgpu driver DaemonSet", "cert-manager v1.15.1",
                   "AMD GPU Operator v1.4.1", "amd.com/gpu", "Standard_ND96isr_H100_v5"):
        assert needed in problem.message, needed


def test_aks_mi300x_is_refused_by_validate_too() -> None:
    from gpu_fabric.preflight import check_spec
    from gpu_fabric.spec import load_spec

    data = spec_dict("azure")
    data["node_pools"][0]["machine_type"] = "Standard_ND96isr_MI300X_v5"
    with pytest.raises(SpecError) as err:
        check_spec(load_spec(data))
    assert [p.path for p in err.value.problems] == ["node_pools[0].machine_type"]
