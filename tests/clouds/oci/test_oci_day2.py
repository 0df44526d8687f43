"""OKE day 2 (issue 31): the system pool cycles its nodes itself. (Pinning a looked-up image
with ignore_changes was withdrawn: the offline diff's ignored inputs are per type, and a
type-wide ignore hid real image changes of user-given images; docs/clouds/oci.md.)

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


def test_system_pool_cycles_its_nodes(stack_plan) -> None:
    system = stack_plan("oci-h100").one(POOL, "oci-h100-system")
    assert system.inputs["nodePoolCyclingDetails"] == {
        "isNodeCyclingEnabled": True, "maximumSurge": "1", "maximumUnavailable": "0"}


def test_an_explicit_system_image_is_used(spec_plan) -> None:
    data = spec_dict("oci")
    data["oci"] = {**data["oci"], "system_image_id": "ocid1.image.oc1.iad.aaaasystem"}
    system = spec_plan(data).one(POOL, "test-oci-system")
    assert system.inputs["nodeSourceDetails"]["imageId"] == "ocid1.image.oc1.iad.aaaasystem"
