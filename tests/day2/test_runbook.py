"""docs/day2.md has the runbook every verdict points to (issue 32: a runbook per cloud
with six sections), and the verdicts' links resolve to its headings."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from gpu_fabric.plan.cloud_facts import every_cloud
from gpu_fabric.plan.day2 import _SECTION, RUNBOOK_DOC

DOC = Path(__file__).resolve().parents[2] / RUNBOOK_DOC
SECTIONS = ("upgrade-kubernetes", "roll-node-images", "resize", "move-onto-a-reservation",
            "replace-a-pool-without-downtime", "freeze-during-a-run")
CLOUDS = ("gke", "eks", "aks", "doks", "oke")


def _anchors() -> set[str]:
    """GitHub's heading anchors: lower case, punctuation dropped, spaces to '-'."""
    headings = re.findall(r"^#{2,4} (.+)$", DOC.read_text(), flags=re.M)
    return {re.sub(r"[^a-z0-9 -]", "", h.lower()).replace(" ", "-") for h in headings}


@pytest.mark.parametrize("cloud", CLOUDS)
def test_each_cloud_has_the_six_sections(cloud: str) -> None:
    missing = [s for s in SECTIONS if f"{cloud}-{s}" not in _anchors()]
    assert missing == []


def test_every_link_a_verdict_can_make_resolves() -> None:
    prefixes = set(every_cloud().runbooks.values())
    assert prefixes == set(CLOUDS)
    assert set(_SECTION.values()) <= set(SECTIONS)
    links = {f"{p}-{s}" for p in prefixes for s in _SECTION.values()}
    assert links - _anchors() == set()
