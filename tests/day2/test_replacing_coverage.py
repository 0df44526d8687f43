"""Every cloud resource type a committed stack creates has a replacing-inputs table (issue 32).

A type with no table is planned as "in-place" whatever changes, a wrong day-2 verdict
that nobody sees. So each type in a golden plan (``tests/data/golden/*/plan.json``) must be
read by the extraction (``plan/data/replacing_inputs.json``, written by
scripts/extract_replacing_inputs.py from the providers' sources), or be in the Azure
table (``clouds/azure/plan_facts.py``, pulumi-azure-native is not a bridged provider),
or be listed below with the reason it has none. Exempt: the project's own components
(``gpufabric:``), provider resources (``pulumi:providers:``) and Kubernetes objects
(``kubernetes:``, pulumi-kubernetes' own table, ``kubernetes`` in the data file).
"""

from __future__ import annotations

import json
from pathlib import Path

from gpu_fabric.catalog import Cloud
from gpu_fabric.plan.cloud_facts import plan_facts
from gpu_fabric.plan.replacing_data import DATA

ROOT = Path(__file__).resolve().parents[2]
GOLDEN = ROOT / "tests" / "data" / "golden"
EXEMPT = ("gpufabric:", "pulumi:providers:", "kubernetes:")

# Types created by committed stacks with no table yet, each with the reason. Remove an
# entry when its table lands (the test below fails while a listed type is covered).
# (The Azure maintenance configuration, feature registration and network security group
# were listed here until clouds/azure/plan_facts.py gave them their id parameters, 767a751.)
NO_TABLE: dict[str, str] = {}


def _created_types() -> dict[str, list[str]]:
    """Type token -> the golden stacks whose plan creates it."""
    out: dict[str, list[str]] = {}
    for plan in sorted(GOLDEN.glob("*/plan.json")):
        for res in json.loads(plan.read_text())["resources"]:
            if not res["type"].startswith(EXEMPT):
                out.setdefault(res["type"], []).append(plan.parent.name)
    return out


def _tables() -> set[str]:
    extracted = set(json.loads(DATA.read_text())["resources"])
    return extracted | set(plan_facts(Cloud.AZURE).replacing_inputs)


def test_the_golden_plans_are_read() -> None:
    created = _created_types()
    # A few types every reader of the plans must find (gcp-a4, oci-h100, azure-ndv5 plans).
    assert {"gcp:compute/firewall:Firewall", "oci:Identity/policy:Policy",
            "azure-native:containerservice:AgentPool"} <= set(created)
    assert "gcp-a4" in created["gcp:projects/iAMMember:IAMMember"]


def test_every_created_type_has_a_replacing_table_or_a_reason() -> None:
    created = _created_types()
    missing = {t: stacks for t, stacks in created.items() if t not in _tables()}
    assert set(missing) == set(NO_TABLE), (
        "types created by committed stacks without a replacing-inputs table (add them to "
        f"scripts/extract_replacing_inputs.py or the cloud's plan_facts): {missing}")
    for token, why in NO_TABLE.items():
        assert why, token
