"""Parity tables: each vendor reference's settings beside the value this project plans.

Why: fidelity to the clouds' own reference deployments (cluster-toolkit's GKE
blueprints, terraform-aws-eks, awsome-distributed-training, aks-rdma-infiniband,
oci-hpc-oke, the seeds) was checked by reading them side by side once per review,
and each review found settings nobody had compared. A table per reference keeps
that reading as data: every setting the reference sets that we also control, the
reference's value with its source (repo, path, commit, line), and either the same
value in a committed stack's plan or a declared deviation with its reason. The
test then notices both drift in our plan and a table that no longer says the truth.

Tables live in ``tests/data/parity/<cloud>/<reference>.yaml`` (format in
``tests/data/parity/README.md``). Our side is read from the committed golden
plan (``tests/data/golden/<stack>/plan.json``), which tests/plan/test_golden.py
keeps equal to a fresh ``plan --stack S --json``, so no plan is run for those. A
reference with no committed stack (cluster-toolkit's gke-a4x: its GB200 pool is a
variant, not a stack) names a ``variant`` of :mod:`tests.support.variants` instead;
that variant is planned once per process (its plan is cached there, and shared with
the other tests that plan it), about two seconds.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

DATA = Path(__file__).resolve().parents[1] / "data"
PARITY_DIR = DATA / "parity"
GOLDEN_DIR = DATA / "golden"

# What a deviation writes as its value when our plan does not set the setting.
ABSENT = "absent"
MIN_REASON = 20
_COMMIT = re.compile(r"^[0-9a-f]{7,40}$")
_REPO = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*/[A-Za-z0-9][A-Za-z0-9_.-]*$")
# The project's seed documents (/work/shared/seeds/, the five it was specified from; their
# README lists them): a row may cite one of them, by file name and line, instead of a
# path in the reference's repository (`source: {seed: <file>, line: N}`), for a value the
# seed itself shows (the DOKS guide is a docs page without a repository and commit).
SEEDS = frozenset({
    "digitalocean-doks-multinode-gpu.md", "nemo-platform-multinode-networking.md",
    "gke-nvidia-dra-dranet.md", "distributed-gpu-cluster-guide.md",
    "ai-infra-networking-concepts.md",
})
COMPARES = ("equal", "contains", "json")
# A path segment is split on dots not escaped with a backslash (`annotations.a\.b/c`
# names the key `a.b/c`, as Kubernetes annotation and label keys have dots).
_SEGMENT = re.compile(r"(?<!\\)\.")
_PICK = re.compile(r"^(?P<key>[^\[\]]+)\[(?P<field>[^=\[\]]+)=(?P<value>[^\]]*)\]$")
_TABLE_KEYS = {"reference", "stack", "variant", "settings"}
_ROW_KEYS = {"setting", "source", "reference", "ours", "deviation", "compare"}


class Missing:
    """Our plan has no value at the row's path (printed as ``absent``)."""

    def __repr__(self) -> str:
        return ABSENT


MISSING = Missing()


@dataclass(frozen=True)
class Row:
    """One setting of a reference, as a table writes it."""

    table: str
    index: int
    data: dict[str, Any]

    @property
    def label(self) -> str:
        return f"{self.table} settings[{self.index}] ({self.data.get('setting', '?')})"


def table_files() -> list[Path]:
    return sorted(PARITY_DIR.glob("*/*.yaml"))


def load_table(path: Path) -> dict[str, Any]:
    data = yaml.safe_load(path.read_text())
    if not isinstance(data, dict):
        raise ValueError(f"{path}: a parity table is a mapping, got {type(data).__name__}")
    return data


