"""``docs``: keep the stack table (README) and docs/stacks.md in step with the stack files.

What can be derived is generated from the stack files and the machine catalog:
the README's stack table (between ``<!-- stacks:begin -->`` and
``<!-- stacks:end -->``), and a starting section in docs/stacks.md for a stack
that has none (what it runs, where, what it creates, the cloud's price pages and
prerequisites), in the format the tests check. Sections already there are prose
a person wrote: they are kept, and removed only when their stack is gone.

``docs`` (or ``docs --check``) exits 4 and prints what is out of date;
``docs --write`` fixes it. The tests call the same check, so a new stack fails
with the command to run.
"""

from __future__ import annotations

import argparse
import re
import sys
from dataclasses import dataclass
from pathlib import Path

from gpu_fabric.catalog import Machine
from gpu_fabric.cli.common import EXIT_INVALID, EXIT_OK, EXIT_REJECTED
from gpu_fabric.clouds.registry import clouds, provider_for
from gpu_fabric.errors import SpecError
from gpu_fabric.plan.project import find_project
from gpu_fabric.plan.stackfile import available_stacks, load_stack_file
from gpu_fabric.spec import ClusterSpec, load_spec

FIX = "python -m gpu_fabric docs --write"
BEGIN, END = "<!-- stacks:begin -->", "<!-- stacks:end -->"
SECTION = re.compile(r"^## (\S+)\s*$", re.M)

@dataclass(frozen=True)
class Paths:
    readme: Path
    stacks_md: Path


def default_paths() -> Paths:
    root = find_project().root
    return Paths(root / "README.md", root / "docs" / "stacks.md")


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser(
        "docs", help="check (or --write) the stack table and docs/stacks.md sections",
    )
    parser.add_argument("--write", action="store_true", help="update the files")
    parser.add_argument("--check", action="store_true", help="only check (the default)")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    paths = default_paths()
    missing = [p for p in (paths.readme, paths.stacks_md) if not p.is_file()]
    if missing:
        # A team's repository has its own docs: say what this command keeps, and where.
        print(f"docs: keeps the stack table of {paths.readme} (between {BEGIN} and {END}) "
              f"and the stack sections of {paths.stacks_md}, in the project folder (the "
              f"nearest Pulumi.yaml's); not found: {', '.join(str(p) for p in missing)}. "
              "Create them (the two markers in README.md, an empty docs/stacks.md) to keep "
              "your stacks documented the same way", file=sys.stderr)
        return EXIT_INVALID
    try:
        specs = {name: _spec(name) for name in available_stacks()}
    except SpecError as exc:
        print(exc.render(), file=sys.stderr)
        return EXIT_INVALID
    readme, stacks_md = paths.readme.read_text(), paths.stacks_md.read_text()
    new_readme = with_table(readme, specs)
    new_stacks = with_sections(stacks_md, specs)
    stale = [p for p, old, new in ((paths.readme, readme, new_readme),
                                   (paths.stacks_md, stacks_md, new_stacks)) if old != new]
    if args.write:
        paths.readme.write_text(new_readme)
        paths.stacks_md.write_text(new_stacks)
        for path in stale:
            print(f"updated {path}")
        added = sorted(set(specs) - set(sections(stacks_md)))
        for name in added:
            print(f"docs/stacks.md: added a section for {name}: read it and complete "
                  "'Creates', 'Cost' and 'Prerequisites'")
        return EXIT_OK
    for problem in problems(readme, stacks_md, specs):
        print(problem)
    return EXIT_REJECTED if stale else EXIT_OK


def _spec(name: str) -> ClusterSpec:
    stack = load_stack_file(name)
    return load_spec(stack.cluster, source=str(stack.path))


def problems(readme: str, stacks_md: str, specs: dict[str, ClusterSpec]) -> list[str]:
    """What is out of date, each with the command that fixes it."""
    found = []
    if BEGIN not in readme or END not in readme:
        found.append(f"README.md: no {BEGIN} ... {END} block for the stack table")
    elif with_table(readme, specs) != readme:
        found.append(f"README.md: the stack table is out of date; run `{FIX}`")
    have = sections(stacks_md)
    for name in sorted(set(specs) - set(have)):
        found.append(f"docs/stacks.md: no section for stack {name}; run `{FIX}` "
                     "and complete the section it adds")
    for name in sorted(set(have) - set(specs)):
        found.append(f"docs/stacks.md: section {name} has no stack file; run `{FIX}`")
    return found


