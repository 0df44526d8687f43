"""Small ``plan --json`` documents for diff and verdict tests.

Why here: the diff tests each built the same document shape (stack "s", resources with
URN, type, name, no parent or dependencies) by hand.
"""

from __future__ import annotations

from typing import Any


def plan_doc(*resources: tuple[str, str, dict[str, Any]]) -> dict[str, Any]:
    """A plan of stack ``s`` holding one resource per (type, name, inputs)."""
    return {"stack": "s", "outputs": {}, "resources": [
        {"urn": f"urn:pulumi:s::p::{t}::{n}", "type": t, "name": n, "parent": None,
         "dependencies": [], "inputs": i} for t, n, i in resources]}
