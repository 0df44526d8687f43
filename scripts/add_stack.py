"""Write every derived file of a new stack, in one command (issue 36).

``python scripts/add_stack.py NAME`` (or ``make stack-files STACK=NAME``), after
``stacks/Pulumi.NAME.yaml`` exists and validates. It writes, for that stack only:

1. its URN list, ``tests/data/urns/NAME.txt`` (``python -m gpu_fabric urns --write``);
2. the URN lists of its feature-matrix variants, ``tests/data/urns/matrix/NAME*.txt``
   (``python -m tests.feature_matrix --write --stack NAME``);
3. its golden render and plan, ``tests/data/golden/NAME/`` (``scripts/update_golden.py``);
4. the README's stack table and its ``docs/stacks.md`` section (``gpu_fabric docs --write``);

and prints the line ``tests/test_feature_matrix.py`` needs in ``EXPECTED_SUPPORT``
(written by hand on purpose: each refused feature must be a rule you agree with), then
the files to commit. Each step is the command a failing check names.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
for entry in (ROOT / "scripts", ROOT / "policy", ROOT / "components", ROOT):
    sys.path.insert(0, str(entry))

from gpu_fabric.cli import main as cli  # noqa: E402
from gpu_fabric.errors import SpecError  # noqa: E402
from gpu_fabric.plan import load_stack_file  # noqa: E402
from gpu_fabric.plan.stackfile import available_stacks  # noqa: E402
from gpu_fabric.preflight import check_spec  # noqa: E402
from gpu_fabric.spec import load_spec  # noqa: E402


def support_line(stack: str) -> str:
    """The EXPECTED_SUPPORT entry of ``stack`` as the feature matrix finds it."""
    from tests import feature_matrix as fm

    return f'    "{stack}": {fm.supported(stack)!r},'.replace("'", '"')


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("stack", help="the stack's name: stacks/Pulumi.<stack>.yaml")
    args = parser.parse_args(argv)
    stack = args.stack
    if stack not in available_stacks(ROOT / "stacks"):
        print(f"no stacks/Pulumi.{stack}.yaml: copy a stack file of the same cloud first "
              "(README, 'Add a stack', step 1)", file=sys.stderr)
        return 1
    try:
        file = load_stack_file(stack, root=ROOT / "stacks")
        check_spec(load_spec(file.cluster, source=str(file.path)), source=str(file.path))
    except SpecError as exc:
        print(exc.render(), file=sys.stderr)
        print(f"fix the stack file first: python -m gpu_fabric validate --stack {stack}",
              file=sys.stderr)
        return 1

    import update_golden  # scripts/, on the path above

    from tests import feature_matrix as fm

    steps = [
        ("URN list", lambda: cli(["urns", "--write", "--stack", stack])),
        ("feature-matrix URN lists", lambda: fm.main(["--write", "--stack", stack])),
        ("golden render and plan", lambda: update_golden.main(["--stack", stack])),
        ("README stack table, docs/stacks.md", lambda: cli(["docs", "--write"])),
    ]
    for what, step in steps:
        print(f"==> {what}", flush=True)
        code = step()
        if code:
            print(f"{what}: failed (exit {code})", file=sys.stderr)
            return code
    from tests.test_feature_matrix import EXPECTED_SUPPORT

    if stack not in EXPECTED_SUPPORT:
        print("==> add this line to EXPECTED_SUPPORT in tests/test_feature_matrix.py (each "
              "feature left out is refused by a rule: read its message in the test output):")
        print(support_line(stack))
    matrix = sorted(p.relative_to(ROOT).as_posix() for p in fm.URN_DIR.glob(f"{stack}*.txt")
                    if p.stem == stack or p.stem.startswith(f"{stack}-existing"))
    print("==> commit:", " ".join([
        f"stacks/Pulumi.{stack}.yaml", f"tests/data/urns/{stack}.txt", *matrix,
        f"tests/data/golden/{stack}/", "README.md", "docs/stacks.md",
        "tests/test_feature_matrix.py"]))
    return 0


if __name__ == "__main__":
    os.chdir(ROOT)  # the commands read the project of the working directory
    sys.exit(main())
