"""Mutation testing, one module at a time (``make mutation MODULE=verdict``).

Why a driver: mutmut 3 reads one ``[tool.mutmut]`` table and runs every mutant
against the tests it selects. Mutating catalog, spec, fabric, nccl and plan at
once against the whole suite takes hours on a small machine; each module has a
handful of tests that actually exercise it. This script gives mutmut, per
module, the file to mutate and those tests (the table below), runs it with one
worker by default, and prints killed / survived / score and the survivors.

It is not part of ``make test`` or CI: a run takes minutes, and the score is a
report (``docs/mutation.md``), not a gate.

mutmut copies the tree into ``./mutants`` (git-ignored); the folder is wiped
before each run so figures never mix two modules or two versions of the tests.
"""

from __future__ import annotations

import argparse
import fnmatch
import json
import shutil
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent

# module name -> (file or glob mutmut mutates, or a list of them; tests that exercise
# it). Keep the test lists small: every mutant runs them (mutmut first maps which
# tests reach which function, then runs only those). A package too big for one run
# (fabric) is split into several entries with a list of files each.
MODULES: dict[str, tuple[str | list[str], list[str]]] = {
    "verdict": (
        "components/gpu_fabric/nccl/verdict.py",
        [
            "tests/nccl/test_nccl_verdict.py",
            "tests/nccl/test_nccl_verdict_exact.py",
            "tests/nccl/test_nccl_parser.py",
        ],
    ),
    "parser": (
        "components/gpu_fabric/nccl/parser.py",
        [
            "tests/nccl/test_nccl_parser.py",
            "tests/nccl/test_nccl_parser_exact.py",
            "tests/nccl/test_nccl_verdict.py",
        ],
    ),
    # The acceptance test's plan and objects: pure calls only (the cluster-level tests
    # in test_nccl_manifests.py plan whole clusters, ~10 s each, too slow per mutant).
    "nccl-manifests": (
        "components/gpu_fabric/nccl/manifests.py",
        ["tests/nccl/test_nccl_manifests_exact.py"],
    ),
    "nccl-component": (
        "components/gpu_fabric/nccl/component.py",
        ["tests/nccl/test_nccl_component.py"],
    ),
    "nccl-plot": (
        "components/gpu_fabric/nccl/plot.py",
        ["tests/nccl/test_nccl_plot.py", "tests/nccl/test_nccl_plot_exact.py"],
    ),
    "catalog": (
        "components/gpu_fabric/catalog/*",
        [
            "tests/catalog/test_catalog.py",
            "tests/catalog/test_catalog_rules.py",
            "tests/catalog/test_catalog_rows.py",
            "tests/catalog/test_gpu_nic_pairing.py",
            "tests/nccl/test_nccl_verdict.py",
            "tests/nccl/test_nccl_verdict_exact.py",
            "tests/fabric/test_fabric_counts.py",
        ],
    ),
    "spec": (
        "components/gpu_fabric/spec/*",
        [
            "tests/spec/test_spec_exact.py",
            "tests/spec/test_spec.py",
            "tests/spec/test_spec_hints.py",
            # stop 40: the cross-field and multi-node NVLink messages written out
            "tests/spec/test_spec_nvlink_cross_field_exact.py",
            "tests/spec/test_spec_values_exact.py",
            "tests/spec/test_spec_pools_network_exact.py",
            "tests/cli/test_input_limits.py",
            # issues 29-36: the spec's new rules are refused through load_spec in these
            # (single specs, milliseconds each)
            "tests/inputs/test_tenancy_inputs.py",
            "tests/inputs/test_types_and_tags.py",
            "tests/inputs/test_cloud_names.py",
            "tests/inputs/test_network_inputs.py",
            "tests/inputs/test_maintenance_windows.py",
            "tests/inputs/test_gpu_sources.py",
            "tests/inputs/test_values.py",
            "tests/inputs/test_shell_injection.py",
            "tests/inputs/test_audit.py",
            "tests/health/test_spec.py",
        ],
    ),
    # The offline plan (diff, urns, stack files, YAML limits, the mock runtime, the fakes
    # loader) and each cloud's plan facts (replacing inputs, credential keys). Small
    # programs and unit tests only: every mutant of the runtime (runner, monitor,
    # values) reaches every test that plans, and a real stack plan takes seconds.
    "plan": (
        ["components/gpu_fabric/plan/*.py", "components/gpu_fabric/clouds/*/plan_facts.py"],
        [
            "tests/plan/test_plan_diff_exact.py",
            # Issue 32/34/36 modules of plan/ (day2, replacing_data, plaintext_secrets,
            # safe_yaml, stackfile, project, collector) and their own tests.
            "tests/plan/test_day2_verdict.py",
            "tests/plan/test_day2_verdict_exact.py",
            "tests/plan/test_plan_offline_refusals.py",
            "tests/plan/test_replace_names_edges.py",
            "tests/plan/test_stack_file_names.py",
            "tests/plan/test_replacing_data_readers.py",
            "tests/plan/test_diff_day2_lines.py",
            "tests/plan/test_diff_stacks_and_refusals.py",
            "tests/plan/test_safe_yaml_and_project_exact.py",
            "tests/inputs/test_plaintext_secrets_exact.py",
            # docs/day2.md, the runbook every verdict links to (copied: see _config).
            "tests/day2/test_runbook.py",
            # replacing_data: the extracted table and its readers (not the ~4 s re-extraction,
            # test_extraction_is_current_when_the_sources_are_here).
            "tests/day2/test_replacing_inputs.py::test_bridged_clouds_table_is_the_extraction",
            "tests/day2/test_replacing_inputs.py::test_every_entry_names_its_source_and_every_provider_its_chain",
            "tests/day2/test_replacing_inputs.py::test_known_force_new_marks",
            "tests/day2/test_replacing_inputs.py::test_diff_reads_prefixes_blocks_and_their_ancestors",
            "tests/day2/test_replacing_inputs.py::test_kubernetes_table_from_pulumi_kubernetes",
            "tests/day2/test_replacing_inputs.py::test_a_job_template_change_replaces_the_job_but_is_not_expensive",
            "tests/day2/test_replacing_inputs.py::test_aws_marks_read_from_terraform_provider_aws",
            "tests/day2/test_replacing_inputs.py::test_aws_verdicts_follow_the_provider",
            "tests/day2/test_replacing_inputs.py::test_aws_launch_template_and_egress_rule_marks",
            "tests/day2/test_replacing_inputs.py::test_aws_pin_lower_bound_is_in_the_pinned_sdk",
            "tests/day2/test_replacing_inputs.py::test_a_launch_template_change_is_a_new_version_not_a_replacement",
            "tests/day2/test_replacing_inputs.py::test_the_node_group_rolls_through_the_new_template_version",
            "tests/day2/test_replacing_inputs.py::test_an_egress_rule_replaces_only_with_its_security_group",
            "tests/day2/test_replacing_inputs.py::test_the_project_sets_only_inputs_whose_marks_were_read",
            # chart_diff with the real helm: a tiny chart built per test (~0.2 s a render),
            # and the git-ref reader; not the Kyverno renders of test_chart_diff.py (seconds
            # each, every mutant of release_changes would run them; make test does).
            "tests/helm/test_chart_diff_exact.py",
            "tests/helm/test_chart_diff.py::test_archives_are_read_from_the_git_ref",
            "tests/helm/test_chart_diff.py::test_unchanged_releases_are_not_listed",
            # (not its scripts/install_helm.py test: scripts/ is not in mutmut's copy)
            "tests/helm/test_helm_render_functions.py::test_an_oci_chart_is_named_by_its_last_segment",
            "tests/helm/test_helm_render_functions.py::test_a_bare_equals_sign_reads_as_a_string",
            "tests/helm/test_helm_render_functions.py::test_object_changes_lists_added_removed_and_changed_objects_only",
            "tests/helm/test_helm_render_functions.py::test_a_changed_workload_says_whether_its_pods_are_replaced",
            "tests/helm/test_helm_render_functions.py::test_helm_is_found_through_the_environment_first",
            "tests/helm/test_helm_render_functions.py::test_a_failing_template_raises_with_helms_message",
            "tests/helm/test_helm_render_exact.py",
            "tests/clouds/azure/test_azure_replacing_inputs.py",
            "tests/inputs/test_plaintext_secrets.py",
            "tests/inputs/test_types_and_tags.py",
            "tests/inputs/test_files_and_programs.py",
            "tests/plan/test_preview_and_secrets.py",
            "tests/plan/test_replace_names.py",
            "tests/plan/test_secret_values.py",
            "tests/plan/test_plan_model_urns.py",
            "tests/plan/test_plan_runtime.py",
            "tests/plan/test_plan_inputs_exact.py",
            "tests/plan/test_plan_offline.py",
            "tests/plan/test_diff.py::test_changed_paths_name_the_leaves",
            "tests/plan/test_diff.py::test_not_a_plan_is_refused",
            "tests/plan/test_diff.py::test_cli_diff_usage_and_bad_files",
            "tests/plan/test_plan_runner.py",
            "tests/plan/test_plan_deterministic.py",
            "tests/cli/test_input_limits.py",
            "tests/cli/test_team_repo.py",
            "tests/plan/test_urn_stability.py::test_rename_with_alias_is_recorded_as_retired",
            "tests/plan/test_urn_stability.py::test_rename_without_alias_is_refused_unless_allowed",
            "tests/plan/test_urn_stability.py::test_new_resource_is_reported",
            "tests/test_architecture.py::test_a_cloud_without_fakes_fails_loudly_instead_of_being_skipped",
            "tests/test_architecture.py::test_each_clouds_fakes_live_in_its_folder",
            "tests/test_architecture.py::test_every_cloud_has_offline_fakes",
            "tests/test_architecture.py::test_every_cloud_states_its_plan_facts_for_its_own_provider",
            "tests/test_architecture.py::test_a_cloud_without_plan_facts_fails_loudly",
            "tests/test_architecture.py::test_plan_facts_of_the_wrong_shape_fail_loudly",
            "tests/test_architecture.py::test_fakes_without_both_tables_fail_loudly",
            "tests/test_architecture.py::test_the_planner_merges_every_clouds_facts",
        ],
    ),
    # The offline answers of each cloud's SDK (gpu_fabric/clouds/<cloud>/fakes.py).
    "plan-fakes": ("components/gpu_fabric/clouds/*/fakes.py", ["tests/plan/test_plan_fakes.py"]),
    # Each cloud's provider, its checks and its region table (clouds/<cloud>/), the
    # registry, and the generic modules that only ask the provider (preflight, API
    # access and encryption, regions, address plans, SDK extras). Unit tests and
    # single-spec checks only: no test here plans a stack.
    "clouds": (
        [
            "components/gpu_fabric/clouds/*/provider.py",
            "components/gpu_fabric/clouds/*/checks.py",
            "components/gpu_fabric/clouds/*/regions.py",
            "components/gpu_fabric/clouds/registry.py",
            "components/gpu_fabric/preflight.py",
            "components/gpu_fabric/security.py",
            "components/gpu_fabric/regions.py",
            "components/gpu_fabric/addressing.py",
            "components/gpu_fabric/sdks.py",
        ],
        [
            "tests/clouds/test_clouds_exact.py",
            "tests/test_api_access.py",
            "tests/cli/test_input_limits.py",
            "tests/spec/test_spec_exact.py",
            "tests/test_extras.py",
            "tests/spec/test_one_validation_path.py",
            "tests/test_cloud_names.py",
            # issues 29-36: each provider's tag rules and system-pool machine naming
            "tests/inputs/test_cloud_names.py",
            "tests/inputs/test_types_and_tags.py",
            "tests/clouds/test_provider_records_exact.py",
            "tests/inputs/test_network_inputs.py",
        ],
    ),
    # components/gpu_fabric/fabric, split in three runs (one run of the whole package against
    # all its tests takes hours on the 2-core sandbox).
    "fabric-logic": (
        [
            "components/gpu_fabric/fabric/derive.py",
            "components/gpu_fabric/fabric/injection.py",
            "components/gpu_fabric/fabric/shapes.py",
            "components/gpu_fabric/fabric/naming.py",
            "components/gpu_fabric/fabric/taints.py",
            "components/gpu_fabric/fabric/problems.py",
            "components/gpu_fabric/fabric/workload.py",
            "components/gpu_fabric/fabric/model.py",
        ],
        [
            "tests/fabric/test_fabric_logic_exact.py",
            "tests/fabric/test_injection.py",
            "tests/fabric/test_workload.py",
            "tests/fabric/test_fabric_counts.py",
            "tests/clouds/test_do_gcp_pod_shapes.py",
            "tests/fabric/test_dra_rails.py",
            "tests/fabric/test_fabric_dra.py",
            "tests/fabric/test_pod_admission.py",
        ],
    ),
    "fabric-manifests": (
        "components/gpu_fabric/fabric/manifests/*.py",
        [
            # rdma_shared / SR-IOV IB (no other test reaches them)
            "tests/clouds/azure/test_azure_layer.py",
            "tests/fabric/test_fabric_counts.py",
            "tests/fabric/test_fabric_dra.py",
            "tests/clouds/oci/test_oci_fabric.py",
            "tests/fabric/test_fabric_seed_do.py",
            "tests/clouds/gcp/test_gcp_gpudirect_tcpx.py",
            "tests/fabric/test_dra_rails.py",
            "tests/fabric/test_fabric_namespaces.py",
            "tests/fabric/test_node_agent_confinement.py",
            # one literal, upstream-cited test file per builder group
            "tests/fabric/test_fabric_manifests_*_exact.py",
        ],
    ),
    "fabric-layer": (
        [
            "components/gpu_fabric/fabric/layer.py",
            "components/gpu_fabric/fabric/parts.py",
            "components/gpu_fabric/fabric/addons/*.py",
            "components/gpu_fabric/fabric/description.py",
            "components/gpu_fabric/fabric/plugins.py",
            "components/gpu_fabric/fabric/resources.py",
            "components/gpu_fabric/fabric/stack.py",
            "components/gpu_fabric/fabric/plugin_guards.py",
        ],
        [
            "tests/fabric/test_fabric_dra.py",
            "tests/clouds/oci/test_oci_fabric.py",
            "tests/fabric/test_fabric_seed_do.py",
            "tests/clouds/gcp/test_gcp_gpudirect_tcpx.py",
            "tests/fabric/test_fabric_namespaces.py",
            "tests/fabric/test_fabric_counts.py",
            "tests/fabric/test_node_agent_confinement.py",
            "tests/fabric/test_pod_admission.py",
            # one literal test file per part of the layer (parts, logic, the Pulumi stack)
            "tests/fabric/test_fabric_layer_*_exact.py",
            "tests/fabric/test_fabric_plugin_guards.py",
            "tests/fabric/test_fabric_stack_waits_exact.py",
        ],
    ),
}

