"""OKE day 2 (issue 31): a looked-up image is pinned (no diff on every OKE image release),
and the system pool cycles its nodes itself.

The pin is per resource: ``ignore_changes`` is registered only on a pool whose image is
the lookup of the newest OKE image, so an image the user names (``oci.system_image_id``,
``oci.gpu_image_id``, a pool's ``os_image``) is never ignored and its change shows in
``diff`` (the offline diff keeps no type-wide ignored input for OKE pools; the day-2
matrix's OKE node_image case checks that).

Sources: Pulumi resource option ``ignoreChanges`` (https://www.pulumi.com/docs/iac/concepts/
options/ignorechanges/); pulumi-oci 5.5.0 ``containerengine.NodePoolNodePoolCyclingDetailsArgs``
(``is_node_cycling_enabled``, ``maximum_surge``: "Defaults to 1", ``maximum_unavailable``);
OKE "Cycling Nodes in a Node Pool"
(https://docs.oracle.com/iaas/Content/ContEng/Tasks/contengupgradingimageworkernode_topic-Cycling_Worker_Nodes.htm).
Before issue 31 the system pool's image was resolved to the newest on every ``up``.
"""

from __future__ import annotations

from tests.specs import spec_dict

POOL = "oci:ContainerEngine/nodePool:NodePool"


def test_system_pool_pins_its_looked_up_image_and_cycles_nodes(stack_plan) -> None:
    system = stack_plan("oci-h100").one(POOL, "oci-h100-system")
    assert system.ignore_changes == ("nodeSourceDetails.imageId",)
    assert system.inputs["nodePoolCyclingDetails"] == {
        "isNodeCyclingEnabled": True, "maximumSurge": "1", "maximumUnavailable": "0"}


def test_an_explicit_system_image_is_not_ignored(spec_plan) -> None:
    data = spec_dict("oci")
    data["oci"] = {**data["oci"], "system_image_id": "ocid1.image.oc1.iad.aaaasystem"}
    system = spec_plan(data).one(POOL, "test-oci-system")
    assert system.ignore_changes == ()
    assert system.inputs["nodeSourceDetails"]["imageId"] == "ocid1.image.oc1.iad.aaaasystem"


def test_gpu_pool_pins_only_a_looked_up_image(spec_plan, stack_plan) -> None:
    rdma = stack_plan("oci-h100").one(POOL, "oci-h100-h100")
    assert rdma.ignore_changes == ()  # oci.gpu_image_id: the user's image
    data = spec_dict("oci")
    data["oci"] = {k: v for k, v in data["oci"].items() if k != "gpu_image_id"}
    data["node_pools"][0].update(machine_type="VM.GPU.A10.2", node_count=1)
    pool = spec_plan(data).one(POOL, "test-oci-gpu")
    assert pool.ignore_changes == ("nodeSourceDetails.imageId",)