def table_errors(table: dict[str, Any], name: str) -> list[str]:
    """What is wrong with a table's shape (before any value is compared)."""
    errors: list[str] = []
    unknown = set(table) - _TABLE_KEYS
    if unknown:
        errors.append(f"{name}: unknown keys {sorted(unknown)}; valid: {sorted(_TABLE_KEYS)}")
    ref = table.get("reference")
    if not isinstance(ref, dict):
        return [*errors, f"{name}: `reference` must be a mapping with repo, commit, title"]
    if "seed" in ref:
        # A seed that is only an article (distributed-gpu-cluster-guide.md) has no repository
        # and commit: the table names the seed, and every row cites its lines.
        errors.extend(_seed_reference_errors(table, ref, name))
    else:
        if not _REPO.match(str(ref.get("repo", ""))):
            errors.append(f"{name}: reference.repo {ref.get('repo')!r} is not owner/name")
        if not _COMMIT.match(str(ref.get("commit", ""))):
            errors.append(
                f"{name}: reference.commit {ref.get('commit')!r} is not 7-40 lowercase hex"
            )
    if not str(ref.get("title", "")).strip():
        errors.append(f"{name}: reference.title is empty")
    if ("stack" in table) == ("variant" in table):
        errors.append(f"{name}: name exactly one of `stack` (a committed stack) and "
                      "`variant` (a tests/support/variants.py variant)")
    elif "variant" in table:
        from tests.support.variants import VARIANTS

        if table["variant"] not in VARIANTS:
            errors.append(f"{name}: variant {table['variant']!r} is not in "
                          f"tests/support/variants.py; valid: {sorted(VARIANTS)}")
    elif not (GOLDEN_DIR / str(table.get("stack")) / "plan.json").is_file():
        errors.append(f"{name}: stack {table.get('stack')!r} has no golden plan in {GOLDEN_DIR}")
    settings = table.get("settings")
    if not isinstance(settings, list) or not settings:
        errors.append(f"{name}: `settings` must be a non-empty list")
        return errors
    for index, row in enumerate(settings):
        errors.extend(
            _row_shape_errors(
                Row(name, index, row) if isinstance(row, dict) else Row(name, index, {})
            )
        )
    return errors


def _seed_reference_errors(table: dict[str, Any], ref: dict[str, Any], name: str) -> list[str]:
    """A reference that is one of the seeds: no repo or commit, and rows citing that seed."""
    if ref["seed"] not in SEEDS:
        return [f"{name}: reference.seed {ref['seed']!r} is not one of the project's seeds; "
                f"valid: {sorted(SEEDS)}"]
    errors = []
    if "repo" in ref or "commit" in ref:
        errors.append(f"{name}: a seed reference names no repo or commit (the seed is the text)")
    settings = table.get("settings")
    for index, row in enumerate(settings if isinstance(settings, list) else []):
        source = row.get("source") if isinstance(row, dict) else None
        if isinstance(source, dict) and source.get("seed") != ref["seed"]:
            errors.append(f"{name} settings[{index}]: the table's reference is the seed "
                          f"{ref['seed']}; cite it as source: {{seed: {ref['seed']}, line: N}}")
    return errors


def _row_shape_errors(row: Row) -> list[str]:
    data = row.data
    if not data:
        return [f"{row.label}: a row is a mapping"]
    errors = []
    unknown = set(data) - _ROW_KEYS
    if unknown:
        errors.append(f"{row.label}: unknown keys {sorted(unknown)}; valid: {sorted(_ROW_KEYS)}")
    for key in ("setting", "source", "reference", "ours"):
        if key not in data:
            errors.append(f"{row.label}: missing `{key}`")
    source = data.get("source")
    if not (
        isinstance(source, dict)
        and (bool(str(source.get("path", "")).strip()) != ("seed" in source))
        and isinstance(source.get("line"), int)
        and source["line"] > 0
    ):
        errors.append(f"{row.label}: `source` needs a path (or a seed) and a positive line, "
                      f"got {source!r}")
    elif "seed" in source and source["seed"] not in SEEDS:
        errors.append(f"{row.label}: seed {source['seed']!r} is not one of the project's "
                      f"seeds; valid: {sorted(SEEDS)}")
    ours = data.get("ours")
    if not (isinstance(ours, dict) and {"type", "name", "input"} <= set(ours)):
        errors.append(f"{row.label}: `ours` needs type, name and input, got {ours!r}")
    if data.get("compare", "equal") not in COMPARES:
        errors.append(f"{row.label}: compare {data['compare']!r}; valid: {', '.join(COMPARES)}")
    deviation = data.get("deviation")
    if deviation is not None:
        if not (isinstance(deviation, dict) and "value" in deviation):
            errors.append(f"{row.label}: `deviation` needs a value and a reason")
        elif len(str(deviation.get("reason", "")).strip()) < MIN_REASON:
            errors.append(
                f"{row.label}: a deviation's reason must say why (at least {MIN_REASON} characters)"
            )
    return errors


