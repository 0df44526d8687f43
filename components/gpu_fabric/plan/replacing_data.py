"""The replacing inputs extracted from the bridged providers' Terraform sources
(``plan/data/replacing_inputs.json``, written by ``scripts/extract_replacing_inputs.py``
with the repository, commit, file and line of every entry).

The clouds whose Pulumi provider bridges Terraform (gcp, digitalocean, oci, aws) state their
``replacing_inputs`` from this file rather than by hand, so the table is the providers'
own ``ForceNew`` marks (issue 32). Two kinds of entry, as Terraform diffs them:

* *prefix*: a ForceNew attribute (or list/set/map of primitives): any change at or
  under the path replaces;
* *block*: a ForceNew list/set of nested blocks: only the block's own path replaces
  (added, removed, a different count); a change inside it replaces only where the
  nested attribute is itself ForceNew (listed as its own entry).

Kubernetes objects follow pulumi-kubernetes' own table (``forceNew`` in its
provider/pkg/provider/diff.go; a Helm Release's name and namespace): every kind
replaces on ``metadata.name``/``metadata.namespace``, some on more (a Job's template,
a ConfigMap's data, a binding's roleRef). They are not "expensive" (cloud facts): a
replaced Job is re-run, not a pool lost.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from functools import cache
from pathlib import Path
from typing import Any

DATA = Path(__file__).resolve().parent / "data" / "replacing_inputs.json"


@cache
def _data() -> Mapping[str, Any]:
    data: Mapping[str, Any] = json.loads(DATA.read_text())
    return data


def _entries(cloud: str, match: str) -> dict[str, tuple[str, ...]]:
    resources = _data()["resources"]
    out = {
        token: tuple(e["input"] for e in res["inputs"] if e["match"] == match)
        for token, res in resources.items() if res["cloud"] == cloud
    }
    if not out:
        raise LookupError(f"{DATA.name} has no resources of cloud '{cloud}'")
    return out


def replacing_prefixes(cloud: str) -> dict[str, tuple[str, ...]]:
    """Type token -> input paths whose change (at or under the path) replaces."""
    return _entries(cloud, "prefix")


def replacing_blocks(cloud: str) -> dict[str, tuple[str, ...]]:
    """Type token -> block paths that replace when the block itself changes
    (added, removed, a different number of items)."""
    return {k: v for k, v in _entries(cloud, "exact").items() if v}


def provider_deletes_first(type_: str) -> str | None:
    """The source line where ``type_``'s provider itself asks the engine to delete it
    before creating its replacement (a bridged provider's ``DeleteBeforeReplace``, e.g.
    pulumi-aws's for role policy attachments), or None. It changes the order of a
    replacement, not which inputs cause one."""
    res = _data()["resources"].get(type_)
    source = res.get("provider_delete_before_replace") if res else None
    return str(source) if source else None


def kubernetes_replacing(type_: str) -> tuple[str, ...]:
    """Input paths (prefixes) whose change makes pulumi-kubernetes replace an object of
    ``type_`` (``kubernetes:<group>/<version>:<Kind>``); () for other types."""
    if not type_.startswith("kubernetes:"):
        return ()
    table = _data()["kubernetes"]
    every = tuple(e["input"] for e in table["every_kind"])
    if type_ == "kubernetes:helm.sh/v3:Release":  # its own Diff: name and namespace only
        every = ()
    return every + tuple(e["input"] for e in table["resources"].get(type_, ()))