# module name -> globs left out of the module's glob (mutmut's do_not_mutate). mutmut
# matches globs with fnmatch, where ``*`` spans "/": "components/gpu_fabric/plan/*.py" also
# takes plan/fakes/__init__.py, the generic fakes loader, which belongs to "plan".
EXCLUDE: dict[str, list[str]] = {}

# mutmut exit codes (mutmut/stats.py, 3.8.1) folded into the three figures we report.
KILLED = {1, 3, 36, 37, -24, 24, 152, 255}  # failed test, pytest error, timeout, type check
SURVIVED = {0}


def _globs(module: str) -> list[str]:
    """The module's file globs (one string or a list in :data:`MODULES`)."""
    path = MODULES[module][0]
    return [path] if isinstance(path, str) else list(path)


def _tests(module: str) -> list[str]:
    """The module's test selection, with file globs expanded (pytest does not expand them).

    A glob such as ``tests/fabric/test_fabric_manifests_*_exact.py`` lets a new exact-test file
    join an entry without editing this table; a glob that matches nothing is dropped.
    """
    selection: list[str] = []
    for test in MODULES[module][1]:
        if any(char in test for char in "*?["):
            selection.extend(sorted(p.relative_to(ROOT).as_posix() for p in ROOT.glob(test)))
        else:
            selection.append(test)
    return selection


