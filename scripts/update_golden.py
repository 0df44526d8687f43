"""Write (or check) the golden render and plan of every committed stack.

``make golden`` / ``python scripts/update_golden.py``: re-writes
``tests/data/golden/<stack>/`` (the files ``render --stack S`` writes and the
``plan --stack S --json`` output) from the current code, so an intended change
of output is one command and reviewed as a diff (tests/plan/test_golden.py compares).
``--check`` only compares and exits 1 on a difference, printing the diff.

The logic lives in tests/support/golden.py so the test and this script cannot
disagree about what a golden file is.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# This checkout's code, not an installed copy (as pytest's pythonpath does).
for entry in (ROOT / "policy", ROOT / "components", ROOT):
    sys.path.insert(0, str(entry))

from gpu_fabric.plan import load_stack_file, run_plan  # noqa: E402
from gpu_fabric.plan.stackfile import available_stacks  # noqa: E402
from tests.support import golden  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--stack", action="append", help="stack (repeatable; default: all)")
    parser.add_argument("--check", action="store_true", help="compare only; exit 1 on a diff")
    args = parser.parse_args(argv)
    known = available_stacks()
    unknown = sorted(set(args.stack or ()) - set(known))
    if unknown:
        parser.error(f"--stack {', '.join(unknown)}: not a committed stack; one of {known}")
    differs = False
    for stack in args.stack or known:
        files = golden.current(stack, run_plan(load_stack_file(stack)))
        if args.check:
            problems = golden.differences(stack, files, golden.committed(stack))
            print("\n".join(problems) if problems else f"{stack}: golden files match")
            differs = differs or bool(problems)
            continue
        changed = golden.write(stack, files)
        size = sum(len(text.encode()) for text in files.values())
        print(f"{stack}: {len(files)} files, {size} bytes, {len(changed)} changed"
              + "".join(f"\n  {name}" for name in changed))
    if not args.stack and not args.check:
        for orphan in sorted(p.name for p in golden.GOLDEN_DIR.iterdir()
                             if p.is_dir() and p.name not in known):
            print(f"{orphan}: golden files of a stack that no longer exists; git rm -r it")
    if args.check and differs:
        print(f"to accept: {golden.UPDATE}")
    return 1 if differs else 0


if __name__ == "__main__":
    sys.exit(main())
