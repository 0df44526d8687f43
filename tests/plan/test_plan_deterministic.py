"""``plan --json`` is the same on every run (committed plans and ``git diff`` rely on it).

Registration order under Pulumi's runtime follows the event loop, so the same
program can register in a different order from one run to the next (issue 23:
three runs of ``plan --stack aws-p4d --json`` gave three different files). The
test forces that: one program, registered in shuffled orders, must give the
identical JSON.
"""

from __future__ import annotations

import json
import random

import pulumi

from gpu_fabric.plan.runner import run_program


def _program(seed: int):
    def program() -> None:
        # The same graph every time (thing-2..7 each wait on thing-0 and thing-1),
        # registered in a seed-dependent order, dependencies listed in shuffled order.
        rng = random.Random(seed)
        roots, leaves = ["thing-0", "thing-1"], [f"thing-{i}" for i in range(2, 8)]
        rng.shuffle(roots)
        rng.shuffle(leaves)
        made: list[pulumi.CustomResource] = []
        for name in roots + leaves:
            deps = [] if name in ("thing-0", "thing-1") else list(made[:2])
            rng.shuffle(deps)
            props = {"b": name, "a": {"z": 1, "y": [name]}}
            if rng.random() < 0.5:  # same content, keys in the other order
                props = {"a": {"y": [name], "z": 1}, "b": name}
            made.append(pulumi.CustomResource(
                "test:index:Thing", name, props, pulumi.ResourceOptions(depends_on=deps)
            ))

    return program


def _json(seed: int) -> str:
    return json.dumps(run_program(_program(seed), stack="det").to_json(), indent=2)


def test_shuffled_registration_gives_the_same_plan_json() -> None:
    first = _json(0)
    for seed in (1, 2, 3):
        assert _json(seed) == first
    assert '"thing-7"' in first and first.count('"dependencies": []') == 2


def test_resources_sorted_by_urn_and_dependencies_sorted() -> None:
    doc = json.loads(_json(5))
    urns = [r["urn"] for r in doc["resources"]]
    assert urns == sorted(urns)
    assert urns[0].endswith("::thing-0") and urns[-1].endswith("::thing-7")
    for res in doc["resources"]:
        assert res["dependencies"] == sorted(res["dependencies"])
        assert list(res["inputs"]) == ["a", "b"]