def golden_plan(stack: str) -> list[dict[str, Any]]:
    document = json.loads((GOLDEN_DIR / stack / "plan.json").read_text())
    resources: list[dict[str, Any]] = document["resources"]
    return resources


def variant_plan(variant: str) -> list[dict[str, Any]]:
    """A variant's plan in the ``plan --json`` shape (planned once per process)."""
    from tests.support.variants import plan_of

    return [r.to_json() for r in plan_of(variant).resources]


def table_plan(table: dict[str, Any]) -> list[dict[str, Any]]:
    """The plan a table compares with: its stack's golden plan, or its variant's."""
    if "variant" in table:
        return variant_plan(str(table["variant"]))
    return golden_plan(str(table["stack"]))


def our_value(resources: list[dict[str, Any]], ours: dict[str, Any]) -> Any:
    """The value at ``ours`` (type, name, input path) in a plan, or :data:`MISSING`.

    A plan with two resources of that type and name is an error: the row must
    say which one it means.
    """
    matches = [
        r for r in resources if r.get("type") == ours["type"] and r.get("name") == ours["name"]
    ]
    if len(matches) > 1:
        raise ValueError(f"{len(matches)} resources are {ours['type']} {ours['name']!r}")
    if not matches:
        return MISSING
    return lookup(matches[0].get("inputs", {}), str(ours["input"]))


def lookup(value: Any, path: str) -> Any:
    """Follow a dotted path (``a.0.b``, ``containers[name=x].image``) or give MISSING."""
    for segment in (s.replace("\\.", ".") for s in _SEGMENT.split(path)):
        pick = _PICK.match(segment)
        if pick:
            value = value.get(pick["key"], MISSING) if isinstance(value, dict) else MISSING
            if not isinstance(value, list):
                return MISSING
            chosen = [
                i
                for i in value
                if isinstance(i, dict) and str(i.get(pick["field"])) == pick["value"]
            ]
            if len(chosen) != 1:
                return MISSING
            value = chosen[0]
        elif isinstance(value, list) and segment.isdigit():
            index = int(segment)
            value = value[index] if index < len(value) else MISSING
        elif isinstance(value, dict):
            value = value.get(segment, MISSING)
        else:
            return MISSING
        if value is MISSING:
            return MISSING
    return value


def _holds(ours: Any, expected: Any, compare: str) -> bool:
    if expected == ABSENT:
        return ours is MISSING
    if ours is MISSING:
        return False
    if compare == "contains":
        return isinstance(ours, list) and expected in ours
    if compare == "json":
        # Our value is a JSON document in a string (a CNI config): equal once parsed.
        try:
            return isinstance(ours, str) and bool(json.loads(ours) == expected)
        except ValueError:
            return False
    return bool(ours == expected)


def row_errors(row: Row, resources: list[dict[str, Any]]) -> list[str]:
    """Whether our plan agrees with the row: the same value, or the declared deviation."""
    data = row.data
    compare = data.get("compare", "equal")
    ours = our_value(resources, data["ours"])
    reference = data["reference"]
    deviation = data.get("deviation")
    where = f"{data['ours']['type']} {data['ours']['name']!r} inputs.{data['ours']['input']}"
    if deviation is None:
        if _holds(ours, reference, compare):
            return []
        return [
            f"{row.label}: the reference sets {reference!r}, our plan has {ours!r} at {where}; "
            "match it or declare a deviation with its reason"
        ]
    declared = deviation["value"]
    errors = []
    if declared == reference:
        errors.append(
            f"{row.label}: the deviation's value {declared!r} is the reference's value; "
            "drop the deviation"
        )
    if not _holds(ours, declared, compare):
        errors.append(
            f"{row.label}: the deviation says our value is {declared!r}, our plan has "
            f"{ours!r} at {where}; the table is stale"
        )
    elif _holds(ours, reference, compare) and declared != reference:
        errors.append(
            f"{row.label}: our plan now matches the reference ({reference!r}); drop the deviation"
        )
    return errors


def check_table(table: dict[str, Any], name: str) -> list[str]:
    """Every error of one table: its shape first, then each row against the plan."""
    errors = table_errors(table, name)
    if errors:
        return errors
    resources = table_plan(table)
    for index, data in enumerate(table["settings"]):
        try:
            errors.extend(row_errors(Row(name, index, data), resources))
        except ValueError as exc:
            errors.append(f"{Row(name, index, data).label}: {exc}")
    return errors