def _config(module: str) -> dict[str, Any]:
    tests = _tests(module)
    return {
        "source_paths": ["components/gpu_fabric/"],
        "only_mutate": _globs(module),
        "do_not_mutate": EXCLUDE.get(module, []),
        "pytest_add_cli_args_test_selection": tests,
        "pytest_add_cli_args": ["-p", "no:cacheprovider", "-q"],
        # charts/: the vendored archives tests/helm renders with the real helm (found beside
        # the venv's python, which mutmut's workers share); docs/: the runbook that
        # tests/day2/test_runbook.py reads (docs/day2.md).
        "also_copy": ["tests/", "pyproject.toml", "policy/", "stacks/", "examples/", "schema/",
                      "charts/", "docs/"],
    }


def _patch_config(module: str) -> None:
    """Replace mutmut's config reader (it only reads pyproject.toml / setup.cfg).

    Done before ``mutmut.__main__`` is imported: that import already reads it.
    """
    import mutmut.configuration as configuration

    _patch_names()
    table = _config(module)

    def reader() -> Any:
        return lambda key, default: table.get(key, default)

    configuration._config_reader = reader


def _patch_names() -> None:
    """Name mutants by the module the tests import (``gpu_fabric.x``), not by the path.

    mutmut 3.8.1 names a mutant after its file's path and strips only a ``src.``
    prefix (``utils/format_utils.get_mutant_name``); the package lives in
    ``components/gpu_fabric`` and is imported as ``gpu_fabric``, so without this no
    test hit matches a mutant ("tests recorded trampoline hits but none match") and a
    run counts every mutant as unrun. Done before ``mutmut.__main__`` is imported: it
    imports the function by name.
    """
    import mutmut.mutation.file_mutation as file_mutation
    from mutmut.utils import format_utils

    if getattr(format_utils.get_mutant_name, "patched", False):
        return
    original = format_utils.get_mutant_name

    def named(relative_source_path: Path, mutant_method_name: str) -> str:
        name: str = original(relative_source_path, mutant_method_name)
        return name.removeprefix("components.")

    named.patched = True  # type: ignore[attr-defined]
    format_utils.get_mutant_name = named
    file_mutation.get_mutant_name = named


