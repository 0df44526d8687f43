"""Every committed stack, and a GB200 pool per cloud, with every optional feature:
validated, rendered, planned.

Features (tests/feature_matrix.py): teams (Kueue), MIG where the GPU has it,
Prometheus, NCCL acceptance, DRA, existing-cluster mode. Each one alone is
validated the way ``python -m gpu_fabric validate`` does and rendered; a
combination that cannot work must be refused there (exit 1, a message naming the
field), never crash later (exit 3). The variant with every supported feature on
is planned (own cluster and existing cluster) and its URNs are pinned under
tests/data/urns/matrix/ so a rename in the teams, acceptance or MIG parts is
caught like any stack's (``python -m tests.feature_matrix --write`` on purpose).
"""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from gpu_fabric.cli import main
from gpu_fabric.errors import SpecError
from gpu_fabric.plan import run_spec
from gpu_fabric.plan import urns as urnfile
from gpu_fabric.render import dump, layer_for
from gpu_fabric.spec import ClusterSpec
from tests import feature_matrix as fm

SINGLE = [(stack, feature) for stack in fm.available_stacks() for feature in fm.applicable(stack)]

# What each stack accepts, written out (not derived): the refusals are rules with
# their reasons in the validation message.
# - mig without the GPU Operator (GKE, EKS, DOKS run none by default): nothing reads the
#   nvidia.com/mig.config label (gpu_fabric.platform.check_mig).
# - do-h200 / do-mi300x dra: DOKS's managed GPU device plugin and the DRA driver exclude
#   each other (digitalocean.components.gpu_device_plugin).
# - do-mi300x acceptance: nccl-tests needs NVIDIA GPUs (rccl-tests not supported yet).
# - gcp-a3-mega dra: GPUDirect-TCPXO uses GKE multi-networking, not DRA.
# - do-mi300x mig: the MI300X has no MIG (not applicable, not refused).
ALL = ["teams", "mig", "prometheus", "acceptance", "dra", "existing"]
NO_MIG = ["teams", "prometheus", "acceptance", "dra", "existing"]
EXPECTED_SUPPORT = {
    "aws-p4d": NO_MIG,
    "aws-p5": NO_MIG,
    "azure-ndv4": ALL,
    "azure-ndv5": ALL,
    "do-h200": ["teams", "prometheus", "acceptance", "existing"],
    "do-mi300x": ["teams", "prometheus", "existing"],
    "existing": ["teams", "prometheus", "acceptance", "dra"],
    "gcp-a3-mega": ["teams", "prometheus", "acceptance", "existing"],
    "gcp-a3-ultra": NO_MIG,
    "gcp-a4": NO_MIG,
    "oci-a100": ALL,
    "oci-h100": ALL,
    # GB200 pools (tests/support/variants.gb200_spec); the GB200 has no MIG profile in the
    # catalog (not applicable). gb200-aws acceptance: no pinned arm64 build of the EFA
    # nccl-tests image (awsome-distributed-training 7217859
    # micro-benchmarks/nccl-tests/README.md line 71), refused (tests/nvlink/test_arm64.py).
    "gb200-gcp": NO_MIG,
    "gb200-aws": ["teams", "prometheus", "dra", "existing"],
    "gb200-azure": NO_MIG,
    "gb200-oci": NO_MIG,
}


def test_mig_and_dra_together_are_refused_at_validate() -> None:
    outcome = fm.validate(fm.with_features("oci-h100", ["mig", "dra"]))
    assert isinstance(outcome, SpecError)
    assert [p.path for p in outcome.problems] == ["node_pools[0].mig"]
    assert "ResourceClaimTemplates ask for whole GPUs" in outcome.problems[0].message


def test_the_matrix_covers_every_stack_with_the_expected_support() -> None:
    missing = sorted(set(fm.available_stacks()) - set(EXPECTED_SUPPORT))
    assert not missing, (
        "stacks without an EXPECTED_SUPPORT line in tests/test_feature_matrix.py; "
        "python scripts/add_stack.py NAME prints it (check each refusal is a rule): "
        + ", ".join(missing))
    gone = sorted(set(EXPECTED_SUPPORT) - set(fm.available_stacks()))
    assert not gone, f"EXPECTED_SUPPORT names stacks that no longer exist: remove {gone}"
    assert {s: fm.supported(s) for s in fm.available_stacks()} == EXPECTED_SUPPORT


def _stack_file(tmp_path: Path, raw: dict) -> Path:
    path = tmp_path / "Pulumi.matrix.yaml"
    path.write_text(yaml.safe_dump({"config": {"gpu-fabric:cluster": raw}}))
    return path


@pytest.mark.parametrize(("stack", "feature"), SINGLE)
def test_each_feature_validates_and_renders_or_is_refused_clearly(
    stack: str, feature: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    raw = fm.with_features(stack, [feature])
    outcome = fm.validate(raw)
    code = main(["validate", "--config", str(_stack_file(tmp_path, raw))])
    if isinstance(outcome, SpecError):
        assert code == 1, capsys.readouterr()
        assert outcome.problems
        for problem in outcome.problems:
            assert problem.path and problem.message, problem
        return
    assert code == 0, capsys.readouterr()
    assert isinstance(outcome, ClusterSpec)
    layer = layer_for(outcome)
    text = dump(layer.manifests())
    assert yaml.safe_load_all(text)
    assert layer.names


# Computed once at import (it validates every stack with each feature: seconds).
VARIANTS = fm.variants()


@pytest.mark.parametrize(("stack", "name", "features"), VARIANTS,
                         ids=[v[1] for v in VARIANTS])
def test_every_supported_feature_at_once_plans_with_pinned_urns(
    stack: str, name: str, features: list[str]
) -> None:
    plan = run_spec(fm.with_features(stack, features), stack=name)
    path = fm.URN_DIR / f"{name}.txt"
    assert path.is_file(), (f"no URN list for {name}: python -m tests.feature_matrix --write "
                            f"--stack {stack} (or python scripts/add_stack.py {stack})")
    problems = urnfile.check(plan, urnfile.read(path))
    assert problems == [], "\n".join(
        [*problems, f"if intended: python -m tests.feature_matrix --write --stack {stack}"])
    types = {r.type for r in plan.resources}
    if "teams" in features:
        assert "kubernetes:kueue.x-k8s.io/v1beta1:ClusterQueue" in types
        assert "kubernetes:kueue.x-k8s.io/v1beta1:WorkloadPriorityClass" in types
    if "mig" in features:
        assert any(r.name.endswith("configmap-gpu-operator-gpu-fabric-mig-parted")
                   for r in plan.resources), sorted(r.name for r in plan.resources)[:5]


def test_every_variant_has_a_committed_urn_list_and_no_stale_ones() -> None:
    names = {v[1] for v in VARIANTS}
    lists = {p.stem for p in fm.URN_DIR.glob("*.txt")}
    assert not names - lists, (f"no URN list for {sorted(names - lists)}: "
                               "python -m tests.feature_matrix --write --stack STACK")
    assert not lists - names, (f"stale lists {sorted(lists - names)}: git rm "
                               "tests/data/urns/matrix/<name>.txt")
