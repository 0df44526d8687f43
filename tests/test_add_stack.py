"""Adding a stack by following the README, in a copy of the repository (issue 36).

The README's "Add a stack" steps are run as written (the commands are read from the
README, with ``<name>`` replaced), adding ``aws-p5en-4`` (4 x p5en.48xlarge, the stack
the issue added by hand); then the stack-parametrised tests run on it with
``-k aws-p5en-4``. Before issue 36 this failed at the matrix URN lists (not in the
README) and at EXPECTED_SUPPORT (a failure that named no fix).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
NAME = "aws-p5en-4"
# The tests that take every stack as a parameter (and the ones that list them).
STACK_TESTS = [
    "tests/plan/test_golden.py", "tests/plan/test_urn_stability.py",
    "tests/test_feature_matrix.py", "tests/cli/test_docs_generated.py",
]


def _readme_steps() -> list[str]:
    """The commands of the README's "Add a stack" steps 2-4, ``<name>`` replaced."""
    text = (ROOT / "README.md").read_text()
    section = text[text.index("## Add a stack\n"):text.index("To remove a stack:")]
    commands = re.findall(r"`((?:python|make) [^`]*<name>[^`]*)`", section)
    return [c.replace("<name>", NAME) for c in commands]


def _copy(tmp: Path) -> Path:
    files = subprocess.run(["git", "ls-files", "-co", "--exclude-standard"], cwd=ROOT,
                           capture_output=True, text=True, check=True).stdout.splitlines()
    copy = tmp / "repo"
    for name in files:
        source = ROOT / name
        if source.is_file():
            target = copy / name
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target)
    return copy


def _run(command: str, repo: Path) -> subprocess.CompletedProcess[str]:
    args = command.split()
    if args[0] == "python":
        args[0] = sys.executable
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        [str(repo / "components"), str(repo / "policy"), str(repo)])}
    return subprocess.run(args, cwd=repo, env=env, capture_output=True, text=True,
                          timeout=900)


def test_the_readme_names_each_step_command() -> None:
    assert _readme_steps() == [
        "python -m gpu_fabric validate --stack aws-p5en-4",
        "python -m gpu_fabric plan --stack aws-p5en-4",
        "python scripts/add_stack.py aws-p5en-4",
        "make stack-files STACK=aws-p5en-4",
        "python -m pytest -k aws-p5en-4",
    ]


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git to list the files")
def test_a_stack_added_by_the_readme_passes_its_tests(tmp_path: Path) -> None:
    repo = _copy(tmp_path)
    # Step 1: copy a stack file of the same cloud, edit name, pool and machine.
    text = (repo / "stacks" / "Pulumi.aws-p5.yaml").read_text()
    cluster = re.search(r"^    name: (\S+)$", text, re.M)
    assert cluster, "stacks/Pulumi.aws-p5.yaml has a cluster name"
    text = text.replace(f"    name: {cluster.group(1)}\n", "    name: eks-p5en\n", 1)
    text = text.replace("machine_type: p5.48xlarge", "machine_type: p5en.48xlarge")
    text = re.sub(r"node_count: \d+", "node_count: 4", text, count=1)
    (repo / "stacks" / f"Pulumi.{NAME}.yaml").write_text(text)
    # Steps 2-4, as the README writes them (the make target is step 4's alternative).
    for command in _readme_steps()[:3]:
        done = _run(command, repo)
        assert done.returncode == 0, f"{command}:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    out = done.stdout
    # Step 5: the EXPECTED_SUPPORT line the script printed.
    line = next(x for x in out.splitlines() if x.startswith(f'    "{NAME}": '))
    assert line == f'    "{NAME}": ["teams", "prometheus", "acceptance", "dra", "existing"],'
    tests = repo / "tests" / "test_feature_matrix.py"
    tests.write_text(tests.read_text().replace("EXPECTED_SUPPORT = {\n",
                                               f"EXPECTED_SUPPORT = {{\n{line}\n", 1))
    # Step 8's list: every file the stack needs exists.
    for path in (f"tests/data/urns/{NAME}.txt", f"tests/data/urns/matrix/{NAME}.txt",
                 f"tests/data/urns/matrix/{NAME}-existing.txt",
                 f"tests/data/golden/{NAME}/plan.json"):
        assert (repo / path).is_file(), path
    assert f"## {NAME}" in (repo / "docs" / "stacks.md").read_text()
    # Step 7, on the stack-parametrised tests only (fast).
    done = _run(f"python -m pytest -v -p no:randomly -p no:cacheprovider -k {NAME} "
                + " ".join(STACK_TESTS), repo)
    assert done.returncode == 0, done.stdout[-5000:]
    # golden render + plan, URNs, the matrix's 6 single features and 2 variants: 11 tests
    # select the new stack (none is skipped or deselected silently).
    assert re.search(r"\b11 passed\b", done.stdout), done.stdout[-3000:]
