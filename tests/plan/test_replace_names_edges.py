"""``name_collisions`` on the edges of a ``plan --json`` document (plan/names.py).

tests/plan/test_replace_names.py checks the committed plans and one resource at a time;
here: a document without resources, a resource without ``options`` (older plans, or a
hand-written one), exempt resources before a colliding one (the check goes on), and
the nested-path reader. The rule is Pulumi's: a replacement is created before the old
resource is deleted unless ``deleteBeforeReplace`` is set
(https://www.pulumi.com/docs/iac/concepts/resources/options/deletebeforereplace/).
"""

from __future__ import annotations

from gpu_fabric.plan.names import _present, name_collisions

POOL = "gcp:container/nodePool:NodePool"
COLLIDES = ("r (gcp:container/nodePool:NodePool): fixed name without delete_before_replace: "
            "a replacement would fail with 'already exists'")


def test_a_document_without_resources_has_no_collision() -> None:
    assert name_collisions({"stack": "s", "outputs": {}}) == []


def test_a_resource_without_options_is_read_as_create_before_delete() -> None:
    pool = {"urn": "u", "type": POOL, "name": "r", "inputs": {"name": "gpu"}}
    assert name_collisions({"resources": [pool]}) == [COLLIDES]


def test_exempt_resources_before_a_colliding_one_do_not_end_the_check() -> None:
    resources = [
        {"type": "kubernetes:core/v1:Namespace", "name": "ns", "inputs": {}, "options": {}},
        {"type": "gpufabric:gcp:GpuCluster", "name": "c", "inputs": {}, "options": {}},
        {"type": POOL, "name": "r", "inputs": {"name": "gpu"},
         "options": {"delete_before_replace": False}},
    ]
    assert name_collisions({"resources": resources}) == [COLLIDES]


def test_present_walks_a_dotted_path() -> None:
    assert _present({"a": {"b": "x"}}, "a.b") is True
    assert _present({"a": {"b": None}}, "a.b") is False
    assert _present({"a": {}}, "a.b") is False
    assert _present({"a": "x"}, "a.b") is False
    assert _present({"a.b": "x"}, "a.b") is False
    assert _present({"a": {"b": {"c": 0}}}, "a.b.c") is True