def _run_mutmut(module: str, max_children: int, mutants: list[str] | None = None) -> None:
    """Run mutmut in this process with the module's configuration.

    Workers are forked from this process (mutmut's default isolation), so they
    see the same configuration. ``mutants``: only these mutant names (fnmatch
    globs such as ``gpu_fabric.fabric.shapes.*``); the others are left unrun.
    """
    _patch_config(module)
    from mutmut.__main__ import cli

    try:
        cli.main(["run", "--max-children", str(max_children), *(mutants or [])],
                 standalone_mode=False)
    except SystemExit as exit_:  # mutmut exits non-zero when mutants survive
        if exit_.code not in (0, None, 1):
            raise


def _show(module: str, mutant: str) -> int:
    _patch_config(module)
    from mutmut.__main__ import cli

    cli.main(["show", mutant], standalone_mode=False)
    return 0


def _mutated(module: str, source: str) -> bool:
    """Whether mutmut mutated ``source`` for ``module``: its own fnmatch rules, not Path.glob.

    (``Path.glob("gpu_fabric/plan/*.py.meta")`` would miss ``gpu_fabric/plan/fakes/``,
    which mutmut's fnmatch of ``components/gpu_fabric/plan/*.py`` does mutate.)
    """
    return any(fnmatch.fnmatch(source, path) for path in _globs(module)) and not any(
        fnmatch.fnmatch(source, pattern) for pattern in EXCLUDE.get(module, [])
    )


