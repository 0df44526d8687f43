"""``diff``'s note on plans of two stacks and its warning on updates the cloud refuses
(plan/diff.py ``_other_stacks``, ``to_markdown``).

A URN holds its stack's name (``urn:pulumi:<stack>::<project>::<type>::<name>``,
https://www.pulumi.com/docs/iac/concepts/resources/names/#urns), so plans of two stacks
share no URN. AKS refuses to change an agent pool's OS disk size or its availability
zones after creation (clouds/azure/plan_facts.py ``AGENT_POOL_REFUSED``, citing
MicrosoftDocs/azure-aks-docs@fb060abe articles/aks/concepts-storage.md L42, L56 and
reliability-availability-zones-configure.md L53).
"""

from __future__ import annotations

from typing import Any

from gpu_fabric.plan.diff import diff_plans, to_markdown

POOL = "azure-native:containerservice:AgentPool"


def _doc(*resources: tuple[str, str, dict[str, Any]]) -> dict[str, Any]:
    return {"stack": resources[0][0] if resources else "s", "outputs": {}, "resources": [
        {"urn": f"urn:pulumi:{s}::p::{POOL}::{n}", "type": POOL, "name": n, "parent": None,
         "dependencies": [], "inputs": i} for s, n, i in resources]}


def test_plans_of_other_stacks_name_every_stack_of_each() -> None:
    base = _doc(("a", "gpu", {}), ("b", "x", {}))
    head = _doc(("c", "gpu", {}), ("d", "x", {}))
    assert diff_plans(base, head).other_stacks == ("a, b", "c, d")


def test_everything_removed_is_not_another_stack() -> None:
    assert diff_plans(_doc(("a", "gpu", {})), _doc()).other_stacks is None
    assert diff_plans(_doc(), _doc(("a", "gpu", {}))).other_stacks is None
    same = _doc(("a", "gpu", {"count": 1}))
    assert diff_plans(same, _doc(("a", "gpu", {"count": 2}))).other_stacks is None


def test_a_refused_update_warns_with_every_refused_input() -> None:
    base = _doc(("s", "gpu", {"osDiskSizeGB": 128, "availabilityZones": ["1"]}))
    head = _doc(("s", "gpu", {"osDiskSizeGB": 256, "availabilityZones": ["2"]}))
    lines = to_markdown(diff_plans(base, head)).splitlines()
    assert lines[4] == (
        "> **Warning**: `gpu` (azure-native:containerservice:AgentPool) cannot be updated in "
        "place: the cloud refuses a change of `availabilityZones[0]`, `osDiskSizeGB`")
    (change,) = diff_plans(base, head).changes
    assert change.verdict is not None and change.verdict.note is not None
    assert change.verdict.note.startswith(
        "the provider updates it in place and the cloud rejects the update, so `pulumi up` "
        "fails on this resource: AKS cannot change a pool's availability zones after it is "
        "created")
    assert "); AKS cannot change a pool's OS disk size after it is created (" in (
        change.verdict.note)
    assert lines[-1] == (
        "| ~ update :warning: | `azure-native:containerservice:AgentPool` | `gpu` | "
        'availabilityZones[0]: `"1"` → `"2"`, osDiskSizeGB: `128` → `256` |')