# -- the README table ----------------------------------------------------------------
def table(specs: dict[str, ClusterSpec]) -> str:
    rows = [
        "| stack | cloud | GPU nodes | fabric |",
        "|---|---|---|---|",
    ]
    for name, spec in sorted(specs.items(), key=lambda kv: (_order(kv[1]), kv[0])):
        cloud = ("any (existing)" if spec.existing is not None
                 else provider_for(spec.cloud).docs.service)
        where = spec.location.zone or spec.location.region
        pools = ", ".join(
            f"{p.node_count} x {p.machine_type} ({p.machine.gpus} x {p.machine.gpu.model})"
            for p in spec.node_pools
        )
        rows.append(
            f"| `{name}` | {cloud} | {pools}, {where} | {_fabric(spec.node_pools[0].machine)} |"
        )
    return "\n".join(rows)


def _order(spec: ClusterSpec) -> int:
    return len(clouds()) if spec.existing is not None else clouds().index(spec.cloud)


def _fabric(machine: Machine) -> str:
    if not machine.has_fabric:
        return "none"
    return f"{machine.fabric_nics} x {machine.gbps_per_nic}G {machine.fabric.value}"


def with_table(readme: str, specs: dict[str, ClusterSpec]) -> str:
    if BEGIN not in readme or END not in readme:
        return readme
    head, rest = readme.split(BEGIN, 1)
    _, tail = rest.split(END, 1)
    return f"{head}{BEGIN}\n{table(specs)}\n{END}{tail}"


# -- docs/stacks.md ----------------------------------------------------------------------
def sections(text: str) -> dict[str, str]:
    """Stack name -> its section's text (heading line included), in file order."""
    matches = list(SECTION.finditer(text))
    ends = [m.start() for m in matches[1:]] + [len(text)]
    return {m.group(1): text[m.start():end] for m, end in zip(matches, ends, strict=True)}


def section(name: str, spec: ClusterSpec) -> str:
    """A starting section: every fact the tests check, from the spec and the catalog."""
    where = spec.location.zone or spec.location.region
    pools = " and ".join(
        f"**{p.node_count} x `{p.machine_type}`** ({p.machine.gpus} x {p.machine.gpu.model}, "
        f"fabric: {_fabric(p.machine)})" for p in spec.node_pools
    )
    gpus = sum(p.node_count * p.machine.gpus for p in spec.node_pools)
    if spec.existing is not None:
        cost = "- Cost: nothing new: the cluster and its nodes are billed where they run."
        creates = "- Creates: the Kubernetes fabric layer only (`render` lists its parts)."
        prereq = "- Prerequisites: the cluster's kubeconfig as a Pulumi secret."
    else:
        docs = provider_for(spec.cloud).docs
        control, nodes = docs.control_plane_prices, docs.node_prices
        creates = (f"- Creates: the network, the {docs.service} cluster, its node pools "
                   "and the Kubernetes fabric layer (`plan` lists every resource).")
        cost = (f"- Cost: control plane (<{control}>) + node-hours of each pool "
                f"(<{nodes}>, `{spec.node_pools[0].machine_type}`).")
        prereq = (f"- Prerequisites: {docs.login}; quota for {gpus} GPUs in "
                  f"`{spec.location.region}` and capacity in `{where}`.")
    return (f"## {name}\n\n{pools} in **`{where}`** (generated by `{FIX}`: review it).\n\n"
            f"{creates}\n{cost}\n{prereq}\n\n")


def with_sections(text: str, specs: dict[str, ClusterSpec]) -> str:
    """Keep written sections of existing stacks, drop gone ones, append missing ones."""
    first = SECTION.search(text)
    intro = text[: first.start()] if first else text
    have = sections(text)
    kept = [body for name, body in have.items() if name in specs]
    out = intro + "".join(kept)
    missing = [n for n in sorted(specs) if n not in have]
    if missing:
        out = out.rstrip("\n") + "\n\n" + "".join(section(n, specs[n]) for n in missing)
    return out.rstrip("\n") + "\n"