def _results(module: str) -> tuple[Counter[str], list[str]]:
    mutants = ROOT / "mutants"
    codes: dict[str, int | None] = {}
    for meta in sorted(mutants.rglob("*.meta")):
        if _mutated(module, meta.relative_to(mutants).as_posix().removesuffix(".meta")):
            codes.update(json.loads(meta.read_text())["exit_code_by_key"])
    counts: Counter[str] = Counter()
    survivors = []
    for name, code in sorted(codes.items()):
        if code in KILLED:
            counts["killed"] += 1
        elif code in SURVIVED:
            counts["survived"] += 1
            survivors.append(name)
        else:
            counts[f"other (exit {code})"] += 1
    return counts, survivors


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("module", choices=sorted(MODULES))
    parser.add_argument("--max-children", type=int, default=1)
    parser.add_argument("--show", metavar="MUTANT", help="print one mutant's diff of the last run")
    parser.add_argument(
        "--mutants", nargs="+", metavar="GLOB",
        help="run only these mutants (name globs, e.g. 'gpu_fabric.fabric.shapes.*'): a "
             "partial run when the whole module takes too long; unrun mutants are counted "
             "as 'other (exit None)'",
    )
    parser.add_argument(
        "--tests", nargs="+", metavar="FILE",
        help="run the mutants against these test files instead of the module's list (a "
             "faster, smaller selection: the kills are then a lower bound)",
    )
    args = parser.parse_args(argv)
    if args.tests:
        MODULES[args.module] = (MODULES[args.module][0], list(args.tests))

    import os

    os.chdir(ROOT)
    if args.show:
        return _show(args.module, args.show)
    shutil.rmtree(ROOT / "mutants", ignore_errors=True)
    start = time.monotonic()
    _run_mutmut(args.module, args.max_children, args.mutants)
    minutes = (time.monotonic() - start) / 60
    counts, survivors = _results(args.module)
    total = sum(counts.values())
    score = 100 * counts["killed"] / total if total else 0.0
    print()
    print(f"module   {args.module} ({', '.join(_globs(args.module))})")
    for name in survivors:
        print(f"survived {name}")
    print(
        f"killed {counts['killed']} / {total}, survived {counts['survived']}, "
        f"other {total - counts['killed'] - counts['survived']}: "
        f"score {score:.1f} % in {minutes:.1f} min"
    )
    print(f"inspect one: python scripts/mutation.py {args.module} --show <name>")
    return 0


if __name__ == "__main__":
    sys.exit(main())
